/**
 * Snappy block format (not the framed stream format), which Prometheus remote write and Loki
 * push bodies use. The decompressor trusts nothing: the declared length is checked against a
 * caller's limit before any allocation (a 20-byte body may declare 4 GiB), every literal and
 * copy is checked against both the input and the declared output, offsets of zero or pointing
 * before the start are rejected, and the output must end exactly at the declared length.
 *
 * The compressor is a straightforward greedy matcher with a hash table of 4-byte sequences per
 * 64 KiB block, enough to produce realistic payloads for tests and the telemetry generator.
 */
import { IngestError, badRequest, payloadTooLarge } from './errors.js';

const TAG_LITERAL = 0;
const TAG_COPY1 = 1;
const TAG_COPY2 = 2;

/** BLOCK_SIZE is the unit the compressor matches within, as the reference encoder does. */
const BLOCK_SIZE = 65536;
const HASH_BITS = 14;
const HASH_SIZE = 1 << HASH_BITS;
const MIN_MATCH = 4;
/** INPUT_MARGIN keeps the matcher's 4-byte loads inside the block. */
const INPUT_MARGIN = 15;
const MAX_DECODED_LENGTH = 0xffffffff;
/** SHORT_COPY is the length under which bytes are moved in a loop rather than by a call. */
const SHORT_COPY = 16;

/**
 * snappyDecodedLength reads the length a snappy block declares, without decompressing. It lets
 * a caller refuse a body before allocating anything.
 */
export function snappyDecodedLength(src: Uint8Array): number {
  return readPreamble(src).length;
}

function readPreamble(src: Uint8Array): { length: number; headerBytes: number } {
  let result = 0;
  let shift = 0;
  for (let i = 0; i < 5; i++) {
    if (i >= src.length) throw badRequest('snappy: truncated length preamble');
    const b = src[i];
    result += (b & 0x7f) * 2 ** shift;
    if (b < 0x80) {
      if (result > MAX_DECODED_LENGTH) throw badRequest('snappy: declared length does not fit in 32 bits');
      return { length: result, headerBytes: i + 1 };
    }
    shift += 7;
  }
  throw badRequest('snappy: length preamble longer than 5 bytes');
}

/**
 * snappyDecompress decodes a snappy block. It throws IngestError PAYLOAD_TOO_LARGE when the
 * declared length passes `maxBytes`, and BAD_REQUEST for any malformed input.
 */
export function snappyDecompress(src: Uint8Array, maxBytes: number = MAX_DECODED_LENGTH): Uint8Array {
  const { length, headerBytes } = readPreamble(src);
  if (length > maxBytes) throw payloadTooLarge(`snappy body declaring ${length} bytes`, maxBytes);
  const out = new Uint8Array(length);
  let s = headerBytes;
  let d = 0;
  const srcLen = src.length;
  while (s < srcLen) {
    const tag = src[s];
    const kind = tag & 3;
    if (kind === TAG_LITERAL) {
      let len = tag >>> 2;
      if (len < 60) {
        s += 1;
      } else {
        const extra = len - 59;
        if (s + extra >= srcLen) throw corrupt('literal length runs past the input', s);
        len = src[s + 1];
        if (extra > 1) len |= src[s + 2] << 8;
        if (extra > 2) len |= src[s + 3] << 16;
        if (extra > 3) len = (len | (src[s + 4] << 24)) >>> 0;
        s += 1 + extra;
      }
      len += 1;
      if (len > srcLen - s) throw corrupt(`literal of ${len} bytes runs past the input`, s);
      if (len > length - d) throw corrupt(`literal of ${len} bytes overflows the declared length ${length}`, s);
      if (len <= SHORT_COPY) {
        for (let i = 0; i < len; i++) out[d + i] = src[s + i];
      } else {
        out.set(src.subarray(s, s + len), d);
      }
      s += len;
      d += len;
      continue;
    }
    let len: number;
    let offset: number;
    if (kind === TAG_COPY1) {
      if (s + 2 > srcLen) throw corrupt('copy runs past the input', s);
      len = 4 + ((tag >>> 2) & 7);
      offset = ((tag >>> 5) << 8) | src[s + 1];
      s += 2;
    } else if (kind === TAG_COPY2) {
      if (s + 3 > srcLen) throw corrupt('copy runs past the input', s);
      len = 1 + (tag >>> 2);
      offset = src[s + 1] | (src[s + 2] << 8);
      s += 3;
    } else {
      // TAG_COPY4
      if (s + 5 > srcLen) throw corrupt('copy runs past the input', s);
      len = 1 + (tag >>> 2);
      offset = (src[s + 1] | (src[s + 2] << 8) | (src[s + 3] << 16) | (src[s + 4] << 24)) >>> 0;
      s += 5;
    }
    if (offset === 0 || offset > d) throw corrupt(`copy offset ${offset} is outside the ${d} bytes written`, s);
    if (len > length - d) throw corrupt(`copy of ${len} bytes overflows the declared length ${length}`, s);
    const from = d - offset;
    if (offset >= len && len > SHORT_COPY) {
      out.copyWithin(d, from, from + len);
    } else {
      // Short or overlapping copy: a byte loop beats a call, and an overlapping copy must
      // repeat its pattern, which only producing one byte at a time does.
      for (let i = 0; i < len; i++) out[d + i] = out[from + i];
    }
    d += len;
  }
  if (d !== length) throw badRequest(`snappy: decoded ${d} bytes but the block declares ${length}`);
  return out;
}

