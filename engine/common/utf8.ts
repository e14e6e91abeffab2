/**
 * UTF-8 sizes of JavaScript strings. Lines and label values are held as UTF-16 strings, but
 * the limits of ingestion and LogQL's measures (bytes_over_time, logfmt error positions, the
 * template `len` of Loki) count UTF-8 bytes, as the stores and Go count them. A lone surrogate
 * counts as the 3 bytes of the U+FFFD it becomes when encoded.
 */

/** utf8ByteLength counts the UTF-8 bytes of `text` without encoding it. */
export function utf8ByteLength(text: string): number {
  const n = text.length;
  let bytes = n;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) continue;
    if (c < 0x800) {
      bytes += 1;
    } else if (c >= 0xd800 && c <= 0xdbff && i + 1 < n && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      // A surrogate pair: two UTF-16 units already counted, four bytes in all.
      bytes += 2;
      i++;
    } else {
      bytes += 2;
    }
  }
  return bytes;
}

/**
 * utf8LengthExceeds tells whether `text` takes more than `limit` UTF-8 bytes, answering from
 * the UTF-16 length alone in the common cases (each unit is 1 to 3 bytes).
 */
export function utf8LengthExceeds(text: string, limit: number): boolean {
  if (text.length > limit) return true;
  if (text.length * 3 <= limit) return false;
  return utf8ByteLength(text) > limit;
}
