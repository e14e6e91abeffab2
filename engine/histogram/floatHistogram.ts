/**
 * The native histogram value, as Prometheus defines it: an exponential histogram (schema -4..8,
 * bucket i of schema s covering (2^((i-1)/2^s), 2^(i/2^s)] on each side of a zero bucket) or a
 * histogram with custom bucket bounds (schema -53, "NHCB"). Integer histograms are read into
 * this float form, as the PromQL engine evaluates every histogram as floats.
 *
 * Buckets are held sparse and absolute: one Int32Array of bucket indexes (ascending) and one
 * Float64Array of counts per side. That is what arithmetic wants (a merge of two sorted lists)
 * and what the wire's spans plus delta-encoded counts expand to in one pass (fromSpans); spans
 * are derived again only where a caller needs them (toSpans, for rendering).
 */

/** CounterResetHint says whether a histogram sample is known to follow a counter reset. */
export const CounterResetHint = { Unknown: 0, CounterReset: 1, NotCounterReset: 2, Gauge: 3 } as const;
export type CounterResetHint = (typeof CounterResetHint)[keyof typeof CounterResetHint];

/** CUSTOM_BUCKETS_SCHEMA marks a histogram whose bucket bounds are its customValues. */
export const CUSTOM_BUCKETS_SCHEMA = -53;

/** Span is a run of `length` consecutive buckets starting `offset` buckets after the previous run. */
export interface Span {
  offset: number;
  length: number;
}

/** FloatHistogram is one native histogram sample; see the module comment. */
export interface FloatHistogram {
  schema: number;
  zeroThreshold: number;
  zeroCount: number;
  count: number;
  sum: number;
  posIndex: Int32Array;
  posCount: Float64Array;
  negIndex: Int32Array;
  negCount: Float64Array;
  /** customValues are the upper bounds of the custom buckets but the last (+Inf); null for exponential schemas. */
  customValues: Float64Array | null;
  counterResetHint: CounterResetHint;
}

/** HistogramError is an operation the two histograms do not allow, with Prometheus' wording. */
export class HistogramError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'HistogramError';
  }
}

/** INCOMPATIBLE_SCHEMA is Prometheus' error for mixing exponential and custom buckets. */
export const INCOMPATIBLE_SCHEMA = 'cannot apply this operation on histograms with a mix of exponential and custom bucket schemas';

const EMPTY_INDEX = new Int32Array(0);
const EMPTY_COUNT = new Float64Array(0);

/** emptyHistogram is a histogram with no observations, schema 0. */
export function emptyHistogram(): FloatHistogram {
  return {
    schema: 0,
    zeroThreshold: 0,
    zeroCount: 0,
    count: 0,
    sum: 0,
    posIndex: EMPTY_INDEX,
    posCount: EMPTY_COUNT,
    negIndex: EMPTY_INDEX,
    negCount: EMPTY_COUNT,
    customValues: null,
    counterResetHint: CounterResetHint.Unknown,
  };
}

/** usesCustomBuckets tells whether `h` has custom bucket bounds. */
export function usesCustomBuckets(h: FloatHistogram): boolean {
  return h.schema === CUSTOM_BUCKETS_SCHEMA;
}

/**
 * fromSpans expands spans and their bucket counts into sparse indexes and counts. With
 * `deltaEncoded` the counts are an integer histogram's deltas (each relative to the previous
 * bucket), as the wire and the TSDB carry them.
 */
export function fromSpans(spans: readonly Span[], buckets: ArrayLike<number>, deltaEncoded = false): { index: Int32Array; counts: Float64Array } {
  const index = new Int32Array(buckets.length);
  const counts = new Float64Array(buckets.length);
  let at = 0;
  let k = 0;
  let running = 0;
  for (let s = 0; s < spans.length; s++) {
    at += spans[s].offset;
    for (let j = 0; j < spans[s].length && k < buckets.length; j++) {
      running = deltaEncoded ? running + buckets[k] : buckets[k];
      index[k] = at;
      counts[k] = running;
      k++;
      at++;
    }
  }
  return { index: index.subarray(0, k), counts: counts.subarray(0, k) };
}

/** toSpans encodes ascending bucket indexes as spans, one run per block of consecutive indexes. */
export function toSpans(index: Int32Array): Span[] {
  const spans: Span[] = [];
  let next = 0;
  for (let i = 0; i < index.length; i++) {
    if (spans.length > 0 && index[i] === next) {
      spans[spans.length - 1].length++;
    } else {
      spans.push({ offset: spans.length === 0 ? index[i] : index[i] - next, length: 1 });
    }
    next = index[i] + 1;
  }
  return spans;
}

