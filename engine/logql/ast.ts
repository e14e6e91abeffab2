/**
 * The LogQL syntax tree. Every node is plain data (no classes, no methods) so that a parsed
 * query can be handed to a worker thread as is, and every node carries `pos`, the UTF-16
 * offsets of the text it was parsed from, so the checker and the evaluator can point at the
 * exact part of the query that is wrong.
 *
 * The shape follows evaluation rather than the surface grammar: parentheses are dropped,
 * `=` and `==` comparisons of numbers are one operator, an or-chain of line filters is one
 * stage with several values, and a range aggregation owns its log range, unwrap and offset.
 */
import type { PositionRange } from '../errors.js';
import type { IpPattern } from './ipPattern.js';
import type { JsonPathSegment } from './jsonPath.js';
import type { PatternExpr } from './pattern.js';
import type { Template } from '../gotemplate/index.js';

/** MatchOp is the operator of a label matcher, in a stream selector or a label filter. */
export type MatchOp = '=' | '!=' | '=~' | '!~';

/** LabelMatcher is `name op "value"`; regular expressions are anchored at both ends. */
export interface LabelMatcher {
  kind: 'LabelMatcher';
  name: string;
  op: MatchOp;
  value: string;
  pos: PositionRange;
}

// ---------------------------------------------------------------------------------------------
// Line filters

/** LineFilterOp is the operator of a line filter: contains, regexp and pattern, each negatable. */
export type LineFilterOp = '|=' | '!=' | '|~' | '!~' | '|>' | '!>';

/**
 * LineFilterLiteral is a string operand of a line filter. For the pattern operators the
 * parsed pattern is kept beside the text so the evaluator does not parse it again (positions
 * inside it are offsets into `value`, as for every parsed string below).
 */
export interface LineFilterLiteral {
  kind: 'LineFilterLiteral';
  value: string;
  pattern?: PatternExpr;
  pos: PositionRange;
}

/** LineFilterIp is `ip("...")` as a line filter operand: the line must contain a matching address. */
export interface LineFilterIp {
  kind: 'LineFilterIp';
  pattern: string;
  ip: IpPattern;
  pos: PositionRange;
}

/** LineFilterValue is one alternative of a line filter. */
export type LineFilterValue = LineFilterLiteral | LineFilterIp;

/**
 * LineFilterStage is `|= "a" or "b"`. With a positive operator a line passes when any value
 * matches; with a negative one it passes when none does, which is what Loki's rewriting of
 * `!= "a" or "b"` into `!= "a" != "b"` amounts to.
 */
export interface LineFilterStage {
  kind: 'LineFilter';
  op: LineFilterOp;
  values: LineFilterValue[];
  pos: PositionRange;
}

// ---------------------------------------------------------------------------------------------
// Parsers

/** JsonExtraction is `name="path"` after `json`; `path` is the parsed form of `expression`. */
export interface JsonExtraction {
  kind: 'JsonExtraction';
  name: string;
  expression: string;
  path: JsonPathSegment[];
  pos: PositionRange;
}

/** LogfmtExtraction is `name="key"` (or a bare `key`) after `logfmt`. */
export interface LogfmtExtraction {
  kind: 'LogfmtExtraction';
  name: string;
  key: string;
  pos: PositionRange;
}

/** JsonParserStage is `| json`, extracting every field, or only `extractions` when given. */
export interface JsonParserStage {
  kind: 'JsonParser';
  extractions: JsonExtraction[];
  pos: PositionRange;
}

/** LogfmtParserStage is `| logfmt [--strict] [--keep-empty] [extractions]`. */
export interface LogfmtParserStage {
  kind: 'LogfmtParser';
  strict: boolean;
  keepEmpty: boolean;
  extractions: LogfmtExtraction[];
  pos: PositionRange;
}

/** RegexpParserStage is `| regexp "re"`; `captures` are its named groups, in order. */
export interface RegexpParserStage {
  kind: 'RegexpParser';
  regex: string;
  captures: string[];
  pos: PositionRange;
}

/** PatternParserStage is `| pattern "<a> - <b>"`; `parsed` positions are offsets into `pattern`. */
export interface PatternParserStage {
  kind: 'PatternParser';
  pattern: string;
  parsed: PatternExpr;
  pos: PositionRange;
}

