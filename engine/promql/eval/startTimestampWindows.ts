/**
 * rate, increase, irate and resets over series that carry start timestamps, as Prometheus
 * computes them with use-start-timestamps: a start timestamp after the previous sample marks a
 * counter reset even when the value did not drop, and a first sample whose start timestamp
 * falls inside the window counts from zero at that time instead of extrapolating to the left.
 * Series read through a subquery have no start timestamps and never come here.
 */
import type { PositionRange } from '../../errors.js';
import { quoteGoString } from '../../common/quote.js';
import type { EvalContext } from './context.js';
import type { KernelOutput } from './kernels/types.js';
import { metricNameOf } from './labelset.js';
import { windowBounds } from './selectors.js';
import type { RawSeries } from './series.js';
import type { RangeInput } from './value.js';

/** START_TIMESTAMP_FUNCTIONS read start timestamps. */
export const START_TIMESTAMP_FUNCTIONS: ReadonlySet<string> = new Set(['rate', 'increase', 'irate', 'resets']);

/** isStartTimestampReset tells whether the current sample's start timestamp marks a reset. */
export function isStartTimestampReset(prevSt: number, prevT: number, curSt: number, curT: number): boolean {
  // Unset, invalid (after the sample) or OTel's unknown start (at the sample): no reset.
  if (curSt === 0 || curSt >= curT) return false;
  if (curSt < prevT) return false;
  if (curSt > prevT) return true;
  // Pointing at the previous sample: a delta (a reset) unless the previous start is unknown.
  if (prevSt > prevT) return false;
  return prevSt !== 0 && prevSt !== prevT;
}

/** overlaps tells whether a start timestamp reaches back before the previous sample without matching its start. */
function overlaps(prevSt: number, prevT: number, curSt: number): boolean {
  return curSt !== 0 && curSt < prevT && curSt !== prevSt;
}

/** extrapolatedRate is rate or increase over samples [lo, hi) of one window, with start timestamps. */
function extrapolatedRate(ctx: EvalContext, s: RawSeries, lo: number, hi: number, end: number, rangeMs: number, isRate: boolean, pos: PositionRange): number | null {
  const { ts, vals } = s;
  const sts = s.sts!;
  const n = hi - lo;
  const first = lo;
  const last = hi - 1;
  const start = end - rangeMs;
  let result = vals[last] - vals[first];
  let warned = false;
  for (let i = first + 1; i <= last; i++) {
    if (!warned && overlaps(sts[i - 1], ts[i - 1], sts[i])) {
      ctx.annotations.warn(`sample has start time that overlaps with previous sample timestamp for metric ${quoteGoString(metricNameOf(s.labels))}`, pos);
      warned = true;
    }
    if (vals[i] < vals[i - 1] || isStartTimestampReset(sts[i - 1], ts[i - 1], sts[i], ts[i])) result += vals[i - 1];
  }
  let durationToStart = (ts[first] - start) / 1000;
  let durationToEnd = (end - ts[last]) / 1000;
  let sampledInterval = (ts[last] - ts[first]) / 1000;
  const average = n > 1 ? sampledInterval / (n - 1) : 0;
  const threshold = average * 1.1;
  const st0 = sts[first];
  if (st0 !== 0 && st0 > start && st0 < ts[first]) {
    // The counter started inside the window: count from zero at its start.
    durationToStart = 0;
    sampledInterval = (ts[last] - st0) / 1000;
    result += vals[first];
  } else if (n === 1) {
    return null;
  } else {
    if (durationToStart >= threshold) durationToStart = average / 2;
    let durationToZero = durationToStart;
    if (result > 0 && vals[first] >= 0) durationToZero = sampledInterval * (vals[first] / result);
    if (durationToZero < durationToStart) durationToStart = durationToZero;
  }
  if (durationToEnd >= threshold) durationToEnd = average / 2;
  let factor = sampledInterval !== 0 ? (sampledInterval + durationToStart + durationToEnd) / sampledInterval : 1;
  if (isRate) factor /= rangeMs / 1000;
  return result * factor;
}

/** instantRate is irate over the last two samples of [lo, hi). */
function instantRate(s: RawSeries, lo: number, hi: number): number | null {
  if (hi - lo < 2) return null;
  const a = hi - 2;
  const b = hi - 1;
  const interval = s.ts[b] - s.ts[a];
  if (interval === 0) return null;
  const reset = s.vals[b] < s.vals[a] || isStartTimestampReset(s.sts![a], s.ts[a], s.sts![b], s.ts[b]);
  return (reset ? s.vals[b] : s.vals[b] - s.vals[a]) / (interval / 1000);
}

/** resets counts drops and start-timestamp resets in [lo, hi). */
function resets(s: RawSeries, lo: number, hi: number): number | null {
  if (hi <= lo) return null;
  let count = 0;
  for (let i = lo + 1; i < hi; i++) {
    if (s.vals[i] < s.vals[i - 1] || isStartTimestampReset(s.sts![i - 1], s.ts[i - 1], s.sts![i], s.ts[i])) count++;
  }
  return count;
}

/** startTimestampWindows computes function `name` at every step for one float series with start timestamps. */
export function startTimestampWindows(ctx: EvalContext, name: string, s: RawSeries, input: RangeInput, pos: PositionRange): KernelOutput {
  const count = input.refs.length;
  const lo = new Int32Array(count);
  const hi = new Int32Array(count);
  ctx.checkTransient(windowBounds(s.ts, input.refs, input.rangeMs, lo, hi));
  const out: KernelOutput = { values: new Float64Array(count), present: new Uint8Array(count) };
  for (let i = 0; i < count; i++) {
    if (hi[i] <= lo[i]) continue;
    let value: number | null;
    if (name === 'irate') value = instantRate(s, lo[i], hi[i]);
    else if (name === 'resets') value = resets(s, lo[i], hi[i]);
    else value = extrapolatedRate(ctx, s, lo[i], hi[i], input.refs[i], input.rangeMs, name === 'rate', pos);
    if (value === null) continue;
    out.values[i] = value;
    out.present[i] = 1;
  }
  return out;
}
