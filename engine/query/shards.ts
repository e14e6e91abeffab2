import { combine as combineHistograms, compact, divide, type FloatHistogram } from '../histogram/floatHistogram.js';
import { CompensatedSum } from '../histogram/compensatedSum.js';
import type { Expr as LogQLExpr, RangeAggregationExpr, SampleExpr as LogQLSampleExpr } from '../logql/ast.js';
import type { AggregateExpr, Expr } from '../promql/ast.js';
import { Grouper } from '../promql/eval/grouping.js';
import { BestK, labelRanks, selectedBefore } from '../promql/eval/rankedSelection.js';
import { METRIC_NAME, labelsKey, type Labels } from '../storage/labels.js';
import type { SeriesColumns } from '../storage/seriesColumns.js';
import type { TimePart } from '../storage/partition.js';

/**
 * Series sharding splits one slice of a query by series, for the case time slices cannot
 * help: few steps over many series (an instant-style dashboard tile, a day-wide step). Each
 * shard evaluates the whole query over the series (for LogQL, the tag sets of lines) whose
 * hash falls in it, and the query front merges the shards' answers. For PromQL that is exact
 * only for some query shapes (LogQL's are in logShardMergeFor):
 *
 * - series-local expressions, where each output series depends on one input series (selectors,
 *   per-series functions, arithmetic with constants): the shards' outputs are disjoint, and
 *   merging is concatenation;
 * - one of the aggregations sum, count, min, max, group or avg over a series-local
 *   expression: each shard's answer is a partial aggregate per group, merged per timestamp
 *   (avg travels as a sum and a count, histograms as histogram sums).
 *
 * - expressions whose output series each depend only on input series that agree on some labels
 *   (the groups of an aggregation `by` them, the matching labels of a binary operation, all but
 *   `le` for histogram_quantile): series are placed by those labels' values (a ShardKey), so
 *   every group is whole in one shard, the shards' outputs are disjoint, and merging is
 *   concatenation again (shardKeyFor);
 * - one of those aggregations over an expression placed as above (aggregationPlanFor): the
 *   shards' partial aggregates merge as over a series-local input;
 * - a range query's topk or bottomk with a number for k, its input placed as above: each shard
 *   selects among its series and the merge selects among the shards' choices (selectionPlanFor).
 * - a query built on aggregations over all series (no grouping, or `by (le)`) that shard as
 *   above, as `sum(rate(a[5m])) / sum(rate(b[5m]))` or `histogram_quantile(0.9, sum by (le)
 *   (...))`: each shard evaluates only those aggregations, and the query front evaluates the rest
 *   over their merged answers (finishPlanFor).
 *
 * Which functions are series-local (or constant) is a property of each row of the function
 * table (`shard` in engine/promql/functions.ts). Anything else is evaluated unsharded.
 */
export type ShardMerge = 'concat' | 'sum' | 'min' | 'max' | 'group' | 'avg' | 'finish' | SelectionMerge;

/**
 * SelectionMerge merges the shards of a range query's topk or bottomk (`k` per group): each shard
 * answers with its own selection, and the k best of all are among those, since a range query
 * selects by value and then labels (engine/promql/eval/rankedSelection.ts).
 */
export interface SelectionMerge {
  select: 'topk' | 'bottomk';
  k: number;
  grouping: readonly string[];
  without: boolean;
}

/**
 * ShardKey says which labels place a series in a shard: the values of `only` those names (a
 * missing label counts as empty), or every label `allBut` those names. Without one a series is
 * placed by all its labels but the metric name (shardOf).
 */
export type ShardKey = { only: readonly string[] } | { allBut: readonly string[] };

/**
 * SeriesShard names one shard of `count`; `avg` asks the worker for a sum and a count instead of
 * a mean, `finish` for the query's parts (finishPlanFor) instead of the query.
 */
export interface SeriesShard {
  index: number;
  count: number;
  merge: ShardMerge;
  key?: ShardKey;
  /** timePart is a log shard's part of time (taskData.ts logTimeParts): log shards split lines by time, not by series. */
  timePart?: TimePart;
}

/** ShardPlan is how a query's shards are made and merged. */
export interface ShardPlan {
  merge: ShardMerge;
  key?: ShardKey;
}

const MERGEABLE_AGGREGATIONS: ReadonlyMap<string, ShardMerge> = new Map([
  ['sum', 'sum'],
  ['count', 'sum'],
  ['min', 'min'],
  ['max', 'max'],
  ['group', 'group'],
  ['avg', 'avg'],
]);

function unwrap(expr: Expr): Expr {
  return expr.type === 'ParenExpr' ? unwrap(expr.expr) : expr;
}

/** isConstant: a scalar that does not depend on any series. */
function isConstant(expr: Expr): boolean {
  switch (expr.type) {
    case 'NumberLiteral':
    case 'StringLiteral':
      return true;
    case 'ParenExpr':
    case 'UnaryExpr':
      return isConstant(expr.expr);
    case 'BinaryExpr':
      return isConstant(expr.lhs) && isConstant(expr.rhs);
    case 'Call':
      return expr.func.shard === 'constant' && expr.args.length === 0;
    default:
      return false;
  }
}