/** copyHistogram makes an independent copy (custom bounds are immutable and shared). */
export function copyHistogram(h: FloatHistogram): FloatHistogram {
  return { ...h, posIndex: h.posIndex.slice(), posCount: h.posCount.slice(), negIndex: h.negIndex.slice(), negCount: h.negCount.slice() };
}

/** compact drops empty buckets, as Prometheus' Compact(0) does before comparing or rendering. */
export function compact(h: FloatHistogram): FloatHistogram {
  const side = (index: Int32Array, counts: Float64Array): [Int32Array, Float64Array] => {
    let keep = 0;
    for (let i = 0; i < counts.length; i++) if (counts[i] !== 0) keep++;
    if (keep === counts.length) return [index, counts];
    const outI = new Int32Array(keep);
    const outC = new Float64Array(keep);
    let k = 0;
    for (let i = 0; i < counts.length; i++) {
      if (counts[i] === 0) continue;
      outI[k] = index[i];
      outC[k] = counts[i];
      k++;
    }
    return [outI, outC];
  };
  const [posIndex, posCount] = side(h.posIndex, h.posCount);
  const [negIndex, negCount] = side(h.negIndex, h.negCount);
  return { ...h, posIndex, posCount, negIndex, negCount };
}

/** exponentialBound is the upper bound of bucket `idx` at `schema` (the lower bound is that of idx-1). */
function exponentialBound(idx: number, schema: number): number {
  if (schema <= 0) return 2 ** (idx * 2 ** -schema);
  const frac = idx & ((1 << schema) - 1);
  const exp = (idx >> schema) + (frac === 0 ? 0 : 1);
  if (frac === 0) return 2 ** exp;
  // 2^(idx/2^s), split so that the power of two part is exact.
  return 2 ** (exp - 1) * 2 ** (frac / 2 ** schema);
}

/** bucketUpper is the upper bound of positive bucket `idx` of `h`. */
export function bucketUpper(h: FloatHistogram, idx: number): number {
  if (usesCustomBuckets(h)) {
    const cv = h.customValues ?? EMPTY_COUNT;
    if (idx >= cv.length) return Infinity;
    if (idx < 0) return -Infinity;
    return cv[idx];
  }
  return exponentialBound(idx, h.schema);
}

/** bucketLower is the lower bound of positive bucket `idx` of `h`. */
export function bucketLower(h: FloatHistogram, idx: number): number {
  return bucketUpper(h, idx - 1);
}

/** Bucket is one bucket with its bounds; `lower`/`upper` are absolute values on the negative side too. */
export interface Bucket {
  lower: number;
  upper: number;
  count: number;
  lowerInclusive: boolean;
  upperInclusive: boolean;
}

/**
 * allBuckets lists every bucket from the lowest to the highest value: negative buckets
 * (bounds negated), the zero bucket when populated, positive buckets. Bounds of regular buckets
 * overlapping the zero bucket are clipped to its threshold, as Prometheus iterates them.
 */
export function allBuckets(h: FloatHistogram): Bucket[] {
  const out: Bucket[] = [];
  const zt = h.zeroThreshold;
  const custom = usesCustomBuckets(h);
  for (let i = h.negIndex.length - 1; i >= 0; i--) {
    let upper = -bucketLower(h, h.negIndex[i]);
    if (upper < 0 && upper > -zt) upper = -zt;
    out.push({ lower: -bucketUpper(h, h.negIndex[i]), upper, count: h.negCount[i], lowerInclusive: true, upperInclusive: false });
  }
  if (h.zeroCount > 0) out.push({ lower: -zt, upper: zt, count: h.zeroCount, lowerInclusive: true, upperInclusive: true });
  for (let i = 0; i < h.posIndex.length; i++) {
    let lower = bucketLower(h, h.posIndex[i]);
    if (lower > 0 && lower < zt) lower = zt;
    // The lowest custom bucket starts at -Inf and includes it, as Prometheus' iterator says.
    out.push({ lower, upper: bucketUpper(h, h.posIndex[i]), count: h.posCount[i], lowerInclusive: custom && h.posIndex[i] === 0, upperInclusive: true });
  }
  return out;
}

/** bucketTotal is how many buckets allBuckets lists for `h`. */
export function bucketTotal(h: FloatHistogram): number {
  return h.negIndex.length + (h.zeroCount > 0 ? 1 : 0) + h.posIndex.length;
}

