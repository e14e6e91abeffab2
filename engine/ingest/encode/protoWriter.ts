/**
 * A small protobuf wire-format writer, for producing real request bodies (the telemetry
 * generator, tests, benchmarks) without a schema compiler. Nested messages are written in
 * place: `begin` reserves one byte for the length, `end` writes it, moving the body forward
 * when the length needs more than one varint byte, so the output is canonical.
 *
 * The `*Field` helpers leave out proto3 default values (0, '', false, empty bytes), as
 * conforming encoders do.
 */

const TWO_POW_32 = 4294967296;
const WIRE_VARINT = 0;
const WIRE_FIXED64 = 1;
const WIRE_LENGTH_DELIMITED = 2;
const WIRE_FIXED32 = 5;

const textEncoder = new TextEncoder();

/** varintSize is how many bytes the varint encoding of a non-negative number takes. */
export function varintSize(value: number): number {
  let size = 1;
  let v = value;
  while (v >= 128) {
    v = Math.floor(v / 128);
    size++;
  }
  return size;
}

/** ProtoWriter appends protobuf fields to a growing buffer; `finish` returns the bytes. */
export class ProtoWriter {
  private buf: Uint8Array;
  private view: DataView;
  private pos = 0;

  constructor(initialCapacity = 1024) {
    this.buf = new Uint8Array(Math.max(16, initialCapacity));
    this.view = new DataView(this.buf.buffer);
  }

  /** length is the number of bytes written so far. */
  get length(): number {
    return this.pos;
  }

