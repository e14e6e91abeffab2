/**
 * Running a `.logqltest` script: load blocks accumulate streams (clear resets them), and each
 * eval parses, checks and evaluates its query against a LogHead holding the streams, then
 * compares the outcome with the expectation. Every eval ends passed, failed, or unsupported
 * (the engine declined the query as outside what it implements).
 */
import { EngineError } from '../../errors.js';
import { checkLogQL, parseLogQL } from '../../logql/index.js';
import { evaluateLogQLInstant, evaluateLogQLRange } from '../../logql/eval/metricQuery.js';
import type { InstantResult, RangeResult } from '../../logql/eval/types.js';
import { compileRegex } from '../../regex/index.js';
import type { LogHead } from '../../storage/logHead.js';
import { compareResult } from './compare.js';
import { EPOCH_MS, parseScript, type EvalCommand, type LoadEntry } from './script.js';
import { buildHead } from './store.js';

/** Outcome is how one eval ended. */
export type Outcome = 'passed' | 'failed' | 'unsupported';

/** EvalOutcome records one eval. */
export interface EvalOutcome {
  file: string;
  line: number;
  query: string;
  outcome: Outcome;
  /** detail says why an eval did not pass. */
  detail: string;
}

function evaluateCommand(cmd: EvalCommand, head: LogHead): InstantResult | RangeResult {
  const expr = parseLogQL(cmd.query);
  checkLogQL(expr, cmd.query, { rangeQuery: !cmd.instant });
  const startMs = EPOCH_MS + Number(cmd.startNs) / 1e6;
  if (cmd.instant) return evaluateLogQLInstant(expr, head, startMs);
  return evaluateLogQLRange(expr, head, startMs, EPOCH_MS + Number(cmd.endNs) / 1e6, Number(cmd.stepNs) / 1e6);
}

function checkFailure(cmd: EvalCommand, err: unknown): string | undefined {
  const fail = cmd.expect.fail!;
  const message = err instanceof Error ? err.message : String(err);
  if (fail.kind === 'msg' && !message.includes(fail.text)) return `error ${JSON.stringify(message)} does not contain ${JSON.stringify(fail.text)}`;
  if (fail.kind === 'regex' && !compileRegex(fail.text).test(message)) return `error ${JSON.stringify(message)} does not match /${fail.text}/`;
  return undefined;
}

/** runEval evaluates one eval against `head`. */
export function runEval(file: string, cmd: EvalCommand, head: LogHead): EvalOutcome {
  const base = { file, line: cmd.line, query: cmd.query };
  let result: InstantResult | RangeResult;
  try {
    result = evaluateCommand(cmd, head);
  } catch (err) {
    if (err instanceof EngineError && err.code === 'REWRITE_UNSUPPORTED') return { ...base, outcome: 'unsupported', detail: err.message };
    if (cmd.expect.fail !== undefined) {
      const why = checkFailure(cmd, err);
      return why === undefined ? { ...base, outcome: 'passed', detail: '' } : { ...base, outcome: 'failed', detail: why };
    }
    if (!(err instanceof EngineError)) throw err;
    return { ...base, outcome: 'failed', detail: `unexpected error: ${err.message}` };
  }
  if (cmd.expect.fail !== undefined) return { ...base, outcome: 'failed', detail: 'expected the query to fail, it succeeded' };
  const why = compareResult(cmd, result);
  return why === undefined ? { ...base, outcome: 'passed', detail: '' } : { ...base, outcome: 'failed', detail: why };
}

/** runScript runs a whole script; `file` names it in the outcomes. */
export function runScript(file: string, text: string): EvalOutcome[] {
  const outcomes: EvalOutcome[] = [];
  let entries: LoadEntry[] = [];
  let head: LogHead | undefined;
  for (const cmd of parseScript(text)) {
    if (cmd.kind === 'clear') {
      entries = [];
      head = undefined;
    } else if (cmd.kind === 'load') {
      entries = [...entries, ...cmd.entries];
      head = undefined;
    } else {
      head ??= buildHead(entries);
      outcomes.push(runEval(file, cmd, head));
    }
  }
  return outcomes;
}