/** isSeriesLocal: each output series comes from exactly one input series, and no input means no output. */
function isSeriesLocal(expr: Expr): boolean {
  switch (expr.type) {
    case 'VectorSelector':
    case 'MatrixSelector':
      return true;
    case 'ParenExpr':
    case 'UnaryExpr':
      return isSeriesLocal(expr.expr);
    case 'SubqueryExpr':
      return isSeriesLocal(expr.expr);
    case 'BinaryExpr':
      return (isSeriesLocal(expr.lhs) && isConstant(expr.rhs)) || (isConstant(expr.lhs) && isSeriesLocal(expr.rhs));
    case 'Call': {
      if (expr.func.shard !== 'perSeries') return false;
      const data = expr.args.filter((a) => !isConstant(a));
      return data.length === 1 && isSeriesLocal(data[0]);
    }
    default:
      return false;
  }
}

/**
 * shardPlanFor says how `expr` is split by series and its shards combined, or undefined when it
 * must run unsharded: a merge of partial answers where shardMergeFor allows one, else shards
 * placed by the labels its groups keep together (shardKeyFor), concatenated.
 */
export function shardPlanFor(expr: Expr, instant = false): ShardPlan | undefined {
  const merge = shardMergeFor(expr);
  if (merge !== undefined) return { merge };
  const key = shardKeyFor(expr);
  if (key !== undefined) return { merge: 'concat', key };
  return aggregationPlanFor(expr) ?? finishPlanFor(expr, instant) ?? (instant ? undefined : selectionPlanFor(expr));
}

/** PART_MERGES are the aggregations a finishing plan (finishPlanFor) takes as parts: those whose shards merge (avg as sums and counts). */
const PART_MERGES: ReadonlyMap<string, ShardMerge> = MERGEABLE_AGGREGATIONS;

/**
 * UNFINISHABLE_CALLS are functions that read more than the values of their argument: absent()
 * builds its answer's labels from a selector's matchers, which a part read back as a selector
 * does not have; info() selects series of its own.
 */
const UNFINISHABLE_CALLS: ReadonlySet<string> = new Set(['absent', 'info']);

/**
 * finishPlanFor shards a query built on aggregations over all series (no grouping, or `by (le)`)
 * as query front ends such as Mimir's do: the usual SLO ratio `sum(rate(errors[5m])) /
 * sum(rate(requests[5m]))`, `histogram_quantile(0.99, sum by (le) (rate(x_bucket[5m])))`, CPU use
 * as `100 * (1 - avg(rate(cpu_seconds_total{mode="idle"}[5m])))`. Every shard evaluates only those aggregations (the query's parts, see
 * finishedParts) over its series, the merge combines each part's shards, and the query front
 * evaluates the rest of the query over the combined parts (engine/query/shardFinish.ts). Such
 * queries leave no label to place series by (shardKeyFor) and otherwise ran on one worker.
 * Parts are limited to those small groupings because the front merges and finishes them: a
 * `sum by (instance)` part would bring every instance's partial sums to the front from every
 * shard. All parts' inputs must be placed alike (the same key, or every series apart).
 */
export function finishPlanFor(expr: Expr, instant = false): ShardPlan | undefined {
  const parts = finishedParts(expr);
  if (parts === undefined || (instant && selectsByInputOrder(expr, new Set(parts)))) return undefined;
  const keys = new Set(parts.map((part) => JSON.stringify(partPlan(part)?.key ?? null)));
  if (keys.size !== 1) return undefined;
  const key = partPlan(parts[0])?.key;
  return key === undefined ? { merge: 'finish' } : { merge: 'finish', key };
}

/**
 * INSTANT_SELECTIONS are the aggregations whose instant answer depends on the order of their
 * input (Prometheus' heap settles ties by it): over merged parts, read back in label order,
 * their ties could fall otherwise than in one evaluation. A range query selects by value and
 * then labels (rankedSelection.ts), whatever the order.
 */
const INSTANT_SELECTIONS: ReadonlySet<string> = new Set(['topk', 'bottomk', 'limitk', 'limit_ratio']);

/** selectsByInputOrder tells whether an aggregation of INSTANT_SELECTIONS stands outside `parts` in `expr`. */
function selectsByInputOrder(expr: Expr, parts: ReadonlySet<Expr>): boolean {
  if (parts.has(expr)) return false;
  switch (expr.type) {
    case 'ParenExpr':
    case 'UnaryExpr':
      return selectsByInputOrder(expr.expr, parts);
    case 'BinaryExpr':
      return selectsByInputOrder(expr.lhs, parts) || selectsByInputOrder(expr.rhs, parts);
    case 'AggregateExpr':
      return INSTANT_SELECTIONS.has(expr.op) || selectsByInputOrder(expr.expr, parts);
    case 'Call':
      return expr.args.some((a) => selectsByInputOrder(a, parts));
    default:
      return false;
  }
}

/** partPlan is how a part of a finishing plan shards and merges, or undefined when `agg` cannot be a part. */
function partPlan(agg: AggregateExpr): ShardPlan | undefined {
  if (!PART_MERGES.has(agg.op) || agg.param !== null || agg.without || agg.grouping.some((label) => label !== 'le')) return undefined;
  const merge = shardMergeFor(agg);
  return merge !== undefined ? { merge } : aggregationPlanFor(agg);
}

/** partMerge is how the shards of a part combine. */
export function partMerge(part: AggregateExpr): ShardMerge {
  const merge = PART_MERGES.get(part.op);
  if (merge === undefined) throw new Error(`${part.op} is not a part of a finishing plan`);
  return merge;
}

/**
 * finishedParts lists, in the order met (outside in, left to right), the aggregations a
 * finishing plan evaluates in the shards, or undefined when `expr` has no such plan: something
 * outside the parts reads series (a selector, a range, a subquery) or needs a selector (absent),
 * there is no part, or `expr` is one aggregation, whose shards merge without a finish.
 */
