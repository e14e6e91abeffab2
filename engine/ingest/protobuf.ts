/**
 * A protobuf wire-format reader over a Uint8Array, written for the ingestion hot path: no
 * reflection, no per-field allocation, and every read bounds-checked so that truncated or
 * hostile input ends in an IngestError instead of an out-of-range read or a silent zero.
 *
 * Decoders drive it with the usual loop: read a tag, switch on it, read the value or `skip`
 * it. Nested messages are not copied: `messageEnd()` reads the length prefix and returns the
 * offset where the message stops, and `checkEnd(end)` verifies that its last field did not
 * run past it. 64-bit integers are read into the `lo`/`hi` words (no BigInt unless asked for)
 * because most of them are timestamps and counts that convert to a number exactly.
 */
import { badRequest } from './errors.js';
import { decodeUtf8 } from './utf8.js';

/** Wire types of the protobuf encoding. */
export const WIRE_VARINT = 0;
export const WIRE_FIXED64 = 1;
export const WIRE_LENGTH_DELIMITED = 2;
export const WIRE_START_GROUP = 3;
export const WIRE_END_GROUP = 4;
export const WIRE_FIXED32 = 5;

const TWO_POW_32 = 4294967296;

/** MAX_GROUP_DEPTH bounds nested legacy groups while skipping them. */
const MAX_GROUP_DEPTH = 64;

/** fieldTag computes the tag a writer emits for (field, wireType), for `switch` statements. */
export function fieldTag(field: number, wireType: number): number {
  return ((field << 3) | wireType) >>> 0;
}

/** ProtoReader reads protobuf fields from a byte range; see the module comment. */
export class ProtoReader {
  readonly buf: Uint8Array;
  readonly view: DataView;
  /** the offset just past the readable bytes */
  readonly limit: number;
  /** the read offset */
  pos: number;
  /** low 32 bits (unsigned) of the last 64-bit value read with varint64 or fixed64 */
  lo = 0;
  /** high 32 bits (unsigned) of the last 64-bit value read with varint64 or fixed64 */
  hi = 0;

  constructor(buf: Uint8Array, start = 0, end = buf.length) {
    if (start < 0 || end > buf.length || start > end) throw new RangeError('ProtoReader: range outside the buffer');
    this.buf = buf;
    this.view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
    this.pos = start;
    this.limit = end;
  }

  /** more tells whether a field starts before `end`. */
  more(end: number): boolean {
    return this.pos < end;
  }

  /** tag reads a field tag and rejects field number 0, which no valid message contains. */
  tag(): number {
    const at = this.pos;
    const t = this.uint32();
    if (t >>> 3 === 0) throw badRequest(`protobuf: invalid field number 0 at byte ${at}`);
    return t;
  }

  /**
   * uint32 reads a varint and returns its low 32 bits as an unsigned number, accepting the
   * 10-byte form a negative int32 is written in.
   */
  uint32(): number {
    const buf = this.buf;
    let pos = this.pos;
    if (pos + 10 > this.limit) return this.uint32Checked();
    let b = buf[pos++];
    let value = b & 0x7f;
    if (b < 0x80) {
      this.pos = pos;
      return value;
    }
    b = buf[pos++];
    value |= (b & 0x7f) << 7;
    if (b < 0x80) {
      this.pos = pos;
      return value;
    }
    b = buf[pos++];
    value |= (b & 0x7f) << 14;
    if (b < 0x80) {
      this.pos = pos;
      return value;
    }
    b = buf[pos++];
    value |= (b & 0x7f) << 21;
    if (b < 0x80) {
      this.pos = pos;
      return value;
    }
    b = buf[pos++];
    value = (value | ((b & 0x0f) << 28)) >>> 0;
    if (b < 0x80) {
      this.pos = pos;
      return value;
    }
    for (let i = 0; i < 5; i++) {
      if (buf[pos++] < 0x80) {
        this.pos = pos;
        return value;
      }
    }
    throw badRequest(`protobuf: varint longer than 10 bytes at byte ${this.pos}`);
  }

