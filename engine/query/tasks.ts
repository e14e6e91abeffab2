import { MemoryBudget } from '../common/memoryBudget.js';
import { EngineError } from '../errors.js';
import { evaluateInstant, evaluateRange, formatAnnotation, type Annotation, type ResultSeries } from '../promql/eval/index.js';
import type { AggregateExpr, Expr } from '../promql/ast.js';
import { ALL_FEATURES_ON, parsedPromQL } from '../promql/index.js';
import { evaluateLogQLInstant, evaluateLogQLRange, iterateLogQuery, rowBytes, type LogRow } from '../logql/eval/index.js';
import type { InstantResult } from '../logql/eval/types.js';
import { SharedExtractions } from '../logql/eval/metric/sharedExtractions.js';
import type { SeriesColumns } from '../storage/seriesColumns.js';
import { checkLogQL, parseLogQL } from '../logql/index.js';
import { SharedSegmentReaders } from '../storage/sharedSegments.js';
import { packSeries, packVector, transferablesOf, type PackedSeries } from './packing.js';
import { packRows, rowsTransferables, type PackedRows } from './rowPacking.js';
import { finishedParts, logFinishedParts, logShardForm, mixedSumSteps, partialAverage, topAggregation, type SeriesShard } from './shards.js';
import { promqlInstantSeries } from './shardFinish.js';
import { Annotations } from '../promql/eval/annotations.js';
import { HistogramNotes } from '../promql/eval/histogramNotes.js';
import { logViewOf, metricViewOf, type LogTaskData, type MetricTaskData } from './taskData.js';

/**
 * Tasks are what the query front sends to worker threads: plain data, with segments and heads
 * in shared memory (see taskData.ts). A worker parses the query text again instead of receiving
 * an AST, so nothing but primitives and buffers crosses the thread boundary; the checked tree of
 * a recent text is kept (parsedPromQL), so the slices and shards of a query and the refreshes
 * of a panel parse it once per worker.
 */
export interface PromQLRangeTask {
  kind: 'promql-range';
  query: string;
  startMs: number;
  endMs: number;
  stepMs: number;
  lookbackMs: number;
  maxSamples: number;
  data: MetricTaskData;
  /** shard, when set, evaluates only the series of one shard, as a partial answer to merge (shards.ts). */
  shard?: SeriesShard;
  /**
   * instant evaluates at `startMs` as an instant query, as Prometheus' /query does: the series
   * keep the order sort(), sort_desc(), topk() and bottomk() give them (a range evaluation
   * orders series by labels and warns that sort() is ineffective).
   */
  instant?: boolean;
  /**
   * queryRangeMs is the whole query's range (end - start), which `range()` in a duration
   * expression reads; a slice's own startMs..endMs is shorter.
   */
  queryRangeMs?: number;
  /** delayedNameRemoval keeps `__name__` until the final result (the promql-delayed-name-removal flag). */
  delayedNameRemoval?: boolean;
  /**
   * valueText asks for the values' text with the answer (PackedSeries.valueText), for a
   * stream that writes them: formatting numbers then runs in parallel on the workers instead of
   * on the thread that writes every query's results.
   */
  valueText?: boolean;
  /** sampleText asks for every point as the Prometheus API renders it (PackedSeries.sampleText), for that API's answers. */
  sampleText?: boolean;
}

/** LogQLRangeTask evaluates a LogQL metric query over one slice of steps. */
export interface LogQLRangeTask {
  kind: 'logql-range';
  query: string;
  startMs: number;
  endMs: number;
  stepMs: number;
  maxSamples: number;
  maxSeries: number;
  /** memoryBytes is the query's memory budget on this worker (absent: unbounded). */
  memoryBytes?: number;
  data: LogTaskData;
  /** shard, when set, evaluates only the lines of one shard of tag sets, as a partial answer to merge (shards.ts). */
  shard?: SeriesShard;
  /**
   * instant evaluates at `startMs` as an instant query, as Loki's /query does: the series keep
   * the order sort() and sort_desc() give them, and approx_topk, refused over a range, is allowed.
   */
  instant?: boolean;
  /**
   * valueText asks for the values' text with the answer (PackedSeries.valueText), for a
   * stream that writes them: formatting numbers then runs in parallel on the workers instead of
   * on the thread that writes every query's results.
   */
  valueText?: boolean;
}

