/**
 * Anchored and smoothed windows over native histograms: rate, increase and delta take the
 * difference of the boundary histograms (interpolated when smoothed) plus the counter resets
 * inside, and a smoothed instant selector interpolates the histogram at each step. Mirrors the
 * float arithmetic of extendedRange.ts, with Prometheus' annotations for histograms.
 */
import type { PositionRange } from '../../errors.js';
import { compact, copyHistogram, CounterResetHint, detectReset, divide, scale, usesCustomBuckets, type FloatHistogram } from '../../histogram/floatHistogram.js';
import type { EvalContext } from './context.js';
import { tryCombine, type SeriesNotes } from './histogramWindows.js';
import { searchAfter, searchAtOrAfter } from './extendedRange.js';
import { metricNameOf } from './labelset.js';
import type { RawSeries } from './series.js';

/**
 * interpolate is the histogram at `t` between two samples: h1 + (h2 - h1) * fraction, or, for a
 * counter that reset between them, h2 scaled by the fraction (the counter restarting from 0).
 */
function interpolate(h1: FloatHistogram, t1: number, h2: FloatHistogram, t2: number, t: number, isCounter: boolean, notes: SeriesNotes): FloatHistogram | null {
  if (t === t1) return copyHistogram(h1);
  if (t === t2) return copyHistogram(h2);
  const fraction = (t - t1) / (t2 - t1);
  if (isCounter && detectReset(h2, h1)) return scale(h2, fraction);
  const diff = tryCombine(h2, h1, -1, notes, 'subtraction');
  if (diff === null) return null;
  return tryCombine(scale(diff, fraction), h1, 1, notes, 'addition');
}

/** correction sums the histograms just before each counter reset inside the window, or null when none. */
function correction(
  s: RawSeries,
  first: number,
  last: number,
  left: FloatHistogram,
  right: FloatHistogram,
  start: number,
  smoothed: boolean,
  notes: SeriesNotes,
): { ok: boolean; sum: FloatHistogram | null } {
  const h = s.hists!;
  let from = first + 1;
  let prev = left;
  if (smoothed && s.ts[first] < start && detectReset(h[first + 1]!, h[first]!)) {
    // The left interpolation already spanned this reset.
    prev = h[first + 1]!;
    from++;
  }
  const to = last - 1;
  if (from > to + 1) return { ok: true, sum: null };
  let sum: FloatHistogram | null = null;
  const add = (x: FloatHistogram): boolean => {
    if (sum === null) {
      sum = copyHistogram(x);
      return true;
    }
    sum = tryCombine(sum, x, 1, notes, 'addition');
    return sum !== null;
  };
  for (let k = from; k <= to; k++) {
    const cur = h[k]!;
    if (detectReset(cur, prev) && !add(prev)) return { ok: false, sum: null };
    prev = cur;
  }
  if (detectReset(right, prev) && !add(prev)) return { ok: false, sum: null };
  return { ok: true, sum };
}

/** extendedHistogramRate is rate, increase or delta over an anchored or smoothed window of histograms [from, to). */
export function extendedHistogramRate(
  ctx: EvalContext,
  s: RawSeries,
  from: number,
  to: number,
  end: number,
  rangeMs: number,
  smoothed: boolean,
  name: string,
  pos: PositionRange,
): FloatHistogram | null {
  const ts = s.ts;
  const h = s.hists!;
  const isCounter = name !== 'delta';
  const notes: SeriesNotes = { ctx, metricName: metricNameOf(s.labels), pos };
  const start = end - rangeMs;
  let last = to - 1;
  const first = Math.max(from, searchAfter(ts, from, last, start) - 1);
  if (smoothed) last = searchAtOrAfter(ts, from, last, end);
  if (ts[last] <= start) return null;
  if (smoothed && ts[first] > end) return null;
  const custom = usesCustomBuckets(h[first]!);
  for (let k = first; k <= last; k++) {
    if (usesCustomBuckets(h[k]!) !== custom) {
      ctx.histogramNotes.mixedExponentialAndCustom(notes.metricName, pos);
      return null;
    }
    if (isCounter && h[k]!.counterResetHint === CounterResetHint.Gauge) ctx.histogramNotes.notCounter(notes.metricName, pos);
  }
  const left = smoothed && ts[first] < start ? interpolate(h[first]!, ts[first], h[first + 1]!, ts[first + 1], start, isCounter, notes) : copyHistogram(h[first]!);
  if (left === null) return null;
  const right = smoothed && last > from && ts[last] > end ? interpolate(h[last - 1]!, ts[last - 1], h[last]!, ts[last], end, isCounter, notes) : copyHistogram(h[last]!);
  if (right === null) return null;
  if (!isCounter && (left.counterResetHint !== CounterResetHint.Gauge || right.counterResetHint !== CounterResetHint.Gauge)) {
    ctx.histogramNotes.notGauge(notes.metricName, pos);
  }
  let result = tryCombine(right, left, -1, notes, 'subtraction');
  if (result === null) return null;
  if (isCounter) {
    const c = correction(s, first, last, left, right, start, smoothed, notes);
    if (!c.ok) return null;
    if (c.sum !== null) {
      result = tryCombine(result, c.sum, 1, notes, 'addition');
      if (result === null) return null;
    }
  }
  if (name === 'rate') result = divide(result, rangeMs / 1000);
  return compact({ ...result, counterResetHint: CounterResetHint.Gauge });
}

/**
 * smoothedHistogram is a smoothed instant selector's histogram at `t` from samples [from, to)
 * (all histograms): the sample at t, the interpolation between its neighbours (as a counter
 * unless both are gauges), or the last one before t with its reset hint cleared.
 */
export function smoothedHistogram(ctx: EvalContext, s: RawSeries, from: number, to: number, t: number, pos: PositionRange): FloatHistogram | null {
  const h = s.hists!;
  const i = searchAtOrAfter(s.ts, from, to, t);
  if (i < to && s.ts[i] === t) return copyHistogram(h[i]!);
  if (i > from && i < to) {
    const prev = h[i - 1]!;
    const next = h[i]!;
    const notes: SeriesNotes = { ctx, metricName: metricNameOf(s.labels), pos };
    if (usesCustomBuckets(prev) !== usesCustomBuckets(next)) {
      ctx.histogramNotes.mixedExponentialAndCustom(notes.metricName, pos);
      return null;
    }
    const isCounter = prev.counterResetHint !== CounterResetHint.Gauge || next.counterResetHint !== CounterResetHint.Gauge;
    return interpolate(prev, s.ts[i - 1], next, s.ts[i], t, isCounter, notes);
  }
  if (i > from) return { ...copyHistogram(h[i - 1]!), counterResetHint: CounterResetHint.Unknown };
  return null;
}
