import {
  EngineError,
  gatherLogShare,
  gatherMetricShare,
  logSelectionsFor,
  logShardPlanFor,
  finishLogShards,
  logTaskData,
  logTimeParts,
  metricTaskData,
  mergeShards,
  mixedAggregationWarning,
  packedRowsBytes,
  packedSeriesBytes,
  planSlices,
  reachedLines,
  reachedSamples,
  headEvaluationCost,
  refersToQueryWindow,
  costsAboutItsSamples,
  selectionsFor,
  shardPlanFor,
  finishShards,
  shareLogs,
  sortSeriesByKey,
  topAggregation,
  unpackRows,
  unpackSeries,
  type AggregateExpr,
  type LogQLExpr,
  type PromQLExpr,
  type QueryTask,
  type RawRow,
  type SeriesColumns,
  type SeriesShard,
  type ShardOutput,
  type ShardPlan,
  type TimePart,
  type Storage,
} from '../../engine/index.js';
import type { QueryPool } from './pool.js';
import { runOrderedQueue } from './orderedQueue.js';
import { shardingPolicy, sliceTasks, type SliceTasks, type SliceWindow } from './seriesStream.js';
import { runOrdered } from './stream.js';
import type { QueryWindow } from './timeRange.js';

/**
 * Query plans: how a checked query becomes worker tasks, kept apart from how results are
 * delivered. The SSE endpoints stream what a plan yields; the tool gateway collects it. Both
 * therefore run the very same slices, shards and limits.
 */

/** PlanDeps is what planning and running need from the service. */
export interface PlanDeps {
  storage: Storage;
  pool: QueryPool;
  maxSamples: number;
  lookbackMs: number;
  /** shardMinSamples is the slice size from which a query that time slices cannot spread is split by series; 0 never splits. */
  shardMinSamples: number;
  /** inlineMaxSamples is the most samples a PromQL slice may read to be evaluated on the answering thread (InlinePolicy); 0 never. */
  inlineMaxSamples: number;
  /** inlineMaxLines is inlineMaxSamples for LogQL metric queries, in log lines. */
  inlineMaxLines: number;
  /** memoryBytes is one query's memory budget; it travels with each task to the worker that runs it. */
  memoryBytes: number;
  /**
   * oldestMs, when set, is the oldest instant the query may read (the org's retention): data
   * before it is never selected, whether or not the retention run has deleted it yet.
   */
  oldestMs?: number;
  /** delayedNameRemoval: PromQL keeps `__name__` until the final result (SVC_PROMQL_FEATURES promql-delayed-name-removal). */
  delayedNameRemoval?: boolean;
  /**
   * valueText: the answer is written as text (an SSE stream), so workers send their values'
   * text with them (SeriesColumns.valueText), except where shards are combined point by point
   * (their text would not be the merged value's).
   */
  valueText?: boolean;
  /** sampleText: the answer is rendered by the Prometheus API, so workers send each point rendered its way (SeriesColumns.sampleText), on the same terms. */
  sampleText?: boolean;
}

/**
 * textAsked tells whether a task of this shard should bring text with its answer (PlanDeps
 * valueText, sampleText): not where shards are combined point by point, as their text would
 * not be the merged value's.
 */
function textAsked(asked: boolean | undefined, shard: SeriesShard | undefined): boolean | undefined {
  return asked === true && (shard === undefined || shard.merge === 'concat') ? true : undefined;
}

export interface LogPlanDeps extends PlanDeps {
  maxSeries: number;
  /** rawTaskRows bounds the rows one raw-log task returns; denser slices are answered in parts. */
  rawTaskRows: number;
  /**
   * rawTaskBytes bounds the bytes of rows one raw-log task returns, so that what a raw query
   * holds in flight (its tasks running or finished ahead plus the one being delivered) stays
   * within the stream's buffer however long its lines are.
   */
  rawTaskBytes: number;
}

/**
 * rawTaskBytesFor splits a stream's buffer between the tasks a raw query may hold at once:
 * one per worker in flight plus the one being delivered.
 */
export function rawTaskBytesFor(streamBufferBytes: number, workers: number): number {
  return Math.max(64 * 1024, Math.floor(streamBufferBytes / (workers + 1)));
}

