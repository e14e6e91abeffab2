/**
 * Series descriptions of the PromQL test scripts: `metric{a="b"} 0+10x5 _ stale 3x2`. The
 * metric part is a name and/or a braced label set; the values expand Prometheus' notation:
 * `_` (no sample), `_xN` (N empty slots), `stale` (a staleness marker), `AxN` (N+1 copies of A),
 * `A+BxN` / `A-BxN` (N+1 values from A stepping by B). Native histogram values (`{{...}}`) are
 * read by histogramNotation.ts.
 */
import { unquoteGoString } from '../../common/quote.js';
import { parseNumberText } from '../../promql/numbers.js';
import { sortLabels, type Labels } from '../../storage/labels.js';
import type { FloatHistogram } from '../../histogram/floatHistogram.js';
import { expandHistogramItem, HistogramNotationError } from './histogramNotation.js';

/** SequenceValue is one slot of a series: a number, a staleness marker, nothing, or a native histogram. */
export type SequenceValue =
  | { kind: 'float'; value: number }
  | { kind: 'stale' }
  | { kind: 'omitted' }
  /** hintSet: the counter reset hint was written out, so a comparison must check it. */
  | { kind: 'histogram'; histogram: FloatHistogram; hintSet: boolean };

/** SeriesDescription is a parsed description line. */
export interface SeriesDescription {
  labels: Labels;
  values: SequenceValue[];
}

/** SeriesDescriptionError is a malformed description, with the reason. */
export class SeriesDescriptionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SeriesDescriptionError';
  }
}

// Hexadecimal is not accepted in series values: `0x59` means "0, 59 more times".
const NUMBER = String.raw`[+-]?(?:(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?|[iI][nN][fF]|[nN][aA][nN])`;
const SINGLE = new RegExp(`^(${NUMBER})$`);
const REPEAT = new RegExp(`^(${NUMBER})x(\\d+)$`);
const STEPPED = new RegExp(`^(${NUMBER})([+-])(${NUMBER})x(\\d+)$`);

/** parseSeriesNumber reads a number as the PromQL lexer would (integers in Go's base syntax, Inf, NaN). */
export function parseSeriesNumber(text: string): number | null {
  let sign = 1;
  let body = text;
  if (body.startsWith('+') || body.startsWith('-')) {
    if (body.startsWith('-')) sign = -1;
    body = body.slice(1);
  }
  const parsed = parseNumberText(body);
  return parsed.ok ? sign * parsed.value : null;
}

/** expandItem turns one whitespace-separated value item into its slots. */
function expandItem(item: string): SequenceValue[] {
  if (item === '_') return [{ kind: 'omitted' }];
  const blanks = /^_x(\d+)$/.exec(item);
  if (blanks !== null) return Array.from({ length: Number(blanks[1]) }, () => ({ kind: 'omitted' }) as const);
  if (item === 'stale') return [{ kind: 'stale' }];
  const single = SINGLE.exec(item);
  if (single !== null) {
    const value = parseSeriesNumber(single[1]);
    if (value === null) throw new SeriesDescriptionError(`invalid number ${JSON.stringify(item)}`);
    return [{ kind: 'float', value }];
  }
  const repeat = REPEAT.exec(item);
  if (repeat !== null) {
    const value = parseSeriesNumber(repeat[1]);
    if (value === null) throw new SeriesDescriptionError(`invalid number ${JSON.stringify(item)}`);
    return Array.from({ length: Number(repeat[2]) + 1 }, () => ({ kind: 'float', value }) as const);
  }
  const stepped = STEPPED.exec(item);
  if (stepped !== null) {
    let value = parseSeriesNumber(stepped[1]);
    const delta = parseSeriesNumber(stepped[3]);
    if (value === null || delta === null) throw new SeriesDescriptionError(`invalid number ${JSON.stringify(item)}`);
    const step = stepped[2] === '-' ? -delta : delta;
    const out: SequenceValue[] = [];
    // Accumulate as Prometheus does (value += step), not A + i*B: the rounding must match.
    for (let i = 0; i <= Number(stepped[4]); i++) {
      out.push({ kind: 'float', value });
      value += step;
    }
    return out;
  }
  throw new SeriesDescriptionError(`invalid series value ${JSON.stringify(item)}`);
}

