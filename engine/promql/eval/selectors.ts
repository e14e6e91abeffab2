/**
 * Reading series from storage for selectors. An instant vector selector picks, at each step,
 * the latest sample within the lookback window `(t - lookback, t]` unless it is a staleness
 * marker; a range selector returns the samples of `(t - range, t]` without markers. Both read
 * storage once per selector for the whole grid and then walk each series with a forward-only
 * pointer, so a range query costs one pass over the samples however many steps it has.
 */
import type { AtModifier, LabelMatcher as AstMatcher, VectorSelector } from '../ast.js';
import type { LabelMatcher as StorageMatcher } from '../../storage/matchers.js';
import type { SeriesColumns } from '../../storage/seriesColumns.js';
import { bitsOf, isStale } from '../../storage/staleness.js';
import type { EvalContext } from './context.js';
import { stepTime, type StepGrid } from './grid.js';
import { metricNameOf, sortByLabels } from './labelset.js';
import { extendedBounds, smoothedValue } from './extendedRange.js';
import { smoothedHistogram } from './extendedHistograms.js';
import { statsHinted } from './histogramStatsSelectors.js';
import type { HistogramSlots, RawSeries, SampleRun, VectorSeries } from './series.js';
import { lowerBound } from '../../storage/bounds.js';
import { mergeSeriesRuns, type SeriesRuns } from '../../storage/seriesMerge.js';
import type { FloatHistogram } from '../../histogram/floatHistogram.js';

/**
 * HistogramSeriesColumns is what a storage reader returns for a series that holds native
 * histogram samples: the usual columns plus `histograms[i]` for each sample that is a histogram
 * (its `values[i]` is then ignored; a staleness marker stays a float NaN marker). A reader
 * that has none leaves the field out. This is the one place histograms enter the engine.
 */
export interface HistogramSeriesColumns extends SeriesColumns {
  histograms?: readonly (FloatHistogram | undefined)[];
  /** startTimestampsMs are the samples' start timestamps (0: none), for series that carry them. */
  startTimestampsMs?: Float64Array;
}

/**
 * toStorageMatchers converts the syntax tree's matchers to the storage's shape (the storage
 * compiles regexes the way Prometheus 3 does: anchored, `.` matching newlines).
 */
export function toStorageMatchers(matchers: readonly AstMatcher[]): StorageMatcher[] {
  return matchers.map((m) => ({ name: m.name, type: m.op, value: m.value }));
}

/** resolveAt turns an `@` modifier into milliseconds; start() and end() mean the outer query's. */
export function resolveAt(ctx: EvalContext, at: AtModifier): number {
  switch (at.kind) {
    case 'timestamp':
      return at.ms;
    case 'start':
      return ctx.queryStartMs;
    case 'end':
      return ctx.queryEndMs;
  }
}

/**
 * referenceTimes computes, per step, the time a selector looks at: the step time (or the `@`
 * time) minus the offset. The result is non-decreasing, which the forward-only scans rely on.
 */
export function referenceTimes(ctx: EvalContext, grid: StepGrid, at: AtModifier | null, offsetMs: number): Float64Array {
  const out = new Float64Array(grid.count);
  if (at !== null) {
    out.fill(resolveAt(ctx, at) - offsetMs);
    return out;
  }
  for (let i = 0; i < grid.count; i++) out[i] = stepTime(grid, i) - offsetMs;
  return out;
}

/** sortedSelect reads storage and orders the series by labels, as Prometheus' storage returns them. */
function sortedSelect(ctx: EvalContext, vs: VectorSelector, minMs: number, maxMs: number): HistogramSeriesColumns[] {
  const data = sortByLabels(ctx.querier.select(toStorageMatchers(vs.matchers), minMs, maxMs), (s) => s.labels);
  if (!ctx.statsOnlySelectors.has(vs)) return data;
  return data.map((s) => (s.histograms === undefined ? s : { ...s, histograms: statsHinted(s.histograms) }));
}

/** sortedRuns is sortedSelect by parts: the querier's SeriesRuns ordered by labels (callers check it has selectRuns). */
function sortedRuns(ctx: EvalContext, vs: VectorSelector, minMs: number, maxMs: number): SeriesRuns[] {
  return sortByLabels(ctx.querier.selectRuns!(toStorageMatchers(vs.matchers), minMs, maxMs), (s) => s.labels);
}

