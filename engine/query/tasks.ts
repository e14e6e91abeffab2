import { EngineError } from '../errors.js';
import { evaluateRange, formatAnnotation } from '../promql/eval/index.js';
import { parseAndCheckPromQL } from '../promql/index.js';
import { packSeries, transferablesOf, unpackSeries, type PackedSeries } from './packing.js';
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

export type QueryTask = PromQLRangeTask;

export interface QueryTaskOutput {
  series: PackedSeries;
  annotations: string[];
}

/** TaskFailure carries an EngineError across the thread boundary, where classes are lost. */
export interface TaskFailure {
  failed: true;
  code: EngineError['code'];
  message: string;
}

export type TaskResult = QueryTaskOutput | TaskFailure;

/** runTask evaluates one task; `transfer` lists the result buffers to move back to the caller. */
export function runTask(task: QueryTask): { result: TaskResult; transfer: ArrayBuffer[] } {
  try {
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
