/**
 * Plain-data request options and results of LogQL evaluation, safe to pass between threads:
 * series are label objects with typed arrays of timestamps (milliseconds) and values.
 */
import type { SharedExtractions } from './metric/sharedExtractions.js';
import type { MemoryBudget } from '../../common/memoryBudget.js';
import type { Labels } from '../../storage/labels.js';
import type { SeriesColumns } from '../../storage/seriesColumns.js';

/** DEFAULT_MAX_SERIES bounds the series one query may return or hold per step. */
export const DEFAULT_MAX_SERIES = 100_000;
/** DEFAULT_MAX_SAMPLES bounds the samples (extracted values and result points) a query holds. */
export const DEFAULT_MAX_SAMPLES = 50_000_000;

/** EvalOptions controls one metric query evaluation. */
export interface EvalOptions {
  /** signal aborts the evaluation; checked between batches of lines and between steps. */
  signal?: AbortSignal;
  /** maxSeries fails the query with RESOURCE_EXHAUSTED beyond this many series. */
  maxSeries?: number;
  /** maxSamples fails the query with RESOURCE_EXHAUSTED beyond this many samples held. */
  maxSamples?: number;
  /** memory is the query's memory budget: series kept and template output count against it. */
  memory?: MemoryBudget;
  /** sharedExtractions, given to several evaluations of one task, lets them read a range's samples once (see sharedExtractions.ts). */
  sharedExtractions?: SharedExtractions;
}

/** InstantResult is the answer to an instant query: a vector (one point per series) or a scalar. */
export type InstantResult =
  | { resultType: 'vector'; series: SeriesColumns[] }
  | { resultType: 'scalar'; timestampMs: number; value: number };

/** RangeResult is the answer to a range query: a matrix sorted by labels. */
export interface RangeResult {
  resultType: 'matrix';
  series: SeriesColumns[];
}

/** LogDirection orders raw log results. */
export type LogDirection = 'forward' | 'backward';

/** LogQueryOptions controls a raw log query. */
export interface LogQueryOptions {
  /** startNs and endNs bound the lines returned (inclusive), in nanoseconds since the epoch. */
  startNs: bigint;
  endNs: bigint;
  /** limit caps the rows returned; 0 or absent means no limit. */
  limit?: number;
  /** direction is forward (oldest first, the default) or backward (newest first). */
  direction?: LogDirection;
  /** fields restricts the tags of each row to this allow-list. */
  fields?: readonly string[];
  /** sliceNs is the width of the time slices the query walks (default: the whole range). */
  sliceNs?: bigint;
  signal?: AbortSignal;
  /** memory is the query's memory budget: rows kept and template output count against it. */
  memory?: MemoryBudget;
}

/** LogRow is one result line. */
export interface LogRow {
  timestampNs: bigint;
  /** tags are the line's labels after the pipeline, with `message` (the line) and `level`. */
  tags: Labels;
  /** line is the log line after the pipeline (line_format may have rewritten it). */
  line: string;
}
