/**
 * UTF-8 sizes of JavaScript strings. Lines are held as UTF-16 strings, but LogQL measures
 * them in bytes (bytes_over_time, the logfmt error positions), as Loki stores them.
 */

/** utf8Length returns how many bytes `s` takes in UTF-8 (a lone surrogate counts as U+FFFD). */
export function utf8Length(s: string): number {
  const n = s.length;
  let bytes = n;
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) continue;
    if (c < 0x800) {
      bytes += 1;
    } else if (c >= 0xd800 && c <= 0xdbff && i + 1 < n && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      bytes += 2;
      i++;
    } else {
      bytes += 2;
    }
  }
  return bytes;
}
