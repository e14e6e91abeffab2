/**
 * Range functions over series that hold native histograms. A series without histograms never
 * comes here. For one with histograms, each step's window is classified: floats only go to the
 * float kernel's result (computed over the series' floats), histograms only to the histogram
 * computation below, and a mix is either refused with Prometheus' warning (rate, sums) or
 * handled sample by sample (resets, changes, counts, first/last). Functions defined over floats
 * only ignore histogram samples, with an info note when a window mixes both.
 */
import type { PositionRange } from '../../errors.js';
import {
  combine,
  compact,
  copyHistogram,
  CounterResetHint,
  divide,
  emptyHistogram,
  HistogramError,
  histogramsEqual,
  detectReset,
  reduceResolution,
  scaleOwned,
  usesCustomBuckets,
  type FloatHistogram,
} from '../../histogram/floatHistogram.js';
import { CompensatedSum } from '../../histogram/compensatedSum.js';
import { CompensatedMean } from '../../histogram/compensatedMean.js';
import type { EvalContext } from './context.js';
import { quoteGoString } from '../../common/quote.js';
import { isStartTimestampReset, START_TIMESTAMP_FUNCTIONS } from './startTimestampWindows.js';
import type { HistogramOperation } from './histogramNotes.js';
import { metricNameOf } from './labelset.js';
import type { HistogramSlots, RawSeries } from './series.js';

/** Window is one step's samples of one series: indexes [from, to) into ts/vals/hists. */
export interface Window {
  readonly ts: Float64Array;
  readonly vals: Float64Array;
  readonly hists: HistogramSlots;
  readonly from: number;
  readonly to: number;
  /** end is the window's inclusive end; its exclusive start is end - rangeMs. */
  readonly end: number;
  readonly rangeMs: number;
  /** sts are the samples' start timestamps, for the functions that read them (see startTimestampWindows.ts). */
  readonly sts?: Float64Array;
}

/** stReset tells whether sample i's start timestamp marks a counter reset after sample i-1. */
function stReset(w: Window, i: number): boolean {
  return w.sts !== undefined && isStartTimestampReset(w.sts[i - 1], w.ts[i - 1], w.sts[i], w.ts[i]);
}

/** WindowResult is a step's value: a float, a histogram, or nothing. */
export type WindowResult = number | FloatHistogram | null;

/** HistogramWindowFn computes one step; `notes` raises annotations for the series. */
type HistogramWindowFn = (w: Window, notes: SeriesNotes) => WindowResult;

/** SeriesNotes raises a series' annotations at the range argument's position. */
export interface SeriesNotes {
  readonly ctx: EvalContext;
  readonly metricName: string;
  readonly pos: PositionRange;
}

/** tryCombine adds or subtracts, turning failures and reconciliations into annotations; null on failure. */
export function tryCombine(a: FloatHistogram, b: FloatHistogram, sign: 1 | -1, notes: SeriesNotes, op: HistogramOperation): FloatHistogram | null {
  try {
    const r = combine(a, b, sign);
    if (r.boundsReconciled) notes.ctx.histogramNotes.customBucketsReconciled(op, notes.pos);
    return r.histogram;
  } catch (err) {
    if (!(err instanceof HistogramError)) throw err;
    notes.ctx.histogramNotes.mixedExponentialAndCustom(notes.metricName, notes.pos);
    return null;
  }
}

/** kinds counts a window's floats and histograms. */
function kinds(w: Window): { floats: number; histograms: number } {
  let histograms = 0;
  for (let i = w.from; i < w.to; i++) if (w.hists[i] !== undefined) histograms++;
  return { floats: w.to - w.from - histograms, histograms };
}