export function finishedParts(expr: Expr): AggregateExpr[] | undefined {
  const top = unwrap(expr);
  if (top.type === 'AggregateExpr' && partPlan(top) !== undefined) return undefined;
  const parts: AggregateExpr[] = [];
  const outside = (e: Expr): boolean => {
    switch (e.type) {
      case 'NumberLiteral':
      case 'StringLiteral':
        return true;
      case 'ParenExpr':
      case 'UnaryExpr':
        return outside(e.expr);
      case 'BinaryExpr':
        return outside(e.lhs) && outside(e.rhs);
      case 'AggregateExpr':
        if (partPlan(e) !== undefined) {
          parts.push(e);
          return true;
        }
        return (e.param === null || outside(e.param)) && outside(e.expr);
      case 'Call':
        return !UNFINISHABLE_CALLS.has(e.func.name) && e.args.every((a) => a.valueType !== 'matrix' && outside(a));
      default:
        return false;
    }
  };
  return outside(expr) && parts.length > 0 ? parts : undefined;
}

/**
 * aggregationPlanFor shards a mergeable aggregation (sum, count, min, max, group, avg) whose
 * input is not series-local but can be placed by labels, as `sum(rate(a[5m]) / rate(b[5m]))`:
 * series are placed as the input needs (its shardKeyFor), so each input series is whole in one
 * shard, and the shards' partial aggregates merge as over a series-local input.
 */
function aggregationPlanFor(expr: Expr): ShardPlan | undefined {
  const top = unwrap(expr);
  if (top.type !== 'AggregateExpr' || top.param !== null) return undefined;
  const merge = MERGEABLE_AGGREGATIONS.get(top.op);
  if (merge === undefined) return undefined;
  const key = shardKeyFor(top.expr);
  return key === undefined ? undefined : { merge, key };
}

/**
 * selectionPlanFor shards a range query that ends in topk or bottomk with a number for k: series
 * are placed as the selection's input needs (its own shardKeyFor), every shard selects among its
 * part, and the merge selects again among the shards' choices. Not for instant queries, whose
 * selection follows Prometheus' heap over the input order (and whose answer keeps that order),
 * which a shard does not see.
 */
function selectionPlanFor(expr: Expr): ShardPlan | undefined {
  const top = unwrap(expr);
  if (top.type !== 'AggregateExpr' || (top.op !== 'topk' && top.op !== 'bottomk') || top.param === null) return undefined;
  const param = unwrap(top.param);
  if (param.type !== 'NumberLiteral') return undefined;
  // Grouped by the name, a group's labels depend on when the name is removed; left whole.
  if (!top.without && top.grouping.includes(METRIC_NAME)) return undefined;
  const key = shardKeyFor(top.expr);
  if (key === undefined) return undefined;
  return { merge: { select: top.op, k: param.value, grouping: top.grouping, without: top.without }, key };
}

/**
 * Together is what an expression needs of a placement of series in shards: input series that
 * one output series (or one group of a later aggregation) may depend on agree on the values of
 * `only` these labels, or of every label `allBut` these. Placing series by a subset of those
 * labels keeps each such set of series in one shard.
 */
type Together = { only: ReadonlySet<string> } | { allBut: ReadonlySet<string> };

/** EVERY_SERIES is a selector's need: nothing ties its series together but their identity without the name. */
const EVERY_SERIES: Together = { allBut: new Set([METRIC_NAME]) };

/**
 * GROUP_LOCAL_AGGREGATIONS compute each group's output from that group's series alone (given
 * a constant parameter), so whole groups in one shard give exactly the unsharded answer.
 */
const GROUP_LOCAL_AGGREGATIONS: ReadonlySet<string> = new Set(['sum', 'avg', 'count', 'min', 'max', 'group', 'stddev', 'stdvar', 'topk', 'bottomk', 'quantile', 'count_values']);

/** both is what two needs ask together: series must agree on the labels both name. */
function both(a: Together, b: Together): Together {
  if ('only' in a) return { only: new Set([...a.only].filter((n) => ('only' in b ? b.only.has(n) : !b.allBut.has(n)))) };
  if ('only' in b) return both(b, a);
  return { allBut: new Set([...a.allBut, ...b.allBut]) };
}

/**
 * keptTogether finds what `expr` needs of a placement ('constant' for an expression of no
 * series), or undefined when no placement by labels keeps it exact: a function that rewrites
 * labels, one over all series at once (absent, scalar, sort), a non-constant parameter.
 */
function keptTogether(expr: Expr): Together | 'constant' | undefined {
  switch (expr.type) {
    case 'NumberLiteral':
    case 'StringLiteral':
      return 'constant';
    case 'VectorSelector':
    case 'MatrixSelector':
      return EVERY_SERIES;
    case 'ParenExpr':
    case 'UnaryExpr':
    case 'SubqueryExpr':
      return keptTogether(expr.expr);
    case 'Call': {
      if (isConstant(expr)) return 'constant';
      if (expr.func.name === 'histogram_quantile') {
        const inner = isConstant(expr.args[0]) ? keptTogether(expr.args[1]) : undefined;
        // Its groups are the series equal in every label but `le` (the name is dropped).
        return inner === undefined || inner === 'constant' ? undefined : both(inner, { allBut: new Set(['le', METRIC_NAME]) });
      }
      if (expr.func.shard !== 'perSeries') return undefined;
      const data = expr.args.filter((a) => !isConstant(a));
      const inner = data.length === 1 ? keptTogether(data[0]) : undefined;
      return inner === 'constant' ? undefined : inner;
    }
    case 'AggregateExpr': {
      if (!GROUP_LOCAL_AGGREGATIONS.has(expr.op) || (expr.param !== null && !isConstant(expr.param))) return undefined;
      const inner = keptTogether(expr.expr);
      if (inner === undefined || inner === 'constant') return undefined;
      return both(inner, expr.without ? { allBut: new Set([...expr.grouping, METRIC_NAME]) } : { only: new Set(expr.grouping) });
    }
    case 'BinaryExpr': {
      const lhs = keptTogether(expr.lhs);
      const rhs = keptTogether(expr.rhs);
      if (lhs === undefined || rhs === undefined) return undefined;
      if (lhs === 'constant') return rhs;
      if (rhs === 'constant') return lhs;
      // A fill stands in for a missing match, which a shard cannot tell from one in another shard.
      if (expr.matching.fill !== undefined && (expr.matching.fill.lhs !== null || expr.matching.fill.rhs !== null)) return undefined;
      const matched: Together = expr.matching.on ? { only: new Set(expr.matching.labels) } : { allBut: new Set([...expr.matching.labels, METRIC_NAME]) };
      return both(both(lhs, rhs), matched);
    }
    default:
      return undefined;
  }
}

