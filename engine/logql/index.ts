/**
 * The LogQL front end: parse a query into a typed tree, check it against Loki's semantic
 * rules, and print it back canonically. The evaluator and the planner consume the tree
 * types exported here; nothing outside this directory needs the lexer or the cursor.
 */
export { parseLogQL, MAX_QUERY_LENGTH } from './parser.js';
export { checkLogQL, EMPTY_MATCHER_ERROR } from './checker.js';
export type { CheckOptions } from './checker.js';
export { printLogQL, printStage, printLabelFilter } from './printer.js';
export { queryKind, isLogQuery, isMetricQuery, walkExpr, RANGE_AGGREGATION_OPS, VECTOR_AGGREGATION_OPS } from './ast.js';
export type {
  ArithmeticOp,
  BinaryExpr,
  BinaryLabelFilter,
  BinaryOp,
  BytesLabelFilter,
  ComparisonBinaryOp,
  ComparisonOp,
  DecolorizeStage,
  DropLabelsStage,
  DurationLabelFilter,
  Expr,
  Grouping,
  IpLabelFilter,
  JsonExtraction,
  JsonParserStage,
  KeepLabelsStage,
  LabelFilterExpr,
  LabelFilterStage,
  LabelFormatStage,
  LabelMatcher,
  LabelName,
  LabelRename,
  LabelReplaceExpr,
  LabelTemplate,
  LineFilterIp,
  LineFilterLiteral,
  LineFilterOp,
  LineFilterStage,
  LineFilterValue,
  LineFormatStage,
  LogfmtExtraction,
  LogfmtParserStage,
  LogRangeExpr,
  LogSelectorExpr,
  MatchCardinality,
  MatchOp,
  NumberLiteral,
  NumericLabelFilter,
  PatternParserStage,
  PipelineStage,
  QueryKind,
  RangeAggregationExpr,
  RangeAggregationOp,
  RegexpParserStage,
  SampleExpr,
  SetOp,
  StringLabelFilter,
  UnpackParserStage,
  UnwrapConversion,
  UnwrapExpr,
  VectorAggregationExpr,
  VectorAggregationOp,
  VectorExpr,
  VectorMatching,
} from './ast.js';
export { parsePattern, UNNAMED_CAPTURE } from './pattern.js';
export type { PatternCapture, PatternExpr, PatternLiteral, PatternMode, PatternPart, PatternResult } from './pattern.js';
export { parseIpPattern, parseIpAddress, compareIpAddresses } from './ipPattern.js';
export type { IpAddress, IpPattern } from './ipPattern.js';
export { parseJsonPath } from './jsonPath.js';
export type { JsonPathResult, JsonPathSegment } from './jsonPath.js';
export { checkRegex, regexMatchesEmpty } from './regexCheck.js';
export type { RegexCheck } from './regexCheck.js';
export { formatLogQLDuration } from './units.js';
