/**
 * The output contract of the ingestion decoders. Every wire format (OTLP logs and metrics,
 * Prometheus remote write, Loki push) is turned into these few plain shapes so that the write
 * path after decoding (WAL append, head) has one log shape and one metric shape to handle.
 */

/** LogEntry is one normalized log record, whatever protocol carried it. */
export interface LogEntry {
  /** nanoseconds since the epoch */
  timestampNs: bigint;
  message: string;
  /** lowercase severity: trace, debug, info, warn, error, fatal, or 'unknown' */
  level: string;
  /** every other attribute, flattened, keys with '.' replaced by '_' */
  tags: Record<string, string>;
}

/** MetricSeries is one series of one request: its labels and its samples in time order. */
export interface MetricSeries {
  /** full label set including __name__ */
  labels: Record<string, string>;
  timestampsMs: Float64Array;
  values: Float64Array;
  /** Prometheus staleness markers are a special NaN; flagged here so no NaN-bit games are needed */
  stale?: Uint8Array;
}

/** MetricType is the Prometheus/OpenMetrics metric family type kept as metadata. */
export type MetricType =
  | 'counter'
  | 'gauge'
  | 'histogram'
  | 'summary'
  | 'gaugehistogram'
  | 'info'
  | 'stateset'
  | 'unknown';

/** MetricMetadata is what a metric family declares about itself, keyed by family name. */
export interface MetricMetadata {
  name: string;
  type: MetricType;
  unit: string;
  help: string;
}

/**
 * DecodeResult is the decoded request: the records that passed validation, the number of
 * rejected ones and why, so the service can both append the good part and answer with an OTLP
 * partial-success (or a Loki/Prometheus 4xx message) for the rest. `rejected` counts log
 * entries for log formats, and data points for metric formats (OTLP data points for OTLP,
 * samples for remote write), which are the units the OTLP partial-success response uses.
 */
export interface DecodeResult<T> {
  records: T[];
  metadata?: MetricMetadata[];
  rejected: number;
  errors: string[];
}

/**
 * IngestLimits bounds what a single record may carry. They protect the index and the head
 * from unbounded cardinality and memory, the same way Prometheus and Loki limit series.
 * For logs, `maxLabelsPerSeries` bounds the number of tags of an entry.
 */
export interface IngestLimits {
  maxLabelsPerSeries: number;
  maxLabelNameLength: number;
  maxLabelValueLength: number;
  maxLogLineBytes: number;
  /** how far after the receiver's clock a timestamp may lie */
  maxFutureSkewMs: number;
}

/** DEFAULT_INGEST_LIMITS are the limits applied when a caller does not override them. */
export const DEFAULT_INGEST_LIMITS: Readonly<IngestLimits> = Object.freeze({
  maxLabelsPerSeries: 64,
  maxLabelNameLength: 1024,
  maxLabelValueLength: 16384,
  maxLogLineBytes: 256 * 1024,
  maxFutureSkewMs: 10 * 60 * 1000,
});

/** DEFAULT_MAX_DECOMPRESSED_BYTES bounds a decompressed request body unless told otherwise. */
export const DEFAULT_MAX_DECOMPRESSED_BYTES = 64 * 1024 * 1024;

/** DecodeOptions are what every decoder needs besides the body. */
export interface DecodeOptions {
  /** the receiver's clock in ms since the epoch; future-skew checks and missing timestamps use it */
  nowMs: number;
  /** overrides of DEFAULT_INGEST_LIMITS */
  limits?: Partial<IngestLimits>;
  /** bound on the decompressed size of snappy bodies (remote write, Loki protobuf) */
  maxDecompressedBytes?: number;
}
