import { EngineError, checkLogQL, logqlQueryKind, parseAndCheckPromQL, parseLogQL } from '../../engine/index.js';
import type { IssueSeverity } from './issues.js';
import { isGuess, substitutePlaceholders } from './variables.js';

/**
 * Checking a dashboard query the way the query endpoints will: substitute placeholders for
 * variables, then parse and type-check with the engine. A query that fails here would fail for
 * every value a user could pick, so it is worth rejecting at save time.
 */

export type QueryLanguage = 'promql' | 'logql';

/** QueryShape is what the query must return where it is used: numbers, log lines, or either. */
export type QueryShape = 'any' | 'metric' | 'log';

export interface QueryProblem {
  rule: 'query-syntax' | 'query-kind-mismatch';
  severity: IssueSeverity;
  message: string;
  position?: { start: number; end: number };
}

const LANGUAGE_NAME: Record<QueryLanguage, string> = { promql: 'PromQL', logql: 'LogQL' };

/**
 * checkQuery returns the first problem with `text`, or undefined when it is fine. When a
 * variable stands bare in the expression (`topk($k, ...)`), the placeholder may not be the
 * right kind of token, so a failure is only a warning there.
 */
export function checkQuery(text: string, language: QueryLanguage, shape: QueryShape): QueryProblem | undefined {
  const substituted = substitutePlaceholders(text);
  let kind: 'log' | 'metric' | undefined;
  try {
    if (language === 'promql') {
      parseAndCheckPromQL(substituted.text);
    } else {
      const expr = parseLogQL(substituted.text);
      checkLogQL(expr, substituted.text);
      kind = logqlQueryKind(expr);
    }
  } catch (err) {
    if (!(err instanceof EngineError)) throw err;
    const firstLine = err.message.split('\n')[0];
    const verb = err.code === 'INVALID_EXPR' ? 'does not parse as' : 'is not valid';
    let message = `query ${verb} ${LANGUAGE_NAME[language]}: ${firstLine}`;
    if (substituted.guessed) {
      const names = [...new Set(substituted.references.filter(isGuess).map((r) => '$' + r.name))];
      message += ` (checked with a placeholder for ${names.join(', ')}, which stands outside quotes; the query may be fine for real values)`;
    }
    const problem: QueryProblem = { rule: 'query-syntax', severity: substituted.guessed ? 'warning' : 'error', message };
    if (err.position) problem.position = { start: err.position.start, end: err.position.end };
    return problem;
  }
  if (kind === 'log' && shape === 'metric') {
    return {
      rule: 'query-kind-mismatch',
      severity: 'error',
      message:
        'this LogQL query returns log lines, but here it must return numbers; use a metric query such as sum(count_over_time({...}[5m]))',
    };
  }
  if (kind === 'metric' && shape === 'log') {
    return {
      rule: 'query-kind-mismatch',
      severity: 'error',
      message: 'this LogQL query returns numbers, but here it must select log lines: a stream selector with an optional pipeline',
    };
  }
  return undefined;
}
