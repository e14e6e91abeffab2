/**
 * The evaluator's intermediate series shapes. An instant-vector expression evaluated over a
 * grid yields VectorSeries: one typed-array slot per step plus a presence flag, so operators run
 * flat loops over steps without allocating per sample. Range inputs (matrix selectors,
 * subqueries) are RawSeries: the samples themselves, ascending by time.
 */
import type { StepSeries } from '../../common/stepSeries.js';
import type { FloatHistogram } from '../../histogram/floatHistogram.js';
import type { Labels } from './labelset.js';

/**
 * HistogramSlots holds native histogram samples next to a series' floats: `[i]` is the
 * histogram at step (or sample) i, undefined where the sample is a float. Series without any
 * histogram leave the field out, so float-only evaluation pays nothing for it.
 */
export type HistogramSlots = (FloatHistogram | undefined)[];

/**
 * VectorSeries is one series of an instant vector over every step of a grid: the engines'
 * shared StepSeries plus `dropName`, which marks a series whose metric name is due to be
 * removed (see delayed name removal), a PromQL rule LogQL does not have.
 */
export interface VectorSeries extends StepSeries<Labels> {
  dropName: boolean;
  /** histograms are the steps whose value is a native histogram (present, value unused). */
  histograms?: HistogramSlots;
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
  /** hists are the samples that are native histograms (their `vals` entry is unused). */
  hists?: HistogramSlots;
  /** sts are the samples' start timestamps in ms (0: none), when read straight from storage that has them. */
  sts?: Float64Array;
  /**
   * runs, when set, hold the samples instead of `ts` and `vals` (then empty): parts from
   * different sources, one after another in time. Only a range selector read for a range
   * function's kernels has them (see selectRange's `asRuns`), which evaluate each run in place.
   */
  runs?: readonly SampleRun[];
  /** resetFree: no value of `ts`/`vals` is below the one before it, as storage found (SeriesColumns.resetFree). */
  resetFree?: boolean;
}

/** SampleRun is one part of a RawSeries held apart from the rest: samples in time order, no markers. */
export interface SampleRun {
  ts: Float64Array;
  vals: Float64Array;
  /** resetFree: no value is below the one before it (SeriesColumns.resetFree). */
  resetFree?: boolean;
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

/** hasHistograms tells whether any step of the series holds a native histogram. */
export function hasHistograms(slots: HistogramSlots | undefined): slots is HistogramSlots {
  return slots !== undefined && slots.some((h) => h !== undefined);
}

/**
 * floatsOnly removes the histogram steps from a vector: operators written for floats see only
 * floats, as Prometheus' float-only functions skip histogram samples. Series left empty go.
 */
export function* floatsOnly(stream: SeriesStream): Generator<VectorSeries> {
  for (const s of stream) {
    const floats = floatPart(s);
    if (floats !== undefined) yield floats;
  }
}

/** floatPart is one series of floatsOnly: the series without its histogram steps, undefined when none is left. */
export function floatPart(s: VectorSeries): VectorSeries | undefined {
  if (!hasHistograms(s.histograms)) return s.histograms === undefined ? s : { labels: s.labels, values: s.values, present: s.present, dropName: s.dropName };
  const present = s.present.slice();
  let left = 0;
  for (let i = 0; i < present.length; i++) {
    if (s.histograms[i] !== undefined) present[i] = 0;
    left += present[i];
  }
  return left > 0 ? { labels: s.labels, values: s.values, present, dropName: s.dropName } : undefined;
}

/** rawFloatsOnly removes the histogram samples from raw series (null when none is left). */
export function rawFloatsOnly(s: RawSeries): RawSeries | null {
  if (!hasHistograms(s.hists)) return s.hists === undefined ? s : { labels: s.labels, ts: s.ts, vals: s.vals, dropName: s.dropName, resetFree: s.resetFree };
  const hists = s.hists;
  const keep: number[] = [];
  for (let i = 0; i < s.ts.length; i++) if (hists[i] === undefined) keep.push(i);
  if (keep.length === 0) return null;
  return { labels: s.labels, ts: Float64Array.from(keep, (i) => s.ts[i]), vals: Float64Array.from(keep, (i) => s.vals[i]), dropName: s.dropName };
}
