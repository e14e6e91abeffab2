/**
 * Ingestion decoders: the pure functions the service calls with a request body (and its
 * Content-Type) to get normalized, validated records back, plus the encoders a telemetry
 * generator uses to send the same wire formats. No HTTP and no storage here: the caller
 * strips Content-Encoding with decodeContentEncoding, calls a decoder, appends the records to
 * the WAL and answers with the rejection count and messages.
 *
 * Snappy is part of the remote write and Loki protobuf formats, so decodeRemoteWrite and
 * decodeLokiPush decompress it themselves: for those routes a `Content-Encoding: snappy`
 * header (Prometheus sends one) describes the format and must not be undone beforehand.
 * OTLP bodies are usually gzip and go through decodeContentEncoding first.
 */
export { decodeOtlpLogs } from './otlpLogs.js';
export { decodeOtlpMetrics, convertOtlpMetrics } from './otlpMetrics.js';
export type { OtlpMetricsDecodeOptions } from './otlpMetrics.js';
export { decodeRemoteWrite, decodeWriteRequest } from './remoteWrite.js';
export { SeriesLabelCache, SERIES_LABEL_CACHE_ENTRIES } from './seriesLabelCache.js';
export type { CachedSeriesLabels } from './seriesLabelCache.js';
export type { RemoteWriteOptions, RemoteWriteResult } from './remoteWrite.js';
export { decodeRemoteWrite2, decodeRequest2 } from './remoteWrite2.js';
export { decodeRemoteWriteVersion, negotiateRemoteWrite, REMOTE_WRITE_V1_PROTO, REMOTE_WRITE_V2_PROTO } from './remoteWriteProtocol.js';
export type { RemoteWriteNegotiation, RemoteWriteVersion } from './remoteWriteProtocol.js';
export { decodeNativeHistogram } from './nativeHistogram.js';
export type { BucketSpan, NativeHistogramSample } from './nativeHistogram.js';
export { decodeLokiPush, decodeLokiPushJson, decodePushRequest } from './lokiPush.js';
export { decodeContentEncoding, gunzipIfNeeded, isGzip } from './contentEncoding.js';
export { DeltaAccumulator, MAX_EXPONENTIAL_BUCKETS } from './deltaAccumulator.js';
export type { DeltaAccumulatorOptions, DeltaOutcome } from './deltaAccumulator.js';
export { IngestError } from './errors.js';
export type { IngestErrorCode } from './errors.js';
export { resolveLimits, describeLabels, MAX_ERROR_MESSAGES, MAX_DATE_MS } from './limits.js';
export { snappyCompress, snappyDecompress, snappyDecodedLength } from './snappy.js';
export { parseStreamSelector } from './lokiSelector.js';
export type { SelectorParseResult } from './lokiSelector.js';
export { prometheusMetricName, prometheusUnit, prometheusLabelName } from './promNaming.js';
export { exponentialToClassic } from './expHistogram.js';
export type { ClassicBucket } from './expHistogram.js';
export { levelFromSeverityNumber, levelFromText, UNKNOWN_LEVEL } from './severity.js';
export { DEFAULT_INGEST_LIMITS, DEFAULT_MAX_DECOMPRESSED_BYTES } from './types.js';
export type {
  DecodeOptions,
  DecodeResult,
  DiscardCounts,
  DiscardReason,
  IngestLimits,
  LogEntry,
  MetricMetadata,
  MetricSeries,
  MetricType,
} from './types.js';

export { ProtoWriter } from './encode/protoWriter.js';
export { encodeExportLogsServiceRequest } from './encode/otlpLogs.js';
export { encodeExportMetricsServiceRequest } from './encode/otlpMetrics.js';
export { encodeExportResponse, exportResponseJson } from './encode/otlpResponse.js';
export type { OtlpSignal } from './encode/otlpResponse.js';
export { encodeRemoteWriteBody, encodeWriteRequest } from './encode/remoteWrite.js';
export type { MetricMetadataInput, SampleInput, TimeSeriesInput, WriteRequestInput } from './encode/remoteWrite.js';
export { encodeLokiPushBody, encodePushRequest, formatStreamSelector, lokiPushJson } from './encode/lokiPush.js';
export type { LokiEntryInput, LokiStreamInput, PushRequestInput } from './encode/lokiPush.js';
export { AGGREGATION_TEMPORALITY } from './encode/otlpModel.js';
export type * from './encode/otlpModel.js';
