/**
 * The PromQL syntax tree. The parser builds it, the checker validates it, the printer renders
 * it and the evaluator walks it; none of them needs anything beyond these types. Every node
 * records where it came from (`pos`, UTF-16 offsets into the query) and the value type it
 * evaluates to, so later stages never re-derive either.
 */
import type { PositionRange } from '../errors.js';
import type { FunctionDef } from './functions.js';
import type { DurationExpr } from './durationExpr.js';

/** ValueType is what an expression evaluates to. */
export type ValueType = 'scalar' | 'vector' | 'matrix' | 'string';

/** METRIC_NAME_LABEL is the label that holds the metric name. */
export const METRIC_NAME_LABEL = '__name__';

/** MatchOp is a label matcher operator. */
export type MatchOp = '=' | '!=' | '=~' | '!~';

/**
 * LabelMatcher selects series by one label. Regex values are RE2 syntax, matched against the
 * whole label value (the evaluator anchors them).
 */
export interface LabelMatcher {
  name: string;
  op: MatchOp;
  value: string;
}

/**
 * AtModifier pins a selector or subquery to a fixed evaluation time: an absolute timestamp in
 * milliseconds, or the start or end of the query range (`@ start()`, `@ end()`).
 */
export type AtModifier = { kind: 'timestamp'; ms: number } | { kind: 'start' } | { kind: 'end' };

/** AggregateOp names an aggregation operator, always lower case whatever the query's spelling. */
export type AggregateOp =
  | 'sum'
  | 'avg'
  | 'min'
  | 'max'
  | 'count'
  | 'group'
  | 'stddev'
  | 'stdvar'
  | 'quantile'
  | 'count_values'
  | 'topk'
  | 'bottomk'
  | 'limitk'
  | 'limit_ratio';

/** ArithmeticOp is a binary operator that computes a value from both sides. */
export type ArithmeticOp = '+' | '-' | '*' | '/' | '%' | '^' | 'atan2';

/** ComparisonOp filters (or, with `bool`, yields 0/1). */
export type ComparisonOp = '==' | '!=' | '>' | '<' | '>=' | '<=';

/** SetOp combines instant vectors by label set. */
export type SetOp = 'and' | 'or' | 'unless';

/** TrimOp trims native histogram buckets above (`</`) or below (`>/`) a scalar bound. */
export type TrimOp = '</' | '>/';

/** BinaryOp is every binary operator. */
export type BinaryOp = ArithmeticOp | ComparisonOp | SetOp | TrimOp;

/** UnaryOp is a sign. */
export type UnaryOp = '-' | '+';

/**
 * MatchCardinality says how many series on each side of a vector/vector operation may share a
 * match group; group_left gives many-to-one, group_right one-to-many, set operators always
 * many-to-many.
 */
export type MatchCardinality = 'one-to-one' | 'many-to-one' | 'one-to-many' | 'many-to-many';

/**
 * VectorMatching is how a binary operation pairs series when both sides are instant vectors.
 * `on` selects `on(labels)` over `ignoring(labels)`; `include` holds the group_left/right
 * labels copied from the "one" side.
 */
export interface VectorMatching {
  card: MatchCardinality;
  on: boolean;
  labels: string[];
  include: string[];
  /**
   * fill holds the `fill`, `fill_left` and `fill_right` values (promql-binop-fill-modifiers):
   * `rhs` stands in for a missing match on the "one" side, `lhs` pairs a "one" series nothing
   * matched with a stand-in "many" series (under group_right the sides are swapped, as in
   * Prometheus). Absent or null: no fill.
   */
  fill?: { lhs: number | null; rhs: number | null };
}

interface NodeBase {
  pos: PositionRange;
  valueType: ValueType;
}

/**
 * NumberLiteral is a float constant. `duration` records that the query spelled it as a
 * duration (`5m` is the number 300), so the printer writes it back the same way.
 */
export interface NumberLiteral extends NodeBase {
  type: 'NumberLiteral';
  value: number;
  duration: boolean;
}

/** StringLiteral is a decoded string constant. */
export interface StringLiteral extends NodeBase {
  type: 'StringLiteral';
  value: string;
}

