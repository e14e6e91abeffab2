import type { FloatHistogram } from '../histogram/floatHistogram.js';
import { storedHint } from '../histogram/storedHints.js';
import { lowerBound, upperBound } from './bounds.js';
import { GrowableFloat64 } from './growable.js';
import { METRIC_NAME, labelsKey, sortLabels, type Labels } from './labels.js';
import { compileMatchers, matchesAll, type LabelMatcher } from './matchers.js';
import type { SeriesColumns } from './seriesColumns.js';
import type { SeriesRuns } from './seriesMerge.js';
import type { SeriesRun } from './metricChunk.js';
import { METRIC_CHUNK_SAMPLES, MetricHeadSnapshots, type MetricHeadSnapshot } from './metricHeadSnapshots.js';
import { STALE_HI, STALE_LO, bitsOf, isStale } from './staleness.js';

/** Reach is what a read reaches: its samples and the series they are in. */
export interface Reach {
  samples: number;
  series: number;
}


/**
 * MetricQuerier is how the PromQL engine reads samples: select series by matchers over a time
 * range. The head, segments and the conformance loader all answer through it.
 */
export interface MetricQuerier {
  select(matchers: readonly LabelMatcher[], minMs: number, maxMs: number): SeriesColumns[];
  /**
   * selectRuns, where a querier has it, is `select` with each series' runs from different
   * sources left apart when they follow each other in time; range functions read it.
   */
  selectRuns?(matchers: readonly LabelMatcher[], minMs: number, maxMs: number): SeriesRuns[];
  labelNames(matchers: readonly LabelMatcher[], minMs: number, maxMs: number): string[];
  labelValues(name: string, matchers: readonly LabelMatcher[], minMs: number, maxMs: number): string[];
}

/**
 * LabelSetVisitor receives one series' label set; returning false stops the scan, so a
 * listing with a limit stops as soon as it has its answer.
 */
export type LabelSetVisitor = (labels: Labels) => boolean | void;

/**
 * SeriesLabelReader lists series label sets without touching their samples: label browsers
 * need only which series exist in a window, not copies of their values as `select` makes.
 */
export interface SeriesLabelReader {
  /** forEachLabelSet visits each series matching `matchers` that has a sample in [minMs, maxMs]. */
  forEachLabelSet(matchers: readonly LabelMatcher[], minMs: number, maxMs: number, visit: LabelSetVisitor): void;
}

/**
 * MetricSeries is one series of one write: its labels and its samples in time order, as the
 * decoders produce it and the head appends it. It is not SeriesColumns: the labels are as the
 * sender wrote them (not yet sorted, empty values not yet dropped, still mutable while a
 * decoder assembles them) and staleness markers ride alongside, so the write path validates
 * and normalizes before anything is stored.
 */
export interface MetricSeries {
  /** full label set including __name__ */
  labels: Record<string, string>;
  timestampsMs: Float64Array;
  values: Float64Array;
  /** Prometheus staleness markers are a special NaN; flagged here so no NaN-bit games are needed */
  stale?: Uint8Array;
  /**
   * histograms[i] is set where sample i is a native histogram (values[i] is then 0). A series
   * may switch between floats and histograms from one timestamp to the next, as Prometheus
   * allows; a later write of a timestamp replaces the earlier sample whatever either's kind.
   */
  histograms?: readonly (FloatHistogram | undefined)[];
  /**
   * key is the label set's canonical key (`seriesKey`) when the write path already computed it
   * (the series limit check does), so the head does not sort and join the labels again. Held
   * in memory only: the WAL and the write log never carry it.
   */
  key?: string;
}

/**
 * LastSampleLookup answers the newest timestamp already stored of the series with these
 * labels: -Infinity when none is, undefined when the process cannot know (it does not hold
 * every write in its heads).
 */
export type LastSampleLookup = (labels: Record<string, string>) => number | undefined;

/** seriesKey is the key a head knows a series by: its labels sorted, empty values dropped, joined. */
export function seriesKey(labels: Record<string, string>): string {
  return labelsKey(sortLabels(labels));
}

/** SERIES_OVERHEAD_BYTES is a series' memory beyond its samples: labels, key and map entries. */
const SERIES_OVERHEAD_BYTES = 256;