  private ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.pos + n) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.buf.subarray(0, this.pos));
    this.buf = next;
    this.view = new DataView(next.buffer);
  }

  /** tag writes a field key. */
  tag(field: number, wireType: number): this {
    return this.uint32(((field << 3) | wireType) >>> 0);
  }

  /** uint32 writes a varint of a non-negative integer below 2^32. */
  uint32(value: number): this {
    this.ensure(5);
    let v = value >>> 0;
    while (v >= 0x80) {
      this.buf[this.pos++] = (v & 0x7f) | 0x80;
      v >>>= 7;
    }
    this.buf[this.pos++] = v;
    return this;
  }

  /** int32 writes an int32/enum varint; negative values take 10 bytes, as protobuf specifies. */
  int32(value: number): this {
    return value >= 0 ? this.uint32(value) : this.int64(value);
  }

  /** sint32 writes a zigzag-encoded sint32. */
  sint32(value: number): this {
    return this.uint32(((value << 1) ^ (value >> 31)) >>> 0);
  }

  /** uint64 writes a varint of a non-negative integer (number exact below 2^53, or bigint). */
  uint64(value: number | bigint): this {
    this.ensure(10);
    if (typeof value === 'bigint') {
      let v = BigInt.asUintN(64, value);
      while (v >= 0x80n) {
        this.buf[this.pos++] = Number(v & 0x7fn) | 0x80;
        v >>= 7n;
      }
      this.buf[this.pos++] = Number(v);
      return this;
    }
    let v = value;
    while (v >= 0x80) {
      this.buf[this.pos++] = (v % 128) | 0x80;
      v = Math.floor(v / 128);
    }
    this.buf[this.pos++] = v;
    return this;
  }

  /** int64 writes an int64 varint (two's complement for negatives). */
  int64(value: number | bigint): this {
    if (typeof value === 'number' && value >= 0) return this.uint64(value);
    return this.uint64(BigInt.asUintN(64, BigInt(value)));
  }

  /** bool writes a bool varint. */
  bool(value: boolean): this {
    this.ensure(1);
    this.buf[this.pos++] = value ? 1 : 0;
    return this;
  }

  /** fixed32 writes a little-endian uint32. */
  fixed32(value: number): this {
    this.ensure(4);
    this.view.setUint32(this.pos, value >>> 0, true);
    this.pos += 4;
    return this;
  }

  /** fixed64 writes a little-endian 64-bit integer (negative numbers as two's complement). */
  fixed64(value: number | bigint): this {
    this.ensure(8);
    if (typeof value === 'bigint' || value < 0) {
      this.view.setBigUint64(this.pos, BigInt.asUintN(64, BigInt(value)), true);
    } else {
      this.view.setUint32(this.pos, value % TWO_POW_32, true);
      this.view.setUint32(this.pos + 4, Math.floor(value / TWO_POW_32), true);
    }
    this.pos += 8;
    return this;
  }

  /** fixed64Words writes a 64-bit word given as its two 32-bit halves (for NaN payloads). */
  fixed64Words(lo: number, hi: number): this {
    this.ensure(8);
    this.view.setUint32(this.pos, lo >>> 0, true);
    this.view.setUint32(this.pos + 4, hi >>> 0, true);
    this.pos += 8;
    return this;
  }

  /** double writes a little-endian IEEE 754 double. */
  double(value: number): this {
    this.ensure(8);
    this.view.setFloat64(this.pos, value, true);
    this.pos += 8;
    return this;
  }

  /** bytes writes a length-delimited byte string. */
  bytes(value: Uint8Array): this {
    this.uint32(value.length);
    this.ensure(value.length);
    this.buf.set(value, this.pos);
    this.pos += value.length;
    return this;
  }

  /** string writes a length-delimited UTF-8 string. */
  string(value: string): this {
    if (value.length < 128) {
      // Short strings: encode after a one-byte length and fix it up if the bytes took more.
      this.ensure(value.length * 3 + 2);
      const start = this.pos;
      const { written } = textEncoder.encodeInto(value, this.buf.subarray(start + 1));
      if (written < 128) {
        this.buf[start] = written;
        this.pos = start + 1 + written;
        return this;
      }
      this.buf.copyWithin(start + 2, start + 1, start + 1 + written);
      this.buf[start] = (written & 0x7f) | 0x80;
      this.buf[start + 1] = written >>> 7;
      this.pos = start + 2 + written;
      return this;
    }
    return this.bytes(textEncoder.encode(value));
  }

  /** begin starts a nested message in field `field`; pass the result to `end`. */
  begin(field: number): number {
    this.tag(field, WIRE_LENGTH_DELIMITED);
    this.ensure(1);
    const start = this.pos;
    this.pos += 1;
    return start;
  }

  /** end finishes the nested message begun at `start`, writing its length. */
  end(start: number): this {
    const len = this.pos - start - 1;
    const size = varintSize(len);
    if (size > 1) {
      this.ensure(size - 1);
      this.buf.copyWithin(start + size, start + 1, this.pos);
      this.pos += size - 1;
    }
    let v = len;
    let at = start;
    while (v >= 0x80) {
      this.buf[at++] = (v & 0x7f) | 0x80;
      v >>>= 7;
    }
    this.buf[at] = v;
    return this;
  }

  /** message writes field `field` as a nested message produced by `write`. */
  message(field: number, write: (w: this) => void): this {
    const start = this.begin(field);
    write(this);
    return this.end(start);
  }

  /** stringField writes a string field unless it is empty. */
  stringField(field: number, value: string | undefined): this {
    if (value === undefined || value === '') return this;
    return this.tag(field, WIRE_LENGTH_DELIMITED).string(value);
  }

  /** bytesField writes a bytes field unless it is empty. */
  bytesField(field: number, value: Uint8Array | undefined): this {
    if (value === undefined || value.length === 0) return this;
    return this.tag(field, WIRE_LENGTH_DELIMITED).bytes(value);
  }

  /** uint32Field writes a uint32 field unless it is 0. */
  uint32Field(field: number, value: number | undefined): this {
    if (!value) return this;
    return this.tag(field, WIRE_VARINT).uint32(value);
  }

  /** int32Field writes an int32/enum field unless it is 0. */
  int32Field(field: number, value: number | undefined): this {
    if (!value) return this;
    return this.tag(field, WIRE_VARINT).int32(value);
  }

  /** sint32Field writes a sint32 field unless it is 0. */
  sint32Field(field: number, value: number | undefined): this {
    if (!value) return this;
    return this.tag(field, WIRE_VARINT).sint32(value);
  }

  /** int64Field writes an int64 field unless it is 0. */
  int64Field(field: number, value: number | bigint | undefined): this {
    if (value === undefined || value === 0 || value === 0n) return this;
    return this.tag(field, WIRE_VARINT).int64(value);
  }

  /** uint64Field writes a uint64 field unless it is 0. */
  uint64Field(field: number, value: number | bigint | undefined): this {
    if (value === undefined || value === 0 || value === 0n) return this;
    return this.tag(field, WIRE_VARINT).uint64(value);
  }

  /** boolField writes a bool field unless it is false. */
  boolField(field: number, value: boolean | undefined): this {
    if (!value) return this;
    return this.tag(field, WIRE_VARINT).bool(true);
  }

  /** fixed32Field writes a fixed32 field unless it is 0. */
  fixed32Field(field: number, value: number | undefined): this {
    if (!value) return this;
    return this.tag(field, WIRE_FIXED32).fixed32(value);
  }

  /** fixed64Field writes a fixed64/sfixed64 field unless it is 0. */
  fixed64Field(field: number, value: number | bigint | undefined): this {
    if (value === undefined || value === 0 || value === 0n) return this;
    return this.tag(field, WIRE_FIXED64).fixed64(value);
  }

  /** doubleField writes a double field unless it is +0 (proto3 default). */
  doubleField(field: number, value: number | undefined): this {
    if (value === undefined || Object.is(value, 0)) return this;
    return this.tag(field, WIRE_FIXED64).double(value);
  }

  /** optionalDoubleField writes a proto3 `optional double` whenever it is set, even to 0. */
  optionalDoubleField(field: number, value: number | undefined): this {
    if (value === undefined) return this;
    return this.tag(field, WIRE_FIXED64).double(value);
  }

  /** packedFixed64Field writes a packed repeated fixed64 field unless it is empty. */
  packedFixed64Field(field: number, values: ReadonlyArray<number | bigint> | undefined): this {
    if (values === undefined || values.length === 0) return this;
    this.tag(field, WIRE_LENGTH_DELIMITED).uint32(values.length * 8);
    for (const v of values) this.fixed64(v);
    return this;
  }

  /** packedDoubleField writes a packed repeated double field unless it is empty. */
  packedDoubleField(field: number, values: readonly number[] | undefined): this {
    if (values === undefined || values.length === 0) return this;
    this.tag(field, WIRE_LENGTH_DELIMITED).uint32(values.length * 8);
    for (const v of values) this.double(v);
    return this;
  }

  /** packedUint64Field writes a packed repeated uint64 field unless it is empty. */
  packedUint64Field(field: number, values: ReadonlyArray<number | bigint> | undefined): this {
    if (values === undefined || values.length === 0) return this;
    const start = this.begin(field);
    for (const v of values) this.uint64(v);
    return this.end(start);
  }

  /** finish returns a copy of the bytes written. */
  finish(): Uint8Array {
    return this.buf.slice(0, this.pos);
  }
}