/**
 * VectorSelector selects instant vector series. `name` is the metric name when written bare
 * before the braces; in that case `matchers` also holds the equivalent `__name__` equality
 * matcher (first), so evaluation only ever needs `matchers`. Offsets are in milliseconds and
 * negative offsets look into the future.
 */
export interface VectorSelector extends NodeBase {
  type: 'VectorSelector';
  name: string | null;
  matchers: LabelMatcher[];
  offsetMs: number;
  /** offsetExpr is an offset that reads step() or range(); resolveDurations sets offsetMs from it. */
  offsetExpr?: DurationExpr;
  at: AtModifier | null;
  /**
   * anchored and smoothed are the extended range selectors (promql-extended-range-selectors).
   * In a range, anchored takes the window's boundary values from the last sample at or before
   * its start and the last one in it; smoothed interpolates both boundaries from the samples
   * around them. A smoothed instant selector interpolates the value at each step.
   */
  anchored?: boolean;
  smoothed?: boolean;
}

/**
 * MatrixSelector is a range vector selector. Its offset and `@` modifiers live on the inner
 * selector, where the evaluator applies them to the window's end.
 */
export interface MatrixSelector extends NodeBase {
  type: 'MatrixSelector';
  selector: VectorSelector;
  rangeMs: number;
  /** rangeExpr is a range that reads step() or range(); resolveDurations sets rangeMs from it. */
  rangeExpr?: DurationExpr;
}

/** SubqueryExpr evaluates `expr` at `stepMs` intervals (null: the default step) over `rangeMs`. */
export interface SubqueryExpr extends NodeBase {
  type: 'SubqueryExpr';
  expr: Expr;
  rangeMs: number;
  stepMs: number | null;
  offsetMs: number;
  /** rangeExpr, stepExpr and offsetExpr read step() or range(); resolveDurations applies them. */
  rangeExpr?: DurationExpr;
  stepExpr?: DurationExpr;
  offsetExpr?: DurationExpr;
  at: AtModifier | null;
}

/**
 * AggregateExpr aggregates an instant vector across series. `param` is present exactly for the
 * operators that take one (topk, quantile, count_values, ...; see AGGREGATIONS). `grouping`
 * lists the `by` labels, or the `without` labels when `without` is set.
 */
export interface AggregateExpr extends NodeBase {
  type: 'AggregateExpr';
  op: AggregateOp;
  expr: Expr;
  param: Expr | null;
  grouping: string[];
  without: boolean;
}

/**
 * BinaryExpr applies an operator. `matching` always reflects the modifiers written (with the
 * defaults when none were), and applies only when both sides are instant vectors; set
 * operators carry many-to-many. `opPos` is the operator token, for pointed error messages.
 */
export interface BinaryExpr extends NodeBase {
  type: 'BinaryExpr';
  op: BinaryOp;
  lhs: Expr;
  rhs: Expr;
  returnBool: boolean;
  matching: VectorMatching;
  opPos: PositionRange;
}

/** UnaryExpr negates (or, for `+`, passes through) a scalar or instant vector. */
export interface UnaryExpr extends NodeBase {
  type: 'UnaryExpr';
  op: UnaryOp;
  expr: Expr;
}

/** ParenExpr keeps the query's parentheses so the printer can reproduce them. */
export interface ParenExpr extends NodeBase {
  type: 'ParenExpr';
  expr: Expr;
}

/** Call invokes a function; `func` is its resolved signature from the function table. */
export interface Call extends NodeBase {
  type: 'Call';
  func: FunctionDef;
  args: Expr[];
}

/** Expr is any PromQL expression. */
export type Expr =
  | NumberLiteral
  | StringLiteral
  | VectorSelector
  | MatrixSelector
  | SubqueryExpr
  | AggregateExpr
  | BinaryExpr
  | UnaryExpr
  | ParenExpr
  | Call;

/** DOCUMENTED_TYPE_NAMES are the names Prometheus' messages use for value types. */
const DOCUMENTED_TYPE_NAMES: Record<ValueType, string> = {
  scalar: 'scalar',
  vector: 'instant vector',
  matrix: 'range vector',
  string: 'string',
};

