import { CUSTOM_BUCKETS_SCHEMA, type CounterResetHint, type FloatHistogram } from '../histogram/floatHistogram.js';
import { SegmentFormatError } from './segmentFormat.js';

/**
 * A histogram block is the native histogram samples of one series run, as bytes. The WAL, head
 * snapshots, query results crossing threads and metric segments all carry histograms this way,
 * so there is one encoding to get right. A run's histograms usually keep their bucket layout
 * from sample to sample and grow slowly, so the block writes a layout only when it changes and
 * counts as differences from the previous sample:
 *
 *     uvarint R, then R × (uvarint gap, uvarint length)   which samples of the run are histograms
 *     per histogram:
 *       byte flags        bits 0-1 counter reset hint, bit 2 float counts, bit 3 layout repeats,
 *                         bit 4 the count is the zero count plus the buckets (integer only)
 *       layout (unless repeated): svarint schema, float64 zero threshold, positive and negative
 *                         spans (uvarint n, n × (svarint offset, uvarint length)), and for
 *                         schema -53 the custom bounds (uvarint n, n × float64)
 *       integer counts:   svarint count (unless bit 4 says it is derived) and zero count as
 *                         differences from the previous integer histogram's; per bucket the difference to the bucket before
 *                         (the wire's deltas), less the same delta of the previous histogram
 *                         when the layout repeats
 *       float counts:     count, zero count and each bucket XORed with the previous sample's
 *                         (buckets only when the layout repeats), leading and trailing zero
 *                         bytes dropped behind one header byte
 *       sum:              XORed with the previous sum the same way
 *
 * A histogram is written with integer counts when all its counts are whole numbers below 2^52,
 * so integer histograms cost a byte or two per bucket and float ones keep every bit.
 */

const FLAG_FLOAT = 4;
const FLAG_SAME_LAYOUT = 8;
const FLAG_DERIVED_COUNT = 16;
/** INTEGER_LIMIT keeps zigzag differences of integer counts exact in a double. */
const INTEGER_LIMIT = 2 ** 52;

class ByteWriter {
  private buf = new Uint8Array(256);
  private view = new DataView(this.buf.buffer);
  length = 0;

  private ensure(n: number): void {
    if (this.length + n <= this.buf.length) return;
    const next = new Uint8Array(Math.max(this.buf.length * 2, this.length + n));
    next.set(this.buf.subarray(0, this.length));
    this.buf = next;
    this.view = new DataView(next.buffer);
  }

  byte(b: number): void {
    this.ensure(1);
    this.buf[this.length++] = b;
  }

  uvarint(n: number): void {
    this.ensure(8);
    while (n >= 128) {
      this.buf[this.length++] = (n % 128) | 128;
      n = Math.floor(n / 128);
    }
    this.buf[this.length++] = n;
  }

  svarint(n: number): void {
    this.uvarint(n >= 0 ? n * 2 : -n * 2 - 1);
  }

  float64(x: number): void {
    this.ensure(8);
    this.view.setFloat64(this.length, x, true);
    this.length += 8;
  }

  /** xor writes x's bits XORed with prev's: one header byte (leading, trailing zero bytes) and the bytes between. */
  xor(x: number, prev: number): void {
    scratch.setFloat64(0, x, false);
    scratch.setFloat64(8, prev, false);
    for (let i = 0; i < 8; i++) scratchBytes[16 + i] = scratchBytes[i] ^ scratchBytes[8 + i];
    let lead = 0;
    while (lead < 8 && scratchBytes[16 + lead] === 0) lead++;
    if (lead === 8) return this.byte(0x80);
    let trail = 0;
    while (scratchBytes[23 - trail] === 0) trail++;
    this.ensure(9);
    this.buf[this.length++] = (lead << 4) | trail;
    for (let i = lead; i < 8 - trail; i++) this.buf[this.length++] = scratchBytes[16 + i];
  }

  bytes(): Uint8Array {
    return this.buf.slice(0, this.length);
  }
}

const scratch = new DataView(new ArrayBuffer(24));
const scratchBytes = new Uint8Array(scratch.buffer);

class ByteReader {
  pos = 0;
  private readonly view: DataView;