/** splitValueItems splits the value part on whitespace, keeping `{{ ... }}` histograms (and their suffixes) whole. */
function splitValueItems(text: string): string[] {
  const items: string[] = [];
  let i = 0;
  while (i < text.length) {
    while (i < text.length && /\s/.test(text[i])) i++;
    if (i >= text.length) break;
    let j = i;
    while (j < text.length && !/\s/.test(text[j])) {
      if (text.startsWith('{{', j)) {
        const close = text.indexOf('}}', j + 2);
        if (close < 0) throw new SeriesDescriptionError('unterminated histogram value');
        j = close + 2;
      } else {
        j++;
      }
    }
    items.push(text.slice(i, j));
    i = j;
  }
  return items;
}

/** histogramSlots expands a histogram item into slots, reporting notation errors as description errors. */
function histogramSlots(item: string): SequenceValue[] {
  try {
    return expandHistogramItem(item).map((h) => ({ kind: 'histogram', histogram: h.histogram, hintSet: h.hintSet }) as const);
  } catch (err) {
    if (err instanceof HistogramNotationError) throw new SeriesDescriptionError(err.message);
    throw err;
  }
}

/** readQuoted reads a Go string literal starting at `i`; returns its value and the index after it. */
function readQuoted(text: string, i: number): { value: string; end: number } {
  const quote = text[i];
  let j = i + 1;
  while (j < text.length && text[j] !== quote) {
    if (text[j] === '\\' && quote !== '`') j++;
    j++;
  }
  if (j >= text.length) throw new SeriesDescriptionError('unterminated string');
  const decoded = unquoteGoString(text.slice(i, j + 1));
  if (!decoded.ok) throw new SeriesDescriptionError(decoded.message);
  return { value: decoded.value, end: j + 1 };
}

/** parseLabelSet reads `{...}` starting at `i` (at the brace) into `labels`; returns the index after `}`. */
function parseLabelSet(text: string, i: number, labels: Record<string, string>): number {
  let j = i + 1;
  const skipSpace = (): void => {
    while (j < text.length && /\s/.test(text[j])) j++;
  };
  for (;;) {
    skipSpace();
    if (text[j] === '}') return j + 1;
    let name: string;
    if (text[j] === '"' || text[j] === "'" || text[j] === '`') {
      const q = readQuoted(text, j);
      name = q.value;
      j = q.end;
    } else {
      const m = /^[a-zA-Z_][a-zA-Z0-9_]*/.exec(text.slice(j));
      if (m === null) throw new SeriesDescriptionError(`unexpected character in label set at ${j}`);
      name = m[0];
      j += name.length;
    }
    skipSpace();
    if (text[j] === '=') {
      j++;
      skipSpace();
      const q = readQuoted(text, j);
      labels[name] = q.value;
      j = q.end;
    } else {
      labels.__name__ = name;
    }
    skipSpace();
    if (text[j] === ',') {
      j++;
      continue;
    }
    if (text[j] === '}') return j + 1;
    throw new SeriesDescriptionError(`unexpected character in label set at ${j}`);
  }
}

/**
 * parseMetric reads the metric part at the start of `text` (a name, a label set, or both);
 * returns the labels and the index where the values start.
 */
export function parseMetric(text: string): { labels: Labels; end: number } {
  const labels: Record<string, string> = {};
  let i = 0;
  const name = /^[a-zA-Z_:][a-zA-Z0-9_:]*/.exec(text);
  if (name !== null) {
    labels.__name__ = name[0];
    i = name[0].length;
  }
  if (text[i] === '{') i = parseLabelSet(text, i, labels);
  else if (name === null) throw new SeriesDescriptionError('expected a metric name or label set');
  return { labels: sortLabels(labels), end: i };
}

/** parseSeriesDescription parses a whole description line. */
export function parseSeriesDescription(line: string): SeriesDescription {
  const text = line.trim();
  const { labels, end } = parseMetric(text);
  const values: SequenceValue[] = [];
  for (const item of splitValueItems(text.slice(end))) {
    if (item.includes('{{')) values.push(...histogramSlots(item));
    else values.push(...expandItem(item));
  }
  return { labels, values };
}
