/**
 * Duration expressions: arithmetic on durations in ranges, subquery steps and offsets
 * (`[5m+30s]`, `offset (1h/2)`, `[step()*2]`, `[min_of(range(), 1h)]`). An expression made only
 * of literals is folded to its value while parsing; one that reads `step()` or `range()` stays
 * a tree, since its value depends on the query it runs in, and is resolved just before
 * evaluation (resolveDurations). Values are in seconds, as Prometheus computes them.
 */
import { EngineError, type PositionRange } from '../errors.js';
import { formatGoFloat } from '../common/goFloat.js';
import { MAX_DURATION_SECONDS, secondsToMs } from './durations.js';
import { cloneExpr, type Expr } from './ast.js';

/** DurationBinaryOp is an operator allowed between durations. */
export type DurationBinaryOp = '+' | '-' | '*' | '/' | '%' | '^';

/** DurationExpr is a duration computed from literals, `step()`, `range()` and `min_of`/`max_of`. */
export type DurationExpr =
  | { kind: 'literal'; seconds: number; duration?: boolean; pos: PositionRange }
  | { kind: 'step' | 'range'; pos: PositionRange }
  | { kind: 'unary'; op: '+' | '-'; expr: DurationExpr; pos: PositionRange }
  | { kind: 'binary'; op: DurationBinaryOp; lhs: DurationExpr; rhs: DurationExpr; pos: PositionRange }
  | { kind: 'min_of' | 'max_of'; lhs: DurationExpr; rhs: DurationExpr; pos: PositionRange }
  | { kind: 'paren'; expr: DurationExpr; pos: PositionRange };

/** QueryDurations are what `step()` and `range()` stand for in one query, in milliseconds. */
export interface QueryDurations {
  stepMs: number;
  rangeMs: number;
}

/** readsQuery tells whether the expression uses `step()` or `range()`. */
export function readsQuery(expr: DurationExpr): boolean {
  switch (expr.kind) {
    case 'literal':
      return false;
    case 'step':
    case 'range':
      return true;
    case 'unary':
    case 'paren':
      return readsQuery(expr.expr);
    default:
      return readsQuery(expr.lhs) || readsQuery(expr.rhs);
  }
}

/**
 * durationSeconds computes the expression in seconds; a division or modulo by zero is an
 * error at the operator, as in Prometheus.
 */
export function durationSeconds(expr: DurationExpr, query: QueryDurations): number {
  switch (expr.kind) {
    case 'literal':
      return expr.seconds;
    case 'step':
      return query.stepMs / 1000;
    case 'range':
      return query.rangeMs / 1000;
    case 'paren':
      return durationSeconds(expr.expr, query);
    case 'unary': {
      const v = durationSeconds(expr.expr, query);
      return expr.op === '-' ? -v : v;
    }
    case 'min_of':
      return Math.min(durationSeconds(expr.lhs, query), durationSeconds(expr.rhs, query));
    case 'max_of':
      return Math.max(durationSeconds(expr.lhs, query), durationSeconds(expr.rhs, query));
    case 'binary': {
      const lhs = durationSeconds(expr.lhs, query);
      const rhs = durationSeconds(expr.rhs, query);
      switch (expr.op) {
        case '+':
          return lhs + rhs;
        case '-':
          return lhs - rhs;
        case '*':
          return lhs * rhs;
        case '/':
          if (rhs === 0) throw durationError('division by zero', expr.pos);
          return lhs / rhs;
        case '%':
          if (rhs === 0) throw durationError('modulo by zero', expr.pos);
          return lhs % rhs;
        case '^':
          return Math.pow(lhs, rhs);
      }
    }
  }
}

function durationError(message: string, pos: PositionRange): EngineError {
  return new EngineError('VALIDATION_FAILED', `${pos.start}:${pos.end}: ${message}`, pos);
}

/**
 * durationMs computes a range, step (positive) or offset (any sign) in milliseconds, with the
 * checks Prometheus applies when it resolves the expression for a query.
 */