  /** uint32Checked is uint32 near the end of the buffer, where every byte needs a check. */
  private uint32Checked(): number {
    const start = this.pos;
    let value = 0;
    for (let i = 0; i < 10; i++) {
      if (this.pos >= this.limit) throw this.truncated(start, 'varint');
      const b = this.buf[this.pos++];
      if (i < 5) value |= (b & 0x7f) << (7 * i);
      if (b < 0x80) return value >>> 0;
    }
    throw badRequest(`protobuf: varint longer than 10 bytes at byte ${start}`);
  }

  /** int32 reads an int32 or enum varint (negative values are sign-extended to 10 bytes). */
  int32(): number {
    return this.uint32() | 0;
  }

  /** sint32 reads a zigzag-encoded sint32. */
  sint32(): number {
    const n = this.uint32();
    return (n >>> 1) ^ -(n & 1);
  }

  /** bool reads a varint as a boolean (any non-zero value is true). */
  bool(): boolean {
    this.varint64();
    return this.lo !== 0 || this.hi !== 0;
  }

  /** varint64 reads a varint of up to 64 bits into `lo`/`hi`. */
  varint64(): void {
    const buf = this.buf;
    const limit = this.limit;
    const start = this.pos;
    let pos = start;
    let lo = 0;
    let hi = 0;
    let b = 0;
    for (let shift = 0; shift < 28; shift += 7) {
      if (pos >= limit) throw this.truncated(start, 'varint');
      b = buf[pos++];
      lo |= (b & 0x7f) << shift;
      if (b < 0x80) {
        this.lo = lo >>> 0;
        this.hi = 0;
        this.pos = pos;
        return;
      }
    }
    if (pos >= limit) throw this.truncated(start, 'varint');
    b = buf[pos++];
    lo |= (b & 0x7f) << 28;
    hi = (b & 0x7f) >>> 4;
    if (b < 0x80) {
      this.lo = lo >>> 0;
      this.hi = hi >>> 0;
      this.pos = pos;
      return;
    }
    for (let shift = 3; shift < 32; shift += 7) {
      if (pos >= limit) throw this.truncated(start, 'varint');
      b = buf[pos++];
      hi |= (b & 0x7f) << shift;
      if (b < 0x80) {
        this.lo = lo >>> 0;
        this.hi = hi >>> 0;
        this.pos = pos;
        return;
      }
    }
    throw badRequest(`protobuf: varint longer than 10 bytes at byte ${start}`);
  }

  /** uint64Number reads a uint64 varint as a number (exact below 2^53, rounded above). */
  uint64Number(): number {
    this.varint64();
    return this.hi * TWO_POW_32 + this.lo;
  }

  /** int64Number reads an int64 varint as a number (exact within ±2^53). */
  int64Number(): number {
    this.varint64();
    return (this.hi | 0) * TWO_POW_32 + this.lo;
  }

  /** int64Value reads an int64 varint exactly: a number when safe, a bigint otherwise. */
  int64Value(): number | bigint {
    this.varint64();
    return wordsToInt64(this.lo, this.hi);
  }

  /** sint64Number reads a zigzag-encoded sint64 as a number. */
  sint64Number(): number {
    this.varint64();
    const negative = (this.lo & 1) === 1;
    const lo = ((this.lo >>> 1) | (this.hi << 31)) >>> 0;
    const hi = this.hi >>> 1;
    const magnitude = hi * TWO_POW_32 + lo;
    return negative ? -magnitude - 1 : magnitude;
  }

  /** fixed32 reads a little-endian uint32. */
  fixed32(): number {
    const pos = this.pos;
    if (pos + 4 > this.limit) throw this.truncated(pos, 'fixed32');
    this.pos = pos + 4;
    return this.view.getUint32(pos, true);
  }

