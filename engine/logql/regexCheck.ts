/**
 * What the LogQL parser and checker need to know about a regular expression in a query, asked
 * of the engine that will run it (engine/regex), so that a pattern the parser accepts is one
 * the evaluator can compile and run: whether it is valid (with Go's message and the offset of
 * the offending part, including the program-size budget), its named groups for the `regexp`
 * stage, and whether a stream matcher's pattern matches the empty string.
 */
import { RegexSyntaxError, compileRegex, parseRegex } from '../regex/index.js';

/** RegexCheck lists the named groups of a valid pattern, in order, or the first error. */
export type RegexCheck = { ok: true; captureNames: string[] } | { ok: false; message: string; offset: number };

/** checkRegex parses `pattern` as Go's regexp.Compile would, within the engine's size budget. */
export function checkRegex(pattern: string): RegexCheck {
  try {
    const parsed = parseRegex(pattern);
    const captureNames = parsed.groupNames.filter((name): name is string => name !== undefined);
    return { ok: true, captureNames };
  } catch (err) {
    if (err instanceof RegexSyntaxError) return { ok: false, message: err.message, offset: err.offset };
    throw err;
  }
}

/**
 * regexMatchesEmpty reports whether a stream matcher's pattern, compiled as Loki compiles
 * matchers (anchored, `.` matching newlines), matches the empty string; this is what makes a
 * matcher "empty-compatible" in Loki's rule that a selector needs one matcher that is not. An
 * invalid pattern answers false: the parser has already rejected it.
 */
export function regexMatchesEmpty(pattern: string): boolean {
  try {
    return compileRegex(pattern, { anchored: true, dotNL: true }).test('');
  } catch (err) {
    if (err instanceof RegexSyntaxError) return false;
    throw err;
  }
}
