/**
 * The test scripts' notation for native histograms: `{{schema:0 sum:5 count:4 z_bucket:1
 * z_bucket_w:0.001 buckets:[1 2 1] offset:1 n_buckets:[1] n_offset:0 custom_values:[1 2]
 * counter_reset_hint:gauge}}`. Buckets given here form one span starting at the offset.
 * Series items repeat (`{{..}}x3`) or step (`{{a}}+{{b}}x3`, `{{a}}-{{b}}x3`) as floats do.
 */
import {
  combine,
  compact,
  CounterResetHint,
  emptyHistogram,
  fromSpans,
  toSpans,
  usesCustomBuckets,
  type FloatHistogram,
} from '../../histogram/floatHistogram.js';
import { parseSeriesNumber } from './seriesDescription.js';

/** NotatedHistogram is a parsed histogram and whether its counter reset hint was written out. */
export interface NotatedHistogram {
  histogram: FloatHistogram;
  hintSet: boolean;
}

/** HistogramNotationError is a malformed histogram description. */
export class HistogramNotationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'HistogramNotationError';
  }
}

const HINTS: Record<string, CounterResetHint> = {
  unknown: CounterResetHint.Unknown,
  reset: CounterResetHint.CounterReset,
  not_reset: CounterResetHint.NotCounterReset,
  gauge: CounterResetHint.Gauge,
};

function number(text: string): number {
  const v = parseSeriesNumber(text);
  if (v === null) throw new HistogramNotationError(`invalid number ${JSON.stringify(text)}`);
  return v;
}

function list(text: string): number[] {
  const inner = text.trim();
  if (!inner.startsWith('[') || !inner.endsWith(']')) throw new HistogramNotationError(`invalid bucket list ${JSON.stringify(text)}`);
  return inner
    .slice(1, -1)
    .trim()
    .split(/\s+/)
    .filter((s) => s !== '')
    .map(number);
}

/** parseHistogram reads one `{{...}}` value. */
export function parseHistogram(text: string): NotatedHistogram {
  const t = text.trim();
  if (!t.startsWith('{{') || !t.endsWith('}}')) throw new HistogramNotationError(`invalid histogram ${JSON.stringify(text)}`);
  const body = t.slice(2, -2);
  const fields = new Map<string, string>();
  const re = /([a-z_]+):\s*(\[[^\]]*\]|\S+)/g;
  let consumed = 0;
  for (let m = re.exec(body); m !== null; m = re.exec(body)) {
    if (body.slice(consumed, m.index).trim() !== '') throw new HistogramNotationError(`unexpected ${JSON.stringify(body.slice(consumed, m.index))} in histogram`);
    if (fields.has(m[1])) throw new HistogramNotationError(`duplicate key "${m[1]}" in histogram`);
    fields.set(m[1], m[2]);
    consumed = m.index + m[0].length;
  }
  if (body.slice(consumed).trim() !== '') throw new HistogramNotationError(`unexpected ${JSON.stringify(body.slice(consumed))} in histogram`);
  const h = emptyHistogram();
  let hintSet = false;
  const side = (bucketsKey: string, offsetKey: string): { index: Int32Array; counts: Float64Array } => {
    const buckets = fields.has(bucketsKey) ? list(fields.get(bucketsKey)!) : [];
    const offset = fields.has(offsetKey) ? number(fields.get(offsetKey)!) : 0;
    return fromSpans(buckets.length > 0 ? [{ offset, length: buckets.length }] : [], buckets);
  };
  for (const [key, value] of fields) {
    switch (key) {
      case 'schema':
        h.schema = number(value);
        break;
      case 'sum':
        h.sum = number(value);
        break;
      case 'count':
        h.count = number(value);
        break;
      case 'z_bucket':
        h.zeroCount = number(value);
        break;
      case 'z_bucket_w':
        h.zeroThreshold = number(value);
        break;
      case 'custom_values':
        h.customValues = Float64Array.from(list(value));
        break;
      case 'counter_reset_hint':
        if (!(value in HINTS)) throw new HistogramNotationError(`invalid counter_reset_hint ${JSON.stringify(value)}`);
        h.counterResetHint = HINTS[value];
        hintSet = true;
        break;
      case 'buckets':
      case 'offset':
      case 'n_buckets':
      case 'n_offset':
        break;
      default:
        throw new HistogramNotationError(`unknown histogram key ${JSON.stringify(key)}`);
    }
  }
  const pos = side('buckets', 'offset');
  const neg = side('n_buckets', 'n_offset');
  h.posIndex = pos.index;
  h.posCount = pos.counts;
  h.negIndex = neg.index;
  h.negCount = neg.counts;
  return { histogram: h, hintSet };
}

