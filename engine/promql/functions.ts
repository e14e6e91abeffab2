/**
 * The table of every PromQL function, and the aggregation operators' signatures. One row holds
 * all there is to know about a function (signature, kernel, sharding, step invariance), and
 * every other place derives from the rows: the parser resolves names against them, the checker
 * validates arguments, the evaluator runs the kernel, the planner decides whether series
 * sharding is exact and the step-invariance pass whether a call can be evaluated once. Adding
 * a function means adding a row here and, when no existing kernel fits, writing one under eval/.
 */
import type { AggregateOp, ValueType } from './ast.js';
import {
  absentOf,
  absentOverTimeOf,
  clamped,
  histogramFractionOf,
  histogramQuantileOf,
  histogramQuantilesOf,
  datePart,
  elementwise,
  queryScalar,
  relabelled,
  rounded,
  scalarOfVector,
  scalarPair,
  sorted,
  timeOfStep,
  timestampOf,
  startTimestampOf,
  unsupported,
  vectorOf,
} from './eval/calls.js';
import { overWindows, wholeCall, type FunctionKernel } from './eval/functionKernel.js';
import { histogramProperty } from './eval/histogramCalls.js';
import { evalInfo } from './eval/info.js';
import { dayOfMonth, dayOfWeek, dayOfYear, daysInMonth, degrees, hourOf, minuteOf, monthOf, radians, sgn, yearOf } from './eval/functions.js';
import {
  avgOverTimeKernel,
  changesKernel,
  countOverTimeKernel,
  deltaKernel,
  derivKernel,
  doubleExponentialSmoothingKernel,
  firstOverTimeKernel,
  ideltaKernel,
  increaseKernel,
  irateKernel,
  lastOverTimeKernel,
  madOverTimeKernel,
  maxOverTimeKernel,
  minOverTimeKernel,
  predictLinearKernel,
  presentOverTimeKernel,
  quantileOverTimeKernel,
  rateKernel,
  resetsKernel,
  stddevOverTimeKernel,
  stdvarOverTimeKernel,
  sumOverTimeKernel,
  tsOfFirstOverTimeKernel,
  tsOfLastOverTimeKernel,
  tsOfMaxOverTimeKernel,
  tsOfMinOverTimeKernel,
} from './eval/kernels/index.js';

/**
 * SeriesSharding is what a function lets series sharding (engine/query/shards.ts) assume:
 * 'perSeries' when each output series comes from one input series with the same identity (so
 * shards over disjoint series give disjoint outputs), 'constant' when it yields the same scalar
 * whatever the data. A function with neither is evaluated unsharded.
 */
export type SeriesSharding = 'perSeries' | 'constant';

/**
 * FunctionDef is one function's signature and the properties the planner and evaluator read.
 * Arguments beyond `argTypes` take the type of the last entry; `minArgs`/`maxArgs` (Infinity when
 * unbounded) bound the count. `experimental` marks functions Prometheus hides behind
 * --enable-feature=promql-experimental-functions. It is plain data, so a syntax tree that holds
 * it can be cloned; the implementation is found with functionKernel().
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
  /** shard is how series sharding may split the function, null when it must not. */
  readonly shard: SeriesSharding | null;
  /**
   * readsEvaluationTime: the result changes from step to step even when the arguments do not
   * (it reads the evaluation time or a sample's timestamp), so the call is never step invariant.
   */
  readonly readsEvaluationTime: boolean;
  /**
   * readsQueryWindow: the value at a step depends on the whole query's start or end, not only on
   * the step's own time (start(), end(), range()). Such a query cannot be cut into time slices
   * nor answered from cached pieces of other windows. step() is not marked: the step is part of
   * every slice and of the results cache's key.
   */
  readonly readsQueryWindow: boolean;
  /**
   * costGrowsWithWindow: the range function's work per step grows with its window's length, so
   * a range query costs more than its samples tell: double_exponential_smoothing recomputes
   * each window (its recurrence restarts at the window's first sample), quantile_over_time and
   * mad_over_time move up to a window's worth of sorted values for each sample that enters or
   * leaves it (a 30-minute mad_over_time of 1 s samples over an hour at a 2 s step, some 7,500
   * samples and steps, takes 20-40 ms warm). Every other window kernel slides at a constant
   * cost per sample.
   */
  readonly costGrowsWithWindow: boolean;
}