function corrupt(what: string, at: number): IngestError {
  return badRequest(`snappy: corrupt input at byte ${at}: ${what}`);
}

/** snappyMaxCompressedLength bounds the compressed size of `n` input bytes. */
export function snappyMaxCompressedLength(n: number): number {
  return 32 + n + Math.floor(n / 6);
}

/** snappyCompress encodes `src` as one snappy block. */
export function snappyCompress(src: Uint8Array): Uint8Array {
  const out = new Uint8Array(snappyMaxCompressedLength(src.length));
  let d = writeUvarint(out, 0, src.length);
  const table = new Int32Array(HASH_SIZE);
  for (let blockStart = 0; blockStart < src.length; blockStart += BLOCK_SIZE) {
    const blockEnd = Math.min(blockStart + BLOCK_SIZE, src.length);
    d = compressBlock(src, blockStart, blockEnd, out, d, table);
  }
  return out.slice(0, d);
}

function load32(buf: Uint8Array, i: number): number {
  return (buf[i] | (buf[i + 1] << 8) | (buf[i + 2] << 16) | (buf[i + 3] << 24)) >>> 0;
}

function hash4(u: number): number {
  return Math.imul(u, 0x1e35a7bd) >>> (32 - HASH_BITS);
}

function compressBlock(
  src: Uint8Array,
  start: number,
  end: number,
  out: Uint8Array,
  d: number,
  table: Int32Array,
): number {
  let nextEmit = start;
  if (end - start < MIN_MATCH + INPUT_MARGIN) return emitLiteral(src, nextEmit, end, out, d);
  table.fill(-1);
  const matchLimit = end - INPUT_MARGIN;
  let s = start + 1;
  while (s < matchLimit) {
    const current = load32(src, s);
    const h = hash4(current);
    const candidate = table[h];
    table[h] = s;
    if (candidate >= start && s - candidate < BLOCK_SIZE && load32(src, candidate) === current) {
      d = emitLiteral(src, nextEmit, s, out, d);
      let len = MIN_MATCH;
      while (s + len < end && src[candidate + len] === src[s + len]) len++;
      d = emitCopy(out, d, s - candidate, len);
      s += len;
      nextEmit = s;
      if (s < matchLimit) table[hash4(load32(src, s - 1))] = s - 1;
    } else {
      // Step further the longer nothing matched, so incompressible data is passed over quickly.
      s += 1 + ((s - nextEmit) >>> 5);
    }
  }
  return emitLiteral(src, nextEmit, end, out, d);
}

function emitLiteral(src: Uint8Array, from: number, to: number, out: Uint8Array, d: number): number {
  const len = to - from;
  if (len === 0) return d;
  const n = len - 1;
  if (n < 60) {
    out[d++] = (n << 2) | TAG_LITERAL;
  } else if (n < 1 << 8) {
    out[d++] = (60 << 2) | TAG_LITERAL;
    out[d++] = n;
  } else if (n < 1 << 16) {
    out[d++] = (61 << 2) | TAG_LITERAL;
    out[d++] = n & 0xff;
    out[d++] = n >>> 8;
  } else if (n < 1 << 24) {
    out[d++] = (62 << 2) | TAG_LITERAL;
    out[d++] = n & 0xff;
    out[d++] = (n >>> 8) & 0xff;
    out[d++] = n >>> 16;
  } else {
    out[d++] = (63 << 2) | TAG_LITERAL;
    out[d++] = n & 0xff;
    out[d++] = (n >>> 8) & 0xff;
    out[d++] = (n >>> 16) & 0xff;
    out[d++] = n >>> 24;
  }
  if (len <= SHORT_COPY) {
    for (let i = 0; i < len; i++) out[d + i] = src[from + i];
  } else {
    out.set(src.subarray(from, to), d);
  }
  return d + len;
}

function emitCopy(out: Uint8Array, d: number, offset: number, len: number): number {
  // Copies with a 2-byte offset carry at most 64 bytes; keep at least 4 for the last piece.
  while (len >= 68) {
    d = emitCopy2(out, d, offset, 64);
    len -= 64;
  }
  if (len > 64) {
    d = emitCopy2(out, d, offset, 60);
    len -= 60;
  }
  if (len >= 4 && len < 12 && offset < 2048) {
    out[d++] = ((offset >>> 8) << 5) | ((len - 4) << 2) | TAG_COPY1;
    out[d++] = offset & 0xff;
    return d;
  }
  return emitCopy2(out, d, offset, len);
}

function emitCopy2(out: Uint8Array, d: number, offset: number, len: number): number {
  out[d++] = ((len - 1) << 2) | TAG_COPY2;
  out[d++] = offset & 0xff;
  out[d++] = offset >>> 8;
  return d;
}

function writeUvarint(out: Uint8Array, d: number, value: number): number {
  let v = value;
  while (v >= 0x80) {
    out[d++] = (v % 128) | 0x80;
    v = Math.floor(v / 128);
  }
  out[d++] = v;
  return d;
}