/** MIN_STEPS_PER_SLICE keeps slices big enough that task overhead stays a small fraction. */
export const MIN_STEPS_PER_SLICE = 30;

/**
 * METRIC_MIN_STEPS_PER_SLICE is larger for PromQL: every time slice selects, windows and folds
 * each series again (~10-15 µs per series and slice beyond the samples themselves), so a
 * dashboard's 1-hour query over 10,000 series spent more on repeating that than on its
 * samples when cut into eight 30-step slices. At most one slice per worker, each of at least
 * 125 steps; a query left with fewer slices than workers is split by series instead where its
 * shape merges exactly, which spreads the work without repeating any series.
 */
export const METRIC_MIN_STEPS_PER_SLICE = 125;

const NS_PER_MS = 1_000_000n;

/** clipMetricSelections moves each selection's start up to `oldestMs`, when set. */
function clipMetricSelections<S extends { minMs: number }>(selections: S[], oldestMs: number | undefined): S[] {
  if (oldestMs === undefined) return selections;
  return selections.map((s) => (s.minMs >= oldestMs ? s : { ...s, minMs: oldestMs }));
}

/** clipLogRanges moves each range's start up to `oldestMs`, when set. */
function clipLogRanges<R extends { minNs: bigint }>(ranges: R[], oldestMs: number | undefined): R[] {
  if (oldestMs === undefined) return ranges;
  const oldestNs = BigInt(Math.ceil(oldestMs)) * NS_PER_MS;
  return ranges.map((r) => (r.minNs >= oldestNs ? r : { ...r, minNs: oldestNs }));
}

/** SeriesPlan is a query that yields series: its slices in order and how each becomes tasks. */
export interface SeriesPlan {
  slices: SliceWindow[];
  tasksFor(slice: SliceWindow): Promise<SliceTasks>;
  /**
   * failedSegments counts stored segments skipped as unreadable so far, and holders of recent
   * (head) data that could not be reached; any makes the answer partial.
   */
  failedSegments(): number;
  /** sortedByLabels: every slice's series come sorted by labels (PromQL and LogQL range results do). */
  sortedByLabels: boolean;
  /**
   * finish merges a slice's shards of a finishing plan (merge 'finish': they answered with the
   * query's parts) and evaluates the rest of the query over them (engine/query/shardFinish.ts).
   */
  finish?(outputs: readonly ShardOutput[], slice: SliceWindow): { series: SeriesColumns[]; annotations: string[] };
  /**
   * mixedWarning is the warning of a sum or avg whose floats of one shard met histograms of
   * another at the merge: no shard saw that mix, so the merge raises it (once per slice).
   */
  mixedWarning?: string[];
}

/**
 * metricSeriesPlan plans a checked PromQL query of `org` over `window`: a range query, or an
 * instant query when the window is one (its tasks then evaluate as Prometheus' /query does).
 */