  constructor(private readonly buf: Uint8Array) {
    this.view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  }

  private need(n: number): void {
    if (this.pos + n > this.buf.length) throw new SegmentFormatError('histogram block: runs past its end');
  }

  byte(): number {
    this.need(1);
    return this.buf[this.pos++];
  }

  uvarint(): number {
    let n = 0;
    let scale = 1;
    for (let i = 0; i < 8; i++) {
      const b = this.byte();
      n += (b & 127) * scale;
      if (b < 128) return n;
      scale *= 128;
    }
    throw new SegmentFormatError('histogram block: varint too long');
  }

  svarint(): number {
    const z = this.uvarint();
    return z % 2 === 0 ? z / 2 : -(z + 1) / 2;
  }

  float64(): number {
    this.need(8);
    const x = this.view.getFloat64(this.pos, true);
    this.pos += 8;
    return x;
  }

  xor(prev: number): number {
    const header = this.byte();
    if (header === 0x80) return prev;
    const lead = header >> 4;
    const trail = header & 15;
    if (lead + trail >= 8) throw new SegmentFormatError('histogram block: bad XOR header');
    scratch.setFloat64(0, prev, false);
    this.need(8 - lead - trail);
    for (let i = lead; i < 8 - trail; i++) scratchBytes[i] ^= this.buf[this.pos++];
    return scratch.getFloat64(0, false);
  }

  /** count reads a length and checks that at least that many bytes could follow, so a bad length cannot allocate much. */
  count(minBytesEach: number): number {
    const n = this.uvarint();
    if (n * minBytesEach > this.buf.length - this.pos) throw new SegmentFormatError('histogram block: count runs past its end');
    return n;
  }
}

const EMPTY_INDEX = new Int32Array(0);
const EMPTY_COUNTS = new Float64Array(0);

function isInteger(h: FloatHistogram): boolean {
  const ok = (x: number) => Number.isInteger(x) && x >= 0 && x < INTEGER_LIMIT;
  if (!ok(h.count) || !ok(h.zeroCount)) return false;
  for (const c of h.posCount) if (!ok(c)) return false;
  for (const c of h.negCount) if (!ok(c)) return false;
  return true;
}

/** observed is the zero count plus every bucket's count, summed in the order the reader sums them. */
function observed(h: FloatHistogram): number {
  let n = h.zeroCount;
  for (const c of h.posCount) n += c;
  for (const c of h.negCount) n += c;
  return n;
}

