/**
 * The output contract of the ingestion decoders. Every wire format (OTLP logs and metrics,
 * Prometheus remote write, Loki push) is turned into these few plain shapes so that the write
 * path after decoding (WAL append, head) has one log shape and one metric shape to handle.
 */

/**
 * The decoders' output shapes are the storage's input shapes, defined once there (the lower
 * layer) and named here as part of this contract.
 */
export type { LogEntry } from '../storage/logHead.js';
export type { MetricSeries } from '../storage/metricHead.js';

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
 * DiscardReason says why a record was dropped, in the words Loki and Mimir use for their
 * `discarded_samples` reasons, so an operator's alerts read the same. Every rejection carries
 * one, and the service counts rejections per reason.
 */
export type DiscardReason =
  /** not a representable instant: negative, NaN, beyond the Date range, or not an integer */
  | 'invalid_timestamp'
  /** more than `maxFutureSkewMs` ahead of the receiver's clock */
  | 'too_far_in_future'
  /** older than `maxSampleAgeMs` (the org's retention): retention would delete it at once */
  | 'too_old'
  | 'max_label_names_per_series'
  | 'max_label_names_per_stream'
  | 'label_name_too_long'
  | 'label_value_too_long'
  | 'line_too_long'
  | 'max_line_attributes'
  | 'line_attributes_too_large'
  /** empty, duplicate or non-UTF-8 names, a missing metric name, an unparsable stream selector */
  | 'invalid_labels'
  /** a point the conversion cannot use: unsupported temporality, malformed histogram, delta gap */
  | 'invalid_point'
  /** a new series beyond the org's active series limit */
  | 'series_limit'
  /** a new stream beyond the org's active stream limit */
  | 'stream_limit'
  /** part of a request refused whole because the org's ingestion rate limit had no room for it */
  | 'rate_limited';

/** DiscardCounts counts rejected records per reason; reasons with none are absent. */
export type DiscardCounts = Partial<Record<DiscardReason, number>>;

/**
 * DecodeResult is the decoded request: the records that passed validation, the number of
 * rejected ones and why, so the service can both append the good part and answer with an OTLP
 * partial-success (or a Loki/Prometheus 4xx message) for the rest. `rejected` counts log
 * entries for log formats, and data points for metric formats (OTLP data points for OTLP,
 * samples for remote write), which are the units the OTLP partial-success response uses.
 * `discarded` splits `rejected` by reason.
 */
export interface DecodeResult<T> {
  records: T[];
  metadata?: MetricMetadata[];
  rejected: number;
  discarded: DiscardCounts;
  errors: string[];
}

/**
 * IngestLimits are everything that bounds what an org may write: per-record limits, which the
 * decoders apply (one bad record is dropped, the rest kept), and per-org counts of active
 * series and streams, which the storage applies. They travel as one object from the service to
 * the ingest path, so an org can be given its own values without touching the decoders.
 */
export interface IngestLimits {
  /** labels of a metric series, `__name__` included (Mimir's max_label_names_per_series) */
  maxLabelsPerSeries: number;
  /** labels of a log stream: a Loki push stream's labels, or the indexed tags of an OTLP record */
  maxLabelsPerStream: number;
  /** characters of a label name, also of a log line's attribute names */
  maxLabelNameLength: number;
  /** characters of a metric label value or log stream label value */
  maxLabelValueLength: number;
  /** UTF-8 bytes of a log line */
  maxLogLineBytes: number;
  /** attributes of a log line besides its stream labels (Loki: structured metadata entries) */
  maxLineAttributes: number;
  /** UTF-8 bytes of the names and values of those attributes together */
  maxLineAttributesBytes: number;
  /** how far after the receiver's clock a timestamp may lie */
  maxFutureSkewMs: number;
  /** how far before the receiver's clock a timestamp may lie; 0: no bound */
  maxSampleAgeMs: number;
  /** active (in-memory head) metric series of the org; 0: no limit. Applied by the storage. */
  maxActiveSeries: number;
  /** active (in-memory head) log streams of the org; 0: no limit. Applied by the storage. */
  maxActiveStreams: number;
  /**
   * samples per second an org may write, over remote write and OTLP together, counted after
   * conversion as Mimir counts them (each classic histogram bucket, sum and count is a sample);
   * 0: no limit (Mimir's ingestion_rate). Applied by the service per request.
   */
  ingestSamplesPerSecond: number;
  /** samples an org may write at once after a pause: the bucket size (Mimir's ingestion_burst_size) */
  ingestSamplesBurst: number;
  /** UTF-8 bytes of log lines per second an org may write; 0: no limit (Loki's ingestion_rate_mb) */
  ingestLogBytesPerSecond: number;
  /** log bytes an org may write at once after a pause (Loki's ingestion_burst_size_mb) */
  ingestLogBurstBytes: number;
  /**
   * 1: a Loki-pushed line that names no level gets `detected_level` and the level it names
   * (Loki's discover_log_levels, on by default); 0: it is stored without either. A number, as
   * every org setting is stored as one.
   */
  discoverLogLevels: number;
}

/**
 * DEFAULT_INGEST_LIMITS are the limits applied when a caller does not override them: Mimir's
 * for metric labels, Loki's for streams and lines.
 */
export const DEFAULT_INGEST_LIMITS: Readonly<IngestLimits> = Object.freeze({
  maxLabelsPerSeries: 30,
  maxLabelsPerStream: 15,
  maxLabelNameLength: 1024,
  maxLabelValueLength: 2048,
  maxLogLineBytes: 256 * 1024,
  maxLineAttributes: 128,
  maxLineAttributesBytes: 64 * 1024,
  maxFutureSkewMs: 10 * 60 * 1000,
  maxSampleAgeMs: 0,
  maxActiveSeries: 0,
  maxActiveStreams: 0,
  ingestSamplesPerSecond: 0,
  ingestSamplesBurst: 200_000,
  ingestLogBytesPerSecond: 0,
  ingestLogBurstBytes: 6 * 1024 * 1024,
  discoverLogLevels: 1,
});

/** DEFAULT_MAX_DECOMPRESSED_BYTES bounds a decompressed request body unless told otherwise. */
export const DEFAULT_MAX_DECOMPRESSED_BYTES = 64 * 1024 * 1024;

/** DecodeOptions are what every decoder needs besides the body. */
export interface DecodeOptions {
  /** the receiver's clock in ms since the epoch; future-skew checks and missing timestamps use it */
  nowMs: number;
  /** overrides of DEFAULT_INGEST_LIMITS */
  limits?: Partial<IngestLimits>;
  /**
   * the log tags that form a stream (the storage's indexed tags): for OTLP logs they are the
   * ones checked as stream labels, the others as line attributes. Default: DEFAULT_INDEXED_TAGS.
   */
  streamTags?: ReadonlySet<string>;
  /** bound on the decompressed size of snappy bodies (remote write, Loki protobuf) */
  maxDecompressedBytes?: number;
}