/** LogQLRawTask runs a raw log query over one time slice, returning at most `limit` rows. */
export interface LogQLRawTask {
  kind: 'logql-raw';
  query: string;
  startNs: bigint;
  endNs: bigint;
  limit: number;
  direction: 'forward' | 'backward';
  fields?: string[];
  /**
   * maxRows bounds the rows one task returns (so a dense slice is answered in parts of
   * bounded memory); the answer then says where the rest of the slice resumes.
   */
  maxRows?: number;
  /**
   * maxBytes bounds the bytes of rows one task returns, as maxRows bounds their number: a
   * slice of long lines is answered in parts too, so what a query holds in flight is bounded
   * in bytes. At least one row (one instant) is always returned.
   */
  maxBytes?: number;
  /** memoryBytes is the query's memory budget on this worker (absent: unbounded). */
  memoryBytes?: number;
  /**
   * cancel, when set, is a shared Int32 flag the caller sets to 1 when it no longer wants the
   * answer. The task checks it between batches and returns early, so stopping a raw query at
   * its limit ends the look-ahead work without ending the worker thread that runs it.
   */
  cancel?: SharedArrayBuffer;
  data: LogTaskData;
}

export type QueryTask = PromQLRangeTask | LogQLRangeTask | LogQLRawTask;

export interface QueryTaskOutput {
  series: PackedSeries;
  /** counts accompany `series` (then sums) from a shard of an avg query. */
  counts?: PackedSeries;
  /**
   * mixed, from a shard of a sum, lists the groups and timestamps it left out because floats
   * and histograms met there (shards.ts mixedSumSteps); absent when none did.
   */
  mixed?: PackedSeries;
  /** partEnds, countPartEnds and mixedPartEnds, from a shard of a finishing plan, end each part's series in `series`, `counts` and `mixed`. */
  partEnds?: number[];
  countPartEnds?: number[];
  mixedPartEnds?: number[];
  annotations: string[];
}

/** LogRowsOutput is a raw query's rows, packed (see rowPacking.ts). */
export interface LogRowsOutput {
  rows: PackedRows;
  /**
   * resumeNs is set when the task stopped at `maxRows` before the end of its slice: the rest
   * is [resumeNs, endNs] going forward, [startNs, resumeNs] backward.
   */
  resumeNs?: bigint;
}

/** TaskFailure carries an EngineError across the thread boundary, where classes are lost. */
export interface TaskFailure {
  failed: true;
  code: EngineError['code'];
  message: string;
}

export type TaskResult = QueryTaskOutput | LogRowsOutput | TaskFailure;

/** segmentReaders keeps this thread's decoded segments between tasks. */
let segmentReaders = new SharedSegmentReaders();

/**
 * configureWorkerCaches sizes this thread's cache of decoded segments; the thread that starts
 * the worker calls it once, before the first task, with the worker's part of the cache budget.
 */
export function configureWorkerCaches(options: { segmentCacheBytes: number }): void {
  segmentReaders = new SharedSegmentReaders(options.segmentCacheBytes);
}

/** runTask evaluates one task; `transfer` lists the result buffers to move back to the caller. */
export function runTask(task: QueryTask): { result: TaskResult; transfer: ArrayBuffer[] } {
  try {
    if (task.kind === 'logql-range') return runLogQLRange(task);
    if (task.kind === 'logql-raw') return runLogQLRaw(task);
    return runPromQLRange(task);
  } catch (err) {
    if (err instanceof EngineError) return { result: { failed: true, code: err.code, message: err.message }, transfer: [] };
    return { result: { failed: true, code: 'INTERNAL_ERROR', message: String((err as Error)?.message ?? err) }, transfer: [] };
  }
}