function sameInts(a: Int32Array, b: Int32Array): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function sameFloats(a: Float64Array | null, b: Float64Array | null): boolean {
  if (a === b) return true;
  if (a === null || b === null || a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (!Object.is(a[i], b[i])) return false;
  return true;
}

function sameLayout(a: FloatHistogram, b: FloatHistogram): boolean {
  return (
    a.schema === b.schema &&
    Object.is(a.zeroThreshold, b.zeroThreshold) &&
    sameInts(a.posIndex, b.posIndex) &&
    sameInts(a.negIndex, b.negIndex) &&
    sameFloats(a.schema === CUSTOM_BUCKETS_SCHEMA ? a.customValues : null, b.schema === CUSTOM_BUCKETS_SCHEMA ? b.customValues : null)
  );
}

function writeSpans(w: ByteWriter, index: Int32Array): void {
  const runs: number[] = [];
  let next = 0;
  for (let i = 0; i < index.length; i++) {
    if (runs.length > 0 && index[i] === next) runs[runs.length - 1]++;
    else runs.push(runs.length === 0 ? index[i] : index[i] - next, 1);
    next = index[i] + 1;
  }
  w.uvarint(runs.length / 2);
  for (let i = 0; i < runs.length; i += 2) {
    w.svarint(runs[i]);
    w.uvarint(runs[i + 1]);
  }
}

function readSpans(r: ByteReader): Int32Array {
  const spans = r.count(2);
  const out: number[] = [];
  let at = 0;
  for (let s = 0; s < spans; s++) {
    at += r.svarint();
    const length = r.uvarint();
    // Each bucket costs at least one byte of counts later on, which bounds a hostile length.
    if (out.length + length > 1 << 20) throw new SegmentFormatError('histogram block: too many buckets');
    for (let j = 0; j < length; j++) out.push(at++);
  }
  return out.length === 0 ? EMPTY_INDEX : Int32Array.from(out);
}

/** State is what the next histogram of a block is written relative to. */
interface State {
  prev: FloatHistogram | undefined;
  prevInteger: boolean;
  /** the previous histogram's in-histogram bucket deltas (integer) or counts (float), both sides, positive first */
  prevBuckets: Float64Array;
}

function bucketDeltas(h: FloatHistogram): Float64Array {
  const out = new Float64Array(h.posCount.length + h.negCount.length);
  let k = 0;
  for (const side of [h.posCount, h.negCount]) {
    let last = 0;
    for (const c of side) {
      out[k++] = c - last;
      last = c;
    }
  }
  return out;
}

function bucketCounts(h: FloatHistogram): Float64Array {
  const out = new Float64Array(h.posCount.length + h.negCount.length);
  out.set(h.posCount);
  out.set(h.negCount, h.posCount.length);
  return out;
}

function writeHistogram(w: ByteWriter, h: FloatHistogram, st: State): void {
  const integer = isInteger(h);
  const repeat = st.prev !== undefined && sameLayout(h, st.prev);
  const derived = integer && h.count === observed(h);
  w.byte((h.counterResetHint & 3) | (integer ? 0 : FLAG_FLOAT) | (repeat ? FLAG_SAME_LAYOUT : 0) | (derived ? FLAG_DERIVED_COUNT : 0));
  if (!repeat) {
    w.svarint(h.schema);
    w.float64(h.zeroThreshold);
    writeSpans(w, h.posIndex);
    writeSpans(w, h.negIndex);
    if (h.schema === CUSTOM_BUCKETS_SCHEMA) {
      const cv = h.customValues ?? EMPTY_COUNTS;
      w.uvarint(cv.length);
      for (const v of cv) w.float64(v);
    }
  }
  const prev = st.prev;
  if (integer) {
    const base = prev !== undefined && st.prevInteger ? prev : undefined;
    if (!derived) w.svarint(h.count - (base?.count ?? 0));
    w.svarint(h.zeroCount - (base?.zeroCount ?? 0));
    const deltas = bucketDeltas(h);
    const against = repeat && st.prevInteger ? st.prevBuckets : undefined;
    for (let k = 0; k < deltas.length; k++) w.svarint(deltas[k] - (against?.[k] ?? 0));
    st.prevBuckets = deltas;
  } else {
    w.xor(h.count, prev?.count ?? 0);
    w.xor(h.zeroCount, prev?.zeroCount ?? 0);
    const counts = bucketCounts(h);
    const against = repeat && !st.prevInteger ? st.prevBuckets : undefined;
    for (let k = 0; k < counts.length; k++) w.xor(counts[k], against?.[k] ?? 0);
    st.prevBuckets = counts;
  }
  w.xor(h.sum, prev?.sum ?? 0);
  st.prev = h;
  st.prevInteger = integer;
}

function readHistogram(r: ByteReader, st: State): FloatHistogram {
  const flags = r.byte();
  const float = (flags & FLAG_FLOAT) !== 0;
  const repeat = (flags & FLAG_SAME_LAYOUT) !== 0;
  const prev = st.prev;
  if (repeat && prev === undefined) throw new SegmentFormatError('histogram block: repeated layout without a previous histogram');
  let schema: number;
  let zeroThreshold: number;
  let posIndex: Int32Array;
  let negIndex: Int32Array;
  let customValues: Float64Array | null = null;
  if (repeat) {
    ({ schema, zeroThreshold, posIndex, negIndex, customValues } = prev!);
  } else {
    schema = r.svarint();
    zeroThreshold = r.float64();
    posIndex = readSpans(r);
    negIndex = readSpans(r);
    if (schema === CUSTOM_BUCKETS_SCHEMA) {
      const n = r.count(8);
      customValues = new Float64Array(n);
      for (let i = 0; i < n; i++) customValues[i] = r.float64();
    }
  }
  const nb = posIndex.length + negIndex.length;
  let count: number;
  let zeroCount: number;
  const buckets = new Float64Array(nb);
  if (!float) {
    const base = prev !== undefined && st.prevInteger ? prev : undefined;
    count = (flags & FLAG_DERIVED_COUNT) !== 0 ? NaN : r.svarint() + (base?.count ?? 0);
    zeroCount = r.svarint() + (base?.zeroCount ?? 0);
    const against = repeat && st.prevInteger ? st.prevBuckets : undefined;
    for (let k = 0; k < nb; k++) buckets[k] = r.svarint() + (against?.[k] ?? 0);
    st.prevBuckets = buckets.slice();
    // Deltas back to absolute counts, per side.
    for (let k = 1; k < posIndex.length; k++) buckets[k] += buckets[k - 1];
    for (let k = posIndex.length + 1; k < nb; k++) buckets[k] += buckets[k - 1];
    if ((flags & FLAG_DERIVED_COUNT) !== 0) {
      count = zeroCount;
      for (let k = 0; k < nb; k++) count += buckets[k];
    }
  } else {
    count = r.xor(prev?.count ?? 0);
    zeroCount = r.xor(prev?.zeroCount ?? 0);
    const against = repeat && !st.prevInteger ? st.prevBuckets : undefined;
    for (let k = 0; k < nb; k++) buckets[k] = r.xor(against?.[k] ?? 0);
    st.prevBuckets = buckets;
  }
  const sum = r.xor(prev?.sum ?? 0);
  const h: FloatHistogram = {
    schema,
    zeroThreshold,
    zeroCount,
    count,
    sum,
    posIndex,
    posCount: nb === 0 ? EMPTY_COUNTS : buckets.subarray(0, posIndex.length),
    negIndex,
    negCount: nb === 0 ? EMPTY_COUNTS : buckets.subarray(posIndex.length),
    customValues,
    counterResetHint: (flags & 3) as CounterResetHint,
  };
  st.prev = h;
  st.prevInteger = !float;
  return h;
}

/** hasHistograms tells whether a sample slot array holds any histogram. */
export function hasHistograms(histograms: readonly (FloatHistogram | undefined)[] | undefined): histograms is readonly (FloatHistogram | undefined)[] {
  if (histograms === undefined) return false;
  for (const h of histograms) if (h !== undefined) return true;
  return false;
}

/**
 * encodeHistogramBlock encodes the histogram samples among `n` samples (`histograms[i]` set
 * where sample i is one) as a block; a run without histograms gives a block of one byte.
 */
export function encodeHistogramBlock(histograms: readonly (FloatHistogram | undefined)[], n = histograms.length): Uint8Array {
  const w = new ByteWriter();
  const runs: number[] = [];
  let next = 0;
  for (let i = 0; i < n; i++) {
    if (histograms[i] === undefined) continue;
    if (runs.length > 0 && i === next) runs[runs.length - 1]++;
    else runs.push(i - next, 1);
    next = i + 1;
  }
  w.uvarint(runs.length / 2);
  for (const x of runs) w.uvarint(x);
  const st: State = { prev: undefined, prevInteger: false, prevBuckets: EMPTY_COUNTS };
  for (let i = 0; i < n; i++) {
    const h = histograms[i];
    if (h !== undefined) writeHistogram(w, h, st);
  }
  return w.bytes();
}

/** decodeHistogramBlock reads a block back as `n` sample slots, undefined where a sample is a float. */
export function decodeHistogramBlock(bytes: Uint8Array, n: number): (FloatHistogram | undefined)[] {
  const r = new ByteReader(bytes);
  const out = new Array<FloatHistogram | undefined>(n).fill(undefined);
  const runs = r.count(2);
  const positions: number[] = [];
  let at = 0;
  for (let k = 0; k < runs; k++) {
    at += r.uvarint();
    const length = r.uvarint();
    if (at + length > n) throw new SegmentFormatError('histogram block: positions past the run');
    for (let j = 0; j < length; j++) positions.push(at++);
  }
  const st: State = { prev: undefined, prevInteger: false, prevBuckets: EMPTY_COUNTS };
  for (const i of positions) out[i] = readHistogram(r, st);
  return out;
}