/** UnpackParserStage is `| unpack`, the inverse of Promtail's pack stage. */
export interface UnpackParserStage {
  kind: 'UnpackParser';
  pos: PositionRange;
}

// ---------------------------------------------------------------------------------------------
// Label filters

/** ComparisonOp compares a label converted to a number, duration or byte size. */
export type ComparisonOp = '==' | '!=' | '>' | '>=' | '<' | '<=';

/** StringLabelFilter compares a label's text: `level="error"`, `path=~"/api/.*"`. */
export interface StringLabelFilter {
  kind: 'StringLabelFilter';
  name: string;
  op: MatchOp;
  value: string;
  pos: PositionRange;
}

/** NumericLabelFilter compares a label parsed as a float: `status >= 500`. */
export interface NumericLabelFilter {
  kind: 'NumericLabelFilter';
  name: string;
  op: ComparisonOp;
  value: number;
  pos: PositionRange;
}

/** DurationLabelFilter compares a label parsed as a Go duration: `took > 1.5s`. */
export interface DurationLabelFilter {
  kind: 'DurationLabelFilter';
  name: string;
  op: ComparisonOp;
  /** durationMs is the literal in milliseconds; fractions carry sub-millisecond units. */
  durationMs: number;
  pos: PositionRange;
}

/** BytesLabelFilter compares a label parsed as a byte size: `size > 20MB`. */
export interface BytesLabelFilter {
  kind: 'BytesLabelFilter';
  name: string;
  op: ComparisonOp;
  bytes: number;
  pos: PositionRange;
}

/** IpLabelFilter is `addr = ip("10.0.0.0/8")` (or `!=`). */
export interface IpLabelFilter {
  kind: 'IpLabelFilter';
  name: string;
  op: '=' | '!=';
  pattern: string;
  ip: IpPattern;
  pos: PositionRange;
}

/** BinaryLabelFilter combines filters; `,` and juxtaposition parse as `and`. */
export interface BinaryLabelFilter {
  kind: 'BinaryLabelFilter';
  op: 'and' | 'or';
  left: LabelFilterExpr;
  right: LabelFilterExpr;
  pos: PositionRange;
}

/** LabelFilterExpr is the expression of one label filter stage. */
export type LabelFilterExpr =
  | StringLabelFilter
  | NumericLabelFilter
  | DurationLabelFilter
  | BytesLabelFilter
  | IpLabelFilter
  | BinaryLabelFilter;

/** LabelFilterStage is `| <label filter expression>`. */
export interface LabelFilterStage {
  kind: 'LabelFilterStage';
  filter: LabelFilterExpr;
  pos: PositionRange;
}

// ---------------------------------------------------------------------------------------------
// Formatting and label stages

/**
 * LineFormatStage is `| line_format "template"`, the template parsed once here. Positions
 * inside `parsed` are offsets into `template`, not into the query.
 */
export interface LineFormatStage {
  kind: 'LineFormat';
  template: string;
  parsed: Template;
  pos: PositionRange;
}

/** LabelRename is `dst=src` in label_format: the value moves and `src` is dropped. */
export interface LabelRename {
  kind: 'LabelRename';
  dst: string;
  src: string;
  pos: PositionRange;
}

/** LabelTemplate is `dst="template"` in label_format; `parsed` positions are offsets into `template`. */
export interface LabelTemplate {
  kind: 'LabelTemplate';
  dst: string;
  template: string;
  parsed: Template;
  pos: PositionRange;
}

/** LabelFormatStage is `| label_format a="{{.b}}", c=d`. */
export interface LabelFormatStage {
  kind: 'LabelFormat';
  operations: Array<LabelRename | LabelTemplate>;
  pos: PositionRange;
}

/** LabelName names a label in `drop` and `keep` without a value condition. */
export interface LabelName {
  kind: 'LabelName';
  name: string;
  pos: PositionRange;
}

/** DropLabelsStage is `| drop a, b="v"`: names always, matchers only where they match. */
export interface DropLabelsStage {
  kind: 'DropLabels';
  labels: Array<LabelName | LabelMatcher>;
  pos: PositionRange;
}

