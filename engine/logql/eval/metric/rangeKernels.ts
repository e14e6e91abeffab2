/**
 * Range aggregation kernels. Each series is walked once for all steps: two indices bound the
 * window (t - range, t] as it slides over the grid, sums are kept as running compensated
 * sums (NaN and infinities counted aside so removing them is exact), counts come from the
 * indices, quantiles and extremes slide along the series too (slidingWindows.ts), and only
 * the variance functions, and a lone window's quantile or extreme, look at every sample of a
 * window. Values follow Loki's definitions, NaN and infinity handling included.
 */
import { SlidingExtreme, SlidingQuantile } from './slidingWindows.js';
import type { RangeAggregationOp } from '../../ast.js';
import type { SeriesSamples } from './extract.js';

/** Windows are the grid's windows in the samples' time base (nanoseconds after the base). */
export interface Windows {
  /** ends[j] is the inclusive end of step j's window. */
  ends: Float64Array;
  rangeNs: number;
}

/** SlidingSum keeps the sum of a window under additions and removals. */
class SlidingSum {
  private sum = 0;
  private compensation = 0;
  private nan = 0;
  private posInf = 0;
  private negInf = 0;
  private count = 0;

  add(v: number): void {
    this.count++;
    if (v !== v) this.nan++;
    else if (v === Infinity) this.posInf++;
    else if (v === -Infinity) this.negInf++;
    else this.accumulate(v);
  }

  remove(v: number): void {
    this.count--;
    if (this.count === 0) {
      this.sum = 0;
      this.compensation = 0;
      this.nan = 0;
      this.posInf = 0;
      this.negInf = 0;
      return;
    }
    if (v !== v) this.nan--;
    else if (v === Infinity) this.posInf--;
    else if (v === -Infinity) this.negInf--;
    else this.accumulate(-v);
  }

  private accumulate(v: number): void {
    const t = this.sum + v;
    if (Math.abs(this.sum) >= Math.abs(v)) this.compensation += this.sum - t + v;
    else this.compensation += v - t + this.sum;
    this.sum = t;
  }

  /** value is the window's sum with IEEE rules for NaN and infinities. */
  value(): number {
    if (this.nan > 0 || (this.posInf > 0 && this.negInf > 0)) return NaN;
    if (this.posInf > 0) return Infinity;
    if (this.negInf > 0) return -Infinity;
    return this.sum + this.compensation;
  }

  /** mean is value()/count, where an infinite sum stays infinite. */
  mean(): number {
    return this.value() / this.count;
  }
}

function minOf(values: Float64Array, lo: number, hi: number): number {
  let m = values[lo];
  for (let i = lo; i < hi; i++) {
    const v = values[i];
    if (v < m || m !== m) m = v;
  }
  return m;
}

function maxOf(values: Float64Array, lo: number, hi: number): number {
  let m = values[lo];
  for (let i = lo; i < hi; i++) {
    const v = values[i];
    if (v > m || m !== m) m = v;
  }
  return m;
}

function variance(values: Float64Array, lo: number, hi: number): number {
  let count = 0;
  let mean = 0;
  let aux = 0;
  for (let i = lo; i < hi; i++) {
    const v = values[i];
    count++;
    const delta = v - mean;
    mean += delta / count;
    aux += delta * (v - mean);
  }
  return aux / count;
}

/** quantileOf is Loki's quantile with linear interpolation (NaN sorts first, as its heap does). */
export function quantileOf(q: number, values: Float64Array, lo: number, hi: number, scratch: Float64Array): number {
  const n = hi - lo;
  if (n === 0) return NaN;
  if (q < 0) return -Infinity;
  if (q > 1) return Infinity;
  const sorted = scratch.subarray(0, n);
  sorted.set(values.subarray(lo, hi));
  sorted.sort();
  // Float64Array sorts NaN last; Loki's order puts it first.
  let nanCount = 0;
  for (let i = n - 1; i >= 0 && sorted[i] !== sorted[i]; i--) nanCount++;
  if (nanCount > 0) {
    sorted.copyWithin(nanCount, 0, n - nanCount);
    sorted.fill(NaN, 0, nanCount);
  }
  const rank = q * (n - 1);
  const lower = Math.max(0, Math.floor(rank));
  const upper = Math.min(n - 1, lower + 1);
  const weight = rank - Math.floor(rank);
  return sorted[lower] * (1 - weight) + sorted[upper] * weight;
}

/**
 * counterRate is Loki's extrapolated rate of a counter over the window (rangeStart, rangeEnd]:
 * resets are added back and the increase is extrapolated towards the window edges, never
 * below the counter's zero point.
 */
