/**
 * A running sum of histograms with Kahan-Babuška-Neumaier compensation of the count, sum and
 * zero count, so that adding 1e100 and -1e100 to a small sum keeps the small sum, as
 * Prometheus' KahanAdd does for sums and averages of histograms. (Bucket counts are added
 * without compensation.)
 */
import { combine, combinedHint, divide, sameLayout, scale, type CombineResult, type FloatHistogram } from './floatHistogram.js';

/** neumaier adds x to s, returning the new sum and the updated compensation. */
function neumaier(s: number, x: number, c: number): [number, number] {
  const t = s + x;
  // Past overflow the compensation means nothing (and would turn Inf into NaN).
  if (!Number.isFinite(t)) return [t, c];
  if (Math.abs(s) >= Math.abs(x)) return [t, c + (s - t + x)];
  return [t, c + (x - t + s)];
}

/** isInfinite is ±Inf (NaN is not an overflow). */
function isInfinite(x: number): boolean {
  return x === Infinity || x === -Infinity;
}

/** CompensatedSum accumulates histograms; combine's HistogramError propagates from add. */
export class CompensatedSum {
  private value: FloatHistogram | undefined;
  /** owned: `value`'s count arrays belong to this sum alone and may be added to in place. */
  private owned = false;
  private count = 0;
  private sum = 0;
  private zero = 0;

  /**
   * add adds `h`, returning what combining reported (null for the first histogram). A
   * histogram with the running sum's layout (the usual case: one series' histograms, or many
   * series of one instrument) is added in place into arrays this sum owns; others go through
   * combine, which builds a new histogram.
   */
  add(h: FloatHistogram): CombineResult | null {
    const prior = this.value;
    if (prior === undefined) {
      this.value = h;
      this.owned = false;
      return null;
    }
    if (sameLayout(prior, h)) return this.addInPlace(prior, h);
    const r = combine(prior, h, 1);
    const out = r.histogram;
    [out.count, this.count] = neumaier(prior.count, h.count, this.count);
    [out.sum, this.sum] = neumaier(prior.sum, h.sum, this.sum);
    if (out.zeroThreshold === prior.zeroThreshold && out.zeroThreshold === h.zeroThreshold) {
      [out.zeroCount, this.zero] = neumaier(prior.zeroCount, h.zeroCount, this.zero);
    }
    this.value = out;
    // combine's count arrays are new (an empty side may be shared, but holds nothing to write).
    this.owned = true;
    return r;
  }

  private addInPlace(prior: FloatHistogram, h: FloatHistogram): CombineResult {
    const { hint, collision } = combinedHint(prior.counterResetHint, h.counterResetHint);
    const acc = this.owned ? prior : { ...prior, posCount: prior.posCount.slice(), negCount: prior.negCount.slice() };
    const pos = acc.posCount;
    const neg = acc.negCount;
    for (let i = 0; i < pos.length; i++) pos[i] += h.posCount[i];
    for (let i = 0; i < neg.length; i++) neg[i] += h.negCount[i];
    [acc.count, this.count] = neumaier(prior.count, h.count, this.count);
    [acc.sum, this.sum] = neumaier(prior.sum, h.sum, this.sum);
    [acc.zeroCount, this.zero] = neumaier(prior.zeroCount, h.zeroCount, this.zero);
    acc.counterResetHint = hint;
    this.value = acc;
    this.owned = true;
    return { histogram: acc, counterResetCollision: collision, boundsReconciled: false };
  }

  /** clone is an independent copy (histograms are never changed in place, so they are shared). */
  clone(): CompensatedSum {
    return this.mapped((h) => h, (x) => x);
  }

  /** scaled is this sum multiplied by `factor`, compensations included. */
  scaled(factor: number): CompensatedSum {
    return this.mapped((h) => scale(h, factor), (x) => x * factor);
  }

  /** divided is this sum divided by `divisor`, compensations included. */
  divided(divisor: number): CompensatedSum {
    return this.mapped((h) => divide(h, divisor), (x) => x / divisor);
  }

  /**
   * overflowed tells whether the running sum (before compensation) reached an infinity in its
   * count, sum, zero count or any bucket, which is when an average switches to the incremental
   * mean, as Prometheus' HasOverflow decides it.
   */
  overflowed(): boolean {
    const v = this.value;
    if (v === undefined) return false;
    if (isInfinite(v.count) || isInfinite(v.sum) || isInfinite(v.zeroCount)) return true;
    return v.posCount.some(isInfinite) || v.negCount.some(isInfinite);
  }

  private mapped(h: (h: FloatHistogram) => FloatHistogram, x: (x: number) => number): CompensatedSum {
    const out = new CompensatedSum();
    out.value = this.value === undefined ? undefined : h(this.value);
    // The copy may share arrays with this sum: neither writes them in place any more.
    this.owned = false;
    out.count = x(this.count);
    out.sum = x(this.sum);
    out.zero = x(this.zero);
    return out;
  }

  /** result is the compensated sum, or undefined when nothing was added. */
  result(): FloatHistogram | undefined {
    const v = this.value;
    if (v === undefined) return undefined;
    // The result shares the count arrays: a later add copies them first.
    this.owned = false;
    const add = (x: number, c: number): number => (Number.isFinite(x) ? x + c : x);
    return { ...v, count: add(v.count, this.count), sum: add(v.sum, this.sum), zeroCount: add(v.zeroCount, this.zero) };
  }
}