/**
 * bucketAt fills `out` with bucket `k` of the order allBuckets lists (0 ≤ k < bucketTotal) and
 * returns it: the same bucket without building the list, for estimates that walk the buckets
 * once per step and should not allocate for it.
 */
export function bucketAt(h: FloatHistogram, k: number, out: Bucket): Bucket {
  const neg = h.negIndex.length;
  const zt = h.zeroThreshold;
  if (k < neg) {
    const i = neg - 1 - k;
    let upper = -bucketLower(h, h.negIndex[i]);
    if (upper < 0 && upper > -zt) upper = -zt;
    out.lower = -bucketUpper(h, h.negIndex[i]);
    out.upper = upper;
    out.count = h.negCount[i];
    out.lowerInclusive = true;
    out.upperInclusive = false;
    return out;
  }
  k -= neg;
  if (h.zeroCount > 0) {
    if (k === 0) {
      out.lower = -zt;
      out.upper = zt;
      out.count = h.zeroCount;
      out.lowerInclusive = true;
      out.upperInclusive = true;
      return out;
    }
    k--;
  }
  const idx = h.posIndex[k];
  let lower = bucketLower(h, idx);
  if (lower > 0 && lower < zt) lower = zt;
  out.lower = lower;
  out.upper = bucketUpper(h, idx);
  out.count = h.posCount[k];
  out.lowerInclusive = usesCustomBuckets(h) && idx === 0;
  out.upperInclusive = true;
  return out;
}

/** reduceIndex maps a bucket index of schema `from` to the coarser schema `to`. */
function reduceIndex(idx: number, from: number, to: number): number {
  return ((idx - 1) >> (from - to)) + 1;
}

/** reduceSide merges one side's buckets into the coarser schema `to`. */
function reduceSide(index: Int32Array, counts: Float64Array, from: number, to: number): [Int32Array, Float64Array] {
  if (from === to || index.length === 0) return [index, counts];
  const outI = new Int32Array(index.length);
  const outC = new Float64Array(index.length);
  let k = -1;
  for (let i = 0; i < index.length; i++) {
    const target = reduceIndex(index[i], from, to);
    if (k >= 0 && outI[k] === target) {
      outC[k] += counts[i];
    } else {
      k++;
      outI[k] = target;
      outC[k] = counts[i];
    }
  }
  return [outI.slice(0, k + 1), outC.slice(0, k + 1)];
}

/** reduceResolution returns `h` at the coarser exponential schema `schema` (a copy when it changes). */
export function reduceResolution(h: FloatHistogram, schema: number): FloatHistogram {
  if (schema >= h.schema || usesCustomBuckets(h)) return h;
  const [posIndex, posCount] = reduceSide(h.posIndex, h.posCount, h.schema, schema);
  const [negIndex, negCount] = reduceSide(h.negIndex, h.negCount, h.schema, schema);
  return { ...h, schema, posIndex, posCount, negIndex, negCount };
}

/** sameIndex tells whether two sides have the same bucket indexes (the common case of one layout). */
export function sameIndex(a: Int32Array, b: Int32Array): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** mergeScratch are the buffers mergeSide merges into before copying out the used part. */
let mergeIndex = new Int32Array(64);
let mergeCount = new Float64Array(64);

/**
 * mergeSide adds (or subtracts) one side's sorted sparse buckets. Sides with the same indexes
 * (a series keeping its layout) share the index array (indexes are never written in place)
 * and fill one new count array; others merge into reused buffers and copy out what was used.
 */
function mergeSide(aI: Int32Array, aC: Float64Array, bI: Int32Array, bC: Float64Array, sign: number): [Int32Array, Float64Array] {
  if (sameIndex(aI, bI)) {
    if (aC.length === 0) return [aI, aC];
    const out = new Float64Array(aC.length);
    for (let i = 0; i < out.length; i++) out[i] = aC[i] + sign * bC[i];
    return [aI, out];
  }
  const size = aI.length + bI.length;
  if (mergeIndex.length < size) {
    mergeIndex = new Int32Array(size * 2);
    mergeCount = new Float64Array(size * 2);
  }
  const outI = mergeIndex;
  const outC = mergeCount;
  let i = 0;
  let j = 0;
  let k = 0;
  while (i < aI.length || j < bI.length) {
    if (j >= bI.length || (i < aI.length && aI[i] < bI[j])) {
      outI[k] = aI[i];
      outC[k++] = aC[i++];
    } else if (i >= aI.length || bI[j] < aI[i]) {
      outI[k] = bI[j];
      outC[k++] = sign * bC[j++];
    } else {
      outI[k] = aI[i];
      outC[k++] = aC[i++] + sign * bC[j++];
    }
  }
  return [outI.slice(0, k), outC.slice(0, k)];
}