function counterRate(ts: Float64Array, values: Float64Array, lo: number, hi: number, rangeStart: number, rangeEnd: number, rangeSec: number): number {
  const n = hi - lo;
  if (n < 2) return 0;
  let result = values[hi - 1] - values[lo];
  let last = 0;
  for (let i = lo; i < hi; i++) {
    if (values[i] < last) result += last;
    last = values[i];
  }
  let durationToStart = (ts[lo] - rangeStart) / 1e9;
  let durationToEnd = (rangeEnd - ts[hi - 1]) / 1e9;
  const sampled = (ts[hi - 1] - ts[lo]) / 1e9;
  const average = sampled / (n - 1);
  const threshold = average * 1.1;
  if (durationToStart >= threshold) durationToStart = average / 2;
  let durationToZero = durationToStart;
  if (result > 0 && values[lo] >= 0) durationToZero = sampled * (values[lo] / result);
  if (durationToZero < durationToStart) durationToStart = durationToZero;
  if (durationToEnd >= threshold) durationToEnd = average / 2;
  const extrapolated = sampled + durationToStart + durationToEnd;
  result = result * (extrapolated / sampled);
  return result / rangeSec;
}

/**
 * slideWindows computes `op` for every window over one series, writing values and presence
 * flags; it returns whether any window held samples.
 */
export function slideWindows(
  op: RangeAggregationOp,
  samples: SeriesSamples,
  windows: Windows,
  param: number,
  hasUnwrap: boolean,
  out: { values: Float64Array; present: Uint8Array },
): boolean {
  const { ts, values, length: n } = samples;
  const ends = windows.ends;
  const rangeNs = windows.rangeNs;
  const rangeSec = rangeNs / 1e9;
  const needsSum = op === 'sum_over_time' || op === 'bytes_over_time' || op === 'bytes_rate' || op === 'avg_over_time' || (op === 'rate' && hasUnwrap);
  const sum = needsSum ? new SlidingSum() : undefined;
  // Windows sliding over a series share most samples: the sliding structure sorts it once.
  const sliding = op === 'quantile_over_time' && ends.length > 1 ? new SlidingQuantile(values, n) : undefined;
  const scratch = op === 'quantile_over_time' && sliding === undefined ? new Float64Array(n) : undefined;
  const extreme = (op === 'min_over_time' || op === 'max_over_time') && ends.length > 1 ? new SlidingExtreme(values, n, op === 'max_over_time') : undefined;
  let lo = 0;
  let hi = 0;
  let any = false;
  for (let j = 0; j < ends.length; j++) {
    const end = ends[j];
    const start = end - rangeNs;
    while (hi < n && ts[hi] <= end) {
      if (sum !== undefined) sum.add(values[hi]);
      if (sliding !== undefined) sliding.add(hi);
      if (extreme !== undefined) extreme.add(hi);
      hi++;
    }
    while (lo < hi && ts[lo] <= start) {
      if (sum !== undefined) sum.remove(values[lo]);
      if (sliding !== undefined) sliding.remove(lo);
      if (extreme !== undefined) extreme.remove(lo);
      lo++;
    }
    if (hi === lo) continue;
    any = true;
    out.present[j] = 1;
    let v: number;
    switch (op) {
      case 'count_over_time':
      case 'absent_over_time':
        v = hi - lo;
        break;
      case 'rate':
        v = hasUnwrap ? sum!.value() / rangeSec : (hi - lo) / rangeSec;
        break;
      case 'bytes_over_time':
      case 'sum_over_time':
        v = sum!.value();
        break;
      case 'bytes_rate':
        v = sum!.value() / rangeSec;
        break;
      case 'avg_over_time':
        v = sum!.mean();
        break;
      case 'min_over_time':
        v = extreme !== undefined ? extreme.value() : minOf(values, lo, hi);
        break;
      case 'max_over_time':
        v = extreme !== undefined ? extreme.value() : maxOf(values, lo, hi);
        break;
      case 'stdvar_over_time':
        v = variance(values, lo, hi);
        break;
      case 'stddev_over_time':
        v = Math.sqrt(variance(values, lo, hi));
        break;
      case 'quantile_over_time':
        v = sliding !== undefined ? sliding.quantile(param) : quantileOf(param, values, lo, hi, scratch!);
        break;
      case 'first_over_time':
        v = values[lo];
        break;
      case 'last_over_time':
        v = values[hi - 1];
        break;
      case 'rate_counter':
        v = counterRate(ts, values, lo, hi, start, end, rangeSec);
        break;
    }
    out.values[j] = v;
  }
  return any;
}
