/**
 * The LogQL evaluator: metric queries (instant and range) and raw log queries over a
 * LogReader, plus the compiled pipeline for callers that run stages themselves.
 */
export { evaluateLogQLAnswered, evaluateLogQLInstant, evaluateLogQLRange } from './metricQuery.js';
export { LogQuery, evaluateLogQuery, iterateLogQuery, rowBytes, MESSAGE_TAG } from './logQuery.js';
export { CompiledPipeline, StreamPipeline, reorderStages, withoutUnusedLineFormat } from './pipeline/pipeline.js';
export type { PipelineOptions } from './pipeline/pipeline.js';
export { compileStage } from './pipeline/compileStage.js';
export { UNREAD_TIMESTAMP } from './pipeline/stage.js';
export type { Stage } from './pipeline/stage.js';
export { LabelsBuilder, LabelCache, ERROR_LABEL, ERROR_DETAILS_LABEL, PRESERVE_ERROR_LABEL, DUPLICATE_SUFFIX } from './labelsBuilder.js';
export type { GroupingSpec, ResultLabels } from './labelsBuilder.js';
export { JSON_PARSER_ERROR } from './pipeline/jsonParser.js';
export { LOGFMT_PARSER_ERROR } from './pipeline/logfmtParser.js';
export { LABEL_FILTER_ERROR } from './pipeline/labelFilter.js';
export { TEMPLATE_FORMAT_ERROR } from './pipeline/formatStages.js';
export { SAMPLE_EXTRACTION_ERROR } from './metric/extract.js';
export { formatLabelSet, compareLabelSets } from './labelSet.js';
export { DEFAULT_MAX_SAMPLES, DEFAULT_MAX_SERIES } from './types.js';
export type { EvalOptions, InstantResult, LogDirection, LogQueryOptions, LogRow, RangeResult } from './types.js';