/**
 * shardKeyFor finds the labels to place series by so that `expr`'s shards are disjoint and whole
 * (see keptTogether), or undefined when none does: no label is left that every group shares, the
 * expression gives no vector, or it ends in topk or bottomk, whose instant answer's order (the
 * selection heap's) the merge, which orders by labels, would not keep.
 */
export function shardKeyFor(expr: Expr): ShardKey | undefined {
  const top = unwrap(expr);
  if (top.valueType !== 'vector' || (top.type === 'AggregateExpr' && (top.op === 'topk' || top.op === 'bottomk'))) return undefined;
  const need = keptTogether(expr);
  if (need === undefined || need === 'constant') return undefined;
  if ('allBut' in need) return { allBut: [...need.allBut].sort() };
  const only = [...need.only].filter((n) => n !== METRIC_NAME).sort();
  return only.length === 0 ? undefined : { only };
}

/** shardMergeFor says how shards of `expr` combine, or undefined when it must run unsharded. */
export function shardMergeFor(expr: Expr): ShardMerge | undefined {
  const top = unwrap(expr);
  if (top.type === 'AggregateExpr') {
    const merge = MERGEABLE_AGGREGATIONS.get(top.op);
    return merge !== undefined && top.param === null && isSeriesLocal(top.expr) ? merge : undefined;
  }
  return top.valueType === 'vector' && isSeriesLocal(top) ? 'concat' : undefined;
}

/**
 * ADDITIVE_RANGE_OPS are the LogQL range aggregations whose value over a set of lines is the
 * sum of their values over any split of those lines: shards of streams can be added up.
 */
const ADDITIVE_RANGE_OPS: ReadonlySet<RangeAggregationExpr['op']> = new Set(['count_over_time', 'rate', 'bytes_over_time', 'bytes_rate', 'sum_over_time']);

/**
 * EXTREME_RANGE_OPS are the LogQL range aggregations whose value over a set of lines is the
 * largest or smallest of their values over any split of those lines, with the vector
 * aggregation that keeps that so across series (`max by (…) (max_over_time(…))`).
 */
const EXTREME_RANGE_OPS: ReadonlyMap<RangeAggregationExpr['op'], 'max' | 'min'> = new Map([
  ['max_over_time', 'max'],
  ['min_over_time', 'min'],
]);

/**
 * logShardMergeFor says how shards of a LogQL metric query combine. Lines are split by time
 * (taskData.ts logTimeParts), so every series can have a part in every shard; only sums of
 * additive range aggregations (or such an aggregation alone) then merge exactly, by adding the
 * parts, and the maxima (minima) of max_over_time (min_over_time), by taking the largest
 * (smallest): a NaN gives way to any number in both, as in one evaluation.
 */
export function logShardMergeFor(expr: LogQLExpr): 'sum' | 'max' | 'min' | undefined {
  const mergeOfRange = (e: LogQLExpr): 'sum' | 'max' | 'min' | undefined => {
    if (e.kind !== 'RangeAggregation') return undefined;
    return ADDITIVE_RANGE_OPS.has(e.op) ? 'sum' : EXTREME_RANGE_OPS.get(e.op);
  };
  const alone = mergeOfRange(expr);
  if (alone !== undefined) return alone;
  if (expr.kind !== 'VectorAggregation' || expr.param !== undefined) return undefined;
  const inner = mergeOfRange(expr.expr);
  return inner !== undefined && inner === expr.op ? inner : undefined;
}

/**
 * logShardPlanFor says how a LogQL metric query is split between shards (each reading the
 * lines of one part of time, taskData.ts logTimeParts): a sum of additive range aggregations
 * (or one alone) merges by adding the parts, max_over_time and min_over_time by their
 * extremes (logShardMergeFor); a query built on such parts (`count by (level) (sum by (level,
 * route) (count_over_time(...)))`, a ratio of two rates, an average split by logShardForm) is
 * finished at the merge, as PromQL's finishPlanFor does, over the merged parts
 * (logFinishedParts).
 */
export function logShardPlanFor(expr: LogQLExpr): ShardPlan | undefined {
  const form = logShardForm(expr);
  const merge = logShardMergeFor(form);
  if (merge !== undefined) return { merge };
  return logFinishedParts(form) === undefined ? undefined : { merge: 'finish' };
}

/** shardForms keeps each expression's shard form, so the same query node gives the same parts (found by identity). */
const shardForms = new WeakMap<LogQLExpr, LogQLExpr>();

