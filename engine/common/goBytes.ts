/**
 * Go strings are bytes, JavaScript strings UTF-16 code units. A Go string literal may hold any
 * bytes (`"\xff"`), and Prometheus then rejects such a string where a label name must be
 * valid UTF-8. To keep that distinction in a JavaScript string, a literal's bytes are decoded
 * as UTF-8 the way Go reads them: each valid sequence becomes its character, and each byte of
 * an invalid sequence becomes the lone surrogate U+DC00 + byte (U+DC80…U+DCFF, the scheme
 * Python calls "surrogateescape"). A lone surrogate is never valid text, so such a string
 * fails every validity check as Go's fails utf8.ValidString, it never equals a stored label
 * value (stored text is always well formed), and it prints back as the `\xNN` it came from.
 */

/** ESCAPED_BYTE_BASE is added to an invalid byte to form the code unit standing for it. */
const ESCAPED_BYTE_BASE = 0xdc00;

/**
 * decodeGoBytes decodes bytes as UTF-8 with Go's rules (utf8.DecodeRune: no overlong forms, no
 * surrogates, nothing above U+10FFFF); each byte no valid sequence starts with becomes the code
 * unit standing for it.
 */
export function decodeGoBytes(bytes: readonly number[]): string {
  let out = '';
  let i = 0;
  while (i < bytes.length) {
    const b0 = bytes[i];
    if (b0 < 0x80) {
      out += String.fromCharCode(b0);
      i++;
      continue;
    }
    const decoded = decodeSequence(bytes, i);
    if (decoded === undefined) {
      out += String.fromCharCode(ESCAPED_BYTE_BASE + b0);
      i++;
    } else {
      out += String.fromCodePoint(decoded.codePoint);
      i += decoded.length;
    }
  }
  return out;
}

/** decodeSequence reads the multi-byte sequence at `at`, or undefined when it is not valid UTF-8. */
function decodeSequence(bytes: readonly number[], at: number): { codePoint: number; length: number } | undefined {
  const b0 = bytes[at];
  let length: number;
  let codePoint: number;
  let min: number;
  if (b0 >= 0xc2 && b0 <= 0xdf) {
    length = 2;
    codePoint = b0 & 0x1f;
    min = 0x80;
  } else if (b0 >= 0xe0 && b0 <= 0xef) {
    length = 3;
    codePoint = b0 & 0x0f;
    min = 0x800;
  } else if (b0 >= 0xf0 && b0 <= 0xf4) {
    length = 4;
    codePoint = b0 & 0x07;
    min = 0x10000;
  } else {
    return undefined;
  }
  if (at + length > bytes.length) return undefined;
  for (let k = 1; k < length; k++) {
    const b = bytes[at + k];
    if ((b & 0xc0) !== 0x80) return undefined;
    codePoint = (codePoint << 6) | (b & 0x3f);
  }
  if (codePoint < min || codePoint > 0x10ffff || (codePoint >= 0xd800 && codePoint <= 0xdfff)) return undefined;
  return { codePoint, length };
}

/** escapedByte returns the byte a code unit stands for, or undefined when it is ordinary text. */
export function escapedByte(codeUnit: number): number | undefined {
  return codeUnit >= ESCAPED_BYTE_BASE + 0x80 && codeUnit <= ESCAPED_BYTE_BASE + 0xff ? codeUnit - ESCAPED_BYTE_BASE : undefined;
}

/** LONE_SURROGATE matches a surrogate code unit that is not half of a pair. */
const LONE_SURROGATE = /\p{Cs}/u;
const LONE_SURROGATES = /\p{Cs}/gu;

/** isValidUtf8 reports whether `text` encodes to valid UTF-8 (holds no lone surrogate), as Go's utf8.ValidString. */
export function isValidUtf8(text: string): boolean {
  return !LONE_SURROGATE.test(text);
}

/**
 * printableText replaces what is not valid text with U+FFFD, which is what a client of
 * Prometheus sees of invalid bytes in an error message (Go's JSON encoder substitutes them).
 */
export function printableText(text: string): string {
  return isValidUtf8(text) ? text : text.replace(LONE_SURROGATES, '\ufffd');
}
