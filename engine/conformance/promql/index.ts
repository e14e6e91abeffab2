/**
 * The PromQL conformance runner: reads Prometheus' test scripts, runs them against the engine
 * and reports each eval as passed, failed or unsupported, per file and per category.
 */
export { runScript, EXPERIMENTAL_FILES, CATEGORIES } from './runner.js';
export type { Category, EvalOutcome, Outcome } from './runner.js';
export { listScripts, runScriptFiles } from './files.js';
export { summarize, formatSummary, formatFailures } from './report.js';
export type { Counts, Summary } from './report.js';
export { parseScript, ScriptError } from './script.js';
export type { Command, EvalCommand, LoadCommand, ClearCommand, ExpectedSeries, MessageMatcher } from './script.js';
export { parseSeriesDescription, SeriesDescriptionError } from './seriesDescription.js';
export type { SeriesDescription, SequenceValue } from './seriesDescription.js';