/**
 * logShardForm is `expr` as log shards evaluate it: each `avg_over_time` becomes the
 * `sum_over_time` of its samples over their `count_over_time`, two parts that add up over any
 * split of the lines (Loki's sharding rewrites it so too), so an average over a long range
 * splits its lines between workers like a sum. Shards and the merge evaluate this form; the
 * result may differ from one evaluation's in the last digits (two compensated sums added
 * instead of one). An expression without averages is its own form.
 */
export function logShardForm(expr: LogQLExpr): LogQLExpr {
  let form = shardForms.get(expr);
  if (form === undefined) {
    form = averagesSplit(expr);
    shardForms.set(expr, form);
  }
  return form;
}

function averagesSplit(expr: LogQLExpr): LogQLExpr {
  switch (expr.kind) {
    case 'RangeAggregation': {
      if (expr.op !== 'avg_over_time') return expr;
      const sum: RangeAggregationExpr = { ...expr, op: 'sum_over_time' };
      const count: RangeAggregationExpr = { ...expr, op: 'count_over_time' };
      return { kind: 'BinaryExpr', op: '/', lhs: sum, rhs: count, returnBool: false, pos: expr.pos };
    }
    case 'VectorAggregation': {
      const inner = averagesSplit(expr.expr) as LogQLSampleExpr;
      return inner === expr.expr ? expr : { ...expr, expr: inner };
    }
    case 'LabelReplace': {
      const inner = averagesSplit(expr.expr) as LogQLSampleExpr;
      return inner === expr.expr ? expr : { ...expr, expr: inner };
    }
    case 'BinaryExpr': {
      const lhs = averagesSplit(expr.lhs);
      const rhs = averagesSplit(expr.rhs);
      return lhs === expr.lhs && rhs === expr.rhs ? expr : { ...expr, lhs, rhs };
    }
    default:
      return expr;
  }
}

/**
 * logFinishedParts lists, in the order met, the additive parts (logShardMergeFor) of a LogQL
 * metric query whose rest reads no lines (aggregations, binary operations, label_replace,
 * numbers), or undefined when it has none or is one.
 */
export function logFinishedParts(expr: LogQLExpr): LogQLSampleExpr[] | undefined {
  if (logShardMergeFor(expr) !== undefined) return undefined;
  const parts: LogQLSampleExpr[] = [];
  const outside = (e: LogQLExpr): boolean => {
    if (e.kind === 'LogSelector') return false;
    if (logShardMergeFor(e) !== undefined) {
      parts.push(e);
      return true;
    }
    switch (e.kind) {
      case 'NumberLiteral':
      case 'Vector':
        return true;
      case 'VectorAggregation':
        // A selection among series settles ties by the order they come in, which merged parts do not keep.
        return !ORDERED_LOG_SELECTIONS.has(e.op) && outside(e.expr);
      case 'LabelReplace':
        return outside(e.expr);
      case 'BinaryExpr':
        return outside(e.lhs) && outside(e.rhs);
      default:
        return false;
    }
  };
  return outside(expr) && parts.length > 0 ? parts : undefined;
}

/** ORDERED_LOG_SELECTIONS pick series by value, ties by the order of their input. */
const ORDERED_LOG_SELECTIONS: ReadonlySet<string> = new Set(['topk', 'bottomk', 'approx_topk']);

/** topAggregation returns the aggregation at the top of a sharded query (for avg's rewrite). */
export function topAggregation(expr: Expr): AggregateExpr | undefined {
  const top = unwrap(expr);
  return top.type === 'AggregateExpr' ? top : undefined;
}

/**
 * shardOf places a series by an FNV-1a hash of its labels without the metric name, so series
 * that differ only by name (which a function dropping the name would make collide) share a
 * shard and still meet.
 */
export function shardOf(labels: Labels, count: number): number {
  return placeAllBut(labels, count, WITHOUT_NAME);
}

const WITHOUT_NAME: ReadonlySet<string> = new Set([METRIC_NAME]);

/** placeAllBut hashes every label but `excluded`, names and values, in name order. */
function placeAllBut(labels: Labels, count: number, excluded: ReadonlySet<string>): number {
  let h = 0x811c9dc5;
  for (const name of Object.keys(labels).sort()) {
    if (excluded.has(name)) continue;
    h = mix(h, name);
    h = Math.imul(h ^ 0xff, 0x01000193);
    h = mix(h, labels[name]);
    h = Math.imul(h ^ 0xfe, 0x01000193);
  }
  return (h >>> 0) % count;
}

/** MAX_PLACEMENTS bounds the placing functions kept; a dashboard's queries use a few keys. */
const MAX_PLACEMENTS = 64;

/** placements keeps one placing function per key, so readers that remember placements per function reuse them. */
const placements = new Map<string, (labels: Labels, count: number) => number>();

/** shardPlacement is the function that places a series under `key` (shardOf without one). */
export function shardPlacement(key: ShardKey | undefined): (labels: Labels, count: number) => number {
  if (key === undefined) return shardOf;
  const id = JSON.stringify(key);
  let place = placements.get(id);
  if (place === undefined) {
    place = 'only' in key ? placeByOnly(key.only) : placeByAllBut(new Set(key.allBut));
    // Keys come from queries, so their number is the users' to choose: the map is bounded.
    if (placements.size >= MAX_PLACEMENTS) placements.clear();
    placements.set(id, place);
  }
  return place;
}

/** placeByAllBut places by every label but `excluded`, as shardOf does by all but the name. */
function placeByAllBut(excluded: ReadonlySet<string>): (labels: Labels, count: number) => number {
  return (labels, count) => placeAllBut(labels, count, excluded);
}