class HeadSeries {
  readonly timestamps = new GrowableFloat64(8);
  readonly values = new GrowableFloat64(8);
  /** hists has a slot per sample once the series took its first histogram; undefined before. */
  hists: (FloatHistogram | undefined)[] | undefined;
  /** sorted is false after an out-of-order append, until the next read sorts the samples. */
  sorted = true;
  /** lastMs is the newest timestamp appended, kept as samples come so it costs no search. */
  lastMs = -Infinity;

  constructor(
    readonly ref: number,
    readonly labels: Labels,
  ) {}

  append(ts: number, value: number, stale: boolean, histogram: FloatHistogram | undefined): void {
    const n = this.timestamps.length;
    if (n > 0 && ts <= this.timestamps.last()!) this.sorted = false;
    if (ts > this.lastMs) this.lastMs = ts;
    this.timestamps.push(ts);
    if (stale) this.values.pushBits(STALE_LO, STALE_HI);
    else this.values.push(histogram === undefined ? value : 0);
    if (histogram !== undefined && this.hists === undefined) this.hists = new Array<FloatHistogram | undefined>(n).fill(undefined);
    this.hists?.push(stale || histogram === undefined ? undefined : this.hinted(histogram, n));
  }

  /**
   * appendFloats appends plain float samples (no staleness marker, no histogram, in a series
   * that has taken no histogram) with one copy per column: the common remote write case.
   */
  appendFloats(timestamps: Float64Array, values: Float64Array): void {
    let previous = this.timestamps.last() ?? -Infinity;
    let newest = this.lastMs;
    let sorted = this.sorted;
    for (let i = 0; i < timestamps.length; i++) {
      const t = timestamps[i];
      if (t <= previous) sorted = false;
      if (t > newest) newest = t;
      previous = t;
    }
    this.sorted = sorted;
    this.lastMs = newest;
    this.timestamps.pushAll(timestamps);
    this.values.pushAll(values);
  }

  /**
   * hinted gives a histogram appended after sample n-1 the counter reset hint Prometheus' TSDB
   * reads back (see engine/histogram/storedHints.ts). Kept with the sample, so the WAL, segments
   * and every read agree. Out-of-order appends keep their hint as sent.
   */
  private hinted(h: FloatHistogram, n: number): FloatHistogram {
    if (!this.sorted) return h;
    const hint = storedHint(h, n === 0 ? undefined : this.hists?.[n - 1]);
    return hint === h.counterResetHint ? h : { ...h, counterResetHint: hint };
  }

  /** histogramsIn is the histogram slots of samples [from, end), or undefined for a float-only series. */
  histogramsIn(from: number, end: number): (FloatHistogram | undefined)[] | undefined {
    return this.hists?.slice(from, end);
  }

  /**
   * normalize sorts samples by time with arrival order breaking ties, then keeps the last
   * sample per timestamp: a later write of the same timestamp wins, and a replayed duplicate
   * (same timestamp, same value) collapses into one sample.
   */
  normalize(): void {
    if (this.sorted) return;
    const ts = this.timestamps.view();
    const vals = this.values.view();
    const order = Array.from({ length: ts.length }, (_, i) => i).sort((a, b) => ts[a] - ts[b] || a - b);
    const outTs = new Float64Array(ts.length);
    const outVals = new Float64Array(ts.length);
    const inBits = bitsOf(vals);
    const outBits = bitsOf(outVals);
    const hists = this.hists;
    const outHists = hists === undefined ? undefined : new Array<FloatHistogram | undefined>(ts.length);
    let n = 0;
    for (const i of order) {
      if (n > 0 && outTs[n - 1] === ts[i]) n--;
      outTs[n] = ts[i];
      if (outHists !== undefined) outHists[n] = hists![i];
      outBits[2 * n] = inBits[2 * i];
      outBits[2 * n + 1] = inBits[2 * i + 1];
      n++;
    }
    this.timestamps.replace(outTs.slice(0, n));
    this.values.replace(outVals.slice(0, n));
    if (outHists !== undefined) this.hists = outHists.slice(0, n);
    this.sorted = true;
  }
}



/**
 * MetricHead holds one org's recent samples in memory, appendable and queryable at once.
 * Series are found through a postings map from metric name, so a selector with a name
 * (nearly all of them) looks only at that metric's series.
 */
export class MetricHead implements MetricQuerier, SeriesLabelReader {
  private readonly series = new Map<string, HeadSeries>();
  private readonly byName = new Map<string, HeadSeries[]>();
  private nextRef = 1;
  /** disorders counts appends that made a series unsorted: they rewrite samples a snapshot may hold. */
  private disorders = 0;
  /** snapshots packs this head for worker tasks, once per change (see metricHeadSnapshots.ts). */
  private readonly snapshots: MetricHeadSnapshots;
  sampleCount = 0;
  minMs = Infinity;
  maxMs = -Infinity;

