import type { FloatHistogram } from '../histogram/floatHistogram.js';
import type { Labels } from './labels.js';
import type { SeriesColumns } from './seriesColumns.js';

/**
 * SeriesRuns is one series as the runs its sources hold, in time order and none overlapping
 * the next (a segment, the next segment, the head). A reader that can evaluate each run where
 * it lies (range-function windows) takes this form and skips joining them: joining copied every
 * sample of a day's query whose recent half spans segments and the head.
 */
export interface SeriesRuns {
  labels: Labels;
  runs: readonly SeriesColumns[];
}

/**
 * seriesRunsOf turns one series' runs from several sources (oldest first) into SeriesRuns:
 * the runs with samples as they are when they follow each other in time, else one merged run.
 */
export function seriesRunsOf(runs: readonly SeriesColumns[]): SeriesRuns {
  const labels = runs[runs.length - 1].labels;
  if (runs.length > 1 && inTimeOrder(runs)) return { labels, runs: runs.filter((run) => run.timestampsMs.length > 0) };
  return { labels, runs: [mergeSeriesRuns(runs)] };
}

/**
 * mergeSeriesRuns combines one series' sample runs from several sources (segments oldest
 * first, then heads) into one run sorted by time. On equal timestamps the newer source wins,
 * the same rule the head applies to a re-written timestamp, so a query answers the same before
 * and after data moves from the head into segments. Values move as raw bits, so staleness
 * markers survive, and histogram samples move with their slots. A single run is returned as is (no copy).
 */
export function mergeSeriesRuns(runs: readonly SeriesColumns[]): SeriesColumns {
  if (runs.length > 1 && inTimeOrder(runs)) return concatRuns(runs);
  let merged = runs[0];
  for (let i = 1; i < runs.length; i++) merged = mergeTwo(merged, runs[i]);
  return merged;
}

/**
 * inTimeOrder tells whether every run that has samples ends before the next such run starts,
 * the usual case (a segment, then the next, then the head): the merge is then a concatenation.
 */
function inTimeOrder(runs: readonly SeriesColumns[]): boolean {
  let lastMs = -Infinity;
  let nonEmpty = 0;
  for (const run of runs) {
    const ts = run.timestampsMs;
    if (ts.length === 0) continue;
    if (!(ts[0] > lastMs)) return false;
    lastMs = ts[ts.length - 1];
    nonEmpty++;
  }
  return nonEmpty > 0;
}

/**
 * concatRuns joins runs in time order with one copy per column (typed-array `set` between
 * arrays of one type copies bits, so staleness markers survive); element by element, the merge
 * of a day of 10,000 series from a segment and the head took a third of a second. (One
 * allocation for every series of a selection was tried: the worker then zeroed and faulted in
 * hundreds of megabytes at once, slower than the per-series arrays malloc reuses.)
 */
function concatRuns(runs: readonly SeriesColumns[]): SeriesColumns {
  let total = 0;
  let withHistograms = false;
  for (const run of runs) {
    total += run.timestampsMs.length;
    if (run.histograms !== undefined && run.timestampsMs.length > 0) withHistograms = true;
  }
  const timestampsMs = new Float64Array(total);
  const values = new Float64Array(total);
  const histograms = withHistograms ? new Array<FloatHistogram | undefined>(total) : undefined;
  let at = 0;
  for (const run of runs) {
    const n = run.timestampsMs.length;
    if (n === 0) continue;
    timestampsMs.set(run.timestampsMs, at);
    values.set(run.values, at);
    if (histograms !== undefined) for (let i = 0; i < n; i++) histograms[at + i] = run.histograms?.[i];
    at += n;
  }
  const merged: SeriesColumns = { labels: runs[runs.length - 1].labels, timestampsMs, values };
  if (histograms !== undefined) merged.histograms = histograms;
  // Runs known to hold no staleness marker join into one that holds none: the evaluator then skips its scan.
  if (runs.every((run) => run.staleFree === true || run.timestampsMs.length === 0)) merged.staleFree = true;
  if (joinsWithoutReset(runs)) merged.resetFree = true;
  return merged;
}

/** joinsWithoutReset tells whether runs known to be reset free stay so joined: no run starts below where the one before ended. */
function joinsWithoutReset(runs: readonly SeriesColumns[]): boolean {
  let previous: Float64Array | undefined;
  for (const run of runs) {
    if (run.timestampsMs.length === 0) continue;
    if (run.resetFree !== true) return false;
    if (previous !== undefined && run.values[0] < previous[previous.length - 1]) return false;
    previous = run.values;
  }
  return true;
}

function wordsOf(values: Float64Array): Uint32Array {
  return new Uint32Array(values.buffer, values.byteOffset, values.length * 2);
}

/** mergeTwo merges `older` and `newer`, keeping newer's sample where both have a timestamp. */
function mergeTwo(older: SeriesColumns, newer: SeriesColumns): SeriesColumns {
  const ta = older.timestampsMs;
  const tb = newer.timestampsMs;
  if (ta.length === 0) return newer;
  if (tb.length === 0) return older.histograms === undefined ? { labels: newer.labels, timestampsMs: ta, values: older.values } : { labels: newer.labels, timestampsMs: ta, values: older.values, histograms: older.histograms };
  const na = ta.length;
  const nb = tb.length;
  const outT = new Float64Array(na + nb);
  const outV = new Float64Array(na + nb);
  const aw = wordsOf(older.values);
  const bw = wordsOf(newer.values);
  const ow = wordsOf(outV);
  const ha = older.histograms;
  const hb = newer.histograms;
  const outH = ha === undefined && hb === undefined ? undefined : new Array<FloatHistogram | undefined>(na + nb);
  let i = 0;
  let j = 0;
  let k = 0;
  while (i < na || j < nb) {
    const takeNewer = i >= na || (j < nb && tb[j] <= ta[i]);
    if (takeNewer) {
      if (i < na && ta[i] === tb[j]) i++;
      outT[k] = tb[j];
      ow[2 * k] = bw[2 * j];
      ow[2 * k + 1] = bw[2 * j + 1];
      if (outH !== undefined) outH[k] = hb?.[j];
      j++;
    } else {
      outT[k] = ta[i];
      ow[2 * k] = aw[2 * i];
      ow[2 * k + 1] = aw[2 * i + 1];
      if (outH !== undefined) outH[k] = ha?.[i];
      i++;
    }
    k++;
  }
  const merged: SeriesColumns = { labels: newer.labels, timestampsMs: outT.subarray(0, k), values: outV.subarray(0, k) };
  if (outH !== undefined) merged.histograms = outH.slice(0, k);
  return merged;
}
