/**
 * Matching Loki patterns (`<ip> - <_> [<ts>]`) against a line, for the `pattern` parser and
 * the `|>` / `!>` line filters. Literals are found with indexOf, left to right, so matching is
 * linear in the line; captures take whatever lies between two literals.
 */
import type { PatternExpr } from '../../pattern.js';
import { UNNAMED_CAPTURE } from '../../pattern.js';

/**
 * patternCaptures returns the values of the pattern's named captures for `line`, in order,
 * possibly fewer than there are captures (a short line fills only the leading ones), or an
 * empty list when the pattern does not apply.
 */
export function patternCaptures(pattern: PatternExpr, line: string): string[] {
  const parts = pattern.parts;
  const out: string[] = [];
  if (line.length === 0 || parts.length === 0) return out;
  let pos = 0;
  let k = 0;
  const first = parts[0];
  if (first.kind === 'literal') {
    if (line.indexOf(first.text) !== 0) return out;
    pos = first.text.length;
    k = 1;
  }
  if (k >= parts.length) return out;
  while (k < parts.length) {
    const capture = parts[k];
    if (capture.kind !== 'capture') return out;
    const named = capture.name !== UNNAMED_CAPTURE;
    if (k === parts.length - 1) {
      if (named) out.push(line.slice(pos));
      return out;
    }
    const literal = parts[k + 1];
    if (literal.kind !== 'literal') return out;
    k += 2;
    const at = line.indexOf(literal.text, pos);
    if (at < 0) {
      if (named) out.push(line.slice(pos));
      return out;
    }
    if (named) out.push(line.slice(pos, at));
    pos = at + literal.text.length;
  }
  return out;
}

/**
 * patternTest reports whether `line` matches the whole pattern, as Loki's line filter does:
 * every literal in order, no empty capture, and text left over exactly when the pattern
 * ends with a capture.
 */
export function patternTest(pattern: PatternExpr, line: string): boolean {
  const parts = pattern.parts;
  if (line.length === 0 || parts.length === 0) return line.length === 0 && parts.length === 0;
  let off = 0;
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i];
    if (part.kind !== 'literal') continue;
    const at = line.indexOf(part.text, off);
    if (at < 0) return false;
    if (i !== 0 && at === off) return false;
    off = at + part.text.length;
  }
  const endsOnCapture = parts[parts.length - 1].kind === 'capture';
  return endsOnCapture === (off !== line.length);
}