/**
 * FunctionRow is everything about one function: its signature, its kernel (a window kernel for
 * range-vector functions, a call evaluator for the rest), how it shards and whether it reads the
 * evaluation time. Omitted fields default to a fixed arity, stable, unsharded, time-free.
 */
interface FunctionRow {
  readonly name: string;
  readonly args: readonly ValueType[];
  readonly variadic?: number;
  readonly returns: ValueType;
  readonly experimental?: true;
  readonly kernel: FunctionKernel;
  readonly shard?: SeriesSharding;
  readonly readsEvaluationTime?: true;
  readonly readsQueryWindow?: true;
  readonly costGrowsWithWindow?: true;
}

const S: ValueType = 'scalar';
const V: ValueType = 'vector';
const M: ValueType = 'matrix';
const STR: ValueType = 'string';

/** The kernels shared by several rows; each reads the call's name where the rows differ. */
const CLAMP = wholeCall(clamped);
const HISTOGRAM_PROPERTY = wholeCall(histogramProperty);
const RELABEL = wholeCall(relabelled);
const SORT = wholeCall(sorted);

/**
 * FUNCTION_ROWS is the single source of truth for PromQL functions, sorted by name: the parser,
 * the checker, the evaluator, step invariance and series sharding all read it.
 */
const FUNCTION_ROWS: readonly FunctionRow[] = [
  { name: 'abs', args: [V], returns: V, kernel: wholeCall(elementwise(Math.abs)), shard: 'perSeries' },
  { name: 'absent', args: [V], returns: V, kernel: wholeCall(absentOf) },
  { name: 'absent_over_time', args: [M], returns: V, kernel: wholeCall(absentOverTimeOf) },
  { name: 'acos', args: [V], returns: V, kernel: wholeCall(elementwise(Math.acos)), shard: 'perSeries' },
  { name: 'acosh', args: [V], returns: V, kernel: wholeCall(elementwise(Math.acosh)), shard: 'perSeries' },
  { name: 'asin', args: [V], returns: V, kernel: wholeCall(elementwise(Math.asin)), shard: 'perSeries' },
  { name: 'asinh', args: [V], returns: V, kernel: wholeCall(elementwise(Math.asinh)), shard: 'perSeries' },
  { name: 'atan', args: [V], returns: V, kernel: wholeCall(elementwise(Math.atan)), shard: 'perSeries' },
  { name: 'atanh', args: [V], returns: V, kernel: wholeCall(elementwise(Math.atanh)), shard: 'perSeries' },
  { name: 'avg_over_time', args: [M], returns: V, kernel: overWindows(avgOverTimeKernel), shard: 'perSeries' },
  { name: 'ceil', args: [V], returns: V, kernel: wholeCall(elementwise(Math.ceil)), shard: 'perSeries' },
  { name: 'changes', args: [M], returns: V, kernel: overWindows(changesKernel), shard: 'perSeries' },
  { name: 'clamp', args: [V, S, S], returns: V, kernel: CLAMP, shard: 'perSeries' },
  { name: 'clamp_max', args: [V, S], returns: V, kernel: CLAMP, shard: 'perSeries' },
  { name: 'clamp_min', args: [V, S], returns: V, kernel: CLAMP, shard: 'perSeries' },
  { name: 'cos', args: [V], returns: V, kernel: wholeCall(elementwise(Math.cos)), shard: 'perSeries' },
  { name: 'cosh', args: [V], returns: V, kernel: wholeCall(elementwise(Math.cosh)), shard: 'perSeries' },
  { name: 'count_over_time', args: [M], returns: V, kernel: overWindows(countOverTimeKernel), shard: 'perSeries' },
  { name: 'day_of_month', args: [V], variadic: 1, returns: V, kernel: wholeCall(datePart(dayOfMonth)), shard: 'perSeries', readsEvaluationTime: true },
  { name: 'day_of_week', args: [V], variadic: 1, returns: V, kernel: wholeCall(datePart(dayOfWeek)), shard: 'perSeries', readsEvaluationTime: true },
  { name: 'day_of_year', args: [V], variadic: 1, returns: V, kernel: wholeCall(datePart(dayOfYear)), shard: 'perSeries', readsEvaluationTime: true },
  { name: 'days_in_month', args: [V], variadic: 1, returns: V, kernel: wholeCall(datePart(daysInMonth)), shard: 'perSeries', readsEvaluationTime: true },
  { name: 'deg', args: [V], returns: V, kernel: wholeCall(elementwise(degrees)), shard: 'perSeries' },
  { name: 'delta', args: [M], returns: V, kernel: overWindows(deltaKernel), shard: 'perSeries' },
  { name: 'deriv', args: [M], returns: V, kernel: overWindows(derivKernel), shard: 'perSeries' },
  { name: 'double_exponential_smoothing', args: [M, S, S], returns: V, experimental: true, kernel: overWindows(doubleExponentialSmoothingKernel), shard: 'perSeries', costGrowsWithWindow: true },
  { name: 'end', args: [], returns: S, experimental: true, kernel: wholeCall(queryScalar((ctx) => ctx.queryEndMs / 1000)), readsEvaluationTime: true, readsQueryWindow: true },
  { name: 'exp', args: [V], returns: V, kernel: wholeCall(elementwise(Math.exp)), shard: 'perSeries' },
  { name: 'first_over_time', args: [M], returns: V, kernel: overWindows(firstOverTimeKernel, { keepsName: true }) },
  { name: 'floor', args: [V], returns: V, kernel: wholeCall(elementwise(Math.floor)), shard: 'perSeries' },
  { name: 'histogram_avg', args: [V], returns: V, kernel: HISTOGRAM_PROPERTY },
  { name: 'histogram_count', args: [V], returns: V, kernel: HISTOGRAM_PROPERTY },
  { name: 'histogram_fraction', args: [S, S, V], returns: V, kernel: wholeCall(histogramFractionOf) },
  { name: 'histogram_quantile', args: [S, V], returns: V, kernel: wholeCall(histogramQuantileOf) },
  { name: 'histogram_quantiles', args: [V, STR, S, S], variadic: 9, returns: V, experimental: true, kernel: wholeCall(histogramQuantilesOf) },
  { name: 'histogram_stddev', args: [V], returns: V, kernel: HISTOGRAM_PROPERTY },
  { name: 'histogram_stdvar', args: [V], returns: V, kernel: HISTOGRAM_PROPERTY },
  { name: 'histogram_sum', args: [V], returns: V, kernel: HISTOGRAM_PROPERTY },
  { name: 'hour', args: [V], variadic: 1, returns: V, kernel: wholeCall(datePart(hourOf)), shard: 'perSeries', readsEvaluationTime: true },
  { name: 'idelta', args: [M], returns: V, kernel: overWindows(ideltaKernel), shard: 'perSeries' },
  { name: 'increase', args: [M], returns: V, kernel: overWindows(increaseKernel, { notesNonCounter: true }), shard: 'perSeries' },
  { name: 'info', args: [V, V], variadic: 1, returns: V, experimental: true, kernel: wholeCall(evalInfo) },
  { name: 'irate', args: [M], returns: V, kernel: overWindows(irateKernel), shard: 'perSeries' },
  { name: 'label_join', args: [V, STR, STR, STR], variadic: -1, returns: V, kernel: RELABEL },
  { name: 'label_replace', args: [V, STR, STR, STR, STR], returns: V, kernel: RELABEL },
  { name: 'last_over_time', args: [M], returns: V, kernel: overWindows(lastOverTimeKernel, { keepsName: true }), shard: 'perSeries' },
  { name: 'ln', args: [V], returns: V, kernel: wholeCall(elementwise(Math.log)), shard: 'perSeries' },
  { name: 'log10', args: [V], returns: V, kernel: wholeCall(elementwise(Math.log10)), shard: 'perSeries' },
  { name: 'log2', args: [V], returns: V, kernel: wholeCall(elementwise(Math.log2)), shard: 'perSeries' },
  { name: 'mad_over_time', args: [M], returns: V, experimental: true, kernel: overWindows(madOverTimeKernel), shard: 'perSeries', costGrowsWithWindow: true },
  { name: 'max_of', args: [S, S], returns: S, experimental: true, kernel: wholeCall(scalarPair(Math.max)) },
  { name: 'max_over_time', args: [M], returns: V, kernel: overWindows(maxOverTimeKernel), shard: 'perSeries' },
  { name: 'min_of', args: [S, S], returns: S, experimental: true, kernel: wholeCall(scalarPair(Math.min)) },
  { name: 'min_over_time', args: [M], returns: V, kernel: overWindows(minOverTimeKernel), shard: 'perSeries' },
  { name: 'minute', args: [V], variadic: 1, returns: V, kernel: wholeCall(datePart(minuteOf)), shard: 'perSeries', readsEvaluationTime: true },
  { name: 'month', args: [V], variadic: 1, returns: V, kernel: wholeCall(datePart(monthOf)), shard: 'perSeries', readsEvaluationTime: true },
  { name: 'pi', args: [], returns: S, kernel: wholeCall(queryScalar(() => Math.PI)), shard: 'constant' },
  { name: 'predict_linear', args: [M, S], returns: V, kernel: overWindows(predictLinearKernel), shard: 'perSeries', readsEvaluationTime: true },
  { name: 'present_over_time', args: [M], returns: V, kernel: overWindows(presentOverTimeKernel), shard: 'perSeries' },
  { name: 'quantile_over_time', args: [S, M], returns: V, kernel: overWindows(quantileOverTimeKernel), shard: 'perSeries', costGrowsWithWindow: true },
  { name: 'rad', args: [V], returns: V, kernel: wholeCall(elementwise(radians)), shard: 'perSeries' },
  { name: 'range', args: [], returns: S, experimental: true, kernel: wholeCall(queryScalar((ctx) => (ctx.queryEndMs - ctx.queryStartMs) / 1000)), readsEvaluationTime: true, readsQueryWindow: true },
  { name: 'rate', args: [M], returns: V, kernel: overWindows(rateKernel, { notesNonCounter: true }), shard: 'perSeries' },
  { name: 'resets', args: [M], returns: V, kernel: overWindows(resetsKernel), shard: 'perSeries' },
  { name: 'round', args: [V, S], variadic: 1, returns: V, kernel: wholeCall(rounded), shard: 'perSeries' },
  { name: 'scalar', args: [V], returns: S, kernel: wholeCall(scalarOfVector) },
  { name: 'sgn', args: [V], returns: V, kernel: wholeCall(elementwise(sgn)), shard: 'perSeries' },
  { name: 'sin', args: [V], returns: V, kernel: wholeCall(elementwise(Math.sin)), shard: 'perSeries' },
  { name: 'sinh', args: [V], returns: V, kernel: wholeCall(elementwise(Math.sinh)), shard: 'perSeries' },
  { name: 'sort', args: [V], returns: V, kernel: SORT },
  { name: 'sort_by_label', args: [V, STR], variadic: -1, returns: V, experimental: true, kernel: SORT },
  { name: 'sort_by_label_desc', args: [V, STR], variadic: -1, returns: V, experimental: true, kernel: SORT },
  { name: 'sort_desc', args: [V], returns: V, kernel: SORT },
  { name: 'sqrt', args: [V], returns: V, kernel: wholeCall(elementwise(Math.sqrt)), shard: 'perSeries' },
  { name: 'start', args: [], returns: S, experimental: true, kernel: wholeCall(queryScalar((ctx) => ctx.queryStartMs / 1000)), readsEvaluationTime: true, readsQueryWindow: true },
  { name: 'start_timestamp', args: [V], returns: V, experimental: true, kernel: wholeCall(startTimestampOf) },
  { name: 'stddev_over_time', args: [M], returns: V, kernel: overWindows(stddevOverTimeKernel), shard: 'perSeries' },
  { name: 'stdvar_over_time', args: [M], returns: V, kernel: overWindows(stdvarOverTimeKernel), shard: 'perSeries' },
  { name: 'step', args: [], returns: S, experimental: true, kernel: wholeCall(queryScalar((ctx) => ctx.queryStepMs / 1000)), readsEvaluationTime: true },
  { name: 'sum_over_time', args: [M], returns: V, kernel: overWindows(sumOverTimeKernel), shard: 'perSeries' },
  { name: 'tan', args: [V], returns: V, kernel: wholeCall(elementwise(Math.tan)), shard: 'perSeries' },
  { name: 'tanh', args: [V], returns: V, kernel: wholeCall(elementwise(Math.tanh)), shard: 'perSeries' },
  { name: 'time', args: [], returns: S, kernel: wholeCall(timeOfStep), shard: 'constant', readsEvaluationTime: true },
  { name: 'timestamp', args: [V], returns: V, kernel: wholeCall(timestampOf), shard: 'perSeries', readsEvaluationTime: true },
  { name: 'ts_of_first_over_time', args: [M], returns: V, experimental: true, kernel: overWindows(tsOfFirstOverTimeKernel) },
  { name: 'ts_of_last_over_time', args: [M], returns: V, experimental: true, kernel: overWindows(tsOfLastOverTimeKernel) },
  { name: 'ts_of_max_over_time', args: [M], returns: V, experimental: true, kernel: overWindows(tsOfMaxOverTimeKernel) },
  { name: 'ts_of_min_over_time', args: [M], returns: V, experimental: true, kernel: overWindows(tsOfMinOverTimeKernel) },
  { name: 'vector', args: [S], returns: V, kernel: wholeCall(vectorOf) },
  { name: 'year', args: [V], variadic: 1, returns: V, kernel: wholeCall(datePart(yearOf)), shard: 'perSeries', readsEvaluationTime: true },
];