function runPromQLRange(task: PromQLRangeTask): { result: TaskResult; transfer: ArrayBuffer[] } {
  // The query was accepted (feature flags included) before it was sent here.
  const expr = parsedPromQL(task.query, ALL_FEATURES_ON);
  const querier = metricViewOf(task.data, segmentReaders, task.shard);
  const options = { lookbackDeltaMs: task.lookbackMs, maxSamples: task.maxSamples, queryRangeMs: task.queryRangeMs, delayedNameRemoval: task.delayedNameRemoval === true };
  const evaluate = (e: typeof expr) =>
    task.instant === true ? promqlInstantSeries(evaluateInstant(e, querier, task.startMs, options)) : evaluateRange(e, querier, task.startMs, task.endMs, task.stepMs, options);
  if (task.shard?.merge === 'finish') return runFinishingParts(task, expr, evaluate);
  const top = task.shard?.merge === 'avg' ? topAggregation(expr) : undefined;
  const text = { valueText: task.valueText, sampleText: task.sampleText };
  if (!top && task.instant === true && task.shard?.merge !== 'sum') {
    // An instant vector of floats is packed from its samples (packVector); anything else as series.
    const instant = evaluateInstant(expr, querier, task.startMs, options);
    const annotations = instant.annotations.map((a) => formatAnnotation(a, task.query));
    const vector = instant.value.type === 'vector' && instant.value.samples.every((s) => s.histogram === undefined) ? instant.value.samples : undefined;
    const series = vector !== undefined ? packVector(vector, text) : packSeries(promqlInstantSeries(instant).series, text);
    return { result: { series, annotations }, transfer: transferablesOf(series) };
  }
  const out = evaluate(top ? top.expr : expr);
  const annotations = out.annotations.map((a) => formatAnnotation(a, task.query));
  if (!top) {
    const series = packSeries(out.series, text);
    const mixedSteps = task.shard?.merge === 'sum' ? mixedOfSum(expr, out.annotations, evaluate) : undefined;
    if (mixedSteps === undefined) return { result: { series, annotations }, transfer: transferablesOf(series) };
    const mixed = packSeries(mixedSteps);
    return { result: { series, mixed, annotations }, transfer: [...transferablesOf(series), ...transferablesOf(mixed)] };
  }
  // A shard of an average answers with sums and counts; only the merged shards can divide.
  const steps = Math.floor((task.endMs - task.startMs) / task.stepMs) + 1;
  const partial = partialAverage(out.series, top.grouping, top.without, { startMs: task.startMs, stepMs: task.stepMs, steps });
  // The warning the unsharded avg gives where floats and histograms meet in a group.
  if (partial.mixed) annotations.push(...mixedAggregationWarning(task.query, top));
  const series = packSeries(partial.sums);
  const counts = packSeries(partial.counts);
  return { result: { series, counts, annotations }, transfer: [...transferablesOf(series), ...transferablesOf(counts)] };
}

/**
 * mixedOfSum finds, for a shard of a `sum` whose evaluation warned that floats and histograms
 * met in a group, which groups and steps it left out, so the merge leaves them out whatever
 * the other shards hold. The sum's inner expression is evaluated again for that, but only
 * when the warning was raised: an all-float or all-histogram shard pays nothing.
 */
function mixedOfSum(
  expr: Expr,
  annotations: readonly Annotation[],
  evaluate: (e: Expr) => { series: readonly SeriesColumns[] },
): SeriesColumns[] | undefined {
  const top = topAggregation(expr);
  if (top === undefined || top.op !== 'sum') return undefined;
  if (!annotations.some((a) => a.message.endsWith(MIXED_IN_AGGREGATION))) return undefined;
  const mixed = mixedSumSteps(evaluate(top.expr).series, top.grouping, top.without);
  return mixed.length === 0 ? undefined : mixed;
}

/**
 * runFinishingParts answers a shard of a finishing plan (shards.ts finishPlanFor): each of the
 * query's parts evaluated over the shard's series, one after the other in `series`, with
 * `partEnds` saying where each ends; an avg part answers with sums, its counts in `counts`
 * (`countPartEnds`), and a sum part brings its marks of where floats and histograms met
 * (mixedOfSum) in `mixed` (`mixedPartEnds`). The query front merges them part by part and
 * evaluates the rest of the query (shardFinish.ts).
 */