/** placeByOnly hashes the values of `names` (sorted), a missing label as empty. */
function placeByOnly(names: readonly string[]): (labels: Labels, count: number) => number {
  return (labels, count) => {
    let h = 0x811c9dc5;
    for (const name of names) {
      h = mix(h, labels[name] ?? '');
      h = Math.imul(h ^ 0xff, 0x01000193);
    }
    return (h >>> 0) % count;
  };
}

function mix(h: number, s: string): number {
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h;
}

/**
 * ShardOutput is one shard's answer: its series, for avg the matching counts, and for sum the
 * groups and timestamps the shard left out because floats and histograms met there (absent
 * when none did, so the common all-float answer carries nothing more).
 */
export interface ShardOutput {
  series: SeriesColumns[];
  counts?: SeriesColumns[];
  mixed?: SeriesColumns[];
  /** partEnds, from a shard of a finishing plan, says where each part's series end in `series` (countPartEnds in `counts`, mixedPartEnds in `mixed`). */
  partEnds?: number[];
  countPartEnds?: number[];
  mixedPartEnds?: number[];
}

type Combine = (a: number, b: number) => number;

const COMBINE: Record<Exclude<ShardMerge, 'concat' | 'avg' | 'finish' | SelectionMerge>, Combine> = {
  sum: (a, b) => a + b,
  // Prometheus' min and max let any number replace a NaN, and keep NaN only when all are NaN.
  min: (a, b) => (b < a || Number.isNaN(a) ? b : a),
  max: (a, b) => (b > a || Number.isNaN(a) ? b : a),
  group: () => 1,
};

/**
 * mergeShards combines the shards of one slice into the answer an unsharded evaluation gives:
 * disjoint series are concatenated; partial aggregates of the same group are combined at each
 * timestamp either shard has a value for. `onMixed` is called when floats of one shard met
 * histograms of another in a sum or average (no shard saw the mix, so none warned of it).
 */
export function mergeShards(merge: ShardMerge, outputs: readonly ShardOutput[], onMixed: () => void = () => {}): SeriesColumns[] {
  if (typeof merge === 'object') return mergeSelections(merge, outputs);
  if (merge === 'finish') throw new Error('the parts of a finishing plan merge in finishShards');
  if (merge === 'concat') return outputs.flatMap((o) => o.series);
  if (merge === 'avg') return mergeAverages(outputs, onMixed);
  const merged = combineByGroup(outputs.map((o) => o.series), COMBINE[merge], onMixed);
  return merge === 'sum' ? withoutMixedSteps(merged, outputs) : merged;
}

/**
 * mergeSelections selects again among the shards' topk or bottomk choices: per group and
 * timestamp the k best points under the order every shard selected by (value, then labels),
 * each series keeping the points chosen.
 */
function mergeSelections(selection: SelectionMerge, outputs: readonly ShardOutput[]): SeriesColumns[] {
  const series = outputs.flatMap((o) => o.series);
  const k = Math.trunc(selection.k);
  if (series.length === 0 || !(k >= 1)) return [];
  const ranks = labelRanks(series.map((s) => s.labels));
  const smallestFirst = selection.select === 'bottomk';
  // Candidates are numbered points: seriesOf[c] and pointOf[c] say which.
  const seriesOf: number[] = [];
  const pointOf: number[] = [];
  const before = (a: number, b: number): boolean => {
    const sa = seriesOf[a];
    const sb = seriesOf[b];
    return selectedBefore(series[sa].values[pointOf[a]], ranks[sa], series[sb].values[pointOf[b]], ranks[sb], smallestFirst);
  };
  const grouper = new Grouper(selection.grouping, selection.without);
  const choices = new Map<string, Map<number, BestK>>();
  for (let i = 0; i < series.length; i++) {
    const s = series[i];
    const key = grouper.key(s.labels);
    let atTimes = choices.get(key);
    if (atTimes === undefined) choices.set(key, (atTimes = new Map()));
    for (let j = 0; j < s.timestampsMs.length; j++) {
      const t = s.timestampsMs[j];
      let best = atTimes.get(t);
      if (best === undefined) atTimes.set(t, (best = new BestK(k, before)));
      seriesOf.push(i);
      pointOf.push(j);
      best.offer(seriesOf.length - 1);
    }
  }
  const kept: number[][] = series.map(() => []);
  for (const atTimes of choices.values()) for (const best of atTimes.values()) for (const c of best.members) kept[seriesOf[c]].push(pointOf[c]);
  const out: SeriesColumns[] = [];
  for (let i = 0; i < series.length; i++) {
    const s = series[i];
    const points = kept[i].sort((a, b) => a - b);
    if (points.length === 0) continue;
    if (points.length === s.timestampsMs.length) out.push(s);
    else out.push({ labels: s.labels, timestampsMs: Float64Array.from(points, (j) => s.timestampsMs[j]), values: Float64Array.from(points, (j) => s.values[j]) });
  }
  return out;
}

/**
 * withoutMixedSteps drops the timestamps at which some shard found a group mixing floats and
 * histograms: unsharded, that group has no sum there, whatever the other shards hold.
 */
