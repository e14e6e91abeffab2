import { BitReader, BitWriter, bitWidth, peekBits, unzigzag, zigzag } from './bitStream.js';

/**
 * Values of one series, bit for bit, in one of two layouts chosen per series by size:
 *
 * - DECIMAL (as VictoriaMetrics stores values): every value is m / 10^e for one exponent e
 *   and integers m, and m is written as deltas (counters) or deltas of deltas (steadily
 *   growing counters), zigzagged and bit-packed at a fixed width per group of 128. Counters
 *   growing by small whole numbers cost a few bits, constant gauges none. Only values that
 *   this division reproduces exactly qualify (a correctly rounded division by an exact power
 *   of ten gives the same double as parsing the decimal), so nothing is rounded. A few values
 *   that do not fit (a staleness marker, -0, NaN, Inf) are stored as exceptions, their raw
 *   bits patched in after decoding.
 * - XOR (as Gorilla and Prometheus store values): each value XORed with the previous one, and
 *   only the bits between the leading and trailing zeros written. Any float64 fits.
 */

const DECIMAL = 0;
const XOR = 1;
const BY_DELTA = 0;
const BY_DELTA_OF_DELTA = 1;
const GROUP = 128;
/** MAX_EXPONENT keeps 10^e exact in a double (exact up to 10^22) and e in four bits. */
const MAX_EXPONENT = 15;
/** MAX_ABS_MANTISSA keeps mantissas, their deltas and deltas of deltas, zigzagged, within 52 bits. */
const MAX_ABS_MANTISSA = 2 ** 49;
const POW10 = Array.from({ length: MAX_EXPONENT + 1 }, (_, e) => 10 ** e);
/** A series with more exceptions than this share is written as XOR instead. */
const MAX_EXCEPTION_SHARE = 1 / 16;

/** exponentOf returns the least e for which v = round(v·10^e) / 10^e exactly, or -1. */
function exponentOf(v: number): number {
  if (!Number.isFinite(v) || Object.is(v, -0)) return -1;
  for (let e = 0; e <= MAX_EXPONENT; e++) {
    const m = Math.round(v * POW10[e]);
    if (Math.abs(m) > MAX_ABS_MANTISSA) return -1;
    if ((e === 0 ? m : m / POW10[e]) === v) return e;
  }
  return -1;
}

/** Decimal is a series' values as mantissas over one exponent, with the indices that did not fit. */
interface Decimal {
  exponent: number;
  mantissas: Float64Array;
  exceptions: number[];
}

function toDecimal(v: Float64Array): Decimal | undefined {
  const exponents = new Int8Array(v.length);
  let exponent = 0;
  const exceptions: number[] = [];
  for (let i = 0; i < v.length; i++) {
    const e = exponentOf(v[i]);
    exponents[i] = e;
    if (e < 0) exceptions.push(i);
    else if (e > exponent) exponent = e;
    if (exceptions.length > v.length * MAX_EXCEPTION_SHARE) return undefined;
  }
  const mantissas = new Float64Array(v.length);
  const scale = POW10[exponent];
  let previous = 0;
  let kept = 0;
  for (let i = 0; i < v.length; i++) {
    let m = previous;
    if (exponents[i] >= 0) {
      // The exact decimal m·10^-e is the same rational at a larger exponent, so the division still reproduces v.
      m = Math.round(v[i] * scale);
      if (Math.abs(m) > MAX_ABS_MANTISSA || (exponent === 0 ? m : m / scale) !== v[i]) {
        m = previous;
        exceptions.push(i);
      } else kept++;
    }
    mantissas[i] = previous = m;
  }
  if (v.length - kept > v.length * MAX_EXCEPTION_SHARE) return undefined;
  exceptions.sort((a, b) => a - b);
  return { exponent, mantissas, exceptions };
}