  /** fixed64 reads a little-endian 64-bit word into `lo`/`hi`. */
  fixed64(): void {
    const pos = this.pos;
    if (pos + 8 > this.limit) throw this.truncated(pos, 'fixed64');
    this.pos = pos + 8;
    this.lo = this.view.getUint32(pos, true);
    this.hi = this.view.getUint32(pos + 4, true);
  }

  /** fixed64Number reads a fixed64 as an unsigned number (exact below 2^53). */
  fixed64Number(): number {
    this.fixed64();
    return this.hi * TWO_POW_32 + this.lo;
  }

  /** sfixed64Number reads an sfixed64 as a signed number (exact within ±2^53). */
  sfixed64Number(): number {
    this.fixed64();
    return (this.hi | 0) * TWO_POW_32 + this.lo;
  }

  /** fixed64BigInt reads a fixed64 as an exact unsigned bigint (nanosecond timestamps). */
  fixed64BigInt(): bigint {
    const pos = this.pos;
    if (pos + 8 > this.limit) throw this.truncated(pos, 'fixed64');
    this.pos = pos + 8;
    return this.view.getBigUint64(pos, true);
  }

  /** double reads a little-endian IEEE 754 double. */
  double(): number {
    const pos = this.pos;
    if (pos + 8 > this.limit) throw this.truncated(pos, 'double');
    this.pos = pos + 8;
    return this.view.getFloat64(pos, true);
  }

  /** float reads a little-endian IEEE 754 single. */
  float(): number {
    const pos = this.pos;
    if (pos + 4 > this.limit) throw this.truncated(pos, 'float');
    this.pos = pos + 4;
    return this.view.getFloat32(pos, true);
  }

  /**
   * messageEnd reads a length prefix and returns the offset where the length-delimited value
   * ends, after checking it lies inside the buffer. `pos` is left at the value's first byte.
   */
  messageEnd(): number {
    const at = this.pos;
    const len = this.uint32();
    const end = this.pos + len;
    if (end > this.limit) {
      throw badRequest(
        `protobuf: length ${len} at byte ${at} exceeds the ${this.limit - this.pos} bytes left (truncated input?)`,
      );
    }
    return end;
  }

  /** bytes reads a length-delimited value as a view into the buffer (no copy). */
  bytes(): Uint8Array {
    const end = this.messageEnd();
    const start = this.pos;
    this.pos = end;
    return this.buf.subarray(start, end);
  }

  /** string reads a length-delimited UTF-8 string, replacing malformed bytes with U+FFFD. */
  string(): string {
    const end = this.messageEnd();
    const start = this.pos;
    this.pos = end;
    return decodeUtf8(this.buf, start, end);
  }

  /**
   * checkEnd verifies that decoding a nested message stopped exactly at its end: a last field
   * that ran past it means the message and its parent disagree about the length.
   */
  checkEnd(end: number): void {
    if (this.pos !== end) {
      throw badRequest(`protobuf: field runs past the end of its enclosing message (byte ${this.pos}, message ends at ${end})`);
    }
  }

  /** skip passes over the value of a field with the given tag, whatever its wire type. */
  skip(tag: number): void {
    this.skipWire(tag & 7, tag >>> 3, 0);
  }

  private skipWire(wireType: number, field: number, depth: number): void {
    const at = this.pos;
    switch (wireType) {
      case WIRE_VARINT:
        this.varint64();
        return;
      case WIRE_FIXED64:
        if (at + 8 > this.limit) throw this.truncated(at, 'fixed64');
        this.pos = at + 8;
        return;
      case WIRE_LENGTH_DELIMITED:
        this.pos = this.messageEnd();
        return;
      case WIRE_FIXED32:
        if (at + 4 > this.limit) throw this.truncated(at, 'fixed32');
        this.pos = at + 4;
        return;
      case WIRE_START_GROUP: {
        if (depth >= MAX_GROUP_DEPTH) throw badRequest(`protobuf: groups nested too deeply at byte ${at}`);
        for (;;) {
          if (this.pos >= this.limit) throw this.truncated(at, 'group');
          const t = this.tag();
          if ((t & 7) === WIRE_END_GROUP) {
            if (t >>> 3 !== field) throw badRequest(`protobuf: mismatched end of group ${field} at byte ${this.pos}`);
            return;
          }
          this.skipWire(t & 7, t >>> 3, depth + 1);
        }
      }
      default:
        throw badRequest(`protobuf: invalid wire type ${wireType} for field ${field} before byte ${at}`);
    }
  }

