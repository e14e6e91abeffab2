/**
 * RegexSyntaxError is thrown for a pattern Go's regexp package would reject. The message has
 * Go's exact shape (`error parsing regexp: missing closing ): `(a``) because users compare it
 * with what Prometheus and Loki print, and `offset` (UTF-16, into the pattern) lets a query
 * parser point at the offending part of the pattern inside the query.
 */
export type RegexErrorCode =
  | 'invalid character class'
  | 'invalid character class range'
  | 'invalid escape sequence'
  | 'invalid named capture'
  | 'invalid or unsupported Perl syntax'
  | 'invalid nested repetition operator'
  | 'invalid repeat count'
  | 'invalid UTF-8'
  | 'missing closing ]'
  | 'missing closing )'
  | 'missing argument to repetition operator'
  | 'trailing backslash at end of expression'
  | 'unexpected )'
  | 'expression nests too deeply'
  | 'expression too large';

/** RegexSyntaxError: see the module comment. */
export class RegexSyntaxError extends Error {
  /** code is Go's ErrorCode text, stable enough to branch on. */
  readonly code: RegexErrorCode;
  /** expr is the offending fragment of the pattern, as Go reports it. */
  readonly expr: string;
  /** offset is where the offending fragment starts in the pattern (UTF-16 units). */
  readonly offset: number;

  constructor(code: RegexErrorCode, expr: string, offset: number) {
    super(`error parsing regexp: ${code}: \`${expr}\``);
    this.name = 'RegexSyntaxError';
    this.code = code;
    this.expr = expr;
    this.offset = offset;
  }
}