/** KeepLabelsStage is `| keep a, b="v"`: everything else is dropped. */
export interface KeepLabelsStage {
  kind: 'KeepLabels';
  labels: Array<LabelName | LabelMatcher>;
  pos: PositionRange;
}

/** DecolorizeStage is `| decolorize`, removing ANSI colour sequences from the line. */
export interface DecolorizeStage {
  kind: 'Decolorize';
  pos: PositionRange;
}

/** PipelineStage is one stage of a log pipeline, applied in order. */
export type PipelineStage =
  | LineFilterStage
  | JsonParserStage
  | LogfmtParserStage
  | RegexpParserStage
  | PatternParserStage
  | UnpackParserStage
  | LabelFilterStage
  | LineFormatStage
  | LabelFormatStage
  | DropLabelsStage
  | KeepLabelsStage
  | DecolorizeStage;

// ---------------------------------------------------------------------------------------------
// Log queries and ranges

/** LogSelectorExpr is a stream selector and its pipeline: a log query on its own. */
export interface LogSelectorExpr {
  kind: 'LogSelector';
  matchers: LabelMatcher[];
  pipeline: PipelineStage[];
  pos: PositionRange;
}

/** UnwrapConversion converts the unwrapped label before it becomes a sample value. */
export type UnwrapConversion = 'bytes' | 'duration' | 'duration_seconds';

/**
 * UnwrapExpr is `| unwrap label` (optionally `| unwrap duration(label)`), followed by the
 * label filters Loki allows after it; those run on the labels left after the unwrap.
 */
export interface UnwrapExpr {
  kind: 'Unwrap';
  label: string;
  conversion?: UnwrapConversion;
  postFilters: LabelFilterExpr[];
  pos: PositionRange;
}

/** LogRangeExpr is a log query over a window: `{…} | … [5m] offset 1h`. */
export interface LogRangeExpr {
  kind: 'LogRange';
  selector: LogSelectorExpr;
  rangeMs: number;
  offsetMs: number;
  unwrap?: UnwrapExpr;
  pos: PositionRange;
}

// ---------------------------------------------------------------------------------------------
// Metric queries

/** RANGE_AGGREGATION_OPS lists the functions over a log range, in Loki's order. */
export const RANGE_AGGREGATION_OPS = [
  'count_over_time',
  'rate',
  'rate_counter',
  'bytes_over_time',
  'bytes_rate',
  'avg_over_time',
  'sum_over_time',
  'min_over_time',
  'max_over_time',
  'stdvar_over_time',
  'stddev_over_time',
  'quantile_over_time',
  'first_over_time',
  'last_over_time',
  'absent_over_time',
] as const;

/** RangeAggregationOp is one of RANGE_AGGREGATION_OPS. */
export type RangeAggregationOp = (typeof RANGE_AGGREGATION_OPS)[number];

/** VECTOR_AGGREGATION_OPS lists the aggregations over an instant vector. */
export const VECTOR_AGGREGATION_OPS = [
  'sum',
  'avg',
  'min',
  'max',
  'count',
  'stddev',
  'stdvar',
  'topk',
  'bottomk',
  'sort',
  'sort_desc',
  'approx_topk',
] as const;

/** VectorAggregationOp is one of VECTOR_AGGREGATION_OPS. */
export type VectorAggregationOp = (typeof VECTOR_AGGREGATION_OPS)[number];

/**
 * Grouping is `by (…)` or `without (…)`. An absent grouping and `by ()` differ only where
 * Loki says so: a range aggregation rejects any grouping, even an empty one.
 */
export interface Grouping {
  kind: 'Grouping';
  without: boolean;
  labels: string[];
  pos: PositionRange;
}

/** NumberLiteral is a number in the query, with its sign folded in (`-1`). */
export interface NumberLiteral {
  kind: 'NumberLiteral';
  value: number;
  pos: PositionRange;
}

/** RangeAggregationExpr is `rate({…}[5m])`, `quantile_over_time(0.9, {…} | unwrap x [5m]) by (a)`. */
export interface RangeAggregationExpr {
  kind: 'RangeAggregation';
  op: RangeAggregationOp;
  range: LogRangeExpr;
  param?: NumberLiteral;
  grouping?: Grouping;
  pos: PositionRange;
}

