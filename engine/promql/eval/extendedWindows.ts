/**
 * Per-series evaluation of rate, increase, delta, resets and changes over anchored or smoothed
 * windows (see extendedRange.ts for the arithmetic). Windows holding native histograms go to
 * extendedHistograms.ts; a window mixing floats and histograms gives Prometheus' warning.
 */
import type { PositionRange } from '../../errors.js';
import type { EvalContext } from './context.js';
import { anchoredCount, extendedBounds, extendedRate } from './extendedRange.js';
import { extendedHistogramRate } from './extendedHistograms.js';
import type { KernelOutput } from './kernels/types.js';
import { metricNameOf } from './labelset.js';
import type { HistogramSlots, RawSeries } from './series.js';
import type { RangeInput } from './value.js';

/** extendedWindows computes function `name` at every step for one series. */
export function extendedWindows(ctx: EvalContext, name: string, s: RawSeries, input: RangeInput, pos: PositionRange): KernelOutput & { histograms?: HistogramSlots } {
  const extended = input.extended!;
  const count = input.refs.length;
  const lo = new Int32Array(count);
  const hi = new Int32Array(count);
  ctx.checkTransient(extendedBounds(s.ts, input.refs, input.rangeMs, extended, lo, hi));
  const out: KernelOutput & { histograms?: HistogramSlots } = { values: new Float64Array(count), present: new Uint8Array(count) };
  const smoothed = extended.mode === 'smoothed';
  const hists = s.hists;
  for (let i = 0; i < count; i++) {
    const from = lo[i];
    const to = hi[i];
    if (to <= from) continue;
    const end = input.refs[i];
    let value: number | null;
    if (name === 'resets' || name === 'changes') {
      value = anchoredCount(s.ts, s.vals, hists, from, to, end, input.rangeMs, name === 'resets');
    } else {
      let histograms = 0;
      if (hists !== undefined) for (let k = from; k < to; k++) if (hists[k] !== undefined) histograms++;
      if (histograms > 0 && histograms < to - from) {
        ctx.histogramNotes.mixedFloatsAndHistograms(metricNameOf(s.labels), pos);
        continue;
      }
      if (histograms > 0) {
        const h = extendedHistogramRate(ctx, s, from, to, end, input.rangeMs, smoothed, name, pos);
        if (h === null) continue;
        (out.histograms ??= new Array(count))[i] = h;
        out.present[i] = 1;
        continue;
      }
      value = extendedRate(s.ts, s.vals, from, to, end, input.rangeMs, smoothed, name !== 'delta', name === 'rate');
    }
    if (value === null) continue;
    out.values[i] = value;
    out.present[i] = 1;
  }
  return out;
}
