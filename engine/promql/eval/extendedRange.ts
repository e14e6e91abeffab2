/**
 * The extended range selectors of Prometheus 3 (promql-extended-range-selectors), over float
 * samples. An `anchored` window (start, end] also reads back one lookback delta so that its
 * left boundary value is the last sample at or before the start; a `smoothed` window reads a
 * lookback delta past both ends and interpolates the values at the boundaries. rate, increase
 * and delta then take the difference of the boundary values (plus counter resets inside)
 * instead of extrapolating; resets and changes count from the anchor sample.
 */
import type { Call, VectorSelector } from '../ast.js';
import { detectReset, histogramsEqual } from '../../histogram/floatHistogram.js';
import { evalError } from './context.js';
import type { HistogramSlots, RawSeries } from './series.js';
import type { RangeInput } from './value.js';

/** ANCHORED_FUNCTIONS and SMOOTHED_FUNCTIONS are the functions that accept such windows. */
const ANCHORED_FUNCTIONS: readonly string[] = ['changes', 'delta', 'increase', 'rate', 'resets'];
const SMOOTHED_FUNCTIONS: readonly string[] = ['delta', 'increase', 'rate'];

/** ExtendedMode is how a range selector's window is widened, if at all. */
export type ExtendedMode = 'anchored' | 'smoothed' | null;

/** extendedMode reads the modifier of a selector. */
export function extendedMode(vs: VectorSelector): ExtendedMode {
  return vs.anchored === true ? 'anchored' : vs.smoothed === true ? 'smoothed' : null;
}

/** checkExtendedCall refuses a function that cannot read an anchored or smoothed window. */
export function checkExtendedCall(node: Call, mode: ExtendedMode): void {
  if (mode === null) return;
  const allowed = mode === 'anchored' ? ANCHORED_FUNCTIONS : SMOOTHED_FUNCTIONS;
  if (!allowed.includes(node.func.name)) {
    throw evalError(`${mode} modifier can only be used with: ${allowed.join(', ')} - not with ${node.func.name}`);
  }
}

/** extraMs is how far past each end of its windows an extended selector reads. */
export function extraMs(mode: ExtendedMode, lookbackMs: number): { before: number; after: number } {
  if (mode === 'anchored') return { before: lookbackMs, after: 0 };
  if (mode === 'smoothed') return { before: lookbackMs, after: lookbackMs };
  return { before: 0, after: 0 };
}

/** extendedBounds fills lo/hi with each step's samples in (ref - range - before, ref + after]. */
export function extendedBounds(ts: Float64Array, refs: Float64Array, rangeMs: number, extra: { before: number; after: number }, lo: Int32Array, hi: Int32Array): number {
  let a = 0;
  let b = 0;
  let largest = 0;
  for (let i = 0; i < refs.length; i++) {
    const start = refs[i] - rangeMs - extra.before;
    const end = refs[i] + extra.after;
    while (a < ts.length && ts[a] <= start) a++;
    if (b < a) b = a;
    while (b < ts.length && ts[b] <= end) b++;
    lo[i] = a;
    hi[i] = b;
    largest = Math.max(largest, b - a);
  }
  return largest;
}

/** searchAfter is the first index in [from, to) whose time is > t (`to` if none). */
export function searchAfter(ts: Float64Array, from: number, to: number, t: number): number {
  let a = from;
  let b = to;
  while (a < b) {
    const m = (a + b) >>> 1;
    if (ts[m] > t) b = m;
    else a = m + 1;
  }
  return a;
}

/** searchAtOrAfter is the first index in [from, to) whose time is >= t (`to` if none). */
export function searchAtOrAfter(ts: Float64Array, from: number, to: number, t: number): number {
  let a = from;
  let b = to;
  while (a < b) {
    const m = (a + b) >>> 1;
    if (ts[m] >= t) b = m;
    else a = m + 1;
  }
  return a;
}

/** interpolate is the value at `t` on the line between two samples; a counter drop restarts from 0. */
function interpolate(t1: number, v1: number, t2: number, v2: number, t: number, isCounter: boolean): number {
  const y1 = isCounter && v2 < v1 ? 0 : v1;
  return y1 + ((v2 - y1) * (t - t1)) / (t2 - t1);
}

/** Boundaries are a window's samples reduced to its edges. */
interface Boundaries {
  first: number;
  last: number;
  left: number;
  right: number;
}

/**
 * boundaries finds a window's edge samples and values: samples [from, to) read with the
 * extension, the window proper being (start, end]. Null when no sample lies inside it.
 */
function boundaries(ts: Float64Array, vals: Float64Array, from: number, to: number, start: number, end: number, smoothed: boolean, isCounter: boolean): Boundaries | null {
  let last = to - 1;
  const first = Math.max(from, searchAfter(ts, from, last, start) - 1);
  if (smoothed) last = searchAtOrAfter(ts, from, last, end);
  if (ts[last] <= start) return null;
  if (smoothed && ts[first] > end) return null;
  const left = smoothed && ts[first] < start ? interpolate(ts[first], vals[first], ts[first + 1], vals[first + 1], start, isCounter) : vals[first];
  const right =
    smoothed && last > from && ts[last] > end ? interpolate(ts[last - 1], vals[last - 1], ts[last], vals[last], end, isCounter) : vals[last];
  return { first, last, left, right };
}