/** histogramRate is Prometheus' rate/increase/delta over a window of histograms (at least two). */
function histogramDelta(w: Window, notes: SeriesNotes, isCounter: boolean): FloatHistogram | null {
  const hs = w.hists;
  let prev = hs[w.from]!;
  const last = hs[w.to - 1]!;
  const n = notes.ctx.histogramNotes;
  if (isCounter && (prev.counterResetHint === CounterResetHint.Gauge || last.counterResetHint === CounterResetHint.Gauge)) n.notCounter(notes.metricName, notes.pos);
  let custom = usesCustomBuckets(prev);
  if (isCounter) {
    const second = hs[w.from + 1]!;
    if (stReset(w, w.from + 1) || detectReset(second, prev)) {
      prev = { ...emptyHistogram(), schema: second.schema, customValues: second.customValues };
      custom = usesCustomBuckets(second);
    }
  }
  if (usesCustomBuckets(last) !== custom) {
    n.mixedExponentialAndCustom(notes.metricName, notes.pos);
    return null;
  }
  let minSchema = Math.min(last.schema, prev.schema);
  for (let i = w.from + 1; i < w.to - 1; i++) {
    const cur = hs[i]!;
    if (!isCounter) continue;
    if (cur.counterResetHint === CounterResetHint.Gauge) n.notCounter(notes.metricName, notes.pos);
    if (cur.schema < minSchema) minSchema = cur.schema;
    if (usesCustomBuckets(cur) !== custom) {
      n.mixedExponentialAndCustom(notes.metricName, notes.pos);
      return null;
    }
  }
  let h = tryCombine(reduceResolution(last, minSchema), prev, -1, notes, 'subtraction');
  if (h === null) return null;
  if (isCounter) {
    let before = prev;
    let warned = false;
    for (let i = w.from + 1; i < w.to; i++) {
      const cur = hs[i]!;
      if (!warned && w.sts !== undefined && w.sts[i] !== 0 && w.sts[i] < w.ts[i - 1] && w.sts[i] !== w.sts[i - 1]) {
        notes.ctx.annotations.warn(`sample has start time that overlaps with previous sample timestamp for metric ${quoteGoString(notes.metricName)}`, notes.pos);
        warned = true;
      }
      if (stReset(w, i) || detectReset(cur, before)) {
        h = tryCombine(h, before, 1, notes, 'addition');
        if (h === null) return null;
      }
      before = cur;
    }
  } else if (hs[w.from]!.counterResetHint !== CounterResetHint.Gauge || last.counterResetHint !== CounterResetHint.Gauge) {
    n.notGauge(notes.metricName, notes.pos);
  }
  return compact({ ...h, counterResetHint: CounterResetHint.Gauge });
}

/** extrapolated is rate(), increase() and delta() over a window of histograms, extrapolated as for floats. */
function extrapolated(isCounter: boolean, isRate: boolean): HistogramWindowFn {
  return (w, notes) => {
    const { floats, histograms } = kinds(w);
    if (floats > 0 && histograms > 0) {
      notes.ctx.histogramNotes.mixedFloatsAndHistograms(notes.metricName, notes.pos);
      return null;
    }
    if (histograms === 0) return null;
    const firstT = w.ts[w.from];
    const lastT = w.ts[w.to - 1];
    const rangeStart = w.end - w.rangeMs;
    // A first sample whose start timestamp lies inside the window counts from zero at that time.
    const st0 = w.sts?.[w.from] ?? 0;
    const fromStart = isCounter && st0 !== 0 && st0 > rangeStart && st0 < firstT;
    if (histograms < 2 && !fromStart) return null;
    let result = histograms < 2 ? null : histogramDelta(w, notes, isCounter);
    if (histograms >= 2 && result === null) return null;
    let durationToStart = (firstT - rangeStart) / 1000;
    let durationToEnd = (w.end - lastT) / 1000;
    let sampled = (lastT - firstT) / 1000;
    const average = histograms > 1 ? sampled / (histograms - 1) : 0;
    const threshold = average * 1.1;
    if (fromStart) {
      const first = w.hists[w.from]!;
      durationToStart = 0;
      sampled = (lastT - st0) / 1000;
      result = result === null ? copyHistogram(first) : tryCombine(result, first, 1, notes, 'addition');
      if (result === null) return null;
    } else {
      if (durationToStart >= threshold) durationToStart = average / 2;
      if (isCounter) {
        const first = w.hists[w.from]!;
        let durationToZero = durationToStart;
        if (result!.count > 0 && first.count >= 0) durationToZero = sampled * (first.count / result!.count);
        if (durationToZero < durationToStart) durationToStart = durationToZero;
      }
    }
    if (durationToEnd >= threshold) durationToEnd = average / 2;
    let factor = sampled === 0 ? 1 : (sampled + durationToStart + durationToEnd) / sampled;
    if (isRate) factor /= w.rangeMs / 1000;
    // result is a histogram built for this step alone (a difference, sum or copy).
    return scaleOwned(result!, factor);
  };
}

