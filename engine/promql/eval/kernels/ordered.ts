/**
 * Order-statistic kernels: quantile_over_time and mad_over_time. The window's values are kept
 * sorted in a typed array; sliding to the next window removes the samples that left and
 * inserts those that entered (binary search and a block move each) instead of re-sorting,
 * and rebuilds only when most of the window changed. Also double_exponential_smoothing, whose
 * recurrence restarts at every window's first sample and so is computed per window.
 */
import { formatGoFixed } from '../../../common/goFormat.js';
import { evalError } from '../context.js';
import { nextOverlaps, type KernelInput, type KernelOutput, type RangeKernel } from './types.js';

/**
 * SortedWindow holds a multiset of floats in ascending order, NaNs counted apart: Prometheus
 * orders NaN before every number when taking quantiles.
 */
export class SortedWindow {
  private readonly buf: Float64Array;
  private size = 0;
  private nanCount = 0;

  constructor(capacity: number) {
    this.buf = new Float64Array(Math.max(capacity, 1));
  }

  /** length is the number of values held, NaNs included. */
  get length(): number {
    return this.size + this.nanCount;
  }

  /** hasNaN tells whether any NaN is held. */
  get hasNaN(): boolean {
    return this.nanCount > 0;
  }

  /** load replaces the contents with vals[lo..hi). */
  load(vals: Float64Array, lo: number, hi: number): void {
    let n = 0;
    let nans = 0;
    for (let j = lo; j < hi; j++) {
      const v = vals[j];
      if (v !== v) nans++;
      else this.buf[n++] = v;
    }
    this.size = n;
    this.nanCount = nans;
    this.buf.subarray(0, n).sort();
  }

  /** lowerBound is the first position holding a value >= v. */
  private lowerBound(v: number): number {
    let a = 0;
    let b = this.size;
    while (a < b) {
      const m = (a + b) >>> 1;
      if (this.buf[m] < v) a = m + 1;
      else b = m;
    }
    return a;
  }

  insert(v: number): void {
    if (v !== v) {
      this.nanCount++;
      return;
    }
    const at = this.lowerBound(v);
    this.buf.copyWithin(at + 1, at, this.size);
    this.buf[at] = v;
    this.size++;
  }

  remove(v: number): void {
    if (v !== v) {
      this.nanCount--;
      return;
    }
    const at = this.lowerBound(v);
    this.buf.copyWithin(at, at + 1, this.size);
    this.size--;
  }

  /** at returns the k-th smallest value (NaNs first). */
  at(k: number): number {
    return k < this.nanCount ? NaN : this.buf[k - this.nanCount];
  }

  /** quantile interpolates the q-quantile as Prometheus' quantile() does. */
  quantile(q: number): number {
    const n = this.length;
    if (n === 0 || q !== q) return NaN;
    if (q < 0) return -Infinity;
    if (q > 1) return Infinity;
    const rank = q * (n - 1);
    const lower = Math.max(0, Math.floor(rank));
    const upper = Math.min(n - 1, lower + 1);
    const weight = rank - Math.floor(rank);
    return this.at(lower) * (1 - weight) + this.at(upper) * weight;
  }

  /**
   * medianAbsoluteDeviation is the median of |v - median| without sorting the deviations: they
   * form two ascending runs on either side of the median, merged only up to the middle rank.
   */
  medianAbsoluteDeviation(): number {
    if (this.nanCount > 0) return NaN;
    const n = this.size;
    if (n === 0) return NaN;
    const median = this.quantile(0.5);
    const split = this.lowerBound(median);
    const rank = 0.5 * (n - 1);
    const lowerRank = Math.floor(rank);
    const upperRank = Math.min(n - 1, lowerRank + 1);
    const weight = rank - lowerRank;
    let left = split - 1;
    let right = split;
    let lowerValue = 0;
    let upperValue = 0;
    for (let k = 0; k <= upperRank; k++) {
      let d: number;
      const dl = left >= 0 ? median - this.buf[left] : Infinity;
      const dr = right < n ? this.buf[right] - median : Infinity;
      if (dl <= dr) {
        d = dl;
        left--;
      } else {
        d = dr;
        right++;
      }
      if (k === lowerRank) lowerValue = d;
      if (k === upperRank) upperValue = d;
    }
    return lowerValue * (1 - weight) + upperValue * weight;
  }
}

/** orderedKernel drives a SortedWindow across the steps, sliding while windows overlap. */
function orderedKernel(compute: (w: SortedWindow, step: number, out: KernelOutput) => number): RangeKernel {
  return (input: KernelInput, out: KernelOutput) => {
    const { vals, lo, hi } = input;
    const window = new SortedWindow(vals.length);
    let active = false;
    for (let i = 0; i < lo.length; i++) {
      const a = lo[i];
      const b = hi[i];
      if (b <= a) {
        active = false;
        continue;
      }
      if (active && a < hi[i - 1]) {
        const pa = lo[i - 1];
        const pb = hi[i - 1];
        const changes = a - pa + (b - pb);
        if (changes * 2 > b - a) {
          window.load(vals, a, b);
        } else {
          for (let j = pa; j < a; j++) window.remove(vals[j]);
          for (let j = pb; j < b; j++) window.insert(vals[j]);
        }
      } else {
        window.load(vals, a, b);
      }
      active = nextOverlaps(input, i);
      out.values[i] = compute(window, i, out);
      out.present[i] = 1;
    }
  };
}

/** quantileOverTimeKernel interpolates the q-quantile (first parameter) of each window. */
export const quantileOverTimeKernel: RangeKernel = (input, out) => {
  const q = input.params[0];
  orderedKernel((w, step, o) => {
    const value = q[step];
    if (value !== value || value < 0 || value > 1) o.invalidParam = value;
    return w.quantile(value);
  })(input, out);
};

/** madOverTimeKernel is each window's median absolute deviation (NaN if any sample is NaN). */
export const madOverTimeKernel: RangeKernel = orderedKernel((w) => w.medianAbsoluteDeviation());

/**
 * doubleExponentialSmoothing runs Holt's linear smoothing over each window with smoothing
 * factor `sf` and trend factor `tf` (both strictly between 0 and 1).
 */
export const doubleExponentialSmoothingKernel: RangeKernel = (input, out) => {
  const { vals, lo, hi, params } = input;
  for (let i = 0; i < lo.length; i++) {
    const a = lo[i];
    const b = hi[i];
    if (b <= a) continue;
    const sf = params[0][i];
    const tf = params[1][i];
    if (sf <= 0 || sf >= 1) throw evalError(`invalid smoothing factor. Expected: 0 < sf < 1, got: ${formatGoFixed(sf)}`);
    if (tf <= 0 || tf >= 1) throw evalError(`invalid trend factor. Expected: 0 < tf < 1, got: ${formatGoFixed(tf)}`);
    if (b - a < 2) continue;
    let s0 = 0;
    let s1 = vals[a];
    let trend = vals[a + 1] - vals[a];
    for (let j = a + 1; j < b; j++) {
      const x = sf * vals[j];
      // The trend update of the first step keeps the initial trend, as Prometheus does.
      if (j - 1 > a) trend = tf * (s1 - s0) + (1 - tf) * trend;
      const y = (1 - sf) * (s1 + trend);
      s0 = s1;
      s1 = x + y;
    }
    out.values[i] = s1;
    out.present[i] = 1;
  }
};