function runFinishingParts(
  task: PromQLRangeTask,
  expr: Expr,
  evaluate: (e: Expr) => { series: readonly ResultSeries[]; annotations: readonly Annotation[] },
): { result: TaskResult; transfer: ArrayBuffer[] } {
  const parts = finishedParts(expr);
  if (parts === undefined) throw new Error('a finishing shard of a query without parts');
  const steps = { startMs: task.startMs, stepMs: task.stepMs, steps: Math.floor((task.endMs - task.startMs) / task.stepMs) + 1 };
  const series: SeriesColumns[] = [];
  const partEnds: number[] = [];
  const counts: SeriesColumns[] = [];
  const countPartEnds: number[] = [];
  const mixedSteps: SeriesColumns[] = [];
  const mixedPartEnds: number[] = [];
  const annotations: string[] = [];
  for (const part of parts) {
    if (part.op === 'avg') {
      // As a shard of a whole avg: sums and counts, which only the merged shards can divide.
      const out = evaluate(part.expr);
      const partial = partialAverage(out.series, part.grouping, part.without, steps);
      series.push(...partial.sums);
      counts.push(...partial.counts);
      annotations.push(...out.annotations.map((a) => formatAnnotation(a, task.query)));
      if (partial.mixed) annotations.push(...mixedAggregationWarning(task.query, part));
    } else {
      const out = evaluate(part);
      series.push(...out.series);
      annotations.push(...out.annotations.map((a) => formatAnnotation(a, task.query)));
      mixedSteps.push(...(mixedOfSum(part, out.annotations, evaluate) ?? []));
    }
    partEnds.push(series.length);
    countPartEnds.push(counts.length);
    mixedPartEnds.push(mixedSteps.length);
  }
  const result: QueryTaskOutput = { series: packSeries(series), partEnds, annotations };
  if (counts.length > 0) Object.assign(result, { counts: packSeries(counts), countPartEnds });
  if (mixedSteps.length > 0) Object.assign(result, { mixed: packSeries(mixedSteps), mixedPartEnds });
  const transfer = [result.series, result.counts, result.mixed].flatMap((p) => (p === undefined ? [] : transferablesOf(p)));
  return { result, transfer };
}

/**
 * mixedAggregationWarning is the warning, worded and placed as the evaluator gives it, of an
 * aggregation whose groups mixed floats and histograms; the merge of shards raises it too when
 * the mix met only there.
 */
export function mixedAggregationWarning(query: string, top: AggregateExpr): string[] {
  const notes = new Annotations();
  new HistogramNotes(notes).mixedFloatsAndHistogramsInAggregation(top.expr.pos);
  return notes.list().map((a) => formatAnnotation(a, query));
}

/** MIXED_IN_AGGREGATION ends the warning an aggregation raises where floats and histograms meet. */
const MIXED_IN_AGGREGATION = 'encountered a mix of histograms and floats for aggregation';

function runLogQLRange(task: LogQLRangeTask): { result: TaskResult; transfer: ArrayBuffer[] } {
  const expr = parseLogQL(task.query);
  const instant = task.instant === true;
  checkLogQL(expr, task.query, { rangeQuery: !instant });
  const reader = logViewOf(task.data, segmentReaders, task.shard);
  const memory = task.memoryBytes === undefined ? undefined : new MemoryBudget(task.memoryBytes);
  const options = { maxSamples: task.maxSamples, maxSeries: task.maxSeries, memory };
  const evaluate = (e: typeof expr, opts: typeof options = options): SeriesColumns[] =>
    instant ? instantSeries(evaluateLogQLInstant(e, reader, task.startMs, opts)) : evaluateLogQLRange(e, reader, task.startMs, task.endMs, task.stepMs, opts).series;
  if (task.shard?.merge === 'finish') {
    // A shard of a query finished at the merge answers with its parts one after the other (shardFinish.ts).
    const parts = logFinishedParts(logShardForm(expr));
    if (parts === undefined) throw new Error('a finishing shard of a query without parts');
    const all: SeriesColumns[] = [];
    const partEnds: number[] = [];
    // Parts over the same range (an average's sum and count) read its lines once.
    const shared = { ...options, sharedExtractions: new SharedExtractions() };
    for (const part of parts) {
      all.push(...evaluate(part, shared));
      partEnds.push(all.length);
    }
    const packed = packSeries(all);
    return { result: { series: packed, partEnds, annotations: [] }, transfer: transferablesOf(packed) };
  }
  const series = packSeries(evaluate(expr), { valueText: task.valueText });
  return { result: { series, annotations: [] }, transfer: transferablesOf(series) };
}

