/**
 * Estimates from a native histogram's buckets: quantiles, the fraction of observations between
 * two values, and the variance, with Prometheus' interpolation rules (exponential within
 * exponential buckets, linear within custom and zero buckets).
 */
import { allBuckets, bucketAt, bucketTotal, usesCustomBuckets, type Bucket, type FloatHistogram } from './floatHistogram.js';

/** NaNNote says how NaN observations affected an estimate, for the info annotation it calls for. */
export type NaNNote = 'none' | 'nanResult' | 'skewed';

/** hasNegative and hasPositive tell whether a side holds any bucket (even an empty one). */
function sides(h: FloatHistogram): { negative: boolean; positive: boolean } {
  return { negative: h.negCount.length > 0, positive: h.posCount.length > 0 };
}

/** scratch is the bucket histogramQuantile reads into (estimates run one at a time on a thread). */
const scratch: Bucket = { lower: 0, upper: 0, count: 0, lowerInclusive: false, upperInclusive: false };

/**
 * histogramQuantile estimates the q-quantile of `h`. It walks the buckets in place (from the
 * lowest up, or from the highest down for q ≥ 0.5 when the sum is a number, as Prometheus
 * does) without building a bucket list, since it runs once per series and step.
 */
export function histogramQuantile(q: number, h: FloatHistogram): { value: number; note: NaNNote } {
  if (q < 0) return { value: -Infinity, note: 'none' };
  if (q > 1) return { value: Infinity, note: 'none' };
  if (h.count === 0 || Number.isNaN(q)) return { value: NaN, note: 'none' };
  const forward = Number.isNaN(h.sum) || q < 0.5;
  const total = bucketTotal(h);
  const at = (k: number): Bucket => bucketAt(h, forward ? k : total - 1 - k, scratch);
  let rank = forward ? q * h.count : (1 - q) * h.count;
  let count = 0;
  let k = 0;
  let bucket: Bucket | undefined;
  for (; k < total; k++) {
    bucket = at(k);
    if (bucket.count === 0) continue;
    count += bucket.count;
    if (count >= rank) break;
  }
  // No bucket at all: every observation is NaN when the sum is.
  if (bucket === undefined) return { value: NaN, note: Number.isNaN(h.sum) ? 'nanResult' : 'none' };
  let lower = bucket.lower;
  let upper = bucket.upper;
  const bucketCount = bucket.count;
  const custom = usesCustomBuckets(h);
  if (!custom && lower < 0 && upper > 0) {
    const { negative, positive } = sides(h);
    if (!negative && positive) lower = 0;
    else if (!positive && negative) upper = 0;
  } else if (custom) {
    if (lower === -Infinity) {
      if (upper <= 0) return { value: upper, note: 'none' };
      lower = 0;
    } else if (upper === Infinity) {
      return { value: lower, note: 'none' };
    }
  }
  if (count > h.count) count = h.count;
  if (count < rank) {
    if (Number.isNaN(h.sum)) return { value: NaN, note: 'nanResult' };
    return { value: upper, note: 'none' };
  }
  if (forward) rank -= count - bucketCount;
  else rank = count - rank;
  let note: NaNNote = 'none';
  if (Number.isNaN(h.sum)) {
    for (let j = k + 1; j < total; j++) count += at(j).count;
    if (count < h.count) note = 'skewed';
  }
  const fraction = rank / bucketCount;
  if (custom || (lower <= 0 && upper >= 0)) return { value: lower + (upper - lower) * fraction, note };
  const logLower = Math.log2(Math.abs(lower));
  const logUpper = Math.log2(Math.abs(upper));
  if (lower > 0) return { value: 2 ** (logLower + (logUpper - logLower) * fraction), note };
  return { value: -(2 ** (logUpper + (logLower - logUpper) * (1 - fraction))), note };
}

