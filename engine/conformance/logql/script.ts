/**
 * Reading `.logqltest` scripts (Loki's pkg/logql/internal/logqltest format): blocks of
 * `clear`, `load` with indented stream lines, and `eval instant|range` with indented
 * expectations. Times are Go durations from the fixed epoch 2026-01-01T00:00:00Z.
 */
import { parseGoDuration } from '../../common/duration.js';
import { unquoteGoString } from '../../common/quote.js';

/** EPOCH_MS is the time every script offset is added to. */
export const EPOCH_MS = Date.UTC(2026, 0, 1);

/** LoadEntry is one line of a load block: a stream's entries, generated. */
export interface LoadEntry {
  stream: Record<string, string>;
  metadata: Array<[string, string]>;
  /** lines are the generated entries, `{{.i}}` substituted. */
  lines: Array<{ offsetNs: bigint; line: string }>;
}

/** ExpectedSeries is one expected result line; `values` uses undefined for `_`. */
export interface ExpectedSeries {
  labels: Record<string, string>;
  values: Array<number | undefined>;
}

/** Expectation is what an eval must produce. */
export interface Expectation {
  fail?: { kind: 'any' | 'msg' | 'regex'; text: string };
  empty: boolean;
  ordered: boolean;
  scalar?: number;
  series: ExpectedSeries[];
}

/** EvalCommand is one eval. */
export interface EvalCommand {
  kind: 'eval';
  line: number;
  query: string;
  instant: boolean;
  /** timeNs is the instant time, or the range start, as an offset from the epoch. */
  startNs: bigint;
  endNs: bigint;
  stepNs: bigint;
  expect: Expectation;
}

/** Command is one step of a script. */
export type Command = { kind: 'clear'; line: number } | { kind: 'load'; line: number; entries: LoadEntry[] } | EvalCommand;

/** ScriptError is a malformed script. */
export class ScriptError extends Error {}

/** stripComment drops a trailing `# …`, ignoring `#` inside "…" or `…` quotes. */
export function stripComment(line: string): string {
  let quote = '';
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quote !== '') {
      if (c === quote) quote = '';
    } else if (c === '"' || c === '`') {
      quote = c;
    } else if (c === '#') {
      return line.slice(0, i).trimEnd();
    }
  }
  return line;
}

function duration(text: string, line: number): bigint {
  const ns = parseGoDuration(text);
  if (ns === undefined) throw new ScriptError(`line ${line}: invalid duration ${JSON.stringify(text)}`);
  return BigInt(Math.round(ns));
}

/**
 * parseLabelSet reads `{a="b", c="d"}` (double-quoted values with Go escapes). Empty values
 * are kept; the caller decides whether they mean anything.
 */
export function parseLabelSet(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  let i = text.indexOf('{') + 1;
  const end = text.lastIndexOf('}');
  while (i < end) {
    while (i < end && /[\s,]/.test(text[i])) i++;
    if (i >= end) break;
    const nameStart = i;
    while (i < end && /[A-Za-z0-9_.:]/.test(text[i])) i++;
    const name = text.slice(nameStart, i);
    while (i < end && /\s/.test(text[i])) i++;
    if (text[i] !== '=') throw new ScriptError(`invalid label set ${text}`);
    i++;
    while (i < end && /\s/.test(text[i])) i++;
    const quote = text[i];
    if (quote !== '"' && quote !== '`') throw new ScriptError(`invalid label set ${text}`);
    let j = i + 1;
    while (j < end && text[j] !== quote) j += text[j] === '\\' && quote === '"' ? 2 : 1;
    const decoded = unquoteGoString(text.slice(i, j + 1));
    if (!decoded.ok) throw new ScriptError(`invalid label value in ${text}: ${decoded.message}`);
    out[name] = decoded.value;
    i = j + 1;
  }
  return out;
}

function parseLoadLine(content: string, line: number): LoadEntry {
  const close = content.indexOf('}');
  if (!content.startsWith('{') || close < 0) throw new ScriptError(`line ${line}: expected stream labels`);
  const stream: Record<string, string> = {};
  for (const [k, v] of Object.entries(parseLabelSet(content.slice(0, close + 1)))) if (v !== '') stream[k] = v;
  let rest = content.slice(close + 1);
  const quoteAt = rest.search(/["`]/);
  if (quoteAt < 0) throw new ScriptError(`line ${line}: missing quoted log line`);
  const quote = rest[quoteAt];
  const endQuote = rest.indexOf(quote, quoteAt + 1);
  if (endQuote < 0) throw new ScriptError(`line ${line}: unterminated log line`);
  const message = rest.slice(quoteAt + 1, endQuote);
  rest = rest.slice(endQuote + 1);
  const at = /^\s*@\s*(\S+)/.exec(rest);
  if (at === null) throw new ScriptError(`line ${line}: missing '@ <start>'`);
  const start = duration(at[1], line);
  rest = rest.slice(at[0].length);
  let step = 0n;
  let count = 1;
  const repeat = /^\s*\[repeat every\s+(\S+)\s+for\s+(\d+)\]/.exec(rest);
  if (repeat !== null) {
    step = duration(repeat[1], line);
    count = Number(repeat[2]);
    rest = rest.slice(repeat[0].length);
  }
  const metadata: Array<[string, string]> = [];
  const meta = /^\s*\[metadata\s+(.*?)\]/.exec(rest);
  if (meta !== null) {
    const pair = /(?:"([^"]*)"|([^\s"=]+))="([^"]*)"/g;
    for (let m = pair.exec(meta[1]); m !== null; m = pair.exec(meta[1])) metadata.push([m[1] ?? m[2], m[3]]);
    rest = rest.slice(meta[0].length);
  }
  if (rest.trim() !== '') throw new ScriptError(`line ${line}: unexpected content after log line: ${rest.trim()}`);
  const lines: LoadEntry['lines'] = [];
  for (let i = 0; i < count; i++) {
    lines.push({ offsetNs: start + BigInt(i) * step, line: message.split('{{.i}}').join(String(i)) });
  }
  return { stream, metadata, lines };
}