/** instantSeries carries an instant result as series: a scalar becomes one unlabelled point, as a range evaluation gives it. */
function instantSeries(out: InstantResult): SeriesColumns[] {
  if (out.resultType === 'vector') return out.series;
  return [{ labels: {}, timestampsMs: Float64Array.of(out.timestampMs), values: Float64Array.of(out.value) }];
}

/** RAW_SUB_SLICES is how many parts a raw task's window is walked in. */
const RAW_SUB_SLICES = 16n;

function runLogQLRaw(task: LogQLRawTask): { result: TaskResult; transfer: ArrayBuffer[] } {
  const expr = parseLogQL(task.query);
  checkLogQL(expr, task.query);
  const reader = logViewOf(task.data, segmentReaders);
  const forward = task.direction === 'forward';
  const memory = task.memoryBytes === undefined ? undefined : new MemoryBudget(task.memoryBytes);
  const maxRows = task.maxRows !== undefined && task.maxRows > 0 && task.maxRows < task.limit ? task.maxRows : undefined;
  const maxBytes = task.maxBytes !== undefined && task.maxBytes > 0 ? task.maxBytes : undefined;
  const capped = maxRows !== undefined || maxBytes !== undefined;
  // The window is walked in sub-slices, in output order, stopping once enough rows are out:
  // the newest 100 lines of a dense slice read about a sixteenth of it, and a slice answered
  // in parts reads each line about once, not once per part.
  const flag = task.cancel === undefined ? undefined : new Int32Array(task.cancel);
  const cancelled = (): boolean => flag !== undefined && Atomics.load(flag, 0) !== 0;
  // cut is the number of rows that fit the task's caps; rows past it wait for the next part.
  let cut = Number.POSITIVE_INFINITY;
  let bytes = 0;
  const collect = (startNs: bigint, endNs: bigint, limit: number, bounded: boolean): LogRow[] => {
    const rows: LogRow[] = [];
    if (cancelled()) return rows;
    const sliceNs = (endNs - startNs) / RAW_SUB_SLICES + 1n;
    for (const batch of iterateLogQuery(expr, reader, { startNs, endNs, limit, direction: task.direction, fields: task.fields, sliceNs, memory })) {
      for (const row of batch) {
        if (bounded && cut === Number.POSITIVE_INFINITY && maxBytes !== undefined) {
          bytes += rowBytes(row);
          if (bytes > maxBytes) cut = Math.max(1, rows.length);
        }
        rows.push(row);
      }
      if (cancelled() || (bounded && rows.length > cut)) break;
    }
    return rows;
  };
  let rows = collect(task.startNs, task.endNs, maxRows === undefined ? task.limit : maxRows + 1, true);
  if (maxRows !== undefined) cut = Math.min(cut, maxRows);
  let resumeNs: bigint | undefined;
  if (capped && rows.length > cut) {
    // The rest of the slice starts at the first timestamp not wholly returned: rows at that
    // instant all go to the continuation, so it needs no position within the instant.
    const boundary = rows[cut].timestampNs;
    let keep = cut;
    while (keep > 0 && rows[keep - 1].timestampNs === boundary) keep--;
    if (keep > 0) {
      rows = rows.slice(0, keep);
      resumeNs = boundary;
    } else {
      // More than `cap` rows share one instant: return that instant whole and continue after it.
      rows = collect(boundary, boundary, task.limit, false);
      const next = forward ? boundary + 1n : boundary - 1n;
      resumeNs = (forward ? next <= task.endNs : next >= task.startNs) ? next : undefined;
    }
  }
  const packed = packRows(rows);
  return { result: resumeNs === undefined ? { rows: packed } : { rows: packed, resumeNs }, transfer: rowsTransferables(packed) };
}

/**
 * taskTransferables lists a task's buffers to move to the worker: none, since a task's data
 * (segments and head snapshots) is all shared memory. Kept so callers post tasks one way.
 */
export function taskTransferables(_task: QueryTask): ArrayBuffer[] {
  return [];
}