/** toFunctionDef expands a row's signature and properties, deriving the argument count bounds once. */
function toFunctionDef(row: FunctionRow): FunctionDef {
  const fixed = row.args.length;
  const variadic = row.variadic ?? 0;
  const minArgs = variadic === 0 ? fixed : fixed - 1;
  const maxArgs = variadic === 0 ? fixed : variadic < 0 ? Infinity : fixed - 1 + variadic;
  return Object.freeze({
    name: row.name,
    argTypes: Object.freeze(row.args.slice()),
    variadic,
    minArgs,
    maxArgs,
    returnType: row.returns,
    experimental: row.experimental === true,
    shard: row.shard ?? null,
    readsEvaluationTime: row.readsEvaluationTime === true,
    readsQueryWindow: row.readsQueryWindow === true,
    costGrowsWithWindow: row.costGrowsWithWindow === true,
  });
}

/** FUNCTIONS maps each function name to its signature. */
export const FUNCTIONS: ReadonlyMap<string, FunctionDef> = new Map(FUNCTION_ROWS.map((row) => [row.name, toFunctionDef(row)] as const));

/** FUNCTION_KERNELS maps each function name to its implementation. */
const FUNCTION_KERNELS: ReadonlyMap<string, FunctionKernel> = new Map(FUNCTION_ROWS.map((row) => [row.name, row.kernel] as const));

/** functionKernel returns the implementation of `name`, or undefined for an unknown function. */
export function functionKernel(name: string): FunctionKernel | undefined {
  return FUNCTION_KERNELS.get(name);
}

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