/**
 * extendedRate is rate, increase or delta over an anchored or smoothed window of float
 * samples [from, to): the boundary difference plus, for counters, the resets inside.
 */
export function extendedRate(
  ts: Float64Array,
  vals: Float64Array,
  from: number,
  to: number,
  end: number,
  rangeMs: number,
  smoothed: boolean,
  isCounter: boolean,
  isRate: boolean,
): number | null {
  if (to <= from) return null;
  const start = end - rangeMs;
  const b = boundaries(ts, vals, from, to, start, end, smoothed, isCounter);
  if (b === null) return null;
  let result = b.right - b.left;
  if (isCounter) {
    let first = b.first;
    let last = b.last;
    if (ts[first] <= start) first++;
    if (ts[last] >= end) last--;
    let prev = b.left;
    for (let k = first; k <= last; k++) {
      if (vals[k] < prev) result += prev;
      prev = vals[k];
    }
    if (b.right < prev) result += prev;
  }
  return isRate ? result / (rangeMs / 1000) : result;
}

/**
 * anchoredCount is resets or changes over an anchored window [from, to): counted from the last
 * sample at or before the window's start (or the first sample), and only when some sample lies
 * inside. Histogram samples take part: a change of kind counts as both a reset and a change.
 */
export function anchoredCount(
  ts: Float64Array,
  vals: Float64Array,
  hists: HistogramSlots | undefined,
  from: number,
  to: number,
  end: number,
  rangeMs: number,
  resets: boolean,
): number | null {
  const start = end - rangeMs;
  const afterStart = searchAfter(ts, from, to, start);
  if (afterStart >= to) return null;
  const first = Math.max(from, afterStart - 1);
  let count = 0;
  for (let k = first + 1; k < to; k++) {
    const ph = hists?.[k - 1];
    const ch = hists?.[k];
    if (ph === undefined && ch === undefined) {
      const p = vals[k - 1];
      const c = vals[k];
      if (resets ? c < p : c !== p && !(Number.isNaN(c) && Number.isNaN(p))) count++;
    } else if (ph === undefined || ch === undefined) {
      count++;
    } else if (resets && detectReset(ch, ph)) {
      count++;
    } else if (!resets && !histogramsEqual(ch, ph)) {
      count++;
    }
  }
  return count;
}

/**
 * extendFloats is what a top-level anchored or smoothed range selector returns: the samples
 * inside (start, end) framed by boundary points at start and end.
 */
export function extendFloats(ts: Float64Array, vals: Float64Array, start: number, end: number, smoothed: boolean): { ts: number[]; vals: number[] } | null {
  if (ts.length === 0) return null;
  const b = boundaries(ts, vals, 0, ts.length, start, end, smoothed, false);
  if (b === null) return null;
  let first = b.first;
  let last = b.last;
  if (ts[first] <= start) first++;
  if (ts[last] >= end) last--;
  const outTs = [start];
  const outVals = [b.left];
  for (let k = first; k <= last; k++) {
    outTs.push(ts[k]);
    outVals.push(vals[k]);
  }
  outTs.push(end);
  outVals.push(b.right);
  return { ts: outTs, vals: outVals };
}

/**
 * smoothedValue is a smoothed instant selector's value at `t` from samples [from, to) within a
 * lookback delta either side: the sample at t, else the line between its neighbours, else the
 * last sample before t; null when there is none before t.
 */
export function smoothedValue(ts: Float64Array, vals: Float64Array, from: number, to: number, t: number): number | null {
  const i = searchAtOrAfter(ts, from, to, t);
  if (i < to && ts[i] === t) return vals[i];
  if (i > from && i < to) return interpolate(ts[i - 1], vals[i - 1], ts[i], vals[i], t, false);
  if (i > from) return vals[i - 1];
  return null;
}

/**
 * extendedMatrix is an anchored or smoothed range selector returned as an instant query's
 * result (one window): float samples framed by the boundary points. Histograms are refused, as
 * Prometheus refuses them.
 */
export function extendedMatrix(input: RangeInput): RawSeries[] {
  const mode = input.extended!.mode;
  const end = input.refs[0];
  const start = end - input.rangeMs;
  const out: RawSeries[] = [];
  for (const s of input.series) {
    if (s.hists !== undefined && s.hists.some((h) => h !== undefined)) throw evalError(`${mode} modifier is not supported with histograms`);
    const framed = extendFloats(s.ts, s.vals, start, end, mode === 'smoothed');
    if (framed === null) continue;
    out.push({ labels: s.labels, ts: Float64Array.from(framed.ts), vals: Float64Array.from(framed.vals), dropName: s.dropName });
  }
  return out;
}