/** fractionBelow is the share of a bucket's width below `v`, linearly or in log space. */
export function fractionBelow(lower: number, upper: number, v: number, linear: boolean): number {
  if (linear) return (v - lower) / (upper - lower);
  const logLower = Math.log2(Math.abs(lower));
  const logUpper = Math.log2(Math.abs(upper));
  const logV = Math.log2(Math.abs(v));
  if (v > 0) return (logV - logLower) / (logUpper - logLower);
  return 1 - (logV - logUpper) / (logLower - logUpper);
}

/** histogramFraction estimates the share of observations of `h` between `lower` and `upper`. */
export function histogramFraction(lower: number, upper: number, h: FloatHistogram): { value: number; nanExcluded: boolean } {
  if (h.count === 0 || Number.isNaN(lower) || Number.isNaN(upper)) return { value: NaN, nanExcluded: false };
  if (lower >= upper) return { value: 0, nanExcluded: false };
  const buckets = allBuckets(h);
  const custom = usesCustomBuckets(h);
  const { negative, positive } = sides(h);
  let count = 0;
  let rank = 0;
  let lowerRank = 0;
  let upperRank = 0;
  let lowerSet = false;
  let upperSet = false;
  let k = 0;
  for (; k < buckets.length; k++) {
    const b = buckets[k];
    count += b.count;
    let bLower = b.lower;
    let bUpper = b.upper;
    let zeroBucket = false;
    if (bLower <= 0 && bUpper >= 0) {
      zeroBucket = true;
      if (!negative && positive) bLower = 0;
      else if (!positive && negative) bUpper = 0;
    }
    const interpolate = (v: number): number => {
      if ((custom || zeroBucket) && bLower === -Infinity) return b.count;
      return rank + b.count * fractionBelow(bLower, bUpper, v, custom || zeroBucket);
    };
    if (!lowerSet && bLower >= lower) {
      lowerRank = rank;
      lowerSet = true;
    }
    if (!upperSet && bLower >= upper) {
      upperRank = rank;
      upperSet = true;
    }
    if (lowerSet && upperSet) break;
    if (!lowerSet && bLower < lower && bUpper > lower) {
      lowerRank = interpolate(lower);
      lowerSet = true;
    }
    if (!upperSet && bLower < upper && bUpper > upper) {
      upperRank = interpolate(upper);
      upperSet = true;
    }
    if (lowerSet && upperSet) break;
    rank += b.count;
  }
  let nanExcluded = false;
  if (Number.isNaN(h.sum)) {
    for (let j = k + 1; j < buckets.length; j++) count += buckets[j].count;
    if (count < h.count) nanExcluded = true;
  } else {
    count = h.count;
  }
  if (!lowerSet || lowerRank > count) lowerRank = count;
  if (!upperSet || upperRank > count) upperRank = count;
  return { value: (upperRank - lowerRank) / h.count, nanExcluded };
}

/**
 * histogramVariance estimates the variance of the observations: each bucket stands for its
 * midpoint (arithmetic for custom buckets, geometric for exponential ones, 0 for the zero bucket).
 */
export function histogramVariance(h: FloatHistogram): number {
  const mean = h.sum / h.count;
  let variance = 0;
  let compensation = 0;
  const custom = usesCustomBuckets(h);
  for (const b of allBuckets(h)) {
    if (b.count === 0) continue;
    let v: number;
    if (custom) v = (b.upper + b.lower) / 2;
    else if (b.lower <= 0 && b.upper >= 0) v = 0;
    else {
      v = Math.sqrt(b.upper * b.lower);
      if (b.upper < 0) v = -v;
    }
    const delta = v - mean;
    const term = b.count * delta * delta;
    // Kahan-Babuska-Neumaier summation, as Prometheus sums these terms.
    const t = variance + term;
    // An infinite sum drops the compensation, which would otherwise turn it into NaN.
    if (!Number.isFinite(t) && !Number.isNaN(t)) compensation = 0;
    else if (Math.abs(variance) >= Math.abs(term)) compensation += variance - t + term;
    else compensation += term - t + variance;
    variance = t;
  }
  return (variance + compensation) / h.count;
}
