import { EngineError } from '../errors.js';
import type { AggregateExpr, Expr, VectorSelector } from '../promql/ast.js';
import { evaluateInstant, evaluateRange, formatAnnotation, type EvalOptions, type InstantResult, type ResultSeries } from '../promql/eval/index.js';
import type { LabelMatcher } from '../storage/matchers.js';
import type { MetricQuerier } from '../storage/metricHead.js';
import type { SeriesColumns } from '../storage/seriesColumns.js';
import { finishedParts, logFinishedParts, logShardForm, logShardMergeFor, mergeShards, partMerge, type ShardOutput } from './shards.js';
import type { Expr as LogQLExpr } from '../logql/ast.js';
import { evaluateLogQLAnswered } from '../logql/eval/index.js';
import type { EvalOptions as LogQLEvalOptions } from '../logql/eval/types.js';

/**
 * The finishing step of a query sharded by finishPlanFor or logShardPlanFor (shards.ts): each
 * shard answered with its parts of the query's aggregations, one after the other; here each
 * part's shards are merged, and the rest of the query is evaluated over the merged parts by the
 * evaluator itself: PromQL's with every part replaced by a selector that reads its merged
 * series, LogQL's with the parts given as answered. The same code, and for PromQL the same
 * warnings and infos (worded and placed in the query's text), as one evaluation of the query.
 */

/** FinishWindow is the slice being finished: its steps, or one instant. */
export interface FinishWindow {
  startMs: number;
  endMs: number;
  stepMs: number;
  instant?: boolean;
}

/**
 * ONLY_AT_STEP_MS is the lookback of the selectors over merged parts: a part has a point exactly
 * at each step where one evaluation gives it one, and a step without one must stay without (a
 * longer lookback would carry the previous step's value into it).
 */
const ONLY_AT_STEP_MS = 1;

/**
 * PART_LABEL names the part a finishing selector reads. It appears only in the rewritten tree,
 * never on a series: the querier below answers the selector with the part's series as merged.
 */
const PART_LABEL = 'part';

/**
 * finishShards merges the shards' parts and evaluates the rest of `expr` over them for `window`;
 * it returns the series and annotations one evaluation of the slice gives. `query` is the
 * query's text (for the annotations' positions); `onMixed` is called for a part whose floats of
 * one shard met histograms of another (mergeShards).
 */
export function finishShards(
  expr: Expr,
  query: string,
  outputs: readonly ShardOutput[],
  window: FinishWindow,
  options: EvalOptions,
  onMixed: (part: AggregateExpr) => void = () => {},
): { series: SeriesColumns[]; annotations: string[] } {
  const parts = finishedParts(expr);
  if (parts === undefined) throw new Error('finishShards: the query has no parts to finish');
  const merged = parts.map((part, i) => mergeShards(partMerge(part), outputs.map((o) => partOf(o, i)), () => onMixed(part)));
  const finishing = withPartsRead(expr, new Map(parts.map((part, i) => [part, i])));
  const querier = mergedPartsQuerier(merged);
  const evalOptions: EvalOptions = { ...options, lookbackDeltaMs: ONLY_AT_STEP_MS };
  const out =
    window.instant === true
      ? promqlInstantSeries(evaluateInstant(finishing, querier, window.startMs, evalOptions))
      : evaluateRange(finishing, querier, window.startMs, window.endMs, window.stepMs, evalOptions);
  return { series: out.series, annotations: out.annotations.map((a) => formatAnnotation(a, query)) };
}

/**
 * finishLogShards is finishShards for LogQL (shards.ts logShardPlanFor): each part's shards
 * are merged as the part says (added, or their largest or smallest taken), and the rest of the
 * query is evaluated over the merged parts.
 */
export function finishLogShards(expr: LogQLExpr, outputs: readonly ShardOutput[], window: FinishWindow, options: LogQLEvalOptions): SeriesColumns[] {
  const form = logShardForm(expr);
  const parts = logFinishedParts(form);
  if (parts === undefined) throw new Error('finishLogShards: the query has no parts to finish');
  const answered = new Map(parts.map((part, i) => [part, mergeShards(logShardMergeFor(part)!, outputs.map((o) => partOf(o, i)))]));
  return evaluateLogQLAnswered(form, answered, window, options);
}

/** partOf is one shard's answer for part `i`: its series and marks between the part's ends. */
function partOf(output: ShardOutput, i: number): ShardOutput {
  const ends = output.partEnds;
  if (ends === undefined) throw new Error('a shard of a finishing plan answered without its parts');
  const between = <T>(list: readonly T[] | undefined, partEnds: readonly number[] | undefined): T[] | undefined =>
    list === undefined || partEnds === undefined ? undefined : list.slice(i === 0 ? 0 : partEnds[i - 1], partEnds[i]);
  const part: ShardOutput = { series: between(output.series, ends)! };
  const counts = between(output.counts, output.countPartEnds);
  if (counts !== undefined) part.counts = counts;
  const mixed = between(output.mixed, output.mixedPartEnds);
  if (mixed !== undefined) part.mixed = mixed;
  return part;
}

/**
 * withPartsRead copies `expr` with each part (by identity) replaced by a selector of its merged
 * series, placed where the part was written (its warnings point there). Only the node types
 * finishedParts lets outside a part occur here.
 */
function withPartsRead(expr: Expr, parts: ReadonlyMap<Expr, number>): Expr {
  const index = parts.get(expr);
  if (index !== undefined) {
    const matchers = [{ name: PART_LABEL, op: '=' as const, value: String(index) }];
    const read: VectorSelector = { type: 'VectorSelector', name: null, matchers, offsetMs: 0, at: null, pos: expr.pos, valueType: 'vector' };
    return read;
  }
  switch (expr.type) {
    case 'ParenExpr':
    case 'UnaryExpr':
      return { ...expr, expr: withPartsRead(expr.expr, parts) };
    case 'BinaryExpr':
      return { ...expr, lhs: withPartsRead(expr.lhs, parts), rhs: withPartsRead(expr.rhs, parts) };
    case 'AggregateExpr':
      return { ...expr, expr: withPartsRead(expr.expr, parts), param: expr.param === null ? null : withPartsRead(expr.param, parts) };
    case 'Call':
      return { ...expr, args: expr.args.map((a) => withPartsRead(a, parts)) };
    default:
      return expr;
  }
}

/** mergedPartsQuerier answers each finishing selector with its part's merged series. */
function mergedPartsQuerier(merged: readonly SeriesColumns[][]): MetricQuerier {
  const partOfMatchers = (matchers: readonly LabelMatcher[]): SeriesColumns[] => {
    const named = matchers.find((m) => m.name === PART_LABEL);
    const part = named === undefined ? undefined : merged[Number(named.value)];
    if (part === undefined) throw new Error('a finishing selector names no part');
    return part.slice();
  };
  return {
    select: (matchers) => partOfMatchers(matchers),
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
