/**
 * The evaluator's intermediate series shapes. An instant-vector expression evaluated over a
 * grid yields VectorSeries: one typed-array slot per step plus a presence flag, so operators run
 * flat loops over steps without allocating per sample. Range inputs (matrix selectors,
 * subqueries) are RawSeries: the samples themselves, ascending by time.
 */
import type { StepSeries } from '../../common/stepSeries.js';
import type { Labels } from './labelset.js';

/**
 * VectorSeries is one series of an instant vector over every step of a grid: the engines'
 * shared StepSeries plus `dropName`, which marks a series whose metric name is due to be
 * removed (see delayed name removal), a PromQL rule LogQL does not have.
 */
export interface VectorSeries extends StepSeries<Labels> {
  dropName: boolean;
}

/**
 * SeriesStream is an instant vector as its producer yields it, one series at a time: consumers
 * that fold (aggregations, element-wise functions) never need all series at once.
 */
export type SeriesStream = Iterable<VectorSeries>;

/** RawSeries is a series' samples in time order, with staleness markers already removed. */
export interface RawSeries {
  labels: Labels;
  ts: Float64Array;
  vals: Float64Array;
  dropName: boolean;
}

/** newVectorSeries allocates an empty (all absent) series over `count` steps. */
export function newVectorSeries(labels: Labels, count: number, dropName: boolean): VectorSeries {
  return { labels, values: new Float64Array(count), present: new Uint8Array(count), dropName };
}

/** countPresent is the number of steps at which the series has a value. */
export function countPresent(series: VectorSeries): number {
  const present = series.present;
  let n = 0;
  for (let i = 0; i < present.length; i++) n += present[i];
  return n;
}

/** materialize drains a stream into an array, for operators that need every series at once. */
export function materialize(stream: SeriesStream): VectorSeries[] {
  return Array.isArray(stream) ? (stream as VectorSeries[]) : Array.from(stream);
}
