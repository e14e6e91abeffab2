/**
 * Mapping from offsets in a decoded string literal back to the query text. Templates,
 * patterns, regular expressions and JSON paths live inside string literals; their own
 * parsers report offsets into the decoded value, and this turns those into offsets into the
 * query so an error points at the right character even after escapes such as `\"` or `\n`.
 */

/** SourceStep is one piece of a literal's source: its length and the UTF-16 units it decodes to. */
interface SourceStep {
  length: number;
  units: number;
}

/** stepAt measures the source piece starting at `i` (inside the quotes) of a literal. */
function stepAt(literal: string, i: number, step: SourceStep): SourceStep {
  if (literal[0] === '`' || literal[i] !== '\\') {
    const width = literal.codePointAt(i)! > 0xffff ? 2 : 1;
    step.length = width;
    step.units = width;
    return step;
  }
  const e = literal[i + 1];
  step.length = 2;
  step.units = 1;
  if (e === 'x') step.length = 4;
  else if (e === 'u') step.length = 6;
  else if (e === 'U') {
    step.length = 10;
    step.units = parseInt(literal.slice(i + 2, i + 10), 16) > 0xffff ? 2 : 1;
  } else if (e >= '0' && e <= '7') step.length = 4;
  return step;
}

/**
 * decodedOffsetMap returns, for a Go string literal (quotes included), an array whose entry
 * `i` is the offset within the literal of the source text that produced UTF-16 unit `i` of
 * the decoded value; the extra last entry maps the end of the value to the closing quote.
 * The literal must already be known to decode without error. A surrogate pair written
 * literally maps each unit to its own offset; one produced by an escape maps both to it.
 */
export function decodedOffsetMap(literal: string): Int32Array {
  const map: number[] = [];
  const end = literal.length - 1;
  const step: SourceStep = { length: 0, units: 0 };
  for (let i = 1; i < end; i += step.length) {
    stepAt(literal, i, step);
    const literalText = literal[0] === '`' || literal[i] !== '\\';
    for (let k = 0; k < step.units; k++) map.push(literalText ? i + k : i);
  }
  map.push(end);
  return Int32Array.from(map);
}

/**
 * sourceOffsetOf converts offset `decodedOffset` inside the decoded value of the literal that
 * starts at `literalStart` in the query into an offset into the query. It walks the literal
 * only up to that offset, so an error early in a long template costs little.
 */
export function sourceOffsetOf(literal: string, literalStart: number, decodedOffset: number): number {
  const end = literal.length - 1;
  const target = Math.max(decodedOffset, 0);
  const step: SourceStep = { length: 0, units: 0 };
  let decoded = 0;
  for (let i = 1; i < end; i += step.length) {
    stepAt(literal, i, step);
    if (decoded + step.units > target) {
      const literalText = literal[0] === '`' || literal[i] !== '\\';
      return literalStart + (literalText ? i + (target - decoded) : i);
    }
    decoded += step.units;
  }
  return literalStart + end;
}