/** instant is irate() and idelta(): the last two samples, which must be of one kind. */
function instant(isRate: boolean): HistogramWindowFn {
  return (w, notes) => {
    if (w.to - w.from < 2) return null;
    const a = w.hists[w.to - 2];
    const b = w.hists[w.to - 1];
    const interval = w.ts[w.to - 1] - w.ts[w.to - 2];
    if (interval === 0) return null;
    if (a === undefined && b === undefined) {
      const x = w.vals[w.to - 2];
      const y = w.vals[w.to - 1];
      let v = isRate && (y < x || stReset(w, w.to - 1)) ? y : y - x;
      if (isRate) v /= interval / 1000;
      return v;
    }
    if (a === undefined || b === undefined) {
      notes.ctx.histogramNotes.mixedFloatsAndHistograms(notes.metricName, notes.pos);
      return null;
    }
    if (isRate && (a.counterResetHint === CounterResetHint.Gauge || b.counterResetHint === CounterResetHint.Gauge)) notes.ctx.histogramNotes.notCounter(notes.metricName, notes.pos);
    if (!isRate && (a.counterResetHint !== CounterResetHint.Gauge || b.counterResetHint !== CounterResetHint.Gauge)) notes.ctx.histogramNotes.notGauge(notes.metricName, notes.pos);
    let h: FloatHistogram | null = b;
    if (!isRate || !(stReset(w, w.to - 1) || detectReset(b, a))) h = tryCombine(b, a, -1, notes, 'subtraction');
    if (h === null) return null;
    h = compact({ ...h, counterResetHint: CounterResetHint.Gauge });
    return isRate ? divide(h, interval / 1000) : h;
  };
}

/** sumOrAvg is sum_over_time() and avg_over_time() over a window of histograms. */
function sumOrAvg(average: boolean): HistogramWindowFn {
  return (w, notes) => {
    const { floats, histograms } = kinds(w);
    if (histograms === 0) return null;
    if (floats > 0) {
      notes.ctx.histogramNotes.mixedFloatsAndHistograms(notes.metricName, notes.pos);
      return null;
    }
    const sum = average ? new CompensatedMean() : new CompensatedSum();
    let reset = false;
    let notReset = false;
    for (let i = w.from; i < w.to; i++) {
      const h = w.hists[i]!;
      reset ||= h.counterResetHint === CounterResetHint.CounterReset;
      notReset ||= h.counterResetHint === CounterResetHint.NotCounterReset;
      try {
        if (sum.add(h)?.boundsReconciled === true) notes.ctx.histogramNotes.customBucketsReconciled('aggregation', notes.pos);
      } catch (err) {
        if (!(err instanceof HistogramError)) throw err;
        notes.ctx.histogramNotes.mixedExponentialAndCustom(notes.metricName, notes.pos);
        return null;
      }
    }
    if (reset && notReset) notes.ctx.histogramNotes.counterResetCollision('aggregation', notes.pos);
    return sum.result()!;
  };
}

/** sampleAt is sample i as a float or a histogram. */
function sampleAt(w: Window, i: number): number | FloatHistogram {
  return w.hists[i] ?? w.vals[i];
}