/**
 * selectInstant evaluates an instant vector selector over the grid, yielding series one at a
 * time in label order. With `timestamps` set the value at each step is the chosen sample's
 * timestamp in seconds (what timestamp() needs) rather than its value.
 */
export function* selectInstant(ctx: EvalContext, vs: VectorSelector, grid: StepGrid, timestamps = false, startTimestamps = false): Generator<VectorSeries> {
  if (vs.smoothed === true && !timestamps && !startTimestamps) {
    yield* selectSmoothed(ctx, vs, grid);
    return;
  }
  const refs = referenceTimes(ctx, grid, vs.at, vs.offsetMs);
  const count = grid.count;
  const lookback = ctx.lookbackDeltaMs;
  const minMs = refs[0] - lookback + 1;
  const maxMs = refs[count - 1];
  // start_timestamp() needs the start times, which only joined series carry.
  const data = !startTimestamps && ctx.querier.selectRuns !== undefined && !ctx.statsOnlySelectors.has(vs) ? selectParts(ctx, vs, minMs, maxMs) : sortedSelect(ctx, vs, minMs, maxMs);
  for (const item of data) {
    ctx.checkAbort();
    const parts: readonly HistogramSeriesColumns[] = 'runs' in item ? item.runs : [item];
    const labels = item.labels;
    // start_timestamp() reads only series that carry start timestamps.
    if (startTimestamps && parts[0].startTimestampsMs === undefined) continue;
    const values = new Float64Array(count);
    const present = new Uint8Array(count);
    const stored = timestamps || startTimestamps ? undefined : parts[0].histograms;
    const histograms: HistogramSlots | undefined = stored === undefined ? undefined : new Array(count);
    const picked: PickedSamples = { values, present, histograms, points: 0 };
    // Each run answers the steps from its first sample to the next run's: the latest sample
    // at or before such a step is in it.
    let from = 0;
    for (let r = 0; r < parts.length && from < count; r++) {
      const to = r + 1 < parts.length ? lowerBound(refs, parts[r + 1].timestampsMs[0]) : count;
      if (to > from) pickLatest(parts[r], refs, from, to, lookback, timestamps, startTimestamps, picked);
      from = Math.max(from, to);
    }
    if (picked.points === 0) continue;
    ctx.holdSamples(picked.points);
    const out: VectorSeries = { labels, values, present, dropName: false };
    if (histograms !== undefined) out.histograms = histograms;
    yield out;
  }
}

/**
 * selectParts reads an instant selector's series as SeriesRuns (runs in time order kept
 * apart); a series whose runs carry histograms is joined, so every item has floats only in
 * parts or is whole.
 */
function selectParts(ctx: EvalContext, vs: VectorSelector, minMs: number, maxMs: number): (SeriesRuns | HistogramSeriesColumns)[] {
  return sortedRuns(ctx, vs, minMs, maxMs).map((s) => (s.runs.length === 1 ? s.runs[0] : s.runs.some((run) => run.histograms !== undefined) ? mergeSeriesRuns(s.runs) : s));
}

/** PickedSamples collects an instant selector's chosen sample per step for one series. */
interface PickedSamples {
  values: Float64Array;
  present: Uint8Array;
  histograms: HistogramSlots | undefined;
  points: number;
}

/**
 * pickLatest fills steps `from..to-1` with the latest sample of `series` within the lookback
 * window `(ref - lookback, ref]`, unless it is a staleness marker: its value, or its timestamp
 * or start timestamp in seconds for timestamp() and start_timestamp().
 */
function pickLatest(series: HistogramSeriesColumns, refs: Float64Array, from: number, to: number, lookback: number, timestamps: boolean, startTimestamps: boolean, into: PickedSamples): void {
  const sts = series.startTimestampsMs;
  const ts = series.timestampsMs;
  const vals = series.values;
  const words = bitsOf(vals);
  const stored = into.histograms === undefined ? undefined : series.histograms;
  const { values, present, histograms } = into;
  let j = -1;
  let points = 0;
  for (let i = from; i < to; i++) {
    const ref = refs[i];
    while (j + 1 < ts.length && ts[j + 1] <= ref) j++;
    if (j < 0 || ts[j] <= ref - lookback || isStale(words, j)) continue;
    values[i] = startTimestamps ? sts![j] / 1000 : timestamps ? ts[j] / 1000 : vals[j];
    if (histograms !== undefined) histograms[i] = stored![j];
    present[i] = 1;
    points++;
  }
  into.points += points;
}