function parseValue(token: string): number {
  switch (token) {
    case 'NaN':
      return NaN;
    case 'Inf':
    case '+Inf':
      return Infinity;
    case '-Inf':
      return -Infinity;
    default: {
      const v = Number(token);
      if (token.trim() === '' || Number.isNaN(v)) throw new ScriptError(`invalid value ${JSON.stringify(token)}`);
      return v;
    }
  }
}

/** parseValues expands `_`, numbers and `a+bxN` / `a-bxN` / `axN` shorthands. */
export function parseValues(tokens: readonly string[]): Array<number | undefined> {
  const out: Array<number | undefined> = [];
  for (const token of tokens) {
    if (token === '_') {
      out.push(undefined);
      continue;
    }
    const x = token.indexOf('x');
    if (x >= 0) {
      const head = token.slice(0, x);
      const count = Number(token.slice(x + 1));
      let base = head;
      let step = '0';
      const plus = head.lastIndexOf('+');
      const minus = head.lastIndexOf('-');
      if (plus > 0) {
        base = head.slice(0, plus);
        step = head.slice(plus + 1);
      } else if (minus > 0) {
        base = head.slice(0, minus);
        step = head.slice(minus);
      }
      const b = parseValue(base);
      const s = parseValue(step);
      for (let i = 0; i <= count; i++) out.push(b + i * s);
      continue;
    }
    out.push(parseValue(token));
  }
  return out;
}

function parseExpectation(lines: Array<{ content: string; line: number }>): Expectation {
  const expect: Expectation = { empty: false, ordered: false, series: [] };
  for (const { content, line } of lines) {
    if (content.startsWith('expect fail')) {
      const body = content.slice('expect fail'.length).trim();
      if (body === '') expect.fail = { kind: 'any', text: '' };
      else if (body.startsWith('msg:')) expect.fail = { kind: 'msg', text: body.slice(4).trim() };
      else if (body.startsWith('regex:')) expect.fail = { kind: 'regex', text: body.slice(6).trim() };
      else throw new ScriptError(`line ${line}: unsupported expect fail qualifier ${body}`);
    } else if (content === 'expect empty') {
      expect.empty = true;
    } else if (content === 'expect ordered') {
      expect.ordered = true;
    } else if (content.startsWith('expect ')) {
      throw new ScriptError(`line ${line}: unsupported ${content}`);
    } else if (content.startsWith('skip ')) {
      // Directives for other execution stacks of the upstream harness.
    } else if (content.startsWith('{')) {
      const close = content.indexOf('}');
      expect.series.push({
        labels: parseLabelSet(content.slice(0, close + 1)),
        values: parseValues(content.slice(close + 1).trim().split(/\s+/).filter((t) => t !== '')),
      });
    } else {
      expect.scalar = parseValue(content);
    }
  }
  return expect;
}

/** consumeBlock collects the indented lines after a command, as the upstream harness does. */
function consumeBlock(lines: readonly string[], i: number): { block: Array<{ content: string; line: number }>; next: number } {
  const block: Array<{ content: string; line: number }> = [];
  while (i < lines.length) {
    const raw = lines[i];
    if (raw.trim() === '') break;
    if (raw.trim().startsWith('#')) {
      i++;
      continue;
    }
    if (raw[0] !== ' ' && raw[0] !== '\t') break;
    const content = stripComment(raw).trim();
    if (content !== '') block.push({ content, line: i + 1 });
    i++;
  }
  return { block, next: i };
}

/** parseScript reads a whole script. */
export function parseScript(text: string): Command[] {
  const lines = text.split('\n');
  const commands: Command[] = [];
  let i = 0;
  while (i < lines.length) {
    const trimmed = stripComment(lines[i]).trim();
    if (trimmed === '') {
      i++;
      continue;
    }
    const lineNo = i + 1;
    const word = trimmed.split(/\s+/)[0];
    if (word === 'clear') {
      commands.push({ kind: 'clear', line: lineNo });
      i++;
    } else if (word === 'load') {
      const { block, next } = consumeBlock(lines, i + 1);
      commands.push({ kind: 'load', line: lineNo, entries: block.map((b) => parseLoadLine(b.content, b.line)) });
      i = next;
    } else if (word === 'eval') {
      const rest = trimmed.slice(4).trim();
      const instant = /^instant\s+at\s+(\S+)\s+(.+)$/.exec(rest);
      const range = /^range\s+from\s+(\S+)\s+to\s+(\S+)\s+step\s+(\S+)\s+(.+)$/.exec(rest);
      const { block, next } = consumeBlock(lines, i + 1);
      const expect = parseExpectation(block);
      if (instant !== null) {
        const t = duration(instant[1], lineNo);
        commands.push({ kind: 'eval', line: lineNo, query: instant[2].trim(), instant: true, startNs: t, endNs: t, stepNs: 0n, expect });
      } else if (range !== null) {
        commands.push({
          kind: 'eval',
          line: lineNo,
          query: range[4].trim(),
          instant: false,
          startNs: duration(range[1], lineNo),
          endNs: duration(range[2], lineNo),
          stepNs: duration(range[3], lineNo),
          expect,
        });
      } else {
        throw new ScriptError(`line ${lineNo}: malformed eval`);
      }
      i = next;
    } else {
      throw new ScriptError(`line ${lineNo}: unexpected command ${JSON.stringify(word)}`);
    }
  }
  return commands;
}
