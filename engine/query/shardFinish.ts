import { EngineError } from '../errors.js';
import type { Call, Expr, VectorSelector } from '../promql/ast.js';
import { evaluateInstant, evaluateRange, formatAnnotation, type EvalOptions, type InstantResult, type ResultSeries } from '../promql/eval/index.js';
import type { MetricQuerier } from '../storage/metricHead.js';
import type { SeriesColumns } from '../storage/seriesColumns.js';

/**
 * The finishing step of a query sharded by finishPlanFor (shards.ts): the shards answered with
 * their parts of a `sum`, the merge added them, and here the histogram function the query
 * applies to that sum is evaluated over the added sums. It is the query's own function call
 * evaluated by the evaluator, with the sum replaced by a selector that reads the merged series:
 * the same code, warnings and infos (worded and placed in the query's text) as unsharded.
 */

/** FinishWindow is the slice being finished: its steps, or one instant. */
export interface FinishWindow {
  startMs: number;
  endMs: number;
  stepMs: number;
  instant?: boolean;
}

/**
 * ONLY_AT_STEP is the lookback of the selector over merged sums: the sums have a point exactly
 * at each step where the unsharded sum has one, and a step without one must stay without
 * (a longer lookback would carry the previous step's sum into it).
 */
const ONLY_AT_STEP_MS = 1;

/**
 * finishShards applies the query's finishing function to `merged`, the added sums of its shards
 * over `window`, and returns the series and annotations an unsharded evaluation of the slice
 * gives. `query` is the query's text, for the annotations' positions.
 */
export function finishShards(expr: Expr, query: string, merged: readonly SeriesColumns[], window: FinishWindow, options: EvalOptions): { series: SeriesColumns[]; annotations: string[] } {
  const finishing = finishingCall(expr);
  const querier = mergedSumsQuerier(merged);
  const evalOptions: EvalOptions = { ...options, lookbackDeltaMs: ONLY_AT_STEP_MS };
  const out =
    window.instant === true
      ? promqlInstantSeries(evaluateInstant(finishing, querier, window.startMs, evalOptions))
      : evaluateRange(finishing, querier, window.startMs, window.endMs, window.stepMs, evalOptions);
  return { series: out.series, annotations: out.annotations.map((a) => formatAnnotation(a, query)) };
}

/**
 * finishingCall is the query's function call with its last argument, the sum, replaced by a
 * selector of no matchers placed where the sum was written (its warnings point there).
 */
function finishingCall(expr: Expr): Call {
  const top = unwrapParens(expr);
  if (top.type !== 'Call' || top.args.length < 2) throw new Error('finishShards: the query ends in no finishing function');
  const sum = top.args[top.args.length - 1];
  const merged: VectorSelector = { type: 'VectorSelector', name: null, matchers: [], offsetMs: 0, at: null, pos: sum.pos, valueType: 'vector' };
  return { ...top, args: [...top.args.slice(0, -1), merged] };
}

function unwrapParens(expr: Expr): Expr {
  return expr.type === 'ParenExpr' ? unwrapParens(expr.expr) : expr;
}

/** mergedSumsQuerier answers the finishing call's one selector with the merged sums. */
function mergedSumsQuerier(merged: readonly SeriesColumns[]): MetricQuerier {
  return {
    select: () => merged.slice(),
    labelNames: () => [],
    labelValues: () => [],
  };
}

/**
 * promqlInstantSeries carries a PromQL instant result as series of one point each, in the
 * result's order; a scalar becomes one unlabelled point, as a range evaluation gives it.
 */
export function promqlInstantSeries(out: InstantResult): { series: ResultSeries[]; annotations: InstantResult['annotations'] } {
  const { value, annotations } = out;
  if (value.type === 'scalar') return { series: [{ labels: {}, timestampsMs: Float64Array.of(value.timestampMs), values: Float64Array.of(value.value) }], annotations };
  if (value.type !== 'vector') throw new EngineError('VALIDATION_FAILED', `a ${value.type} cannot be evaluated as series`);
  const series = value.samples.map((s): ResultSeries => {
    const one: ResultSeries = { labels: s.labels, timestampsMs: Float64Array.of(s.timestampMs), values: Float64Array.of(s.value) };
    if (s.histogram !== undefined) one.histograms = [s.histogram];
    return one;
  });
  return { series, annotations };
}
