/**
 * What the PromQL parser needs to know about a label matcher's regex: whether Go would accept
 * it (with Go's message when not), and whether it matches the empty string, which decides if
 * a selector like `{job=~".*"}` would select every series. Both answers come from the engine's
 * RE2 package, compiled the way Prometheus compiles matchers (anchored, `.` matching newlines),
 * so the parser and the evaluator can never disagree about a pattern.
 */
import { printableText } from '../common/goBytes.js';
import { RegexSyntaxError, compileRegex } from '../regex/index.js';

/** LabelRegexCheck is the verdict on one pattern. */
export type LabelRegexCheck = { ok: true; matchesEmpty: boolean } | { ok: false; message: string };

/** checkLabelRegex compiles `pattern` as a label matcher regex and reports on it. */
export function checkLabelRegex(pattern: string): LabelRegexCheck {
  try {
    const regex = compileRegex(pattern, { anchored: true, dotNL: true });
    return { ok: true, matchesEmpty: regex.test('') };
  } catch (err) {
    // The message quotes the pattern; Go's holds its raw bytes, of which a client reads invalid ones as U+FFFD.
    if (err instanceof RegexSyntaxError) return { ok: false, message: printableText(err.message) };
    throw err;
  }
}