export function durationMs(expr: DurationExpr, query: QueryDurations, allowNegative: boolean): number {
  const seconds = durationSeconds(expr, query);
  if (!Number.isFinite(seconds)) throw durationError('duration is NaN or infinite', expr.pos);
  if (seconds <= 0 && !allowNegative) throw durationError('duration must be greater than 0', expr.pos);
  if (Math.abs(seconds) > MAX_DURATION_SECONDS) throw durationError('duration is out of range', expr.pos);
  return secondsToMs(seconds);
}

/** printDuration renders a duration expression back as PromQL. */
export function printDuration(expr: DurationExpr, formatLiteral: (seconds: number) => string): string {
  switch (expr.kind) {
    case 'literal':
      // A literal is written back as it was spelled: a duration, or a number of seconds.
      return expr.duration === true ? formatLiteral(expr.seconds) : formatGoFloat(expr.seconds);
    case 'step':
    case 'range':
      return `${expr.kind}()`;
    case 'paren':
      return `(${printDuration(expr.expr, formatLiteral)})`;
    case 'unary':
      return `${expr.op}${printDuration(expr.expr, formatLiteral)}`;
    case 'min_of':
    case 'max_of':
      return `${expr.kind}(${printDuration(expr.lhs, formatLiteral)}, ${printDuration(expr.rhs, formatLiteral)})`;
    case 'binary':
      return `${printDuration(expr.lhs, formatLiteral)} ${expr.op} ${printDuration(expr.rhs, formatLiteral)}`;
  }
}

/**
 * resolveDurations fixes every range, step and offset that reads `step()` or `range()` to its
 * value in this query. The tree is returned as is when it has none; otherwise a resolved copy
 * is returned, so a parsed query can be evaluated again with other parameters.
 */
export function resolveDurations(expr: Expr, query: QueryDurations): Expr {
  if (!hasQueryDurations(expr)) return expr;
  const copy = cloneExpr(expr);
  const visit = (node: Expr): void => {
    switch (node.type) {
      case 'VectorSelector':
        if (node.offsetExpr !== undefined) node.offsetMs = durationMs(node.offsetExpr, query, true);
        return;
      case 'MatrixSelector':
        if (node.rangeExpr !== undefined) node.rangeMs = durationMs(node.rangeExpr, query, false);
        visit(node.selector);
        return;
      case 'SubqueryExpr':
        if (node.rangeExpr !== undefined) node.rangeMs = durationMs(node.rangeExpr, query, false);
        if (node.stepExpr !== undefined) node.stepMs = durationMs(node.stepExpr, query, false);
        if (node.offsetExpr !== undefined) node.offsetMs = durationMs(node.offsetExpr, query, true);
        visit(node.expr);
        return;
      case 'ParenExpr':
      case 'UnaryExpr':
        visit(node.expr);
        return;
      case 'AggregateExpr':
        if (node.param !== null) visit(node.param);
        visit(node.expr);
        return;
      case 'BinaryExpr':
        visit(node.lhs);
        visit(node.rhs);
        return;
      case 'Call':
        node.args.forEach(visit);
        return;
      default:
        return;
    }
  };
  visit(copy);
  return copy;
}

/** hasQueryDurations tells whether any node of the tree carries an unresolved duration. */
export function hasQueryDurations(expr: Expr): boolean {
  switch (expr.type) {
    case 'VectorSelector':
      return expr.offsetExpr !== undefined;
    case 'MatrixSelector':
      return expr.rangeExpr !== undefined || hasQueryDurations(expr.selector);
    case 'SubqueryExpr':
      return expr.rangeExpr !== undefined || expr.stepExpr !== undefined || expr.offsetExpr !== undefined || hasQueryDurations(expr.expr);
    case 'ParenExpr':
    case 'UnaryExpr':
      return hasQueryDurations(expr.expr);
    case 'AggregateExpr':
      return (expr.param !== null && hasQueryDurations(expr.param)) || hasQueryDurations(expr.expr);
    case 'BinaryExpr':
      return hasQueryDurations(expr.lhs) || hasQueryDurations(expr.rhs);
    case 'Call':
      return expr.args.some(hasQueryDurations);
    default:
      return false;
  }
}