/**
 * selectSmoothed evaluates a smoothed instant selector: each step's value is interpolated
 * between the samples around it within a lookback delta either side (see smoothedValue).
 * Steps whose neighbourhood mixes floats and histograms are left out with a warning.
 */
function* selectSmoothed(ctx: EvalContext, vs: VectorSelector, grid: StepGrid): Generator<VectorSeries> {
  const refs = referenceTimes(ctx, grid, vs.at, vs.offsetMs);
  const count = grid.count;
  const lookback = ctx.lookbackDeltaMs;
  const lo = new Int32Array(count);
  const hi = new Int32Array(count);
  for (const raw of selectRange(ctx, vs, 0, refs, { before: lookback, after: lookback })) {
    ctx.checkAbort();
    extendedBounds(raw.ts, refs, 0, { before: lookback, after: lookback }, lo, hi);
    const values = new Float64Array(count);
    const present = new Uint8Array(count);
    let histograms: HistogramSlots | undefined;
    let points = 0;
    for (let i = 0; i < count; i++) {
      if (hi[i] <= lo[i]) continue;
      let hists = 0;
      if (raw.hists !== undefined) for (let k = lo[i]; k < hi[i]; k++) if (raw.hists[k] !== undefined) hists++;
      if (hists > 0 && hists < hi[i] - lo[i]) {
        ctx.histogramNotes.mixedFloatsAndHistograms(metricNameOf(raw.labels), vs.pos);
        continue;
      }
      if (hists > 0) {
        const h = smoothedHistogram(ctx, raw, lo[i], hi[i], refs[i], vs.pos);
        if (h === null) continue;
        (histograms ??= new Array(count))[i] = h;
      } else {
        const v = smoothedValue(raw.ts, raw.vals, lo[i], hi[i], refs[i]);
        if (v === null) continue;
        values[i] = v;
      }
      present[i] = 1;
      points++;
    }
    if (points === 0) continue;
    ctx.holdSamples(points);
    const out: VectorSeries = { labels: raw.labels, values, present, dropName: false };
    if (histograms !== undefined) out.histograms = histograms;
    yield out;
  }
}

/** startTimestampsOf lines a series' start timestamps up with its kept samples `ts` (markers removed). */
function startTimestampsOf(series: HistogramSeriesColumns, ts: Float64Array): Float64Array {
  const all = series.startTimestampsMs!;
  if (ts.length === series.timestampsMs.length) return all;
  const out = new Float64Array(ts.length);
  let j = 0;
  for (let i = 0; i < series.timestampsMs.length && j < ts.length; i++) {
    if (series.timestampsMs[i] === ts[j]) out[j++] = all[i];
  }
  return out;
}

/**
 * withoutStaleMarkers copies out a series' non-marker samples, or returns the arrays as they
 * are. `staleFree` (the storage already knows there is no marker) skips the scan, which is
 * otherwise a pass over every sample of every series on each query.
 */
function withoutStaleMarkers(
  ts: Float64Array,
  vals: Float64Array,
  hists: readonly (FloatHistogram | undefined)[] | undefined,
  staleFree: boolean,
): { ts: Float64Array; vals: Float64Array; hists?: HistogramSlots } {
  const words = bitsOf(vals);
  let stale = 0;
  if (!staleFree) for (let i = 0; i < vals.length; i++) if (isStale(words, i) && hists?.[i] === undefined) stale++;
  if (stale === 0) return hists === undefined ? { ts, vals } : { ts, vals, hists: hists.slice() };
  const outTs = new Float64Array(ts.length - stale);
  const outVals = new Float64Array(ts.length - stale);
  const outHists: HistogramSlots | undefined = hists === undefined ? undefined : new Array(ts.length - stale);
  let n = 0;
  for (let i = 0; i < vals.length; i++) {
    if (isStale(words, i) && hists?.[i] === undefined) continue;
    outTs[n] = ts[i];
    outVals[n] = vals[i];
    if (outHists !== undefined) outHists[n] = hists![i];
    n++;
  }
  return outHists === undefined ? { ts: outTs, vals: outVals } : { ts: outTs, vals: outVals, hists: outHists };
}

