/**
 * UTF-8 helpers for the binary decoders. Protobuf strings arrive as byte ranges; most are short
 * ASCII label names and values, for which building the string from char codes beats a
 * TextDecoder call, while long or non-ASCII text goes to TextDecoder. Invalid sequences become
 * U+FFFD instead of failing, because a log line with a stray byte must still be stored.
 */

const lenientDecoder = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true });

/**
 * SHORT_STRING is the length up to which ASCII strings are interned: attribute keys, label
 * names and most label values recur in every record of a request, and returning the string
 * already built saves both the decoding and the garbage.
 */
const SHORT_STRING = 32;
const CACHE_BITS = 12;
const CACHE_MASK = (1 << CACHE_BITS) - 1;
const internTable: Array<string | undefined> = new Array<string | undefined>(1 << CACHE_BITS).fill(undefined);
/** charScratch holds one plain array per length, so fromCharCode.apply gets no typed-array view. */
const charScratch: number[][] = Array.from({ length: SHORT_STRING + 1 }, (_, n) => new Array<number>(n).fill(0));

/**
 * decodeUtf8 returns the text of buf[start, end). A leading byte-order mark is kept (it is
 * part of the data) and malformed sequences are replaced with U+FFFD.
 */
export function decodeUtf8(buf: Uint8Array, start: number, end: number): string {
  const len = end - start;
  if (len === 0) return '';
  if (len <= SHORT_STRING) {
    let hash = 0x811c9dc5;
    let high = 0;
    for (let i = start; i < end; i++) {
      const b = buf[i];
      high |= b;
      hash = Math.imul(hash ^ b, 0x01000193);
    }
    if (high < 0x80) {
      const slot = (hash ^ (hash >>> 16)) & CACHE_MASK;
      const cached = internTable[slot];
      if (cached !== undefined && cached.length === len) {
        let same = true;
        for (let i = 0; i < len; i++) {
          if (cached.charCodeAt(i) !== buf[start + i]) {
            same = false;
            break;
          }
        }
        if (same) return cached;
      }
      const chars = charScratch[len];
      for (let i = 0; i < len; i++) chars[i] = buf[start + i];
      const text = String.fromCharCode.apply(null, chars);
      internTable[slot] = text;
      return text;
    }
  }
  return lenientDecoder.decode(buf.subarray(start, end));
}

/**
 * decodeUtf8Strict returns the text of buf[start, end), or undefined when the bytes are not
 * well-formed UTF-8. Short ASCII strings take the interned path of decodeUtf8 with no second
 * scan.
 */
export function decodeUtf8Strict(buf: Uint8Array, start: number, end: number): string | undefined {
  if (end - start <= SHORT_STRING) {
    let high = 0;
    for (let i = start; i < end; i++) high |= buf[i];
    if (high < 0x80) return decodeUtf8(buf, start, end);
  }
  return isValidUtf8(buf, start, end) ? lenientDecoder.decode(buf.subarray(start, end)) : undefined;
}

/**
 * isValidUtf8 tells whether buf[start, end) is well-formed UTF-8 (no overlong forms, no
 * surrogates, nothing past U+10FFFF). Remote write labels must be valid text, as Prometheus
 * requires, while log bodies are merely repaired by decodeUtf8.
 */
export function isValidUtf8(buf: Uint8Array, start: number, end: number): boolean {
  let i = start;
  while (i < end) {
    const b0 = buf[i];
    if (b0 < 0x80) {
      i++;
      continue;
    }
    if (b0 >= 0xc2 && b0 <= 0xdf) {
      if (i + 1 >= end || (buf[i + 1] & 0xc0) !== 0x80) return false;
      i += 2;
      continue;
    }
    if (b0 >= 0xe0 && b0 <= 0xef) {
      if (i + 2 >= end) return false;
      const b1 = buf[i + 1];
      if ((b1 & 0xc0) !== 0x80 || (buf[i + 2] & 0xc0) !== 0x80) return false;
      if (b0 === 0xe0 && b1 < 0xa0) return false; // overlong
      if (b0 === 0xed && b1 >= 0xa0) return false; // surrogate
      i += 3;
      continue;
    }
    if (b0 >= 0xf0 && b0 <= 0xf4) {
      if (i + 3 >= end) return false;
      const b1 = buf[i + 1];
      if ((b1 & 0xc0) !== 0x80 || (buf[i + 2] & 0xc0) !== 0x80 || (buf[i + 3] & 0xc0) !== 0x80) return false;
      if (b0 === 0xf0 && b1 < 0x90) return false; // overlong
      if (b0 === 0xf4 && b1 >= 0x90) return false; // past U+10FFFF
      i += 4;
      continue;
    }
    return false;
  }
  return true;
}
