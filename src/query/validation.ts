import {
  EngineError,
  checkLogQL,
  lineColAt,
  logqlQueryKind,
  parseAndCheckPromQL,
  parseLogQL,
  printLogQL,
  printPromQL,
  promqlValueType,
} from '../../engine/index.js';

/**
 * Checking an expression without running it, for the validate endpoints and the tool
 * gateway's validate tool: the kind of value it yields and its canonical form, or the
 * parser's first error with its position as offsets and as line and column.
 */

export type QueryLanguage = 'promql' | 'logql';

export type ExpressionCheck =
  | { valid: true; kind: string; canonical: string }
  | { valid: false; error: { code: string; message: string; position: { start: number; end: number; line: number; col: number } } };

/** checkExpression parses and type-checks `q`; only unexpected failures throw. */
export function checkExpression(language: QueryLanguage, q: string): ExpressionCheck {
  try {
    if (language === 'promql') {
      const expr = parseAndCheckPromQL(q);
      return { valid: true, kind: promqlValueType(expr), canonical: printPromQL(expr) };
    }
    const expr = parseLogQL(q);
    checkLogQL(expr, q);
    return { valid: true, kind: logqlQueryKind(expr), canonical: printLogQL(expr) };
  } catch (err) {
    if (!(err instanceof EngineError)) throw err;
    const start = err.position?.start ?? 0;
    const { line, col } = lineColAt(q, start);
    return { valid: false, error: { code: err.code, message: err.message, position: { start, end: err.position?.end ?? start, line, col } } };
  }
}
