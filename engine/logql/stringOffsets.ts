/**
 * Mapping from offsets in a decoded string literal back to the query text. Templates,
 * patterns, regular expressions and JSON paths live inside string literals; their own
 * parsers report offsets into the decoded value, and this turns those into offsets into the
 * query so an error points at the right character even after escapes such as `\"` or `\n`.
 */

/**
 * decodedOffsetMap returns, for a Go string literal (quotes included), an array whose entry
 * `i` is the offset within the literal of the source text that produced UTF-16 unit `i` of
 * the decoded value; the extra last entry maps the end of the value to the closing quote.
 * The literal must already be known to decode without error.
 */
export function decodedOffsetMap(literal: string): Int32Array {
  const map: number[] = [];
  const quote = literal[0];
  const end = literal.length - 1;
  let i = 1;
  while (i < end) {
    const start = i;
    if (quote === '`' || literal[i] !== '\\') {
      const cp = literal.codePointAt(i)!;
      const width = cp > 0xffff ? 2 : 1;
      for (let k = 0; k < width; k++) map.push(start + k);
      i += width;
      continue;
    }
    const e = literal[i + 1];
    let length = 2;
    let units = 1;
    if (e === 'x') length = 4;
    else if (e === 'u') length = 6;
    else if (e === 'U') {
      length = 10;
      const cp = parseInt(literal.slice(i + 2, i + 10), 16);
      units = cp > 0xffff ? 2 : 1;
    } else if (e >= '0' && e <= '7') length = 4;
    for (let k = 0; k < units; k++) map.push(start);
    i += length;
  }
  map.push(end);
  return Int32Array.from(map);
}

/**
 * sourceOffsetOf converts offset `decodedOffset` inside the decoded value of the literal that
 * starts at `literalStart` in the query into an offset into the query.
 */
export function sourceOffsetOf(literal: string, literalStart: number, decodedOffset: number): number {
  const map = decodedOffsetMap(literal);
  const index = Math.min(Math.max(decodedOffset, 0), map.length - 1);
  return literalStart + map[index];
}
