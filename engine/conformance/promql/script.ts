/**
 * The PromQL test-script format (Prometheus' promqltest): blocks of `load`, `clear` and `eval`
 * commands with their indented bodies. This module only parses; running is runner.ts's job.
 */
import { parseStartTimestampOffsets } from './startTimestamps.js';
import { unquoteGoString } from '../../common/quote.js';
import { parsePromDuration } from '../../common/duration.js';
import { parseMetric, parseSeriesDescription, parseSeriesNumber, SeriesDescriptionError, type SequenceValue } from './seriesDescription.js';
import type { Labels } from '../../storage/labels.js';

/** LoadCommand loads series sampled every `intervalMs` from time 0. */
export interface LoadCommand {
  kind: 'load';
  line: number;
  intervalMs: number;
  /** withNhcb marks `load_with_nhcb`, which also exposes classic histograms as native ones. */
  withNhcb: boolean;
  series: { labels: Labels; values: SequenceValue[] }[];
  /**
   * startTimestampSeries are the series given start timestamps (`metric@st ...` lines), with
   * each slot's offset from its sample's time (null where omitted).
   */
  startTimestampSeries: { labels: Labels; offsets: (number | null)[] }[];
}

/** ClearCommand drops all loaded data. */
export interface ClearCommand {
  kind: 'clear';
  line: number;
}

/** ExpectedSeries is one expected result series: labels and one value per step (or per point). */
export interface ExpectedSeries {
  labels: Labels;
  values: SequenceValue[];
  /** position is the 1-based order among the expected series, for ordered comparison. */
  position: number;
}

/** MessageMatcher checks an error or annotation text: exact message, or a regular expression. */
export type MessageMatcher = { kind: 'any' } | { kind: 'message'; text: string } | { kind: 'regex'; pattern: string };

/** EvalCommand is one evaluation with everything its body expects. */
export interface EvalCommand {
  kind: 'eval';
  line: number;
  expr: string;
  instant: boolean;
  /** startMs, endMs, stepMs describe a range query, or the expected range vector of an instant one. */
  startMs: number;
  endMs: number;
  stepMs: number;
  /** evalMs is an instant query's evaluation time. */
  evalMs: number;
  /** rangeVector is set when an instant query's expected result is a range vector. */
  rangeVector: boolean;
  fail: MessageMatcher | null;
  warn: boolean;
  info: boolean;
  ordered: boolean;
  expectedWarnings: MessageMatcher[];
  expectedInfos: MessageMatcher[];
  noWarn: boolean;
  noInfo: boolean;
  expectScalar: number | null;
  expectString: string | null;
  expected: ExpectedSeries[];
  /** hasHistogramExpectation is set when an expected value is a native histogram. */
  hasHistogramExpectation: boolean;
  /** parseError describes an expectation line the runner could not read. */
  parseError: string | null;
}

export type Command = LoadCommand | ClearCommand | EvalCommand;

/** ScriptError is a malformed script line. */
export class ScriptError extends Error {
  constructor(
    message: string,
    readonly line: number,
  ) {
    super(`line ${line}: ${message}`);
    this.name = 'ScriptError';
  }
}

const PAT_LOAD = /^load(?:_(with_nhcb))?\s+(.+?)$/;
const PAT_EVAL_INSTANT = /^eval(?:_(fail|warn|ordered|info))?\s+instant\s+(?:at\s+(.+?))?\s+(.+)$/;
const PAT_EVAL_RANGE = /^eval(?:_(fail|warn|info))?\s+range\s+from\s+(.+)\s+to\s+(.+)\s+step\s+(.+?)\s+(.+)$/;
const PAT_EXPECT = /^expect\s+(ordered|fail|warn|no_warn|info|no_info)(?:\s+(regex|msg):(.+))?$/;
const PAT_EXPECT_RANGE = /^expect range vector\s+from\s+(.+)\s+to\s+(.+)\s+step\s+(.+)$/;

/** duration parses a script duration (`0`, `30s`, `1h30m`) into milliseconds. */
function duration(text: string, line: number): number {
  const ms = parsePromDuration(text.trim());
  if (ms === undefined) throw new ScriptError(`invalid duration ${JSON.stringify(text)}`, line);
  return ms;
}

/** scriptLines trims lines and blanks out comments, as the upstream reader does. */
function scriptLines(text: string): string[] {
  return text.split('\n').map((l) => {
    const t = l.trim();
    return t.startsWith('#') ? '' : t;
  });
}

/** isStartTimestampLine recognises `metric{...}@st ...` lines, which carry start timestamps. */
function isStartTimestampLine(line: string): boolean {
  const space = line.search(/[ \t]/);
  return space >= 0 && line.slice(0, space).endsWith('@st');
}

