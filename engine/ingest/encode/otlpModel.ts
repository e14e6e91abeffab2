/**
 * Input shapes for the OTLP encoders. They follow the OTLP message and field names in
 * lowerCamelCase (as OTLP/JSON and generated protobuf code spell them), with 64-bit times as
 * bigint nanoseconds and ids as bytes, so a generator can build a request the way an SDK would.
 */

/** AnyValueInput is an OTLP AnyValue: set exactly one member. */
export interface AnyValueInput {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: number | bigint;
  doubleValue?: number;
  arrayValue?: { values: AnyValueInput[] };
  kvlistValue?: { values: KeyValueInput[] };
  bytesValue?: Uint8Array;
}

/** KeyValueInput is an OTLP attribute. */
export interface KeyValueInput {
  key: string;
  value?: AnyValueInput;
}

/** ResourceInput is an OTLP Resource. */
export interface ResourceInput {
  attributes?: KeyValueInput[];
  droppedAttributesCount?: number;
}

/** InstrumentationScopeInput is an OTLP InstrumentationScope. */
export interface InstrumentationScopeInput {
  name?: string;
  version?: string;
  attributes?: KeyValueInput[];
  droppedAttributesCount?: number;
}

/** LogRecordInput is an OTLP LogRecord. */
export interface LogRecordInput {
  timeUnixNano?: bigint;
  observedTimeUnixNano?: bigint;
  severityNumber?: number;
  severityText?: string;
  body?: AnyValueInput;
  attributes?: KeyValueInput[];
  droppedAttributesCount?: number;
  flags?: number;
  traceId?: Uint8Array;
  spanId?: Uint8Array;
  eventName?: string;
}

/** ScopeLogsInput is an OTLP ScopeLogs. */
export interface ScopeLogsInput {
  scope?: InstrumentationScopeInput;
  logRecords?: LogRecordInput[];
  schemaUrl?: string;
}

/** ResourceLogsInput is an OTLP ResourceLogs. */
export interface ResourceLogsInput {
  resource?: ResourceInput;
  scopeLogs?: ScopeLogsInput[];
  schemaUrl?: string;
}

/** ExportLogsServiceRequestInput is an OTLP ExportLogsServiceRequest. */
export interface ExportLogsServiceRequestInput {
  resourceLogs: ResourceLogsInput[];
}

/** PointBaseInput holds the fields every metric data point has. */
export interface PointBaseInput {
  attributes?: KeyValueInput[];
  startTimeUnixNano?: bigint;
  timeUnixNano?: bigint;
  flags?: number;
}

/** NumberDataPointInput is a gauge or sum point: set asDouble or asInt. */
export interface NumberDataPointInput extends PointBaseInput {
  asDouble?: number;
  asInt?: number | bigint;
}

/** HistogramDataPointInput is an explicit-bucket histogram point. */
export interface HistogramDataPointInput extends PointBaseInput {
  count?: number | bigint;
  sum?: number;
  bucketCounts?: Array<number | bigint>;
  explicitBounds?: number[];
  min?: number;
  max?: number;
}

/** BucketsInput is one side of an exponential histogram. */
export interface BucketsInput {
  offset?: number;
  bucketCounts?: Array<number | bigint>;
}

/** ExponentialHistogramDataPointInput is an exponential histogram point. */
export interface ExponentialHistogramDataPointInput extends PointBaseInput {
  count?: number | bigint;
  sum?: number;
  scale?: number;
  zeroCount?: number | bigint;
  positive?: BucketsInput;
  negative?: BucketsInput;
  min?: number;
  max?: number;
  zeroThreshold?: number;
}

/** SummaryDataPointInput is a summary point. */
export interface SummaryDataPointInput extends PointBaseInput {
  count?: number | bigint;
  sum?: number;
  quantileValues?: Array<{ quantile: number; value: number }>;
}

/** AGGREGATION_TEMPORALITY names the OTLP enum values. */
export const AGGREGATION_TEMPORALITY = Object.freeze({ UNSPECIFIED: 0, DELTA: 1, CUMULATIVE: 2 });

/** MetricInput is an OTLP Metric: set exactly one of the data members. */
export interface MetricInput {
  name: string;
  description?: string;
  unit?: string;
  gauge?: { dataPoints: NumberDataPointInput[] };
  sum?: { dataPoints: NumberDataPointInput[]; aggregationTemporality?: number; isMonotonic?: boolean };
  histogram?: { dataPoints: HistogramDataPointInput[]; aggregationTemporality?: number };
  exponentialHistogram?: { dataPoints: ExponentialHistogramDataPointInput[]; aggregationTemporality?: number };
  summary?: { dataPoints: SummaryDataPointInput[] };
}

/** ScopeMetricsInput is an OTLP ScopeMetrics. */
export interface ScopeMetricsInput {
  scope?: InstrumentationScopeInput;
  metrics?: MetricInput[];
  schemaUrl?: string;
}

/** ResourceMetricsInput is an OTLP ResourceMetrics. */
export interface ResourceMetricsInput {
  resource?: ResourceInput;
  scopeMetrics?: ScopeMetricsInput[];
  schemaUrl?: string;
}

/** ExportMetricsServiceRequestInput is an OTLP ExportMetricsServiceRequest. */
export interface ExportMetricsServiceRequestInput {
  resourceMetrics: ResourceMetricsInput[];
}
