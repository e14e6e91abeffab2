/**
 * The PromQL front end: parse a query into a typed syntax tree, type-check it, print it back.
 * The evaluator builds on the tree and the function table exported here.
 */
export type {
  AggregateExpr,
  AggregateOp,
  ArithmeticOp,
  AtModifier,
  BinaryExpr,
  BinaryOp,
  Call,
  ComparisonOp,
  Expr,
  LabelMatcher,
  MatchCardinality,
  MatchOp,
  MatrixSelector,
  NumberLiteral,
  ParenExpr,
  SetOp,
  StringLiteral,
  SubqueryExpr,
  TrimOp,
  UnaryExpr,
  UnaryOp,
  ValueType,
  VectorMatching,
  VectorSelector,
} from './ast.js';
export {
  METRIC_NAME_LABEL,
  childrenOf,
  cloneExpr,
  documentedTypeName,
  isComparisonOp,
  isSetOp,
  valueTypeOf,
  walkExpr,
} from './ast.js';
export type { AggregationDef, FunctionDef } from './functions.js';
export { AGGREGATIONS, FUNCTIONS, argTypeAt, lookupFunction } from './functions.js';
export type { ParseOptions } from './parser.js';
export type { PromQLFeature } from './features.js';
export { ALL_FEATURES_ON, DEFAULT_PROMQL_FEATURES, PROMQL_FEATURES, delayedNameRemovalOn, isPromQLFeature, parseOptionsFor, setPromQLFeatures } from './features.js';
export type { DurationExpr } from './durationExpr.js';
export { resolveDurations } from './durationExpr.js';
export { parsePromQL, MAX_QUERY_LENGTH } from './parser.js';
export { checkPromQL, parseAndCheckPromQL } from './checker.js';
export { parsedPromQL } from './parsedQueries.js';
export { printPromQL } from './printer.js';
export type { LabelRegexCheck } from './labelregex.js';
export { checkLabelRegex } from './labelregex.js';