/**
 * widenZeroBucket moves the buckets of `h` that lie within a zero bucket of `threshold` into its
 * zero count. When the threshold falls inside a populated bucket, it grows to that bucket's
 * bound (and the other side is redone). Returns the new histogram and the threshold used.
 */
function widenZeroBucket(h: FloatHistogram, wanted: number): FloatHistogram {
  if (wanted <= h.zeroThreshold) return h;
  let threshold = wanted;
  for (;;) {
    let zeroCount = h.zeroCount;
    let posFrom = 0;
    for (; posFrom < h.posIndex.length; posFrom++) {
      const lower = bucketLower(h, h.posIndex[posFrom]);
      const upper = bucketUpper(h, h.posIndex[posFrom]);
      if (lower >= threshold) break;
      zeroCount += h.posCount[posFrom];
      if (upper > threshold) {
        if (h.posCount[posFrom] !== 0) threshold = upper;
        posFrom++;
        break;
      }
    }
    let negFrom = 0;
    let redo = false;
    for (; negFrom < h.negIndex.length; negFrom++) {
      const lower = bucketLower(h, h.negIndex[negFrom]);
      const upper = bucketUpper(h, h.negIndex[negFrom]);
      if (lower >= threshold) break;
      zeroCount += h.negCount[negFrom];
      if (upper > threshold) {
        if (h.negCount[negFrom] !== 0) {
          threshold = upper;
          redo = true;
        }
        negFrom++;
        break;
      }
    }
    if (redo) continue;
    return {
      ...h,
      zeroThreshold: threshold,
      zeroCount,
      posIndex: h.posIndex.slice(posFrom),
      posCount: h.posCount.slice(posFrom),
      negIndex: h.negIndex.slice(negFrom),
      negCount: h.negCount.slice(negFrom),
    };
  }
}

/** combinedHint is the counter reset hint of a sum or difference, and whether the two collided. */
export function combinedHint(a: CounterResetHint, b: CounterResetHint): { hint: CounterResetHint; collision: boolean } {
  if (a === b) return { hint: a, collision: false };
  if (a === CounterResetHint.Gauge || b === CounterResetHint.Gauge) return { hint: CounterResetHint.Gauge, collision: false };
  if (a === CounterResetHint.Unknown || b === CounterResetHint.Unknown) return { hint: CounterResetHint.Unknown, collision: false };
  return { hint: CounterResetHint.Unknown, collision: true };
}

/** intersectBounds keeps the custom bounds both histograms have. */
function intersectBounds(a: Float64Array, b: Float64Array): Float64Array {
  const out: number[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) {
      out.push(a[i]);
      i++;
      j++;
    } else if (a[i] < b[j]) i++;
    else j++;
  }
  return Float64Array.from(out);
}

/** sameLayout tells whether two histograms have the same schema, zero bucket, custom bounds and bucket indexes. */
export function sameLayout(a: FloatHistogram, b: FloatHistogram): boolean {
  return (
    a.schema === b.schema &&
    a.zeroThreshold === b.zeroThreshold &&
    customBoundsMatch(a.customValues, b.customValues) &&
    sameIndex(a.posIndex, b.posIndex) &&
    sameIndex(a.negIndex, b.negIndex)
  );
}

