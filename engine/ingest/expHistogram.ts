/**
 * Conversion of OTLP exponential histograms to classic cumulative buckets, for a store and a
 * query engine that know only `_bucket{le=...}` histograms.
 *
 * An exponential histogram of scale s has base b = 2^(2^-s); its positive bucket i holds
 * values v with b^i < v <= b^(i+1), its negative bucket i the values with b^i < -v <= b^(i+1),
 * and the zero bucket the values with |v| <= zeroThreshold. The conversion is exact (every
 * bucket becomes one `le` boundary, no counts are merged or split):
 *
 * - negative buckets come first, from the most negative (highest index) to the one nearest
 *   zero, each with upper bound -b^i, so their values are not "folded" into the zero or first
 *   positive bucket but keep their place below zero (histogram_quantile handles negative
 *   bounds);
 * - then the zero bucket, with upper bound zeroThreshold (0 when unset);
 * - then the positive buckets in increasing order, each with upper bound b^(i+1);
 * - the caller adds `+Inf` holding the total count.
 *
 * A bound that overflows to infinity, or that does not increase over the previous one
 * (possible only for inconsistent input), is not emitted: its count is carried into the next
 * emitted bound, which keeps the cumulative counts valid upper estimates.
 */
import type { ExponentialBuckets } from './otlpMetricsModel.js';

/** ClassicBucket is one cumulative bucket: the count of values <= upperBound. */
export interface ClassicBucket {
  upperBound: number;
  cumulative: number;
}

/** ExponentialShape is what the conversion needs of an exponential histogram point. */
export interface ExponentialShape {
  scale: number;
  zeroCount: number;
  zeroThreshold: number;
  positive: ExponentialBuckets;
  negative: ExponentialBuckets;
}

/** exponentialLowerBound is b^index for scale s, exact whenever the exponent is an integer. */
export function exponentialLowerBound(scale: number, index: number): number {
  return Math.pow(2, index * Math.pow(2, -scale));
}

/** exponentialToClassic returns the cumulative classic buckets of `p` (without `+Inf`). */
export function exponentialToClassic(p: ExponentialShape): ClassicBucket[] {
  const out: ClassicBucket[] = [];
  let cumulative = 0;
  let previous = -Infinity;
  const push = (upperBound: number): void => {
    if (!Number.isFinite(upperBound) || upperBound <= previous) return;
    out.push({ upperBound, cumulative });
    previous = upperBound;
  };
  const neg = p.negative;
  for (let k = neg.counts.length - 1; k >= 0; k--) {
    cumulative += neg.counts[k];
    push(-exponentialLowerBound(p.scale, neg.offset + k));
  }
  cumulative += p.zeroCount;
  push(p.zeroThreshold > 0 ? p.zeroThreshold : 0);
  const pos = p.positive;
  for (let k = 0; k < pos.counts.length; k++) {
    cumulative += pos.counts[k];
    push(exponentialLowerBound(p.scale, pos.offset + k + 1));
  }
  return out;
}

/** bucketTotal sums the counts of one bucket side. */
export function bucketTotal(b: ExponentialBuckets): number {
  let total = 0;
  for (let i = 0; i < b.counts.length; i++) total += b.counts[i];
  return total;
}

/**
 * downscaleIndex maps a bucket index at some scale to the index at a scale `by` steps lower,
 * where each bucket merges 2^by neighbours (an arithmetic shift floors negative indices too).
 */
export function downscaleIndex(index: number, by: number): number {
  return by >= 31 ? (index < 0 ? -1 : 0) : index >> by;
}
