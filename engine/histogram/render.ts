/**
 * The JSON form of a native histogram sample for API output, as Prometheus' HTTP API renders
 * one: count, sum and the populated buckets as `[boundaryRule, lower, upper, count]`, where the
 * rule says which bounds are inclusive (0: lower open, upper closed; 1: lower closed, upper
 * open; 2: both open; 3: both closed). Numbers stay numbers (the SSE `value` field is one too).
 */
import { allBuckets, type FloatHistogram } from './floatHistogram.js';

/** RenderedHistogram is the `histogram` field of a result point. */
export interface RenderedHistogram {
  count: number;
  sum: number;
  buckets: [number, number, number, number][];
}

/** boundaryRule encodes a bucket's inclusive bounds as Prometheus numbers them. */
function boundaryRule(lowerInclusive: boolean, upperInclusive: boolean): number {
  if (lowerInclusive) return upperInclusive ? 3 : 1;
  return upperInclusive ? 0 : 2;
}

/** renderHistogram renders `h` for output, lowest bucket first, empty buckets left out. */
export function renderHistogram(h: FloatHistogram): RenderedHistogram {
  const buckets: [number, number, number, number][] = [];
  for (const b of allBuckets(h)) {
    if (b.count === 0) continue;
    buckets.push([boundaryRule(b.lowerInclusive, b.upperInclusive), b.lower, b.upper, b.count]);
  }
  return { count: h.count, sum: h.sum, buckets };
}
