/**
 * The decoded form of an OTLP ExportMetricsServiceRequest that both wire decoders (protobuf and
 * JSON) produce and the Prometheus conversion consumes. It mirrors the OTLP messages but with
 * times already in milliseconds and counts as numbers, which is all the conversion needs.
 */
import type { OtlpAttribute } from './otlpValue.js';
import type { OtlpScope } from './otlpCommonProto.js';

/** Aggregation temporality values of the OTLP enum. */
export const TEMPORALITY_UNSPECIFIED = 0;
export const TEMPORALITY_DELTA = 1;
export const TEMPORALITY_CUMULATIVE = 2;

/** FLAG_NO_RECORDED_VALUE marks a point that says "no value now" (a staleness marker). */
export const FLAG_NO_RECORDED_VALUE = 1;

/** PointBase holds what every data point kind has. */
export interface PointBase {
  attributes: OtlpAttribute[];
  /** start of the aggregation window in ms, 0 when unset */
  startTimeMs: number;
  /** point time in ms (floor of the nanoseconds), 0 when unset */
  timeMs: number;
  flags: number;
  /** why a time field could not be read (JSON allows any value there); absent when it could */
  timeError?: string;
}

/** NumberPoint is a gauge or sum point. */
export interface NumberPoint extends PointBase {
  value: number;
}

/** HistogramPoint is an explicit-bucket histogram point. */
export interface HistogramPoint extends PointBase {
  count: number;
  sum: number | undefined;
  bucketCounts: number[];
  explicitBounds: number[];
}

/** ExponentialBuckets is one side (positive or negative) of an exponential histogram. */
export interface ExponentialBuckets {
  offset: number;
  counts: number[];
}

/** ExponentialHistogramPoint is a base-2 exponential histogram point. */
export interface ExponentialHistogramPoint extends PointBase {
  count: number;
  sum: number | undefined;
  scale: number;
  zeroCount: number;
  zeroThreshold: number;
  positive: ExponentialBuckets;
  negative: ExponentialBuckets;
}

/** QuantileValue is one quantile of a summary point. */
export interface QuantileValue {
  quantile: number;
  value: number;
}

/** SummaryPoint is a summary point. */
export interface SummaryPoint extends PointBase {
  count: number;
  sum: number;
  quantiles: QuantileValue[];
}

/** MetricData is the `data` oneof of an OTLP Metric. */
export type MetricData =
  | { kind: 'gauge'; points: NumberPoint[] }
  | { kind: 'sum'; points: NumberPoint[]; temporality: number; monotonic: boolean }
  | { kind: 'histogram'; points: HistogramPoint[]; temporality: number }
  | { kind: 'exponentialHistogram'; points: ExponentialHistogramPoint[]; temporality: number }
  | { kind: 'summary'; points: SummaryPoint[] }
  | { kind: 'none' };

/** OtlpMetric is one decoded Metric. */
export interface OtlpMetric {
  name: string;
  description: string;
  unit: string;
  data: MetricData;
}

/** OtlpScopeMetrics is one decoded ScopeMetrics. */
export interface OtlpScopeMetrics {
  scope: OtlpScope;
  metrics: OtlpMetric[];
}

/** OtlpResourceMetrics is one decoded ResourceMetrics. */
export interface OtlpResourceMetrics {
  attributes: OtlpAttribute[];
  scopes: OtlpScopeMetrics[];
}

/** emptyBuckets returns an absent bucket side. */
export function emptyBuckets(): ExponentialBuckets {
  return { offset: 0, counts: [] };
}

/** pointCount is the number of data points of a metric, the unit OTLP rejections count in. */
export function pointCount(data: MetricData): number {
  return data.kind === 'none' ? 0 : data.points.length;
}