  /**
   * packedEnd prepares reading a repeated scalar field: for the packed form (wire type 2) it
   * returns the end of the packed run; for one unpacked element it returns -1 and the caller
   * reads a single value.
   */
  packedEnd(tag: number): number {
    return (tag & 7) === WIRE_LENGTH_DELIMITED ? this.messageEnd() : -1;
  }

  /** expectWireType rejects a known field sent with the wrong wire type. */
  expectWireType(tag: number, wireType: number): void {
    if ((tag & 7) !== wireType) {
      throw badRequest(`protobuf: field ${tag >>> 3} has wire type ${tag & 7}, expected ${wireType} (byte ${this.pos})`);
    }
  }

  private truncated(at: number, what: string): Error {
    return badRequest(`protobuf: truncated input: ${what} at byte ${at} runs past the end (${this.limit} bytes)`);
  }
}

/** wordsToInt64 turns two unsigned 32-bit words into an exact int64 (number when safe). */
export function wordsToInt64(lo: number, hi: number): number | bigint {
  const signedHi = hi | 0;
  if (signedHi >= -0x200000 && signedHi < 0x200000) return signedHi * TWO_POW_32 + lo;
  return BigInt.asIntN(64, (BigInt(hi) << 32n) | BigInt(lo));
}

/**
 * nanosWordsToMillis converts an unsigned 64-bit nanosecond count given as two words into
 * whole milliseconds (floor) exactly, without BigInt: 2^32 = 4294·10^6 + 967296, so the high
 * word contributes hi·4294 ms plus a remainder small enough to divide exactly as a double.
 */
export function nanosWordsToMillis(lo: number, hi: number): number {
  const rest = hi * 967296 + lo;
  let q = Math.floor(rest / 1e6);
  if (q * 1e6 > rest) q--;
  return hi * 4294 + q;
}

/** FieldSpan is where one field's value lies, remembered in a first pass over a message. */
export interface FieldSpan {
  start: number;
  end: number;
}

/**
 * scanMessage makes a first pass over a message whose fields may come in any order and returns
 * where the length-delimited fields in `fields` lie, grouped by field number, so that context
 * (a resource, a scope, a stream's labels) can be decoded before the records that need it.
 */
export function scanMessage(r: ProtoReader, end: number, fields: readonly number[]): Map<number, FieldSpan[]> {
  const spans = new Map<number, FieldSpan[]>();
  for (const f of fields) spans.set(f, []);
  while (r.pos < end) {
    const tag = r.tag();
    const list = (tag & 7) === WIRE_LENGTH_DELIMITED ? spans.get(tag >>> 3) : undefined;
    if (list) {
      const fieldEnd = r.messageEnd();
      list.push({ start: r.pos, end: fieldEnd });
      r.pos = fieldEnd;
    } else {
      r.skip(tag);
    }
  }
  r.checkEnd(end);
  return spans;
}

/**
 * readRepeated appends the values of a repeated scalar field, packed (one length-delimited run)
 * or not (one value of `wireType`), reading each with `readOne`.
 */
export function readRepeated(r: ProtoReader, tag: number, wireType: number, readOne: (r: ProtoReader) => number, into: number[]): void {
  const end = r.packedEnd(tag);
  if (end < 0) {
    r.expectWireType(tag, wireType);
    into.push(readOne(r));
    return;
  }
  while (r.pos < end) into.push(readOne(r));
  r.checkEnd(end);
}

/** Element readers for readRepeated. */
export const readUint32 = (r: ProtoReader): number => r.uint32();
export const readSint64 = (r: ProtoReader): number => r.sint64Number();
export const readDouble = (r: ProtoReader): number => r.double();