  /** `chunkSamples` says when snapshot samples are sealed into a chunk; tests make it small. */
  constructor(chunkSamples: number = METRIC_CHUNK_SAMPLES) {
    this.snapshots = new MetricHeadSnapshots(chunkSamples);
  }

  append(input: MetricSeries): void {
    const key = input.key ?? seriesKey(input.labels);
    let s = this.series.get(key);
    if (!s) {
      const labels = sortLabels(input.labels);
      s = new HeadSeries(this.nextRef++, labels);
      this.series.set(key, s);
      const name = labels[METRIC_NAME] ?? '';
      const list = this.byName.get(name);
      if (list) list.push(s);
      else this.byName.set(name, [s]);
    }
    const { timestampsMs, values, stale, histograms } = input;
    const wasSorted = s.sorted;
    if (stale === undefined && histograms === undefined && s.hists === undefined) {
      s.appendFloats(timestampsMs, values);
    } else {
      for (let i = 0; i < timestampsMs.length; i++) s.append(timestampsMs[i], values[i], stale !== undefined && stale[i] === 1, histograms?.[i]);
    }
    for (let i = 0; i < timestampsMs.length; i++) {
      const t = timestampsMs[i];
      if (t < this.minMs) this.minMs = t;
      if (t > this.maxMs) this.maxMs = t;
    }
    if (wasSorted && !s.sorted) this.disorders++;
    this.sampleCount += timestampsMs.length;
  }

  get seriesCount(): number {
    return this.series.size;
  }

  /** hasSeries tells whether the head already holds the series with these labels. */
  hasSeries(labels: Record<string, string>): boolean {
    return this.series.has(seriesKey(labels));
  }

  /**
   * lastSampleMs is the newest timestamp the head holds for the series of this `seriesKey`, or
   * undefined when it holds none. Created-timestamp zeros are only added after it.
   */
  lastSampleMs(key: string): number | undefined {
    return this.series.get(key)?.lastMs;
  }

  /** hasKey tells whether the head holds the series of this `seriesKey`. */
  hasKey(key: string): boolean {
    return this.series.has(key);
  }

  private candidates(matchers: readonly LabelMatcher[]): Iterable<HeadSeries> {
    const byName = matchers.find((m) => m.name === METRIC_NAME && m.type === '=');
    if (byName) return this.byName.get(byName.value) ?? [];
    return this.series.values();
  }

  private matching(matchers: readonly LabelMatcher[]): HeadSeries[] {
    const compiled = compileMatchers(matchers);
    const out: HeadSeries[] = [];
    for (const s of this.candidates(matchers)) if (matchesAll(s.labels, compiled)) out.push(s);
    return out;
  }

  select(matchers: readonly LabelMatcher[], minMs: number, maxMs: number): SeriesColumns[] {
    const out: SeriesColumns[] = [];
    for (const s of this.matching(matchers)) {
      s.normalize();
      const ts = s.timestamps.view();
      const from = lowerBound(ts, minMs);
      const end = upperBound(ts, maxMs);
      if (end <= from) continue;
      // slice copies: readers (and worker threads) get stable arrays while appends continue.
      out.push(withHistograms({ labels: s.labels, timestampsMs: ts.slice(from, end), values: s.values.view().slice(from, end) }, s.histogramsIn(from, end)));
    }
    return out;
  }

  labelNames(matchers: readonly LabelMatcher[], minMs: number, maxMs: number): string[] {
    const names = new Set<string>();
    for (const s of this.select(matchers, minMs, maxMs)) for (const n in s.labels) names.add(n);
    return [...names].sort();
  }

  labelValues(name: string, matchers: readonly LabelMatcher[], minMs: number, maxMs: number): string[] {
    const values = new Set<string>();
    for (const s of this.select(matchers, minMs, maxMs)) {
      const v = s.labels[name];
      if (v !== undefined) values.add(v);
    }
    return [...values].sort();
  }

