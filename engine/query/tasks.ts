import { Packr } from 'msgpackr';
import { EngineError } from '../errors.js';
import { evaluateRange, formatAnnotation } from '../promql/eval/index.js';
import { parseAndCheckPromQL } from '../promql/index.js';
import { evaluateLogQLRange, iterateLogQuery } from '../logql/eval/index.js';
import { checkLogQL, parseLogQL } from '../logql/index.js';
import { logTransferables, unpackLogStreams, type PackedLogs } from './logPacking.js';
import { packSeries, transferablesOf, unpackSeries, type PackedSeries } from './packing.js';
import { StaticLogReader } from './staticLogReader.js';
import { StaticQuerier } from './staticQuerier.js';

/**
 * Tasks are what the query front sends to worker threads: plain data with the samples packed
 * in transferable buffers. A worker re-parses the query text (microseconds) instead of
 * receiving an AST, so nothing but primitives and buffers crosses the thread boundary.
 */
export interface PromQLRangeTask {
  kind: 'promql-range';
  query: string;
  startMs: number;
  endMs: number;
  stepMs: number;
  lookbackMs: number;
  maxSamples: number;
  data: PackedSeries;
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
  data: PackedLogs;
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
  data: PackedLogs;
}

export type QueryTask = PromQLRangeTask | LogQLRangeTask | LogQLRawTask;

export interface QueryTaskOutput {
  series: PackedSeries;
  annotations: string[];
}

/** LogRowsOutput is a raw query's rows: timestamps in one array, tag sets packed once. */
export interface LogRowsOutput {
  rows: { timestampsNs: BigInt64Array; tags: Uint8Array };
}

/** TaskFailure carries an EngineError across the thread boundary, where classes are lost. */
export interface TaskFailure {
  failed: true;
  code: EngineError['code'];
  message: string;
}

export type TaskResult = QueryTaskOutput | LogRowsOutput | TaskFailure;

/** runTask evaluates one task; `transfer` lists the result buffers to move back to the caller. */
export function runTask(task: QueryTask): { result: TaskResult; transfer: ArrayBuffer[] } {
  try {
    if (task.kind === 'logql-range') return runLogQLRange(task);
    if (task.kind === 'logql-raw') return runLogQLRaw(task);
    const expr = parseAndCheckPromQL(task.query);
    const querier = new StaticQuerier(unpackSeries(task.data));
    const out = evaluateRange(expr, querier, task.startMs, task.endMs, task.stepMs, {
      lookbackDeltaMs: task.lookbackMs,
      maxSamples: task.maxSamples,
    });
    const series = packSeries(out.series);
    return {
      result: { series, annotations: out.annotations.map((a) => formatAnnotation(a, task.query)) },
      transfer: transferablesOf(series),
    };
  } catch (err) {
    if (err instanceof EngineError) return { result: { failed: true, code: err.code, message: err.message }, transfer: [] };
    return { result: { failed: true, code: 'INTERNAL_ERROR', message: String((err as Error)?.message ?? err) }, transfer: [] };
  }
}

function runLogQLRange(task: LogQLRangeTask): { result: TaskResult; transfer: ArrayBuffer[] } {
  const expr = parseLogQL(task.query);
  checkLogQL(expr, task.query, { rangeQuery: true });
  const reader = new StaticLogReader(unpackLogStreams(task.data));
  const out = evaluateLogQLRange(expr, reader, task.startMs, task.endMs, task.stepMs, { maxSamples: task.maxSamples, maxSeries: task.maxSeries });
  const series = packSeries(out.series);
  return { result: { series, annotations: [] }, transfer: transferablesOf(series) };
}

const rowPackr = new Packr({ useRecords: false });

function runLogQLRaw(task: LogQLRawTask): { result: TaskResult; transfer: ArrayBuffer[] } {
  const expr = parseLogQL(task.query);
  checkLogQL(expr, task.query);
  const reader = new StaticLogReader(unpackLogStreams(task.data));
  const timestamps: bigint[] = [];
  const tags: Array<Record<string, string>> = [];
  for (const batch of iterateLogQuery(expr, reader, { startNs: task.startNs, endNs: task.endNs, limit: task.limit, direction: task.direction, fields: task.fields })) {
    for (const row of batch) {
      timestamps.push(row.timestampNs);
      tags.push(row.tags);
    }
  }
  // A copy: pack() answers a view into the packer's reusable buffer, which must not be transferred.
  const rows = { timestampsNs: BigInt64Array.from(timestamps), tags: new Uint8Array(rowPackr.pack(tags)) };
  return { result: { rows }, transfer: [rows.timestampsNs.buffer as ArrayBuffer, rows.tags.buffer as ArrayBuffer] };
}

/** unpackRowTags decodes the tag sets of a raw query's rows on the receiving thread. */
export function unpackRowTags(packed: Uint8Array): Array<Record<string, string>> {
  return rowPackr.unpack(packed) as Array<Record<string, string>>;
}

/** taskTransferables lists a task's buffers to move to the worker. */
export function taskTransferables(task: QueryTask): ArrayBuffer[] {
  return task.kind === 'promql-range' ? transferablesOf(task.data) : logTransferables(task.data);
}