/**
 * expandHistogramItem expands one series item: `{{..}}`, `{{..}}xN` (N+1 copies) or
 * `{{a}}+{{b}}xN` / `{{a}}-{{b}}xN` (a, then N more each adding or subtracting b).
 */
export function expandHistogramItem(item: string): NotatedHistogram[] {
  const close = item.indexOf('}}');
  if (!item.startsWith('{{') || close < 0) throw new HistogramNotationError(`invalid histogram item ${JSON.stringify(item)}`);
  const first = parseHistogram(item.slice(0, close + 2));
  const rest = item.slice(close + 2);
  if (rest === '') return [first];
  const repeat = /^x(\d+)$/.exec(rest);
  if (repeat !== null) return Array.from({ length: Number(repeat[1]) + 1 }, () => first);
  const stepped = /^([+-])(\{\{.*\}\})x(\d+)$/.exec(rest);
  if (stepped === null) throw new HistogramNotationError(`invalid histogram item ${JSON.stringify(item)}`);
  const increment = parseHistogram(stepped[2]);
  const sign = stepped[1] === '+' ? 1 : -1;
  // The hint flag of a stepped series is the increment's, as upstream records it.
  const out: NotatedHistogram[] = [{ histogram: first.histogram, hintSet: increment.hintSet }];
  let current = first.histogram;
  for (let i = 1; i <= Number(stepped[3]); i++) {
    if (current.schema > increment.histogram.schema) {
      throw new HistogramNotationError(`error combining histograms: cannot merge from schema ${increment.histogram.schema} to ${current.schema}`);
    }
    current = combine(current, increment.histogram, sign).histogram;
    out.push({ histogram: current, hintSet: increment.hintSet });
  }
  return out;
}

const HINT_NAMES = ['unknown', 'reset', 'not_reset', 'gauge'];

/** formatHistogram renders a histogram in the test notation, for failure messages. */
export function formatHistogram(input: FloatHistogram): string {
  const h = compact(input);
  const parts: string[] = [];
  if (h.schema !== 0) parts.push(`schema:${h.schema}`);
  if (h.count !== 0) parts.push(`count:${h.count}`);
  if (h.sum !== 0) parts.push(`sum:${h.sum}`);
  if (h.zeroCount !== 0) parts.push(`z_bucket:${h.zeroCount}`);
  if (h.zeroThreshold !== 0) parts.push(`z_bucket_w:${h.zeroThreshold}`);
  if (usesCustomBuckets(h) && h.customValues !== null) parts.push(`custom_values:[${Array.from(h.customValues).join(' ')}]`);
  const side = (index: Int32Array, counts: Float64Array, prefix: string): void => {
    if (index.length === 0) return;
    const spans = toSpans(index);
    parts.push(`${prefix}offset:${index[0]}`);
    if (spans.length > 1) parts.push(`${prefix}spans:${JSON.stringify(spans)}`);
    parts.push(`${prefix}buckets:[${Array.from(counts).join(' ')}]`);
  };
  side(h.posIndex, h.posCount, '');
  side(h.negIndex, h.negCount, 'n_');
  if (h.counterResetHint !== CounterResetHint.Unknown) parts.push(`counter_reset_hint:${HINT_NAMES[h.counterResetHint]}`);
  return `{{${parts.join(' ')}}}`;
}
