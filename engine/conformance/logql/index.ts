/**
 * The LogQL conformance runner: reads Loki's `.logqltest` scripts, evaluates them against the
 * engine and reports per-file pass counts.
 */
export { parseScript, parseLabelSet, parseValues, stripComment, EPOCH_MS, ScriptError } from './script.js';
export type { Command, EvalCommand, Expectation, ExpectedSeries, LoadEntry } from './script.js';
export { buildHead } from './store.js';
export { compareResult, floatsEqual, EPSILON } from './compare.js';
export { runEval, runScript } from './runner.js';
export type { EvalOutcome, Outcome } from './runner.js';
export { summarize, formatSummary, formatFailures } from './report.js';
export type { Counts, Summary } from './report.js';
export { listScripts, runScriptFiles } from './files.js';