export function metricSeriesPlan(deps: PlanDeps, org: string, q: string, expr: PromQLExpr, window: QueryWindow): SeriesPlan {
  const querier = deps.storage.metrics(org);
  const slices = refersToQueryWindow(expr)
    ? [{ startMs: window.startMs, endMs: window.endMs }]
    : planSlices(window.startMs, window.endMs, window.stepMs, deps.pool.threads, METRIC_MIN_STEPS_PER_SLICE);
  const planCtx = { queryStartMs: window.startMs, queryEndMs: window.endMs, lookbackMs: deps.lookbackMs, defaultSubqueryStepMs: 60_000 };
  // Series shards pay only where time slices leave workers idle (few steps) and the slice
  // holds enough samples that evaluation, not task overhead, dominates.
  const sharding = shardingPolicy(slices.length, deps.pool.threads, deps.shardMinSamples, () => shardPlanFor(expr, window.instant === true), () => deps.pool.idle);
  // What the whole query reads: the first slice's prepare fetches recent data for every slice.
  const scope = clipMetricSelections(selectionsFor(expr, window.startMs, window.endMs, planCtx), deps.oldestMs);
  const top = topAggregation(expr);
  const evalOptions = { maxSamples: deps.maxSamples, delayedNameRemoval: deps.delayedNameRemoval === true };
  // Inline only a query in one slice (slices are for spreading a query over the workers) whose
  // cost its samples and steps tell (costsAboutItsSamples: no subquery, and over a range no
  // function whose work grows with its window).
  const inlineShape = slices.length === 1 && deps.inlineMaxSamples > 0 && costsAboutItsSamples(expr, window.instant === true);
  return {
    slices,
    sortedByLabels: true,
    finish: (outputs, slice) => {
      // The warning one evaluation gives where a part's floats met histograms, once per part.
      const warned = new Set<AggregateExpr>();
      const finished = finishShards(expr, q, outputs, { ...slice, stepMs: window.stepMs, instant: window.instant }, evalOptions, (part) => warned.add(part));
      for (const part of warned) finished.annotations.push(...mixedAggregationWarning(q, part));
      return finished;
    },
    mixedWarning: top !== undefined && (top.op === 'sum' || top.op === 'avg') ? mixedAggregationWarning(q, top) : undefined,
    failedSegments: () => querier.failedSegments.length + querier.unavailableHeads.length,
    async tasksFor(slice) {
      const selections = clipMetricSelections(selectionsFor(expr, slice.startMs, slice.endMs, planCtx), deps.oldestMs);
      // Segment files not yet open are read off this thread first; the share below then finds them open.
      await querier.prepare(selections, scope);
      const share = gatherMetricShare(querier, selections);
      return sliceTasks(
        sharding,
        () => reachedSamples(share),
        () => metricTaskData(share),
        (data, shard): QueryTask => ({
          kind: 'promql-range',
          query: q,
          startMs: slice.startMs,
          endMs: slice.endMs,
          stepMs: window.stepMs,
          lookbackMs: deps.lookbackMs,
          maxSamples: deps.maxSamples,
          data,
          shard,
          instant: window.instant,
          // Each slice resolves range() in durations to the whole query's range, as one evaluation would.
          queryRangeMs: window.endMs - window.startMs,
          delayedNameRemoval: deps.delayedNameRemoval === true,
          valueText: textAsked(deps.valueText, shard),
          sampleText: textAsked(deps.sampleText, shard),
        }),
        // Segments are decoded only on the workers, whose caches keep them.
        {
          maxSize: deps.inlineMaxSamples,
          eligible: () => inlineShape && share.segments.length === 0,
          cost: () => headEvaluationCost(share, window.instant === true ? 1 : Math.floor((slice.endMs - slice.startMs) / window.stepMs) + 1),
        },
      );
    },
  };
}

/**
 * logSeriesPlan plans a checked LogQL metric query (one that yields series) of `org` over
 * `window`, as an instant query when the window is one (as Loki's /query evaluates).
 */
export function logSeriesPlan(deps: LogPlanDeps, org: string, q: string, expr: LogQLExpr, window: QueryWindow): SeriesPlan {
  const reader = deps.storage.logs(org);
  const slices = planSlices(window.startMs, window.endMs, window.stepMs, deps.pool.threads * 4, MIN_STEPS_PER_SLICE);
  const sharding = shardingPolicy(slices.length, deps.pool.threads, deps.shardMinSamples, () => logShardPlanFor(expr), () => deps.pool.idle);
  const scope = clipLogRanges(logSelectionsFor(expr, window.startMs, window.endMs), deps.oldestMs);
  const evalOptions = { maxSamples: deps.maxSamples, maxSeries: deps.maxSeries };
  // Instant queries only: unlike PromQL's window kernels, LogQL's range aggregations have not
  // all been shown to slide from one step's window to the next, so a range query's lines do not
  // bound its cost.
  const inlineShape = window.instant === true && deps.inlineMaxLines > 0;
  return {
    slices,
    sortedByLabels: true,
    finish: (outputs, slice) => ({ series: finishLogShards(expr, outputs, { ...slice, stepMs: window.stepMs, instant: window.instant }, evalOptions), annotations: [] }),
    failedSegments: () => reader.failedSegments.length + reader.unavailableHeads.length,
    async tasksFor(slice) {
      const selections = clipLogRanges(logSelectionsFor(expr, slice.startMs, slice.endMs), deps.oldestMs);
      await reader.prepare(selections, scope);
      const share = gatherLogShare(reader, selections);
      // Log shards split the slice's lines by time, in parts of about as many lines each.
      let timeParts: TimePart[] | undefined;
      return sliceTasks(
        sharding,
        () => reachedLines(share, selections),
        () => logTaskData(share),
        (data, shard): QueryTask => ({
          kind: 'logql-range',
          query: q,
          startMs: slice.startMs,
          endMs: slice.endMs,
          stepMs: window.stepMs,
          maxSamples: deps.maxSamples,
          maxSeries: deps.maxSeries,
          memoryBytes: deps.memoryBytes,
          data,
          shard: shard && { ...shard, timePart: (timeParts ??= logTimeParts(share, selections, shard.count))[shard.index] },
          instant: window.instant,
          valueText: textAsked(deps.valueText, shard),
        }),
        { maxSize: deps.inlineMaxLines, eligible: () => inlineShape && share.segments.length === 0 },
      );
    },
  };
}

