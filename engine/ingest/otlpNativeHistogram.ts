/**
 * Conversion of OTLP exponential histograms to native histograms, as Prometheus' OTLP receiver
 * does with native histograms enabled. The two share their bucket geometry: OTLP scale s is
 * native schema s (base 2^(2^-s)), so the conversion moves buckets without splitting any.
 *
 * - OTLP bucket i holds (b^i, b^(i+1)], the native bucket of the same range has index i+1.
 * - Scales above 8, the finest native schema, are reduced to 8 by merging 2^(s-8) neighbours;
 *   scales below -4, the coarsest, cannot be represented and the point is refused, as
 *   Prometheus refuses it.
 * - The zero bucket keeps its count; its threshold is the point's, or Prometheus' default
 *   (2^-128, about 2.9e-39) when the point gives none.
 * - A point without a sum gets sum 0, and the counter reset hint is left unknown: queries
 *   detect resets from the counts, as for remote-written histograms.
 */
import { CounterResetHint, type FloatHistogram } from '../histogram/floatHistogram.js';
import { downscaleIndex, type ExponentialShape } from './expHistogram.js';
import type { ExponentialBuckets } from './otlpMetricsModel.js';

/** NATIVE_MAX_SCHEMA and NATIVE_MIN_SCHEMA bound the exponential schemas a native histogram has. */
const NATIVE_MAX_SCHEMA = 8;
const NATIVE_MIN_SCHEMA = -4;
/** DEFAULT_ZERO_THRESHOLD is Prometheus' zero bucket width for histograms that name none. */
const DEFAULT_ZERO_THRESHOLD = 2 ** -128;

/** side maps one OTLP bucket side to native indexes (reduced by `by` schema steps), dropping empty buckets. */
function side(b: ExponentialBuckets, by: number): { index: Int32Array; counts: Float64Array } {
  const index: number[] = [];
  const counts: number[] = [];
  for (let k = 0; k < b.counts.length; k++) {
    const c = b.counts[k];
    if (c === 0) continue;
    const idx = downscaleIndex(b.offset + k, by) + 1;
    if (index.length > 0 && index[index.length - 1] === idx) counts[counts.length - 1] += c;
    else {
      index.push(idx);
      counts.push(c);
    }
  }
  return { index: Int32Array.from(index), counts: Float64Array.from(counts) };
}

/** exponentialToNative converts a point, or answers why it cannot be converted. */
export function exponentialToNative(p: ExponentialShape & { count: number; sum: number | undefined }): FloatHistogram | string {
  if (p.scale < NATIVE_MIN_SCHEMA) return `exponential histogram scale ${p.scale} is below ${NATIVE_MIN_SCHEMA}, the coarsest native histogram schema`;
  const by = Math.max(0, p.scale - NATIVE_MAX_SCHEMA);
  const pos = side(p.positive, by);
  const neg = side(p.negative, by);
  return {
    schema: p.scale - by,
    zeroThreshold: p.zeroThreshold > 0 ? p.zeroThreshold : DEFAULT_ZERO_THRESHOLD,
    zeroCount: p.zeroCount,
    count: p.count,
    sum: p.sum ?? 0,
    posIndex: pos.index,
    posCount: pos.counts,
    negIndex: neg.index,
    negCount: neg.counts,
    customValues: null,
    counterResetHint: CounterResetHint.Unknown,
  };
}
