/**
 * The LogQL evaluator: metric queries (instant and range) and raw log queries over a
 * LogReader, plus the compiled pipeline for callers that run stages themselves.
 */
export { evaluateLogQLInstant, evaluateLogQLRange } from './metric-query.js';
export { LogQuery, evaluateLogQuery, iterateLogQuery, rowBytes, MESSAGE_TAG } from './log-query.js';
export { CompiledPipeline, StreamPipeline, reorderStages, withoutUnusedLineFormat } from './pipeline/pipeline.js';
export type { PipelineOptions } from './pipeline/pipeline.js';
export { compileStage } from './pipeline/compileStage.js';
export { UNREAD_TIMESTAMP } from './pipeline/stage.js';
export type { Stage } from './pipeline/stage.js';
export { LabelsBuilder, LabelCache, ERROR_LABEL, ERROR_DETAILS_LABEL, PRESERVE_ERROR_LABEL, DUPLICATE_SUFFIX } from './labels-builder.js';
export type { GroupingSpec, ResultLabels } from './labels-builder.js';
export { JSON_PARSER_ERROR } from './pipeline/json-parser.js';
export { LOGFMT_PARSER_ERROR } from './pipeline/logfmt-parser.js';
export { LABEL_FILTER_ERROR } from './pipeline/label-filter.js';
export { TEMPLATE_FORMAT_ERROR } from './pipeline/format-stages.js';
export { SAMPLE_EXTRACTION_ERROR } from './metric/extract.js';
export { formatLabelSet, compareLabelSets } from './label-set.js';
export { DEFAULT_MAX_SAMPLES, DEFAULT_MAX_SERIES } from './types.js';
export type { EvalOptions, InstantResult, LogDirection, LogQueryOptions, LogRow, RangeResult } from './types.js';