/** residuals returns m's deltas (from index 1) or deltas of deltas (from index 2). */
function residuals(m: Float64Array, order: number): Float64Array {
  const start = order === BY_DELTA ? 1 : 2;
  const out = new Float64Array(Math.max(0, m.length - start));
  for (let i = start; i < m.length; i++) {
    const d = m[i] - m[i - 1];
    out[i - start] = zigzag(order === BY_DELTA ? d : d - (m[i - 1] - m[i - 2]));
  }
  return out;
}

function packedBits(z: Float64Array): number {
  let bits = 0;
  for (let g = 0; g < z.length; g += GROUP) {
    let max = 0;
    const end = Math.min(z.length, g + GROUP);
    for (let i = g; i < end; i++) if (z[i] > max) max = z[i];
    bits += 6 + bitWidth(max) * (end - g);
  }
  return bits;
}

function writePacked(z: Float64Array, out: BitWriter): void {
  for (let g = 0; g < z.length; g += GROUP) {
    let max = 0;
    const end = Math.min(z.length, g + GROUP);
    for (let i = g; i < end; i++) if (z[i] > max) max = z[i];
    const width = bitWidth(max);
    out.write(width, 6);
    for (let i = g; i < end; i++) out.writeWide(z[i], width);
  }
}

function writeDecimal(v: Float64Array, d: Decimal, out: BitWriter): void {
  const m = d.mantissas;
  const byDelta = residuals(m, BY_DELTA);
  const byDod = residuals(m, BY_DELTA_OF_DELTA);
  const order = m.length > 2 && packedBits(byDod) < packedBits(byDelta) ? BY_DELTA_OF_DELTA : BY_DELTA;
  out.write(DECIMAL, 1);
  out.write(d.exponent, 4);
  out.write(order, 1);
  out.write(d.exceptions.length, 32);
  const words = new Uint32Array(v.buffer, v.byteOffset, v.length * 2);
  for (const i of d.exceptions) {
    out.write(i, 32);
    out.writeWords(words[2 * i], words[2 * i + 1]);
  }
  out.writeWide(zigzag(m[0]), 52);
  if (order === BY_DELTA_OF_DELTA) out.writeWide(zigzag(m[1] - m[0]), 52);
  writePacked(order === BY_DELTA ? byDelta : byDod, out);
}

/** shiftRight64 returns (hi:lo) >>> s as [lo, hi], for s in 0..63. */
function shiftRight64(lo: number, hi: number, s: number): [number, number] {
  if (s === 0) return [lo, hi];
  if (s < 32) return [((lo >>> s) | (hi << (32 - s))) >>> 0, hi >>> s];
  return [hi >>> (s - 32), 0];
}

function writeXor(v: Float64Array, out: BitWriter): void {
  const words = new Uint32Array(v.buffer, v.byteOffset, v.length * 2);
  out.write(XOR, 1);
  let lo = words[0];
  let hi = words[1];
  out.writeWords(lo, hi);
  let windowLead = -1;
  let windowTrail = 0;
  for (let i = 1; i < v.length; i++) {
    const xl = (words[2 * i] ^ lo) >>> 0;
    const xh = (words[2 * i + 1] ^ hi) >>> 0;
    lo = words[2 * i];
    hi = words[2 * i + 1];
    if (xl === 0 && xh === 0) {
      out.write(0, 1);
      continue;
    }
    out.write(1, 1);
    const lead = xh !== 0 ? Math.clz32(xh) : 32 + Math.clz32(xl);
    const trail = xl !== 0 ? 31 - Math.clz32(xl & -xl) : 32 + 31 - Math.clz32(xh & -xh);
    let shift: number;
    let length: number;
    if (windowLead >= 0 && lead >= windowLead && trail >= windowTrail) {
      out.write(0, 1);
      shift = windowTrail;
      length = 64 - windowLead - windowTrail;
    } else {
      out.write(1, 1);
      length = 64 - lead - trail;
      out.write(lead, 6);
      out.write(length - 1, 6);
      shift = trail;
      windowLead = lead;
      windowTrail = trail;
    }
    const [sl, sh] = shiftRight64(xl, xh, shift);
    if (length <= 32) out.write(sl, length);
    else {
      out.write(sl, 32);
      out.write(sh, length - 32);
    }
  }
}

