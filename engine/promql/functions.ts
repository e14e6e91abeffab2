/**
 * The signature table of every PromQL function and aggregation operator. It lives beside the
 * parser because signatures are part of the language: the parser resolves names against it,
 * the checker validates arguments against it, and the evaluator keys its implementations by the
 * same names.
 */
import type { AggregateOp, ValueType } from './ast.js';

/**
 * FunctionDef is one function's signature. Arguments beyond `argTypes` take the type of the
 * last entry; `minArgs`/`maxArgs` (Infinity when unbounded) bound the count. `experimental`
 * marks functions Prometheus hides behind --enable-feature=promql-experimental-functions.
 */
export interface FunctionDef {
  readonly name: string;
  readonly argTypes: readonly ValueType[];
  /** variadic is 0 for a fixed arity, n > 0 for up to n optional trailing args, -1 for unbounded. */
  readonly variadic: number;
  readonly minArgs: number;
  readonly maxArgs: number;
  readonly returnType: ValueType;
  readonly experimental: boolean;
}

/** FunctionRow is the compact table form: name, argument types, variadic, return type, flags. */
type FunctionRow = readonly [string, readonly ValueType[], number, ValueType, 'experimental'?];

const S: ValueType = 'scalar';
const V: ValueType = 'vector';
const M: ValueType = 'matrix';
const STR: ValueType = 'string';

/** FUNCTION_ROWS is the single source of truth for function signatures, sorted by name. */
const FUNCTION_ROWS: readonly FunctionRow[] = [
  ['abs', [V], 0, V],
  ['absent', [V], 0, V],
  ['absent_over_time', [M], 0, V],
  ['acos', [V], 0, V],
  ['acosh', [V], 0, V],
  ['asin', [V], 0, V],
  ['asinh', [V], 0, V],
  ['atan', [V], 0, V],
  ['atanh', [V], 0, V],
  ['avg_over_time', [M], 0, V],
  ['ceil', [V], 0, V],
  ['changes', [M], 0, V],
  ['clamp', [V, S, S], 0, V],
  ['clamp_max', [V, S], 0, V],
  ['clamp_min', [V, S], 0, V],
  ['cos', [V], 0, V],
  ['cosh', [V], 0, V],
  ['count_over_time', [M], 0, V],
  ['day_of_month', [V], 1, V],
  ['day_of_week', [V], 1, V],
  ['day_of_year', [V], 1, V],
  ['days_in_month', [V], 1, V],
  ['deg', [V], 0, V],
  ['delta', [M], 0, V],
  ['deriv', [M], 0, V],
  ['double_exponential_smoothing', [M, S, S], 0, V, 'experimental'],
  ['end', [], 0, S, 'experimental'],
  ['exp', [V], 0, V],
  ['first_over_time', [M], 0, V],
  ['floor', [V], 0, V],
  ['histogram_avg', [V], 0, V],
  ['histogram_count', [V], 0, V],
  ['histogram_fraction', [S, S, V], 0, V],
  ['histogram_quantile', [S, V], 0, V],
  ['histogram_quantiles', [V, STR, S, S], 9, V, 'experimental'],
  ['histogram_stddev', [V], 0, V],
  ['histogram_stdvar', [V], 0, V],
  ['histogram_sum', [V], 0, V],
  ['hour', [V], 1, V],
  ['idelta', [M], 0, V],
  ['increase', [M], 0, V],
  ['info', [V, V], 1, V, 'experimental'],
  ['irate', [M], 0, V],
  ['label_join', [V, STR, STR, STR], -1, V],
  ['label_replace', [V, STR, STR, STR, STR], 0, V],
  ['last_over_time', [M], 0, V],
  ['ln', [V], 0, V],
  ['log10', [V], 0, V],
  ['log2', [V], 0, V],
  ['mad_over_time', [M], 0, V, 'experimental'],
  ['max_of', [S, S], 0, S, 'experimental'],
  ['max_over_time', [M], 0, V],
  ['min_of', [S, S], 0, S, 'experimental'],
  ['min_over_time', [M], 0, V],
  ['minute', [V], 1, V],
  ['month', [V], 1, V],
  ['pi', [], 0, S],
  ['predict_linear', [M, S], 0, V],
  ['present_over_time', [M], 0, V],
  ['quantile_over_time', [S, M], 0, V],
  ['rad', [V], 0, V],
  ['range', [], 0, S, 'experimental'],
  ['rate', [M], 0, V],
  ['resets', [M], 0, V],
  ['round', [V, S], 1, V],
  ['scalar', [V], 0, S],
  ['sgn', [V], 0, V],
  ['sin', [V], 0, V],
  ['sinh', [V], 0, V],
  ['sort', [V], 0, V],
  ['sort_by_label', [V, STR], -1, V, 'experimental'],
  ['sort_by_label_desc', [V, STR], -1, V, 'experimental'],
  ['sort_desc', [V], 0, V],
  ['sqrt', [V], 0, V],
  ['start', [], 0, S, 'experimental'],
  ['start_timestamp', [V], 0, V, 'experimental'],
  ['stddev_over_time', [M], 0, V],
  ['stdvar_over_time', [M], 0, V],
  ['step', [], 0, S, 'experimental'],
  ['sum_over_time', [M], 0, V],
  ['tan', [V], 0, V],
  ['tanh', [V], 0, V],
  ['time', [], 0, S],
  ['timestamp', [V], 0, V],
  ['ts_of_first_over_time', [M], 0, V, 'experimental'],
  ['ts_of_last_over_time', [M], 0, V, 'experimental'],
  ['ts_of_max_over_time', [M], 0, V, 'experimental'],
  ['ts_of_min_over_time', [M], 0, V, 'experimental'],
  ['vector', [S], 0, V],
  ['year', [V], 1, V],
];