function withoutMixedSteps(merged: SeriesColumns[], outputs: readonly ShardOutput[]): SeriesColumns[] {
  const marked = new Map<string, Set<number>>();
  for (const o of outputs) {
    for (const m of o.mixed ?? []) {
      const key = sortedLabelsKey(m.labels);
      let times = marked.get(key);
      if (times === undefined) marked.set(key, (times = new Set()));
      for (const t of m.timestampsMs) times.add(t);
    }
  }
  if (marked.size === 0) return merged;
  const out: SeriesColumns[] = [];
  for (const s of merged) {
    const times = marked.get(sortedLabelsKey(s.labels));
    if (times === undefined) {
      out.push(s);
      continue;
    }
    const keep: number[] = [];
    for (let i = 0; i < s.timestampsMs.length; i++) if (!times.has(s.timestampsMs[i])) keep.push(i);
    if (keep.length === 0) continue;
    const kept: SeriesColumns = { labels: s.labels, timestampsMs: Float64Array.from(keep, (i) => s.timestampsMs[i]), values: Float64Array.from(keep, (i) => s.values[i]) };
    const hs = s.histograms;
    if (hs !== undefined) kept.histograms = keep.map((i) => hs[i]);
    out.push(kept);
  }
  return out;
}

/** sortedLabelsKey keys a label set whatever order its names come in. */
function sortedLabelsKey(labels: Labels): string {
  const sorted: Record<string, string> = {};
  for (const name of Object.keys(labels).sort()) sorted[name] = labels[name];
  return labelsKey(sorted);
}

/**
 * mixedSumSteps lists, for a shard of a `sum`, the groups and timestamps where the shard's
 * series (the sum's inner expression) hold both floats and histograms: the shard's own sum
 * left them out, and the merge must too. Groups are keyed as the evaluator's aggregation keys
 * them, so the labels match its output series. Values are unused (zero).
 */
export function mixedSumSteps(inner: readonly SeriesColumns[], grouping: readonly string[], without: boolean): SeriesColumns[] {
  const grouper = new Grouper(grouping, without);
  const groups = new Map<string, { labels: Labels; floats: Set<number>; histograms: Set<number> }>();
  for (const s of inner) {
    const key = grouper.key(s.labels);
    let g = groups.get(key);
    if (g === undefined) groups.set(key, (g = { labels: grouper.labels(s.labels), floats: new Set(), histograms: new Set() }));
    for (let i = 0; i < s.timestampsMs.length; i++) (s.histograms?.[i] !== undefined ? g.histograms : g.floats).add(s.timestampsMs[i]);
  }
  const out: SeriesColumns[] = [];
  for (const g of groups.values()) {
    const times = [...g.floats].filter((t) => g.histograms.has(t)).sort((a, b) => a - b);
    if (times.length > 0) out.push({ labels: g.labels, timestampsMs: Float64Array.from(times), values: new Float64Array(times.length) });
  }
  return out;
}

/** combineByGroup merges series with equal labels across parts, combining values at equal timestamps. */
function combineByGroup(parts: readonly SeriesColumns[][], combine: Combine, onMixed: () => void): SeriesColumns[] {
  const groups = new Map<string, SeriesColumns[]>();
  for (const part of parts) {
    for (const s of part) {
      const key = labelsKey(s.labels);
      const list = groups.get(key);
      if (list) list.push(s);
      else groups.set(key, [s]);
    }
  }
  const out: SeriesColumns[] = [];
  for (const list of groups.values()) out.push(list.reduce((a, b) => combinePair(a, b, combine, onMixed)));
  return out;
}

/**
 * combinePair merges two time-sorted series of one group in a single pass. Native histogram
 * samples of a sum are added as histograms; where only one part has a sample it is kept, and
 * where a float meets a histogram the sum has no value (Prometheus leaves such a group out).
 */
function combinePair(a: SeriesColumns, b: SeriesColumns, combine: Combine, onMixed: () => void): SeriesColumns {
  const n = a.timestampsMs.length + b.timestampsMs.length;
  const timestampsMs = new Float64Array(n);
  const values = new Float64Array(n);
  const ha = a.histograms;
  const hb = b.histograms;
  const hists = ha === undefined && hb === undefined ? undefined : new Array<FloatHistogram | undefined>(n).fill(undefined);
  let i = 0;
  let j = 0;
  let k = 0;
  while (i < a.timestampsMs.length || j < b.timestampsMs.length) {
    const ta = i < a.timestampsMs.length ? a.timestampsMs[i] : Infinity;
    const tb = j < b.timestampsMs.length ? b.timestampsMs[j] : Infinity;
    timestampsMs[k] = Math.min(ta, tb);
    if (hists !== undefined) {
      const x = ta <= tb ? ha?.[i] : undefined;
      const y = tb <= ta ? hb?.[j] : undefined;
      if (ta === tb && (x === undefined) !== (y === undefined) && combine === COMBINE.sum) {
        // A float sum meets a histogram sum: the group mixes kinds there and has no sum, as unsharded.
        onMixed();
        i++;
        j++;
        continue;
      }
      hists[k] = x !== undefined && y !== undefined && combine === COMBINE.sum ? combineHistograms(x, y, 1).histogram : (x ?? y);
    }
    values[k++] = ta === tb ? combine(a.values[i++], b.values[j++]) : ta < tb ? a.values[i++] : b.values[j++];
  }
  const out: SeriesColumns = { labels: a.labels, timestampsMs: timestampsMs.subarray(0, k), values: values.subarray(0, k) };
  if (hists !== undefined) out.histograms = hists.slice(0, k);
  return out;
}

/**
 * PartialStep is one group's share of an average at one timestamp, summed over shards: the
 * float sum, the histogram sum, how many samples, and whether floats and histograms met.
 */
interface PartialStep {
  sum: number;
  histograms: CompensatedSum | undefined;
  count: number;
  floats: boolean;
  mixed: boolean;
}

/**
 * mergeAverages adds the shards' partial sums and counts per group and timestamp and divides.
 * Floats and histograms average apart, as Prometheus' avg does; a group and timestamp where
 * they met (in one shard, marked by a NaN count, or across shards) has no value, as unsharded.
 */