/** customBoundsMatch compares custom bounds exactly (none and an empty list are the same). */
export function customBoundsMatch(a: Float64Array | null, b: Float64Array | null): boolean {
  if (a === b) return true;
  a ??= EMPTY_COUNT;
  b ??= EMPTY_COUNT;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** remapCustom maps custom buckets onto coarser bounds: each bucket goes to the first bound at or above its own. */
function remapCustom(h: FloatHistogram, bounds: Float64Array): FloatHistogram {
  const counts = new Float64Array(bounds.length + 1);
  const cv = h.customValues ?? EMPTY_COUNT;
  let t = 0;
  for (let i = 0; i < h.posIndex.length; i++) {
    const idx = h.posIndex[i];
    let target = bounds.length;
    if (idx < cv.length) {
      while (t < bounds.length && bounds[t] < cv[idx]) t++;
      target = t;
    }
    counts[target] += h.posCount[i];
  }
  const index: number[] = [];
  const values: number[] = [];
  counts.forEach((c, i) => {
    if (c !== 0) {
      index.push(i);
      values.push(c);
    }
  });
  return { ...h, customValues: bounds, posIndex: Int32Array.from(index), posCount: Float64Array.from(values) };
}

/** CombineResult is a sum or difference with what the caller may have to report about it. */
export interface CombineResult {
  histogram: FloatHistogram;
  /** counterResetCollision: one operand said "counter reset", the other "no counter reset". */
  counterResetCollision: boolean;
  /** boundsReconciled: custom bounds differed and were reduced to those both have. */
  boundsReconciled: boolean;
}

/**
 * combine adds (sign 1) or subtracts (sign -1) `b` from `a` without changing either: schemas are
 * reduced to the coarser one, zero buckets widened to the wider one, and differing custom
 * bounds reduced to their intersection. Throws HistogramError when one histogram has custom
 * buckets and the other not.
 */
export function combine(a: FloatHistogram, b: FloatHistogram, sign: 1 | -1): CombineResult {
  if (usesCustomBuckets(a) !== usesCustomBuckets(b)) throw new HistogramError(INCOMPATIBLE_SCHEMA);
  const { hint, collision } = combinedHint(a.counterResetHint, b.counterResetHint);
  let x = a;
  let y = b;
  let boundsReconciled = false;
  if (usesCustomBuckets(a)) {
    if (!customBoundsMatch(a.customValues, b.customValues)) {
      const bounds = intersectBounds(a.customValues ?? EMPTY_COUNT, b.customValues ?? EMPTY_COUNT);
      x = remapCustom(a, bounds);
      y = remapCustom(b, bounds);
      boundsReconciled = true;
    }
  } else {
    const schema = Math.min(a.schema, b.schema);
    x = reduceResolution(x, schema);
    y = reduceResolution(y, schema);
    while (x.zeroThreshold !== y.zeroThreshold) {
      if (x.zeroThreshold < y.zeroThreshold) x = widenZeroBucket(x, y.zeroThreshold);
      else y = widenZeroBucket(y, x.zeroThreshold);
    }
  }
  const [posIndex, posCount] = mergeSide(x.posIndex, x.posCount, y.posIndex, y.posCount, sign);
  const [negIndex, negCount] = mergeSide(x.negIndex, x.negCount, y.negIndex, y.negCount, sign);
  const histogram: FloatHistogram = {
    schema: x.schema,
    zeroThreshold: x.zeroThreshold,
    zeroCount: x.zeroCount + sign * y.zeroCount,
    count: x.count + sign * y.count,
    sum: x.sum + sign * y.sum,
    posIndex,
    posCount,
    negIndex,
    negCount,
    customValues: x.customValues,
    counterResetHint: hint,
  };
  return { histogram, counterResetCollision: collision, boundsReconciled };
}

/** scale multiplies every count and the sum by `factor`; a negative factor makes the result a gauge. */
export function scale(h: FloatHistogram, factor: number): FloatHistogram {
  return {
    ...h,
    zeroCount: h.zeroCount * factor,
    count: h.count * factor,
    sum: h.sum * factor,
    posCount: h.posCount.map((c) => c * factor),
    negCount: h.negCount.map((c) => c * factor),
    counterResetHint: factor < 0 ? CounterResetHint.Gauge : h.counterResetHint,
  };
}

/**
 * scaleOwned is scale for a histogram the caller just built and nobody else holds: its bucket
 * counts are multiplied in place instead of copied, saving two arrays per step on hot paths.
 */
export function scaleOwned(h: FloatHistogram, factor: number): FloatHistogram {
  const pos = h.posCount;
  const neg = h.negCount;
  for (let i = 0; i < pos.length; i++) pos[i] *= factor;
  for (let i = 0; i < neg.length; i++) neg[i] *= factor;
  h.zeroCount *= factor;
  h.count *= factor;
  h.sum *= factor;
  if (factor < 0) h.counterResetHint = CounterResetHint.Gauge;
  return h;
}

/** divide divides every count and the sum by `divisor`; dividing by zero drops the buckets, as Prometheus does. */
export function divide(h: FloatHistogram, divisor: number): FloatHistogram {
  const out: FloatHistogram = {
    ...h,
    zeroCount: h.zeroCount / divisor,
    count: h.count / divisor,
    sum: h.sum / divisor,
    posCount: h.posCount.map((c) => c / divisor),
    negCount: h.negCount.map((c) => c / divisor),
    counterResetHint: divisor < 0 ? CounterResetHint.Gauge : h.counterResetHint,
  };
  if (divisor === 0) {
    out.posIndex = EMPTY_INDEX;
    out.posCount = EMPTY_COUNT;
    out.negIndex = EMPTY_INDEX;
    out.negCount = EMPTY_COUNT;
  }
  return out;
}

/** sameBuckets tells whether two sparse sides hold exactly the same non-empty buckets. */
function sameBuckets(aI: Int32Array, aC: Float64Array, bI: Int32Array, bC: Float64Array): boolean {
  let i = 0;
  let j = 0;
  for (;;) {
    while (i < aC.length && aC[i] === 0) i++;
    while (j < bC.length && bC[j] === 0) j++;
    if (i >= aC.length || j >= bC.length) return i >= aC.length && j >= bC.length;
    if (aI[i] !== bI[j] || !Object.is(aC[i], bC[j])) return false;
    i++;
    j++;
  }
}

/** histogramsEqual is exact data equality (what changes() and == compare), ignoring empty buckets. */
export function histogramsEqual(a: FloatHistogram, b: FloatHistogram): boolean {
  if (a.schema !== b.schema || !Object.is(a.count, b.count) || !Object.is(a.sum, b.sum)) return false;
  if (usesCustomBuckets(a)) {
    if (!customBoundsMatch(a.customValues, b.customValues)) return false;
  } else if (a.zeroThreshold !== b.zeroThreshold || !Object.is(a.zeroCount, b.zeroCount)) {
    return false;
  }
  return sameBuckets(a.posIndex, a.posCount, b.posIndex, b.posCount) && sameBuckets(a.negIndex, a.negCount, b.negIndex, b.negCount);
}

/**
 * detectReset tells whether `h` follows a counter reset relative to `prev`: the count dropped,
 * a bucket lost observations, the zero bucket shrank or the schema got finer, as Prometheus
 * decides it. Explicit reset and no-reset hints are trusted. A histogram marked as a gauge is
 * compared like one of unknown hint, as Prometheus 3 does: a gauge histogram should never meet
 * a counter function, but rate(), increase(), irate() and resets() still take one (with the
 * "not a counter" warning where Prometheus gives it) and see its drops as resets.
 */
export function detectReset(h: FloatHistogram, prev: FloatHistogram): boolean {
  if (h.counterResetHint === CounterResetHint.CounterReset) return true;
  if (h.counterResetHint === CounterResetHint.NotCounterReset) return false;
  if (h.count < prev.count) return true;
  if (usesCustomBuckets(h) !== usesCustomBuckets(prev)) return true;
  if (usesCustomBuckets(h)) {
    if (!customBoundsMatch(h.customValues, prev.customValues)) {
      const bounds = intersectBounds(h.customValues ?? EMPTY_COUNT, prev.customValues ?? EMPTY_COUNT);
      return sideDecreased(remapCustom(prev, bounds).posIndex, remapCustom(prev, bounds).posCount, remapCustom(h, bounds).posIndex, remapCustom(h, bounds).posCount);
    }
  } else {
    if (h.schema > prev.schema) return true;
    if (h.zeroThreshold < prev.zeroThreshold) return true;
  }
  let cur = h;
  let before = prev;
  if (!usesCustomBuckets(h) && h.schema < prev.schema) before = reduceResolution(prev, h.schema);
  if (!usesCustomBuckets(h) && cur.zeroThreshold > before.zeroThreshold) {
    before = widenZeroBucket(before, cur.zeroThreshold);
    if (before.zeroThreshold !== cur.zeroThreshold) cur = widenZeroBucket(cur, before.zeroThreshold);
  }
  if (cur.zeroCount < before.zeroCount) return true;
  return sideDecreased(before.posIndex, before.posCount, cur.posIndex, cur.posCount) || sideDecreased(before.negIndex, before.negCount, cur.negIndex, cur.negCount);
}

/** sideDecreased tells whether any bucket of `before` holds more than the same bucket now (absent = 0). */
function sideDecreased(bI: Int32Array, bC: Float64Array, cI: Int32Array, cC: Float64Array): boolean {
  let j = 0;
  for (let i = 0; i < bI.length; i++) {
    while (j < cI.length && cI[j] < bI[i]) j++;
    const now = j < cI.length && cI[j] === bI[i] ? cC[j] : 0;
    if (now < bC[i]) return true;
  }
  return false;
}
