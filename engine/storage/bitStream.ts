/**
 * Bit streams over 32-bit words for the sample codecs. Bits fill each word from its least
 * significant end, so reading up to 32 bits is one or two word loads and shifts, with no
 * per-bit loop. Values wider than 32 bits are written as a low and a high part.
 *
 * Words are stored in the platform's byte order through Uint32Array, as Arrow stores its
 * buffers; every platform Node supports in practice is little-endian.
 */

const TWO_32 = 4294967296;

/** BitWriter appends bit fields to a growable word buffer. */
export class BitWriter {
  private words: Uint32Array;
  private length = 0;
  private current = 0;
  private used = 0;

  constructor(capacityWords = 64) {
    this.words = new Uint32Array(Math.max(1, capacityWords));
  }

  /** write appends the low `bits` (0..32) bits of `value`. */
  write(value: number, bits: number): void {
    if (bits === 0) return;
    const v = bits === 32 ? value >>> 0 : (value & ((1 << bits) - 1)) >>> 0;
    this.current = (this.current | (v << this.used)) >>> 0;
    const free = 32 - this.used;
    if (bits < free) {
      this.used += bits;
      return;
    }
    this.push(this.current);
    // The part of v that did not fit; a shift by 32 would be a shift by 0 in JavaScript.
    this.current = free === 32 ? 0 : v >>> free;
    this.used = bits - free;
  }

  /** writeWide appends `bits` (0..53) bits of a non-negative safe integer. */
  writeWide(value: number, bits: number): void {
    if (bits <= 32) {
      this.write(value, bits);
      return;
    }
    this.write(value % TWO_32, 32);
    this.write(Math.floor(value / TWO_32), bits - 32);
  }

  /** writeWords appends the 64 bits of a float64 given as its low and high words. */
  writeWords(lo: number, hi: number): void {
    this.write(lo, 32);
    this.write(hi, 32);
  }

  private push(word: number): void {
    if (this.length === this.words.length) {
      const next = new Uint32Array(this.words.length * 2);
      next.set(this.words);
      this.words = next;
    }
    this.words[this.length++] = word;
  }

  /** finish returns the words written, the last one zero-padded; the writer must not be used after. */
  finish(): Uint32Array {
    if (this.used > 0) {
      this.push(this.current);
      this.current = 0;
      this.used = 0;
    }
    return this.words.subarray(0, this.length);
  }
}

/**
 * peekBits returns `bits` (1..32) bits of `words` starting at bit `position`. It returns an
 * int32 (for 32 bits possibly negative: `>>> 0` makes it unsigned) because mixing unsigned
 * 32-bit numbers into int32 arithmetic makes V8 fall back to doubles. It is a plain function so decoders' hot loops can keep the position in a local and
 * still have it inlined. Bits past the end read as zero, so callers bound their loops by counts
 * they validated and a damaged stream decodes to wrong numbers, never to an endless loop or an
 * out-of-bounds read.
 */
export function peekBits(words: Uint32Array, position: number, bits: number): number {
  const index = position >>> 5;
  const offset = position & 31;
  let v = index < words.length ? words[index] >>> offset : 0;
  if (offset + bits > 32 && index + 1 < words.length) v |= words[index + 1] << (32 - offset);
  return bits === 32 ? v | 0 : v & ((1 << bits) - 1);
}

/** BitReader reads fields back in the order they were written (see peekBits for reads past the end). */
export class BitReader {
  /** position is the next bit to read; decoders' hot loops read it, advance a local copy and store it back. */
  position = 0;

  constructor(readonly words: Uint32Array) {}

  /** read returns the next `bits` (0..32) bits as an unsigned number. */
  read(bits: number): number {
    if (bits === 0) return 0;
    const v = peekBits(this.words, this.position, bits);
    this.position += bits;
    return v >>> 0;
  }

  /** readWide returns the next `bits` (0..53) bits as a safe integer. */
  readWide(bits: number): number {
    if (bits <= 32) return this.read(bits);
    const lo = this.read(32);
    return this.read(bits - 32) * TWO_32 + lo;
  }
}

/** zigzag maps a signed safe integer to an unsigned one, small magnitudes to small numbers. */
export function zigzag(n: number): number {
  return n >= 0 ? 2 * n : -2 * n - 1;
}

/** unzigzag inverts zigzag. */
export function unzigzag(z: number): number {
  return z % 2 === 0 ? z / 2 : -(z + 1) / 2;
}

/** bitWidth is the number of bits needed for a non-negative safe integer (0 for 0). */
export function bitWidth(n: number): number {
  if (n < TWO_32) return 32 - Math.clz32(n);
  return 32 + (32 - Math.clz32(Math.floor(n / TWO_32)));
}