function mergeAverages(outputs: readonly ShardOutput[], onMixed: () => void): SeriesColumns[] {
  const groups = new Map<string, { labels: Labels; steps: Map<number, PartialStep> }>();
  for (const o of outputs) {
    const counts = new Map((o.counts ?? []).map((c) => [labelsKey(c.labels), c]));
    for (const s of o.series) {
      const key = labelsKey(s.labels);
      const n = counts.get(key);
      if (n === undefined || n.timestampsMs.length !== s.timestampsMs.length) throw new Error('a shard sent an average without its count');
      let g = groups.get(key);
      if (g === undefined) groups.set(key, (g = { labels: s.labels, steps: new Map() }));
      for (let i = 0; i < s.timestampsMs.length; i++) {
        const t = s.timestampsMs[i];
        let p = g.steps.get(t);
        if (p === undefined) g.steps.set(t, (p = { sum: 0, histograms: undefined, count: 0, floats: false, mixed: false }));
        const h = s.histograms?.[i];
        if (Number.isNaN(n.values[i])) p.mixed = true;
        else if (h !== undefined) (p.histograms ??= new CompensatedSum()).add(h);
        else {
          p.sum += s.values[i];
          p.floats = true;
        }
        p.count += n.values[i];
      }
    }
  }
  const out: SeriesColumns[] = [];
  for (const g of groups.values()) {
    const times = [...g.steps.keys()].sort((a, b) => a - b).filter((t) => {
      const p = g.steps.get(t)!;
      if (p.mixed) return false;
      if (p.floats && p.histograms !== undefined) {
        onMixed();
        return false;
      }
      return true;
    });
    if (times.length === 0) continue;
    const values = new Float64Array(times.length);
    let histograms: (FloatHistogram | undefined)[] | undefined;
    times.forEach((t, i) => {
      const p = g.steps.get(t)!;
      const sum = p.histograms?.result();
      if (sum === undefined) values[i] = p.sum / p.count;
      else (histograms ??= new Array<FloatHistogram | undefined>(times.length).fill(undefined))[i] = compact(divide(sum, p.count));
    });
    const series: SeriesColumns = { labels: g.labels, timestampsMs: Float64Array.from(times), values };
    if (histograms !== undefined) series.histograms = histograms;
    out.push(series);
  }
  return out;
}

/**
 * partialAverage folds a shard's per-series answer (the inner expression of an `avg`) into a
 * sum and a count per group and step, so the shard evaluates its data once; the merge divides.
 * Histogram samples are summed as histograms. A group and step holding both floats and
 * histograms has no average (Prometheus warns and leaves it out): its count is NaN, so the
 * merge leaves it out whatever the other shards hold, and `mixed` says it happened.
 * Groups follow Prometheus: `by` keeps the listed labels, `without` drops them and the name.
 */
export function partialAverage(
  inner: readonly SeriesColumns[],
  grouping: readonly string[],
  without: boolean,
  grid: { startMs: number; stepMs: number; steps: number },
): { sums: SeriesColumns[]; counts: SeriesColumns[]; mixed: boolean } {
  interface Group {
    labels: Labels;
    sum: Float64Array;
    count: Float64Array;
    floats: Uint8Array;
    histograms: (CompensatedSum | undefined)[] | undefined;
  }
  const groups = new Map<string, Group>();
  const dropped = new Set(without ? [...grouping, METRIC_NAME] : []);
  for (const s of inner) {
    const labels: Record<string, string> = {};
    if (without) {
      for (const name in s.labels) if (!dropped.has(name)) labels[name] = s.labels[name];
    } else {
      for (const name of grouping) if (s.labels[name] !== undefined && s.labels[name] !== '') labels[name] = s.labels[name];
    }
    const key = labelsKey(labels);
    let g = groups.get(key);
    const n = grid.steps;
    if (!g) groups.set(key, (g = { labels, sum: new Float64Array(n), count: new Float64Array(n), floats: new Uint8Array(n), histograms: undefined }));
    for (let i = 0; i < s.timestampsMs.length; i++) {
      const step = Math.round((s.timestampsMs[i] - grid.startMs) / grid.stepMs);
      const h = s.histograms?.[i];
      if (h !== undefined) ((g.histograms ??= new Array(n))[step] ??= new CompensatedSum()).add(h);
      else {
        g.sum[step] += s.values[i];
        g.floats[step] = 1;
      }
      g.count[step]++;
    }
  }
  const sums: SeriesColumns[] = [];
  const counts: SeriesColumns[] = [];
  let mixed = false;
  for (const g of groups.values()) {
    const steps: number[] = [];
    for (let i = 0; i < grid.steps; i++) if (g.count[i] > 0) steps.push(i);
    const timestampsMs = Float64Array.from(steps, (i) => grid.startMs + i * grid.stepMs);
    const sum: SeriesColumns = { labels: g.labels, timestampsMs, values: Float64Array.from(steps, (i) => g.sum[i]) };
    const count = Float64Array.from(steps, (i) => g.count[i]);
    const hs = g.histograms;
    if (hs !== undefined) {
      sum.histograms = steps.map((i, k) => {
        const h = hs[i]?.result();
        if (h === undefined) return undefined;
        if (g.floats[i] !== 0) {
          mixed = true;
          count[k] = NaN;
          return undefined;
        }
        return h;
      });
    }
    sums.push(sum);
    counts.push({ labels: g.labels, timestampsMs, values: count });
  }
  return { sums, counts, mixed };
}