/** parseNumberLine reads a bare scalar expectation, as the upstream parseNumber does. */
function parseNumberLine(line: string): number | null {
  if (/^[+-]?(?:inf|infinity|nan)$/i.test(line)) return parseSeriesNumber(line.replace(/infinity/i, 'Inf'));
  if (!/^[+-]?(?:0[xX][0-9a-fA-F]+|(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?)$/.test(line)) return null;
  return parseSeriesNumber(line);
}

function messageMatcher(kind: string | undefined, text: string | undefined): MessageMatcher {
  if (kind === undefined || text === undefined) return { kind: 'any' };
  return kind === 'msg' ? { kind: 'message', text: text.trim() } : { kind: 'regex', pattern: text.trim() };
}

function parseLoad(lines: string[], i: number): { next: number; command: LoadCommand } {
  const m = PAT_LOAD.exec(lines[i]);
  if (m === null) throw new ScriptError('invalid load command', i + 1);
  const command: LoadCommand = { kind: 'load', line: i + 1, intervalMs: duration(m[2], i + 1), withNhcb: m[1] === 'with_nhcb', series: [], startTimestampSeries: [] };
  let j = i + 1;
  for (; j < lines.length && lines[j] !== ''; j++) {
    try {
      if (isStartTimestampLine(lines[j])) {
        const space = lines[j].search(/[ \t]/);
        command.startTimestampSeries.push({
          labels: parseMetric(lines[j].slice(0, space - '@st'.length)).labels,
          offsets: parseStartTimestampOffsets(lines[j].slice(space)),
        });
        continue;
      }
      command.series.push(parseSeriesDescription(lines[j]));
    } catch (err) {
      if (err instanceof SeriesDescriptionError) throw new ScriptError(err.message, j + 1);
      throw err;
    }
  }
  return { next: j, command };
}

function parseEval(lines: string[], i: number): { next: number; command: EvalCommand } {
  const line = lines[i];
  const instant = PAT_EVAL_INSTANT.exec(line);
  const range = instant === null ? PAT_EVAL_RANGE.exec(line) : null;
  if (instant === null && range === null) throw new ScriptError('invalid eval command', i + 1);
  const mod = instant !== null ? instant[1] : range![1];
  const command: EvalCommand = {
    kind: 'eval',
    line: i + 1,
    expr: instant !== null ? instant[3] : range![5],
    instant: instant !== null,
    startMs: 0,
    endMs: 0,
    stepMs: 0,
    evalMs: 0,
    rangeVector: false,
    fail: mod === 'fail' ? { kind: 'any' } : null,
    warn: mod === 'warn',
    info: mod === 'info',
    ordered: mod === 'ordered',
    expectedWarnings: [],
    expectedInfos: [],
    noWarn: false,
    noInfo: false,
    expectScalar: null,
    expectString: null,
    expected: [],
    hasHistogramExpectation: false,
    parseError: null,
  };
  if (instant !== null) {
    command.evalMs = duration(instant[2] ?? '0', i + 1);
    command.startMs = command.evalMs;
    command.endMs = command.evalMs;
  } else {
    command.startMs = duration(range![2], i + 1);
    command.endMs = duration(range![3], i + 1);
    command.stepMs = duration(range![4], i + 1);
  }
  let j = i + 1;
  let position = 0;
  for (; j < lines.length && lines[j] !== ''; j++) {
    const body = lines[j];
    const expectRange = PAT_EXPECT_RANGE.exec(body);
    if (expectRange !== null) {
      command.rangeVector = true;
      command.startMs = duration(expectRange[1], j + 1);
      command.endMs = duration(expectRange[2], j + 1);
      command.stepMs = duration(expectRange[3], j + 1);
      command.evalMs = command.endMs;
      continue;
    }
    if (body.startsWith('expect string')) {
      const decoded = unquoteGoString(body.slice('expect string'.length).trim());
      if (!decoded.ok) command.parseError = `invalid expected string: ${decoded.message}`;
      else command.expectString = decoded.value;
      continue;
    }
    if (body.split(' ')[0] === 'expect') {
      const m = PAT_EXPECT.exec(body);
      if (m === null) {
        command.parseError = `invalid expect line ${JSON.stringify(body)}`;
        continue;
      }
      const matcher = messageMatcher(m[2], m[3]);
      switch (m[1]) {
        case 'ordered':
          command.ordered = true;
          break;
        case 'fail':
          command.fail = matcher;
          break;
        case 'warn':
          command.expectedWarnings.push(matcher);
          break;
        case 'info':
          command.expectedInfos.push(matcher);
          break;
        case 'no_warn':
          command.noWarn = true;
          break;
        case 'no_info':
          command.noInfo = true;
          break;
      }
      continue;
    }
    const scalar = parseNumberLine(body);
    if (scalar !== null) {
      command.expectScalar = scalar;
      continue;
    }
    position++;
    try {
      const { labels, end } = parseMetric(body);
      const rest = body.slice(end);
      if (rest.includes('{{')) command.hasHistogramExpectation = true;
      const { values } = parseSeriesDescription(body);
      command.expected.push({ labels, values, position });
    } catch (err) {
      if (!(err instanceof SeriesDescriptionError)) throw err;
      command.parseError = `invalid expected series ${JSON.stringify(body)}: ${err.message}`;
    }
  }
  return { next: j, command };
}

/** parseScript reads a whole `.test` file into commands. */
export function parseScript(text: string): Command[] {
  const lines = scriptLines(text);
  const commands: Command[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (line === '') continue;
    const word = line.split(/[\t ]+/, 1)[0].toLowerCase();
    if (word === 'clear') {
      commands.push({ kind: 'clear', line: i + 1 });
    } else if (word.startsWith('load')) {
      const { next, command } = parseLoad(lines, i);
      commands.push(command);
      i = next - 1;
    } else if (word.startsWith('eval')) {
      const { next, command } = parseEval(lines, i);
      commands.push(command);
      i = next - 1;
    } else {
      throw new ScriptError(`invalid command ${JSON.stringify(line)}`, i + 1);
    }
  }
  return commands;
}
