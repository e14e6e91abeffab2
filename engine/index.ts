/**
 * The engine's public surface: the service imports the engine only through this module, so
 * what is exported here is the whole contract between them.
 */
export {
  EngineError,
  compileError,
  formatPositionedError,
  lineColAt,
  syntaxError,
} from './errors.js';
export type { EngineErrorCode, LineCol, ParseErrorDetail, PositionRange } from './errors.js';
export { MemoryBudget, memoryBudgetExceeded } from './common/memoryBudget.js';

export { parseAndCheckPromQL, parsedPromQL, printPromQL, valueTypeOf as promqlValueType, walkExpr as walkPromQL } from './promql/index.js';
export type { Expr as PromQLExpr } from './promql/index.js';
export type { AggregateExpr } from './promql/ast.js';

export { parseLogQL, checkLogQL, printLogQL, queryKind as logqlQueryKind } from './logql/index.js';
export type { Expr as LogQLExpr } from './logql/index.js';
export { rowBytes } from './logql/eval/logQuery.js';
export { LogfmtDecoder } from './logql/eval/pipeline/logfmtDecoder.js';
export { appendSanitizedKey, sanitizeLabelKey } from './logql/eval/pipeline/sanitize.js';
export { levelFromLine } from './ingest/detectedLevel.js';

export { Storage, type StorageEvent, type StorageOptions } from './storage/storage.js';
export type { ActiveLimits, AppliedRefusal, MergedSegment, SegmentEncoders } from './storage/storageOptions.js';
export type { EncodedMetricSegment } from './storage/metricSegment.js';
export type { EncodedLogSegment } from './storage/logSegment.js';
export type { LogCutInput } from './storage/logHead.js';
export type { MetricHeadSnapshot } from './storage/metricHeadSnapshots.js';
export { DEFAULT_INDEXED_TAGS, type LogEntry, type LogReader, type LogStreamData } from './storage/logHead.js';
export type { LastSampleLookup, MetricQuerier, MetricSeries } from './storage/metricHead.js';
export type { ByteRange, ByteText, SeriesColumns, ValueText } from './storage/seriesColumns.js';
export { valueTextAt } from './storage/seriesColumns.js';
export { renderHistogram, type RenderedHistogram } from './histogram/render.js';
export type { FloatHistogram } from './histogram/floatHistogram.js';
export { HistogramError } from './histogram/floatHistogram.js';
export { CompensatedSum } from './histogram/compensatedSum.js';
export { histogramQuantile } from './histogram/statistics.js';
export type { LabelMatcher } from './storage/matchers.js';
export { ExemplarStore, DEFAULT_MAX_EXEMPLARS_PER_ORG, type Exemplar, type ExemplarSnapshot, type SeriesExemplars } from './storage/exemplarStore.js';
export type { Labels } from './storage/labels.js';

export {
  DeltaAccumulator,
  IngestError,
  decodeContentEncoding,
  decodeLokiPush,
  decodeOtlpLogs,
  decodeOtlpMetrics,
  decodeRemoteWrite,
  decodeRemoteWriteVersion,
  negotiateRemoteWrite,
  encodeExportResponse,
  exportResponseJson,
  DEFAULT_INGEST_LIMITS,
  describeLabels,
  SeriesLabelCache,
} from './ingest/index.js';
export type { DecodeResult, DiscardCounts, DiscardReason, IngestLimits, RemoteWriteResult, RemoteWriteVersion } from './ingest/index.js';

export { runTask, configureWorkerCaches, mixedAggregationWarning, type QueryTask, type TaskResult, type QueryTaskOutput, type TaskFailure } from './query/tasks.js';
export { packSeries, packedSeriesBytes, unpackSeries, transferablesOf, VALUE_TEXT_MIN_POINTS, type PackedSeries } from './query/packing.js';
export { gatherSeries } from './query/gather.js';
export { selectionsFor, refersToQueryWindow, costsAboutItsSamples, resultsCacheable, dataReach, planSlices, type Selection } from './query/promqlPlan.js';
export { sortByLabels } from './promql/eval/labelset.js';
export { bucketQuantile, type Buckets } from './promql/eval/classicHistogram.js';
export { formatLabels, inNameOrder, labelsKey } from './storage/labels.js';
export { labelsJson } from './common/labelsJson.js';
export { emptyPointColumns, KeyedSeries, labelSetKey, pointColumnsOf, pointCountOf, seriesKeyOf, sortSeriesByKey, withColumns, type AnswerColumns, type PointColumns } from './storage/keyedSeries.js';
export { taskTransferables, type LogQLRangeTask, type LogQLRawTask, type LogRowsOutput } from './query/tasks.js';
export { isSegmentTask, runSegmentTask, type EncodeLogSegmentTask, type EncodeMetricSegmentTask, type MergeSegmentsTask, type SegmentTask } from './query/segmentTasks.js';
export { packedRowsBytes, unpackRows, withLine, type PackedRows, type RawRow } from './query/rowPacking.js';
export { shareMetrics, shareLogs, gatherMetricShare, metricTaskData, shareSize, gatherLogShare, logTaskData, logTimeParts, logShareSize, reachedSamples, reachedLines, headEvaluationCost, type MetricTaskData, type LogTaskData } from './query/taskData.js';
export type { TimePart } from './storage/partition.js';
export { shardMergeFor, shardPlanFor, shardKeyFor, finishPlanFor, logShardMergeFor, logShardPlanFor, mergeShards, topAggregation, type ShardKey, type ShardMerge, type ShardOutput, type ShardPlan, type SeriesShard, type SelectionMerge } from './query/shards.js';
export { finishLogShards, finishShards } from './query/shardFinish.js';
export { logSelectionsFor, type LogSelection } from './query/logqlPlan.js';
export { parsePromDuration, formatPromDuration } from './common/duration.js';
export { formatGoFloat } from './common/goFloat.js';
export { eachBatch, floatText, type FloatTextBatch, type FloatTextWriter } from './common/floatText.js';
export { encodeExportLogsServiceRequest, encodeRemoteWriteBody, encodeLokiPushBody } from './ingest/index.js';
export type { ExportLogsServiceRequestInput, LogRecordInput } from './ingest/encode/otlpModel.js';
export type { TimeSeriesInput, WriteRequestInput } from './ingest/encode/remoteWrite.js';
export * as promqlConformance from './conformance/promql/index.js';
export * as logqlConformance from './conformance/logql/index.js';
export * from './logpatterns/drain.js';
