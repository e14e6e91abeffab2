/**
 * What created-timestamp zero ingestion stores, shared by remote write and OTLP: where a zero
 * may go, and the zero of a native histogram.
 */
import { CounterResetHint, emptyHistogram, type FloatHistogram } from '../histogram/floatHistogram.js';

/**
 * zeroHistogramLike is the zero Prometheus stores at a histogram's created timestamp: no
 * observations, the sample's schema, zero threshold and custom bounds (so the series does not
 * change layout for it), and a counter reset hint, since a created timestamp starts a counter.
 */
export function zeroHistogramLike(h: FloatHistogram): FloatHistogram {
  return { ...emptyHistogram(), schema: h.schema, zeroThreshold: h.zeroThreshold, customValues: h.customValues, counterResetHint: CounterResetHint.CounterReset };
}

/**
 * createdZeroFits tells whether a zero at `createdMs` keeps the series in order: after the
 * sample before (the previous one of the request, or the newest one stored) and before its own.
 */
export function createdZeroFits(createdMs: number, previousMs: number, sampleMs: number): boolean {
  return createdMs > previousMs && createdMs < sampleMs;
}