/** documentedTypeName renders a value type the way users read it in error messages. */
export function documentedTypeName(type: ValueType): string {
  return DOCUMENTED_TYPE_NAMES[type];
}

/**
 * valueTypeOf derives what `node` evaluates to from its structure alone, so it also answers for
 * trees assembled by hand (rewrites, tests) whose `valueType` fields might be stale.
 */
export function valueTypeOf(node: Expr): ValueType {
  switch (node.type) {
    case 'NumberLiteral':
      return 'scalar';
    case 'StringLiteral':
      return 'string';
    case 'VectorSelector':
    case 'AggregateExpr':
      return 'vector';
    case 'MatrixSelector':
    case 'SubqueryExpr':
      return 'matrix';
    case 'Call':
      return node.func.returnType;
    case 'ParenExpr':
    case 'UnaryExpr':
      return valueTypeOf(node.expr);
    case 'BinaryExpr':
      return valueTypeOf(node.lhs) === 'scalar' && valueTypeOf(node.rhs) === 'scalar' ? 'scalar' : 'vector';
  }
}

/** childrenOf lists a node's direct sub-expressions in source order. */
export function childrenOf(node: Expr): Expr[] {
  switch (node.type) {
    case 'NumberLiteral':
    case 'StringLiteral':
    case 'VectorSelector':
      return [];
    case 'MatrixSelector':
      return [node.selector];
    case 'SubqueryExpr':
    case 'ParenExpr':
    case 'UnaryExpr':
      return [node.expr];
    case 'AggregateExpr':
      return node.param === null ? [node.expr] : [node.param, node.expr];
    case 'BinaryExpr':
      return [node.lhs, node.rhs];
    case 'Call':
      return node.args.slice();
  }
}

/**
 * walkExpr visits `node` and its descendants depth first, parents before children. Returning
 * false from `visit` skips that node's children.
 */
export function walkExpr(node: Expr, visit: (node: Expr, parent: Expr | null) => boolean | void): void {
  const step = (n: Expr, parent: Expr | null): void => {
    if (visit(n, parent) === false) return;
    for (const child of childrenOf(n)) step(child, n);
  };
  step(node, null);
}

/** isSetOp reports whether `op` is and/or/unless. */
export function isSetOp(op: BinaryOp): op is SetOp {
  return op === 'and' || op === 'or' || op === 'unless';
}

/** isComparisonOp reports whether `op` filters (and so may take `bool`). */
export function isComparisonOp(op: BinaryOp): op is ComparisonOp {
  return op === '==' || op === '!=' || op === '>' || op === '<' || op === '>=' || op === '<=';
}

/**
 * cloneExpr deep-copies a tree so that a copy can be rewritten (durations resolved, selectors
 * pinned) without touching the parsed query. Function definitions are shared, not copied:
 * they are the function table's entries and hold code.
 */
export function cloneExpr<T extends Expr>(node: T): T {
  const copy = { ...node, pos: { ...node.pos } } as Expr;
  switch (copy.type) {
    case 'VectorSelector':
      copy.matchers = copy.matchers.map((m) => ({ ...m }));
      if (copy.at !== null) copy.at = { ...copy.at };
      break;
    case 'MatrixSelector':
      copy.selector = cloneExpr(copy.selector);
      break;
    case 'SubqueryExpr':
      copy.expr = cloneExpr(copy.expr);
      if (copy.at !== null) copy.at = { ...copy.at };
      break;
    case 'ParenExpr':
    case 'UnaryExpr':
      copy.expr = cloneExpr(copy.expr);
      break;
    case 'AggregateExpr':
      copy.expr = cloneExpr(copy.expr);
      if (copy.param !== null) copy.param = cloneExpr(copy.param);
      copy.grouping = copy.grouping.slice();
      break;
    case 'BinaryExpr':
      copy.lhs = cloneExpr(copy.lhs);
      copy.rhs = cloneExpr(copy.rhs);
      copy.matching = { ...copy.matching, labels: copy.matching.labels.slice(), include: copy.matching.include.slice() };
      break;
    case 'Call':
      copy.args = copy.args.map((a) => cloneExpr(a));
      break;
    default:
      break;
  }
  return copy as T;
}