/** VectorAggregationExpr is `sum by (a) (…)`, `topk(5, …)`. */
export interface VectorAggregationExpr {
  kind: 'VectorAggregation';
  op: VectorAggregationOp;
  expr: SampleExpr;
  param?: NumberLiteral;
  grouping?: Grouping;
  pos: PositionRange;
}

/** ArithmeticOp is a binary operator that computes a new sample value. */
export type ArithmeticOp = '+' | '-' | '*' | '/' | '%' | '^';
/** ComparisonBinaryOp filters samples, or returns 0/1 with `bool`. */
export type ComparisonBinaryOp = '==' | '!=' | '>' | '>=' | '<' | '<=';
/** SetOp combines two vectors by their label sets. */
export type SetOp = 'and' | 'or' | 'unless';
/** BinaryOp is any binary operator; the three groups above partition it. */
export type BinaryOp = ArithmeticOp | ComparisonBinaryOp | SetOp;

/** MatchCardinality is how many series of each side one result series may combine. */
export type MatchCardinality = 'one-to-one' | 'many-to-one' | 'one-to-many';

/**
 * VectorMatching is `on (…)` / `ignoring (…)` with an optional `group_left (…)` or
 * `group_right (…)`. Absent from a BinaryExpr, matching is on all labels, one to one.
 */
export interface VectorMatching {
  kind: 'VectorMatching';
  on: boolean;
  labels: string[];
  card: MatchCardinality;
  include: string[];
  pos: PositionRange;
}

/**
 * BinaryExpr is `lhs op rhs`. The operands are typed as any expression because the grammar
 * accepts a log query there (as Loki's does); the checker rejects it, so after checking both
 * sides are SampleExpr.
 */
export interface BinaryExpr {
  kind: 'BinaryExpr';
  op: BinaryOp;
  lhs: Expr;
  rhs: Expr;
  returnBool: boolean;
  matching?: VectorMatching;
  pos: PositionRange;
}

/** VectorExpr is `vector(1)`: one series without labels at every step. */
export interface VectorExpr {
  kind: 'Vector';
  value: number;
  pos: PositionRange;
}

/** LabelReplaceExpr is `label_replace(expr, "dst", "replacement", "src", "regex")`. */
export interface LabelReplaceExpr {
  kind: 'LabelReplace';
  expr: SampleExpr;
  dst: string;
  replacement: string;
  src: string;
  regex: string;
  pos: PositionRange;
}

/** SampleExpr is any metric expression. */
export type SampleExpr =
  | RangeAggregationExpr
  | VectorAggregationExpr
  | BinaryExpr
  | NumberLiteral
  | VectorExpr
  | LabelReplaceExpr;

/** Expr is a whole LogQL query: a log query or a metric query. */
export type Expr = LogSelectorExpr | SampleExpr;

/** QueryKind tells the service which result shape a query produces. */
export type QueryKind = 'log' | 'metric';

/** queryKind reports whether `expr` returns log lines or samples. */
export function queryKind(expr: Expr): QueryKind {
  return expr.kind === 'LogSelector' ? 'log' : 'metric';
}

/** isLogQuery narrows `expr` to a log (raw lines) query. */
export function isLogQuery(expr: Expr): expr is LogSelectorExpr {
  return expr.kind === 'LogSelector';
}

/** isMetricQuery narrows `expr` to a metric query. */
export function isMetricQuery(expr: Expr): expr is SampleExpr {
  return expr.kind !== 'LogSelector';
}

/**
 * walkExpr calls `visit` for `expr` and every expression below it (log ranges' selectors
 * included), parents first. Returning false from `visit` skips that node's children. The
 * planner uses it to collect selectors and ranges without knowing every node kind.
 */
export function walkExpr(expr: Expr, visit: (node: Expr) => boolean | void): void {
  if (visit(expr) === false) return;
  switch (expr.kind) {
    case 'RangeAggregation':
      walkExpr(expr.range.selector, visit);
      break;
    case 'VectorAggregation':
    case 'LabelReplace':
      walkExpr(expr.expr, visit);
      break;
    case 'BinaryExpr':
      walkExpr(expr.lhs, visit);
      walkExpr(expr.rhs, visit);
      break;
    default:
      break;
  }
}