/**
 * ValueLayout picks the layout: 'smaller' (what segments use) tries both and keeps the smaller;
 * 'xor' and 'decimal' force one (decimal still falls back to XOR when decimals do not fit), so
 * benchmarks can compare the candidates on the same data.
 */
export type ValueLayout = 'smaller' | 'xor' | 'decimal';

/**
 * encodeValues encodes a series' values (at least one). Trying both layouts costs an extra
 * pass, but encoding runs off the query path (cuts and compaction), where the bytes at rest
 * matter more.
 */
export function encodeValues(v: Float64Array, layout: ValueLayout = 'smaller'): Uint32Array {
  const decimal = layout === 'xor' ? undefined : toDecimal(v);
  let decWords: Uint32Array | undefined;
  if (decimal !== undefined) {
    const dec = new BitWriter(v.length / 8);
    writeDecimal(v, decimal, dec);
    decWords = dec.finish();
    if (layout === 'decimal') return decWords;
  }
  const xor = new BitWriter(v.length / 2);
  writeXor(v, xor);
  const xorWords = xor.finish();
  return decWords !== undefined && decWords.length <= xorWords.length ? decWords : xorWords;
}

/**
 * ValueLoops are the per-sample parts of decoding values, each reading from the input's
 * position and advancing it past what it read. A faster implementation can take their place
 * (sampleLoops.ts); VALUE_LOOPS_IN_JAVASCRIPT is the reference.
 */
export interface ValueLoops {
  /** xor decodes values 1..n-1 of an XOR stream; out[0] holds the first value. */
  xor(input: BitReader, out: Float64Array): void;
  /**
   * decimal decodes the bit-packed groups of a decimal stream into values [from, n): each
   * residual added to the mantissa `m` (with `byDeltaOfDelta`, to the running `delta` first),
   * and each mantissa divided by `scale`.
   */
  decimal(input: BitReader, out: Float64Array, from: number, m: number, delta: number, byDeltaOfDelta: boolean, scale: number): void;
}

function decimalInJavaScript(input: BitReader, out: Float64Array, from: number, m: number, delta: number, byDeltaOfDelta: boolean, scale: number): void {
  const n = out.length;
  const words = input.words;
  let i = from;
  while (i < n) {
    const width = input.read(6);
    const end = Math.min(n, i + GROUP);
    if (width > 31) {
      for (; i < end; i++) {
        const d = unzigzag(input.readWide(width));
        if (byDeltaOfDelta) delta += d;
        out[i] = m += byDeltaOfDelta ? delta : d;
      }
      continue;
    }
    // The hot loops: the bit position lives in a local, and zigzag decodes with 32-bit operations.
    let position = input.position;
    if (!byDeltaOfDelta) {
      if (width === 0) for (; i < end; i++) out[i] = m;
      else {
        for (; i < end; i++, position += width) {
          const z = peekBits(words, position, width);
          out[i] = m += (z >>> 1) ^ -(z & 1);
        }
      }
    } else {
      if (width === 0) for (; i < end; i++) out[i] = m += delta;
      else {
        for (; i < end; i++, position += width) {
          const z = peekBits(words, position, width);
          delta += (z >>> 1) ^ -(z & 1);
          out[i] = m += delta;
        }
      }
    }
    input.position = position;
  }
  if (scale !== 1) for (let k = from; k < n; k++) out[k] /= scale;
}

