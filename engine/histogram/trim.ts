/**
 * The trim operators `h </ x` (keep observations below x) and `h >/ x` (keep those above x):
 * whole buckets on the kept side stay, buckets beyond go, and a bucket straddling x keeps the
 * share interpolated as histogram_fraction does (linearly for custom buckets, in log space for
 * exponential ones). Count and sum are re-estimated from the kept buckets' midpoints when
 * anything was cut, as Prometheus does.
 */
import { bucketLower, bucketUpper, compact, usesCustomBuckets, type FloatHistogram } from './floatHistogram.js';
import { fractionBelow } from './statistics.js';

/** midpoint is the representative value of a surviving interval. */
function midpoint(lower: number, upper: number, positive: boolean, linear: boolean): number {
  if (!Number.isFinite(lower)) {
    if (!Number.isFinite(upper)) return 0;
    return upper > 0 ? upper / 2 : upper;
  }
  if (!Number.isFinite(upper)) return lower;
  if (linear) return (lower + upper) / 2;
  const geo = Math.sqrt(Math.abs(lower * upper));
  return positive ? geo : -geo;
}


/** infiniteBucketTrim handles a custom bucket with an infinite bound: kept count and midpoint. */
function infiniteBucketTrim(upperTrim: boolean, lower: number, upper: number, count: number, x: number): [number, number] {
  const zeroIfInf = (v: number): number => (Number.isFinite(v) ? v : 0);
  if (lower === -Infinity) {
    if (upperTrim) {
      if (x >= upper) return [count, 0];
      if (x > 0 && upper > 0 && upper !== Infinity) return [(count * x) / upper, x / 2];
      if (upper <= 0) return [count, x];
      return [0, zeroIfInf(upper)];
    }
    if (x <= lower) return [count, 0];
    if (x >= 0 && upper > x && upper !== Infinity) return [count * (1 - x / upper), (x + upper) / 2];
    return [0, zeroIfInf(upper)];
  }
  if (upperTrim) return [0, zeroIfInf(lower)];
  if (x >= lower) return [count, x];
  return [0, zeroIfInf(lower)];
}

/** straddleTrim is the kept count and midpoint of a bucket that x falls inside. */
function straddleTrim(lower: number, upper: number, count: number, x: number, upperTrim: boolean, positive: boolean, linear: boolean): [number, number] {
  if (lower === -Infinity || upper === Infinity) return infiniteBucketTrim(upperTrim, lower, upper, count, x);
  const under = x <= lower ? 0 : x >= upper ? count : count * fractionBelow(lower, upper, x, linear);
  return upperTrim ? [under, midpoint(lower, x, positive, linear)] : [count - under, midpoint(x, upper, positive, linear)];
}

/** zeroBucketTrim is the kept count and midpoint of the zero bucket. */
function zeroBucketTrim(h: FloatHistogram, x: number, hasNegative: boolean, hasPositive: boolean, upperTrim: boolean): [number, number] {
  let lower = -h.zeroThreshold;
  let upper = h.zeroThreshold;
  if (hasNegative && !hasPositive) upper = 0;
  if (hasPositive && !hasNegative) lower = 0;
  const count = h.zeroCount;
  if (upperTrim) {
    if (x <= lower) return [0, 0];
    if (x >= upper) return [count, (lower + upper) / 2];
    return [(count * (x - lower)) / (upper - lower), (lower + x) / 2];
  }
  if (x <= lower) return [count, (lower + upper) / 2];
  if (x >= upper) return [0, 0];
  return [(count * (upper - x)) / (upper - lower), (x + upper) / 2];
}

/** trimBuckets applies `</ x` (upperTrim) or `>/ x` to a copy of `h`. */
export function trimBuckets(h: FloatHistogram, x: number, upperTrim: boolean): FloatHistogram {
  const linear = usesCustomBuckets(h);
  let count = 0;
  let sum = 0;
  let trimmed = false;
  const seen = { positive: false, negative: false };
  const side = (index: Int32Array, counts: Float64Array, positive: boolean): Float64Array => {
    const out = counts.slice();
    for (let i = 0; i < index.length; i++) {
      const c = counts[i];
      if (c === 0) continue;
      if (positive) seen.positive = true;
      else seen.negative = true;
      const lower = positive ? bucketLower(h, index[i]) : -bucketUpper(h, index[i]);
      const upper = positive ? bucketUpper(h, index[i]) : -bucketLower(h, index[i]);
      const wholeKept = upperTrim ? upper <= x : lower >= x;
      const partly = upperTrim ? lower < x : upper > x;
      if (wholeKept) {
        count += c;
        sum += midpoint(lower, upper, positive, linear) * c;
      } else if (partly) {
        const [keep, mid] = straddleTrim(lower, upper, c, x, upperTrim, positive, linear);
        count += keep;
        sum += mid * keep;
        if (keep !== c) {
          out[i] = keep;
          trimmed = true;
        }
      } else {
        out[i] = 0;
        trimmed = true;
      }
    }
    return out;
  };
  const posCount = side(h.posIndex, h.posCount, true);
  const negCount = side(h.negIndex, h.negCount, false);
  let zeroCount = h.zeroCount;
  if (h.zeroCount > 0) {
    const [keep, mid] = zeroBucketTrim(h, x, seen.negative, seen.positive, upperTrim);
    if (keep !== zeroCount) {
      zeroCount = keep;
      trimmed = true;
    }
    sum += mid * keep;
    count += keep;
  }
  if (!trimmed) return { ...h, posCount, negCount };
  return compact({ ...h, posCount, negCount, zeroCount, count, sum });
}