/**
 * runSeriesPlan evaluates a plan's slices on the pool, several at once (and the shards of a
 * slice in parallel), and hands each slice's series to `consume` strictly in slice order,
 * with the size of the workers' answers it came from and the evaluator's annotations (warnings
 * and infos, as Prometheus' API words them). A slow `consume` pauses dispatch, which is how a
 * slow reader holds back only its own query.
 */
export async function runSeriesPlan(
  pool: QueryPool,
  plan: SeriesPlan,
  signal: AbortSignal,
  consume: (series: SeriesColumns[], bytes: number, annotations: string[]) => Promise<void> | void,
): Promise<void> {
  await runOrdered(
    plan.slices.length,
    pool.threads,
    async (i, sliceSignal): Promise<{ series: SeriesColumns[]; bytes: number; annotations: string[] }> => {
      const slice = plan.slices[i];
      const { tasks, merge, inline } = await plan.tasksFor(slice);
      const outputs = await Promise.all(tasks.map((task) => runSeriesTask(pool, task, sliceSignal, inline === true)));
      const bytes = outputs.reduce((sum, o) => sum + o.bytes, 0);
      const annotations = outputs.flatMap((o) => o.annotations);
      if (merge === undefined) return { series: outputs[0].series, bytes, annotations };
      if (merge === 'finish') {
        // Finished by the evaluator, in the order one evaluation gives (a range's by labels, an instant's its own).
        if (plan.finish === undefined) throw new Error('a finishing plan without its finish');
        const finished = plan.finish(outputs, slice);
        return { series: finished.series, bytes, annotations: [...annotations, ...finished.annotations] };
      }
      // Merged shards come in shard order. A slice evaluated whole comes sorted by labels;
      // sorted the same way, a sharded slice streams exactly as an unsharded one, and pieces of
      // an answer from the results cache line up with a fresh one.
      let warned = false;
      const merged = mergeShards(merge, outputs, () => {
        if (!warned && plan.mixedWarning !== undefined) annotations.push(...plan.mixedWarning);
        warned = true;
      });
      return { series: plan.sortedByLabels ? sortSeriesByKey(merged) : merged, bytes, annotations };
    },
    async (_i, result) => {
      await consume(result.series, result.bytes, result.annotations);
    },
    signal,
  );
}

async function runSeriesTask(pool: QueryPool, task: QueryTask, signal: AbortSignal, inline: boolean): Promise<ShardOutput & { bytes: number; annotations: string[] }> {
  const result = inline ? pool.runInline(task, signal) : await pool.run(task, signal);
  if ('failed' in result) throw new EngineError(result.code, result.message);
  if (!('series' in result)) throw new Error('worker answered a series task with rows');
  const bytes = packedSeriesBytes(result.series) + (result.counts ? packedSeriesBytes(result.counts) : 0) + (result.mixed ? packedSeriesBytes(result.mixed) : 0);
  const output: ShardOutput & { bytes: number; annotations: string[] } = { series: unpackSeries(result.series), counts: result.counts && unpackSeries(result.counts), mixed: result.mixed && unpackSeries(result.mixed), bytes, annotations: result.annotations };
  if (result.partEnds !== undefined) output.partEnds = result.partEnds;
  if (result.countPartEnds !== undefined) output.countPartEnds = result.countPartEnds;
  if (result.mixedPartEnds !== undefined) output.mixedPartEnds = result.mixedPartEnds;
  return output;
}