function xorInJavaScript(input: BitReader, out: Float64Array): void {
  const words = new Uint32Array(out.buffer, out.byteOffset, out.length * 2);
  const stream = input.words;
  // lo and hi stay int32 (Uint32Array stores wrap them), which keeps V8 off doubles.
  let lo = words[0] | 0;
  let hi = words[1] | 0;
  let lead = 0;
  let trail = 0;
  // The bit position lives in a local so every read below is an inlined peekBits.
  let at = input.position;
  for (let i = 1; i < out.length; i++) {
    const control = peekBits(stream, at, 2);
    if ((control & 1) === 0) {
      at += 1;
    } else {
      at += 2;
      if ((control & 2) !== 0) {
        lead = peekBits(stream, at, 6);
        trail = 64 - lead - (peekBits(stream, at + 6, 6) + 1);
        at += 12;
        if (trail < 0) throw new RangeError('value stream has an impossible XOR window');
      }
      const length = 64 - lead - trail;
      let xl: number;
      let xh: number;
      if (length <= 32) {
        xl = peekBits(stream, at, length);
        xh = 0;
      } else {
        xl = peekBits(stream, at, 32);
        xh = peekBits(stream, at + 32, length - 32);
      }
      at += length;
      // (xh:xl) << trail
      if (trail >= 32) {
        xh = xl << (trail - 32);
        xl = 0;
      } else if (trail > 0) {
        xh = (xh << trail) | (xl >>> (32 - trail));
        xl = xl << trail;
      }
      lo ^= xl;
      hi ^= xh;
    }
    words[2 * i] = lo;
    words[2 * i + 1] = hi;
  }
  input.position = at;
}

/** VALUE_LOOPS_IN_JAVASCRIPT are the ValueLoops written in JavaScript. */
export const VALUE_LOOPS_IN_JAVASCRIPT: ValueLoops = { xor: xorInJavaScript, decimal: decimalInJavaScript };

function decodeDecimal(input: BitReader, out: Float64Array, loops: ValueLoops): void {
  const n = out.length;
  const exponent = input.read(4);
  const order = input.read(1);
  const exceptionCount = input.read(32);
  if (exceptionCount > n) throw new RangeError(`value stream claims ${exceptionCount} exceptions for ${n} values`);
  const exceptions = new Uint32Array(exceptionCount * 3);
  for (let k = 0; k < exceptions.length; k++) exceptions[k] = input.read(32);
  const scale = POW10[exponent];
  const byDeltaOfDelta = order === BY_DELTA_OF_DELTA && n > 1;
  const m = unzigzag(input.readWide(52));
  const delta = byDeltaOfDelta ? unzigzag(input.readWide(52)) : 0;
  out[0] = m / scale;
  if (byDeltaOfDelta) out[1] = (m + delta) / scale;
  const from = byDeltaOfDelta ? 2 : 1;
  if (n > from) loops.decimal(input, out, from, byDeltaOfDelta ? m + delta : m, delta, byDeltaOfDelta, scale);
  if (exceptionCount > 0) {
    const words = new Uint32Array(out.buffer, out.byteOffset, n * 2);
    for (let k = 0; k < exceptions.length; k += 3) {
      const at = exceptions[k];
      if (at >= n) throw new RangeError(`value exception at ${at} past ${n} values`);
      words[2 * at] = exceptions[k + 1];
      words[2 * at + 1] = exceptions[k + 2];
    }
  }
}

function decodeXor(input: BitReader, out: Float64Array, loops: ValueLoops): void {
  const words = new Uint32Array(out.buffer, out.byteOffset, 2);
  words[0] = input.read(32);
  words[1] = input.read(32);
  if (out.length > 1) loops.xor(input, out);
}

/** decodeValues fills `out` (its length is the sample count the series table gave) from `input`. */
export function decodeValues(input: BitReader, out: Float64Array, loops: ValueLoops = VALUE_LOOPS_IN_JAVASCRIPT): void {
  if (out.length === 0) return;
  if (input.read(1) === DECIMAL) decodeDecimal(input, out, loops);
  else decodeXor(input, out, loops);
}