/** counting counts the changes or resets between consecutive samples, floats and histograms alike. */
function counting(isReset: boolean): HistogramWindowFn {
  return (w) => {
    if (w.to <= w.from) return null;
    let n = 0;
    for (let i = w.from + 1; i < w.to; i++) {
      const a = sampleAt(w, i - 1);
      const b = sampleAt(w, i);
      if (typeof a === 'number' && typeof b === 'number') {
        if (isReset ? b < a || stReset(w, i) : a !== b && !(Number.isNaN(a) && Number.isNaN(b))) n++;
      } else if (typeof a === 'number' || typeof b === 'number') {
        n++;
      } else if (isReset ? stReset(w, i) || detectReset(b, a) : !histogramsEqual(a, b)) {
        n++;
      }
    }
    return n;
  };
}

/**
 * HISTOGRAM_WINDOW_FNS are the range functions defined over histograms (or over both kinds
 * sample by sample); the rest read floats only.
 */
const HISTOGRAM_WINDOW_FNS: Readonly<Record<string, HistogramWindowFn>> = {
  rate: extrapolated(true, true),
  increase: extrapolated(true, false),
  delta: extrapolated(false, false),
  irate: instant(true),
  idelta: instant(false),
  sum_over_time: sumOrAvg(false),
  avg_over_time: sumOrAvg(true),
  resets: counting(true),
  changes: counting(false),
  count_over_time: (w) => (w.to > w.from ? w.to - w.from : null),
  present_over_time: (w) => (w.to > w.from ? 1 : null),
  last_over_time: (w) => (w.to > w.from ? sampleAt(w, w.to - 1) : null),
  first_over_time: (w) => (w.to > w.from ? sampleAt(w, w.from) : null),
  // The time of the last or first sample, whichever its kind.
  ts_of_last_over_time: (w) => (w.to > w.from ? w.ts[w.to - 1] / 1000 : null),
  ts_of_first_over_time: (w) => (w.to > w.from ? w.ts[w.from] / 1000 : null),
};

/** FLOAT_KERNEL_FOR_FLOATS are the functions whose float-only windows the float kernel answers. */
const FLOAT_KERNEL_FOR_FLOATS = new Set(['rate', 'increase', 'delta', 'sum_over_time', 'avg_over_time']);

/** StepOutput collects one series' per-step results. */
export interface StepOutput {
  values: Float64Array;
  present: Uint8Array;
  histograms?: HistogramSlots;
}

/**
 * histogramWindows evaluates range function `name` over one series holding histograms. `floats`
 * is the float kernel's output over the series' floats alone; `lo`/`hi` bound each step's
 * window over all its samples.
 */
export function histogramWindows(
  ctx: EvalContext,
  name: string,
  s: RawSeries & { hists: HistogramSlots },
  refs: Float64Array,
  rangeMs: number,
  lo: Int32Array,
  hi: Int32Array,
  floats: StepOutput,
  pos: PositionRange,
): StepOutput {
  const count = refs.length;
  const out: StepOutput = { values: new Float64Array(count), present: new Uint8Array(count) };
  const notes: SeriesNotes = { ctx, metricName: metricNameOf(s.labels), pos };
  const fn = HISTOGRAM_WINDOW_FNS[name];
  const sts = START_TIMESTAMP_FUNCTIONS.has(name) ? s.sts : undefined;
  for (let i = 0; i < count; i++) {
    const w: Window = { ts: s.ts, vals: s.vals, hists: s.hists, from: lo[i], to: hi[i], end: refs[i], rangeMs, sts };
    const { floats: nf, histograms: nh } = kinds(w);
    let result: WindowResult = null;
    if (fn === undefined || (nh === 0 && FLOAT_KERNEL_FOR_FLOATS.has(name))) {
      if (fn === undefined && nf > 0 && nh > 0) ctx.histogramNotes.ignoredInMixedRange(notes.metricName, pos);
      if (floats.present[i] !== 0) result = floats.values[i];
    } else {
      result = fn(w, notes);
    }
    if (result === null) continue;
    out.present[i] = 1;
    if (typeof result === 'number') out.values[i] = result;
    else (out.histograms ??= new Array(count))[i] = result;
  }
  return out;
}