/**
 * selectRange reads the samples a range selector needs for every window `(ref - range, ref]`
 * over the given reference times, staleness markers removed. With `asRuns`, a float series
 * whose sources hold it in parts one after another comes as those parts (RawSeries.runs)
 * instead of joined, for the range functions' kernels, which evaluate each part in place.
 */
export function selectRange(ctx: EvalContext, vs: VectorSelector, rangeMs: number, refs: Float64Array, extra = { before: 0, after: 0 }, asRuns = false): RawSeries[] {
  const minMs = refs[0] - rangeMs - extra.before + 1;
  const maxMs = refs[refs.length - 1] + extra.after;
  if (asRuns && ctx.querier.selectRuns !== undefined && !ctx.statsOnlySelectors.has(vs)) return selectRuns(ctx, vs, minMs, maxMs);
  const out: RawSeries[] = [];
  for (const series of sortedSelect(ctx, vs, minMs, maxMs)) {
    const raw = rawSeriesOf(series);
    if (raw !== null) out.push(raw);
  }
  return out;
}

/** rawSeriesOf is a stored series without staleness markers, or null when nothing is left. */
function rawSeriesOf(series: HistogramSeriesColumns): RawSeries | null {
  const { ts, vals, hists } = withoutStaleMarkers(series.timestampsMs, series.values, series.histograms, series.staleFree === true);
  if (ts.length === 0) return null;
  const raw: RawSeries = { labels: series.labels, ts, vals, dropName: false };
  if (series.resetFree === true && vals === series.values) raw.resetFree = true;
  if (hists !== undefined) raw.hists = hists;
  if (series.startTimestampsMs !== undefined) raw.sts = startTimestampsOf(series, ts);
  return raw;
}

const NO_SAMPLES = new Float64Array(0);

/**
 * selectRuns is selectRange's read by parts: a series of floats only keeps its runs apart
 * (markers removed from each); one with histograms or start timestamps is joined, as the
 * kernels for those read whole series.
 */
function selectRuns(ctx: EvalContext, vs: VectorSelector, minMs: number, maxMs: number): RawSeries[] {
  const out: RawSeries[] = [];
  for (const series of sortedRuns(ctx, vs, minMs, maxMs)) {
    const parts = series.runs as readonly HistogramSeriesColumns[];
    if (parts.length === 1 || parts.some((p) => p.histograms !== undefined || p.startTimestampsMs !== undefined)) {
      const raw = rawSeriesOf(parts.length === 1 ? parts[0] : mergeSeriesRuns(parts));
      if (raw !== null) out.push(raw);
      continue;
    }
    const runs: SampleRun[] = [];
    for (const part of parts) {
      const { ts, vals } = withoutStaleMarkers(part.timestampsMs, part.values, undefined, part.staleFree === true);
      if (ts.length > 0) runs.push(part.resetFree === true && vals === part.values ? { ts, vals, resetFree: true } : { ts, vals });
    }
    if (runs.length === 1) out.push({ labels: series.labels, ts: runs[0].ts, vals: runs[0].vals, dropName: false, resetFree: runs[0].resetFree });
    else if (runs.length > 1) out.push({ labels: series.labels, ts: NO_SAMPLES, vals: NO_SAMPLES, dropName: false, runs });
  }
  return out;
}

/**
 * windowBounds fills `lo`/`hi` with the sample index range `[lo, hi)` of each window
 * `(ref - range, ref]`, advancing two pointers once over the samples, and returns the largest
 * window's sample count.
 */
export function windowBounds(ts: Float64Array, refs: Float64Array, rangeMs: number, lo: Int32Array, hi: Int32Array): number {
  const n = ts.length;
  let a = 0;
  let b = 0;
  // The samples at the two pointers, Infinity past the end, so each loop has one comparison.
  let atA = n > 0 ? ts[0] : Infinity;
  let atB = atA;
  let largest = 0;
  for (let i = 0; i < refs.length; i++) {
    const end = refs[i];
    const start = end - rangeMs;
    while (atA <= start) atA = ++a < n ? ts[a] : Infinity;
    if (b < a) {
      b = a;
      atB = atA;
    }
    while (atB <= end) atB = ++b < n ? ts[b] : Infinity;
    lo[i] = a;
    hi[i] = b;
    if (b - a > largest) largest = b - a;
  }
  return largest;
}