export interface RawLogOptions {
  limit: number;
  reverse: boolean;
  fields: string[] | undefined;
}

/** rawSlices cuts [s, e] into time slices in output order (newest first when reversed). */
function rawSlices(window: QueryWindow, count: number, reverse: boolean): Array<{ startNs: bigint; endNs: bigint }> {
  const startNs = BigInt(window.startMs) * NS_PER_MS;
  const endNs = BigInt(window.endMs) * NS_PER_MS + (NS_PER_MS - 1n);
  const width = (endNs - startNs + 1n + BigInt(count) - 1n) / BigInt(count);
  const slices: Array<{ startNs: bigint; endNs: bigint }> = [];
  for (let from = startNs; from <= endNs; from += width) {
    const to = from + width - 1n < endNs ? from + width - 1n : endNs;
    slices.push({ startNs: from, endNs: to });
  }
  return reverse ? slices.reverse() : slices;
}

/**
 * runRawLogs walks a raw log query's time slices in output order (oldest first, or newest
 * first when reversed), several in flight on the pool, and hands rows to `consume` in order
 * until `limit` rows are out; then it stops dispatching. `consume` also gets the size of the
 * worker's answer the rows came from. Returns how many segments had to be skipped as
 * unreadable.
 */
export async function runRawLogs(
  deps: LogPlanDeps,
  org: string,
  q: string,
  expr: LogQLExpr,
  window: QueryWindow,
  options: RawLogOptions,
  signal: AbortSignal,
  consume: (rows: RawRow[], bytes: number) => Promise<void> | void,
): Promise<{ failedSegments: number }> {
  const reader = deps.storage.logs(org);
  const slices = rawSlices(window, deps.pool.threads * 4, options.reverse);
  const selection = logSelectionsFor(expr, window.startMs, window.endMs)[0];
  const direction = options.reverse ? 'backward' : 'forward';
  const whole = { startNs: slices.reduce((m, s) => (s.startNs < m ? s.startNs : m), slices[0].startNs), endNs: slices.reduce((m, s) => (s.endNs > m ? s.endNs : m), slices[0].endNs) };
  const scope = clipLogRanges([{ matchers: selection.matchers, minNs: whole.startNs, maxNs: whole.endNs }], deps.oldestMs);
  let emitted = 0;
  await runOrderedQueue(
    slices,
    deps.pool.threads,
    async (slice, sliceSignal) => {
      const ranges = clipLogRanges([{ matchers: selection.matchers, minNs: slice.startNs, maxNs: slice.endNs }], deps.oldestMs);
      // The task's data is taken once the pool has a place for it, so it reads the newest head;
      // the head itself is a shared snapshot, the same for every task until the next append.
      const result = await deps.pool.runRaw(async () => {
        await reader.prepare(ranges, scope);
        const data = shareLogs(reader, ranges);
        return {
          kind: 'logql-raw',
          query: q,
          startNs: slice.startNs,
          endNs: slice.endNs,
          limit: options.limit - emitted,
          maxRows: deps.rawTaskRows,
          maxBytes: deps.rawTaskBytes,
          memoryBytes: deps.memoryBytes,
          direction,
          fields: options.fields,
          data,
        };
      }, sliceSignal);
      if ('failed' in result) throw new EngineError(result.code, result.message);
      if (!('rows' in result)) throw new Error('worker answered a raw task with series');
      return result;
    },
    async (slice, result) => {
      const rows = unpackRows(result.rows);
      const take = Math.min(rows.length, options.limit - emitted);
      emitted += take;
      // Held twice over while delivered: the packed answer and the lines read back from it.
      await consume(take === rows.length ? rows : rows.slice(0, take), 2 * packedRowsBytes(result.rows));
      const more = emitted < options.limit;
      // A slice answered in parts continues right after the part just consumed.
      const resume = result.resumeNs;
      if (!more || resume === undefined) return { more };
      return { more, next: options.reverse ? { startNs: slice.startNs, endNs: resume } : { startNs: resume, endNs: slice.endNs } };
    },
    signal,
  );
  return { failedSegments: reader.failedSegments.length + reader.unavailableHeads.length };
}