/** toFunctionDef expands a row, deriving the argument count bounds once. */
function toFunctionDef([name, argTypes, variadic, returnType, flag]: FunctionRow): FunctionDef {
  const fixed = argTypes.length;
  const minArgs = variadic === 0 ? fixed : fixed - 1;
  const maxArgs = variadic === 0 ? fixed : variadic < 0 ? Infinity : fixed - 1 + variadic;
  return Object.freeze({
    name,
    argTypes: Object.freeze(argTypes.slice()),
    variadic,
    minArgs,
    maxArgs,
    returnType,
    experimental: flag === 'experimental',
  });
}

/** FUNCTIONS maps each function name to its signature. */
export const FUNCTIONS: ReadonlyMap<string, FunctionDef> = new Map(
  FUNCTION_ROWS.map((row) => [row[0], toFunctionDef(row)] as const),
);

/** lookupFunction returns the signature for `name`, or undefined for an unknown function. */
export function lookupFunction(name: string): FunctionDef | undefined {
  return FUNCTIONS.get(name);
}

/** argTypeAt is the expected type of argument `index`, following the variadic rule. */
export function argTypeAt(func: FunctionDef, index: number): ValueType | undefined {
  if (index < func.argTypes.length) return func.argTypes[index];
  if (func.variadic === 0 || func.argTypes.length === 0) return undefined;
  return func.argTypes[func.argTypes.length - 1];
}

/**
 * AggregationDef describes an aggregation operator: the type of its leading parameter (null for
 * those without one) and whether Prometheus treats it as experimental.
 */
export interface AggregationDef {
  readonly name: AggregateOp;
  readonly paramType: ValueType | null;
  readonly experimental: boolean;
}

/** AGGREGATIONS maps every aggregation operator to its definition. */
export const AGGREGATIONS: Readonly<Record<AggregateOp, AggregationDef>> = Object.freeze({
  sum: { name: 'sum', paramType: null, experimental: false },
  avg: { name: 'avg', paramType: null, experimental: false },
  min: { name: 'min', paramType: null, experimental: false },
  max: { name: 'max', paramType: null, experimental: false },
  count: { name: 'count', paramType: null, experimental: false },
  group: { name: 'group', paramType: null, experimental: false },
  stddev: { name: 'stddev', paramType: null, experimental: false },
  stdvar: { name: 'stdvar', paramType: null, experimental: false },
  quantile: { name: 'quantile', paramType: 'scalar', experimental: false },
  count_values: { name: 'count_values', paramType: 'string', experimental: false },
  topk: { name: 'topk', paramType: 'scalar', experimental: false },
  bottomk: { name: 'bottomk', paramType: 'scalar', experimental: false },
  limitk: { name: 'limitk', paramType: 'scalar', experimental: true },
  limit_ratio: { name: 'limit_ratio', paramType: 'scalar', experimental: true },
});