  /**
   * forEachLabelSet checks each candidate series' window with two binary searches and hands
   * out the series' own label object, so the scan copies no samples and allocates nothing per
   * series.
   */
  forEachLabelSet(matchers: readonly LabelMatcher[], minMs: number, maxMs: number, visit: LabelSetVisitor): void {
    const compiled = compileMatchers(matchers);
    for (const s of this.candidates(matchers)) {
      if (!matchesAll(s.labels, compiled)) continue;
      s.normalize();
      const ts = s.timestamps.view();
      if (upperBound(ts, maxMs) <= lowerBound(ts, minMs)) continue;
      if (visit(s.labels) === false) return;
    }
  }

  /**
   * countSamples counts the samples the selections reach, a sample reached by two of them
   * once, without copying any: it sizes a query's share of the head.
   */
  countSamples(selections: ReadonlyArray<{ matchers: readonly LabelMatcher[]; minMs: number; maxMs: number }>): number {
    return this.countReach(selections).samples;
  }

  /** countReach is countSamples with the number of series those samples are in. */
  countReach(selections: ReadonlyArray<{ matchers: readonly LabelMatcher[]; minMs: number; maxMs: number }>): Reach {
    const windows = new Map<HeadSeries, Array<[number, number]>>();
    for (const sel of selections) {
      for (const s of this.matching(sel.matchers)) {
        const list = windows.get(s);
        if (list) list.push([sel.minMs, sel.maxMs]);
        else windows.set(s, [[sel.minMs, sel.maxMs]]);
      }
    }
    let samples = 0;
    let series = 0;
    for (const [s, list] of windows) {
      s.normalize();
      const ts = s.timestamps.view();
      list.sort((a, b) => a[0] - b[0]);
      let [lo, hi] = list[0];
      const before = samples;
      for (let i = 1; i <= list.length; i++) {
        if (i < list.length && list[i][0] <= hi) {
          hi = Math.max(hi, list[i][1]);
          continue;
        }
        samples += Math.max(0, upperBound(ts, hi) - lowerBound(ts, lo));
        if (i < list.length) [lo, hi] = list[i];
      }
      if (samples > before) series++;
    }
    return { samples, series };
  }

  /**
   * snapshot answers the head as worker tasks read it: its samples packed into shared memory,
   * the same snapshot for every task until the next append, which repacks only the open tail.
   */
  snapshot(): MetricHeadSnapshot {
    return this.snapshots.snapshot({ version: this.sampleCount, disorders: this.disorders, series: () => this.seriesRuns() });
  }

  /** snapshotStats says how much shared memory the snapshots hold and how many chunks were ever packed. */
  get snapshotStats(): { packedBytes: number; chunksPacked: number } {
    return { packedBytes: this.snapshots.packedBytes, chunksPacked: this.snapshots.chunksPacked };
  }

  private seriesRuns(): SeriesRun[] {
    const out: SeriesRun[] = [];
    for (const s of this.series.values()) {
      s.normalize();
      out.push(withHistograms({ ref: s.ref, labels: s.labels, timestampsMs: s.timestamps.view(), values: s.values.view() }, s.hists));
    }
    return out;
  }

  /** estimatedBytes approximates the head's memory, to decide when it is worth cutting into a segment. */
  get estimatedBytes(): number {
    return this.sampleCount * 16 + this.series.size * SERIES_OVERHEAD_BYTES;
  }

  /**
   * seriesViews lists every series with all its samples as views of the head's own arrays
   * (sorted, one sample per timestamp), for writing a segment without another copy. Callers
   * read them only once the head takes no more appends.
   */
  seriesViews(): SeriesColumns[] {
    const out: SeriesColumns[] = [];
    for (const s of this.series.values()) {
      s.normalize();
      out.push(withHistograms({ labels: s.labels, timestampsMs: s.timestamps.view(), values: s.values.view() }, s.hists));
    }
    return out;
  }

  /** allSeries lists every series with all its samples, for cutting the head into a segment. */
  allSeries(): SeriesColumns[] {
    const out: SeriesColumns[] = [];
    for (const s of this.series.values()) {
      s.normalize();
      out.push(withHistograms({ labels: s.labels, timestampsMs: s.timestamps.view().slice(), values: s.values.view().slice() }, s.hists?.slice()));
    }
    return out;
  }
}

/** withHistograms sets a series' histogram slots when it has any, leaving float-only series as they were. */
function withHistograms<T extends SeriesColumns>(series: T, hists: readonly (FloatHistogram | undefined)[] | undefined): T {
  if (hists !== undefined) series.histograms = hists;
  return series;
}

export { isStale, bitsOf };

export { lowerBound, upperBound };
