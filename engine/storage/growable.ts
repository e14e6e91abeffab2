/**
 * Growable typed arrays for append-heavy head data: amortised doubling, and `view()` hands out
 * a zero-copy subarray of the filled part for readers.
 */
export class GrowableFloat64 {
  private data: Float64Array;
  length = 0;

  constructor(capacity = 16) {
    this.data = new Float64Array(capacity);
  }

  push(value: number): void {
    if (this.length === this.data.length) this.grow(this.length + 1);
    this.data[this.length++] = value;
  }

  /** pushBits appends a raw IEEE-754 bit pattern, used for staleness markers whose NaN payload must survive. */
  pushBits(lo: number, hi: number): void {
    if (this.length === this.data.length) this.grow(this.length + 1);
    const words = new Uint32Array(this.data.buffer, this.data.byteOffset + this.length * 8, 2);
    words[0] = lo;
    words[1] = hi;
    this.length++;
  }

  /**
   * pushAll appends a whole array with one copy: a remote write request brings tens of samples
   * per series, and copying them at once keeps per-sample work (and garbage) out of ingest.
   * The copy keeps every bit, NaN payloads included.
   */
  pushAll(values: Float64Array): void {
    const end = this.length + values.length;
    if (end > this.data.length) this.grow(end);
    this.data.set(values, this.length);
    this.length = end;
  }

  /** last is the newest value pushed; undefined when empty. */
  last(): number | undefined {
    return this.length === 0 ? undefined : this.data[this.length - 1];
  }

  private grow(min: number): void {
    const next = new Float64Array(Math.max(min, this.data.length * 2));
    next.set(this.data.subarray(0, this.length));
    this.data = next;
  }

  view(): Float64Array {
    return this.data.subarray(0, this.length);
  }

  /** replace swaps in new contents (after an in-place sort), keeping capacity bookkeeping simple. */
  replace(values: Float64Array): void {
    this.data = values;
    this.length = values.length;
  }
}

export class GrowableBigInt64 {
  private data: BigInt64Array;
  length = 0;

  constructor(capacity = 16) {
    this.data = new BigInt64Array(capacity);
  }

  push(value: bigint): void {
    if (this.length === this.data.length) {
      const next = new BigInt64Array(this.data.length * 2);
      next.set(this.data);
      this.data = next;
    }
    this.data[this.length++] = value;
  }

  view(): BigInt64Array {
    return this.data.subarray(0, this.length);
  }
}

export class GrowableUint32 {
  private data: Uint32Array;
  length = 0;

  constructor(capacity = 16) {
    this.data = new Uint32Array(capacity);
  }

  push(value: number): void {
    if (this.length === this.data.length) {
      const next = new Uint32Array(this.data.length * 2);
      next.set(this.data);
      this.data = next;
    }
    this.data[this.length++] = value;
  }

  view(): Uint32Array {
    return this.data.subarray(0, this.length);
  }
}
