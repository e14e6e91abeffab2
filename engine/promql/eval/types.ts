/**
 * The evaluator's public data shapes: options in, plain data out. Results carry no classes and
 * no references into storage, so they can be posted to another thread or serialised as they are.
 */
import type { PositionRange } from '../../errors.js';
import type { Labels } from '../../storage/labels.js';
import type { SeriesColumns } from '../../storage/seriesColumns.js';
import type { FloatHistogram } from '../../histogram/floatHistogram.js';

/**
 * SampleKind names what a sample holds. Only floats are evaluated today; native histograms
 * have a reserved kind so that storage and results can grow into them without a format change,
 * and queries that would need them are reported as unsupported rather than answered wrongly.
 */
export const SampleKind = { Float: 0, NativeHistogram: 1 } as const;
export type SampleKind = (typeof SampleKind)[keyof typeof SampleKind];

/** DEFAULT_LOOKBACK_DELTA_MS is Prometheus' default staleness window for instant vector selectors. */
export const DEFAULT_LOOKBACK_DELTA_MS = 5 * 60 * 1000;
/** DEFAULT_MAX_SAMPLES bounds the samples a query may hold at once, as Prometheus' query.max-samples. */
export const DEFAULT_MAX_SAMPLES = 50_000_000;
/** DEFAULT_NO_STEP_SUBQUERY_INTERVAL_MS is the step of a subquery written without one (`x[1h:]`). */
export const DEFAULT_NO_STEP_SUBQUERY_INTERVAL_MS = 60 * 1000;

/** EvalOptions tunes one evaluation; every field has Prometheus' default. */
export interface EvalOptions {
  /** lookbackDeltaMs is how far back an instant vector selector looks for a sample. */
  lookbackDeltaMs?: number;
  /** maxSamples bounds the samples held in memory at once; beyond it the query fails. */
  maxSamples?: number;
  /** signal aborts the evaluation; it is checked between series and between steps. */
  signal?: AbortSignal;
  /** noStepSubqueryIntervalMs is the step used by subqueries written without one. */
  noStepSubqueryIntervalMs?: number;
  /**
   * delayedNameRemoval keeps `__name__` on intermediate results and drops it only from the
   * final result, as Prometheus' experimental promql-delayed-name-removal feature does, so that
   * label_replace and friends can still read it. Off by default, as in Prometheus 3.
   */
  delayedNameRemoval?: boolean;
  /**
   * queryRangeMs is what `range()` stands for in duration expressions (ranges, subquery steps
   * and offsets) when the steps evaluated are one slice of a longer range query: the whole
   * query's end minus start, not the slice's. Unset, the evaluated window's own range is used.
   */
  queryRangeMs?: number;
}

/** AnnotationLevel says whether an annotation is a warning or an informational note. */
export type AnnotationLevel = 'warning' | 'info';

/**
 * Annotation is a non-fatal note about a query, as Prometheus returns next to results.
 * `message` starts with "PromQL warning:" or "PromQL info:"; `position` points into the query
 * text (render both with formatAnnotation).
 */
export interface Annotation {
  level: AnnotationLevel;
  message: string;
  position: PositionRange | null;
}

/** VectorSample is one element of an instant vector result. */
export interface VectorSample {
  labels: Labels;
  timestampMs: number;
  value: number;
  /** histogram is set when the sample is a native histogram; `value` is then meaningless. */
  histogram?: FloatHistogram;
}

/**
 * ResultSeries is a result series: its columns, plus `histograms[i]` where point i is a native
 * histogram rather than a float (the field is absent when no point is).
 */
export interface ResultSeries extends SeriesColumns {
  histograms?: (FloatHistogram | undefined)[];
}

/** InstantValue is what an instant query returns, by the expression's type. */
export type InstantValue =
  | { type: 'vector'; samples: VectorSample[] }
  | { type: 'scalar'; timestampMs: number; value: number }
  | { type: 'string'; timestampMs: number; value: string }
  | { type: 'matrix'; series: ResultSeries[] };

/** InstantResult is an instant query's value and its annotations. */
export interface InstantResult {
  value: InstantValue;
  annotations: Annotation[];
}

/**
 * RangeResult is a range query's series, sorted by labels as Prometheus sorts them. A scalar
 * expression yields one series with no labels.
 */
export interface RangeResult {
  series: ResultSeries[];
  annotations: Annotation[];
}
