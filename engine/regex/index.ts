/**
 * A linear-time regular-expression engine with Go RE2 syntax and semantics, for PromQL label
 * matchers and LogQL line and label filters. JavaScript's own RegExp backtracks, so a pattern
 * such as `(a+)+$` could stall a worker on a long line; this engine never does.
 *
 * compileRegex is the entry point; the Regex it returns matches (test), extracts submatches
 * (exec, execIndices), substitutes (replaceAll, expand) and describes itself for index
 * pruning (literalPrefix, isLiteral, literalSet).
 */
import { Regex, type CompileOptions } from './regex.js';

export { Regex, MAX_LITERAL_SET, type CompileOptions, type RegexStrategy } from './regex.js';
export { RegexSyntaxError, type RegexErrorCode } from './errors.js';
export { parseRegex, type ParseOptions } from './syntax.js';
export { MAX_CAPTURE_CELLS, MAX_PROGRAM_SIZE } from './size.js';
export type { ParsedRegex, RegexNode, AssertionKind } from './ast.js';

/**
 * compileRegex compiles an RE2 pattern. With `anchored`, test/exec match the whole input
 * (`^(?:pattern)$`, as PromQL label matchers do); otherwise they search anywhere (Go's
 * MatchString, as LogQL line filters do). Throws RegexSyntaxError for invalid patterns.
 */
export function compileRegex(pattern: string, options?: CompileOptions): Regex {
  return new Regex(pattern, options);
}
