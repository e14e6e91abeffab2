import { lowerBound, upperBound } from '../storage/bounds.js';
import type { Labels } from '../storage/labels.js';
import { compileMatchers, matchesAll, type LabelMatcher } from '../storage/matchers.js';
import type { FloatHistogram } from '../histogram/floatHistogram.js';
import { chunkHistograms, unpackChunkLabels, type SharedMetricChunk } from '../storage/metricChunk.js';
import type { LabelSetVisitor, Reach } from '../storage/metricHead.js';
import type { SeriesColumns } from '../storage/seriesColumns.js';
import type { MetricHeadSnapshot } from '../storage/metricHeadSnapshots.js';
import type { SeriesPartition } from '../storage/partition.js';
import { ValueFactsMemo } from '../storage/valueFacts.js';
import { gatherSeries } from './gather.js';

/**
 * DECODED_CHUNKS_KEPT bounds the chunks whose label sets (and facts about their values) a worker
 * keeps between tasks. Only what was derived is kept, never the chunk itself, so a snapshot's
 * shared memory is released once the tasks that were given it are done.
 */
const DECODED_CHUNKS_KEPT = 1024;

/**
 * DecodedChunk is what a worker derives from a chunk and keeps: its label sets, and per series
 * whether its values hold a staleness marker or a counter reset (found when first asked), so
 * range functions over the head skip those scans as they do over segments.
 */
interface DecodedChunk {
  labels: Labels[];
  facts: ValueFactsMemo;
}

const decodedChunks = new Map<string, DecodedChunk>();

function decodedChunkOf(chunk: SharedMetricChunk): DecodedChunk {
  let decoded = decodedChunks.get(chunk.id);
  if (decoded) decodedChunks.delete(chunk.id);
  else decoded = { labels: unpackChunkLabels(chunk), facts: new ValueFactsMemo() };
  // Re-inserted as the most recently used.
  decodedChunks.set(chunk.id, decoded);
  if (decodedChunks.size > DECODED_CHUNKS_KEPT) decodedChunks.delete(decodedChunks.keys().next().value!);
  return decoded;
}

/** Run is one series' samples in one chunk within a window: [from, to) of the chunk's arrays. */
interface Run {
  chunk: SharedMetricChunk;
  /** facts are the chunk's (DecodedChunk.facts). */
  facts: ValueFactsMemo;
  /** series is the series' row in the chunk */
  series: number;
  from: number;
  to: number;
}

/** Found is one series reached by a read: its labels and its runs, oldest chunk first. */
interface Found {
  ref: number;
  labels: Labels;
  runs: Run[];
}

/**
 * SnapshotMetricReader serves a worker's reads of one metric head from the head's snapshot
 * (see metricHeadSnapshots.ts), answering exactly as the live head did when the snapshot was
 * taken: series in head order, each with its samples ascending. A series' chunks follow each
 * other in time, so its samples are its runs concatenated; a series in one chunk only is
 * answered with views of the shared memory, copying nothing. With `only`, it reads one shard
 * of the series.
 */
export class SnapshotMetricReader {
  private distinctSeries: number | undefined;
  /** inShard remembers, per series ref, whether `only` takes it. */
  private readonly inShard = new Map<number, boolean>();

  constructor(
    private readonly head: MetricHeadSnapshot,
    private readonly only?: SeriesPartition,
  ) {}

  get seriesCount(): number {
    if (this.distinctSeries === undefined) {
      const refs = new Set<number>();
      for (const c of this.head.chunks) for (const r of c.refs) refs.add(r);
      this.distinctSeries = refs.size;
    }
    return this.distinctSeries;
  }

  /** snapshot is the snapshot read: sharing it again shares the same memory. */
  snapshot(): MetricHeadSnapshot {
    return this.head;
  }

  /** countSamples is MetricHead.countSamples, on the worker (where it is not on any hot path). */
  countSamples(selections: ReadonlyArray<{ matchers: readonly LabelMatcher[]; minMs: number; maxMs: number }>): number {
    return this.countReach(selections).samples;
  }

  /** countReach is MetricHead.countReach, on the worker. */
  countReach(selections: ReadonlyArray<{ matchers: readonly LabelMatcher[]; minMs: number; maxMs: number }>): Reach {
    let samples = 0;
    let series = 0;
    for (const s of gatherSeries(this, selections.map((s) => ({ ...s, matchers: [...s.matchers] })))) {
      samples += s.timestampsMs.length;
      if (s.timestampsMs.length > 0) series++;
    }
    return { samples, series };
  }

  select(matchers: readonly LabelMatcher[], minMs: number, maxMs: number): SeriesColumns[] {
    const found = this.find(matchers, minMs, maxMs);
    const out: SeriesColumns[] = new Array(found.length);
    let previous: Float64Array | undefined;
    for (let i = 0; i < found.length; i++) {
      out[i] = concatenate(found[i], previous);
      previous = out[i].timestampsMs;
    }
    return out;
  }

  labelNames(matchers: readonly LabelMatcher[], minMs: number, maxMs: number): string[] {
    const names = new Set<string>();
    for (const s of this.find(matchers, minMs, maxMs)) for (const n in s.labels) names.add(n);
    return [...names].sort();
  }

  labelValues(name: string, matchers: readonly LabelMatcher[], minMs: number, maxMs: number): string[] {
    const values = new Set<string>();
    for (const s of this.find(matchers, minMs, maxMs)) if (s.labels[name] !== undefined) values.add(s.labels[name]);
    return [...values].sort();
  }

  forEachLabelSet(matchers: readonly LabelMatcher[], minMs: number, maxMs: number, visit: LabelSetVisitor): void {
    for (const s of this.find(matchers, minMs, maxMs)) if (visit(s.labels) === false) return;
  }

  /** find locates the runs of every matching series with samples in [minMs, maxMs], copying none. */
  private find(matchers: readonly LabelMatcher[], minMs: number, maxMs: number): Found[] {
    const compiled = compileMatchers(matchers);
    const wanted = new Map<number, boolean>();
    const found = new Map<number, Found>();
    for (const chunk of this.head.chunks) {
      if (chunk.maxMs < minMs || chunk.minMs > maxMs) continue;
      const { labels, facts } = decodedChunkOf(chunk);
      const { refs, offsets, timestampsMs } = chunk;
      for (let i = 0; i < refs.length; i++) {
        const ref = refs[i];
        let want = wanted.get(ref);
        if (want === undefined) {
          want = matchesAll(labels[i], compiled) && this.takes(ref, labels[i]);
          wanted.set(ref, want);
        }
        if (!want) continue;
        const start = offsets[i];
        const end = offsets[i + 1];
        if (timestampsMs[start] > maxMs || timestampsMs[end - 1] < minMs) continue;
        const from = start + lowerBound(timestampsMs.subarray(start, end), minMs);
        const to = start + upperBound(timestampsMs.subarray(start, end), maxMs);
        if (to <= from) continue;
        const seen = found.get(ref);
        if (seen) seen.runs.push({ chunk, facts, series: i, from, to });
        else found.set(ref, { ref, labels: labels[i], runs: [{ chunk, facts, series: i, from, to }] });
      }
    }
    return [...found.values()].sort((a, b) => a.ref - b.ref);
  }

  private takes(ref: number, labels: Labels): boolean {
    if (!this.only) return true;
    let yes = this.inShard.get(ref);
    if (yes === undefined) {
      yes = this.only.of(labels, this.only.count) === this.only.index;
      this.inShard.set(ref, yes);
    }
    return yes;
  }
}

/**
 * concatenate answers a series' runs as one: views when it has one run, else a copy of the runs
 * in order. Series scraped together follow each other in the head with the same timestamps;
 * such a series is answered with the timestamp array of the one before (`previous`), as a
 * segment's reader shares one column among them, so range functions find their windows once.
 */
function concatenate(found: Found, previous: Float64Array | undefined): SeriesColumns {
  const out = concatenateFloats(found, previous);
  const histograms = histogramsOf(found.runs);
  if (histograms !== undefined) out.histograms = histograms;
  return out;
}

/** histogramsOf decodes the runs' histogram slots, or answers undefined when no run holds a histogram. */
function histogramsOf(runs: readonly Run[]): (FloatHistogram | undefined)[] | undefined {
  let total = 0;
  for (const r of runs) total += r.to - r.from;
  let out: (FloatHistogram | undefined)[] | undefined;
  let at = 0;
  for (const { chunk, series, from, to } of runs) {
    const slots = chunkHistograms(chunk, series);
    if (slots !== undefined) {
      out ??= new Array<FloatHistogram | undefined>(total).fill(undefined);
      const start = chunk.offsets[series];
      for (let k = from; k < to; k++) out[at + k - from] = slots[k - start];
    }
    at += to - from;
  }
  return out;
}

function concatenateFloats(found: Found, previous: Float64Array | undefined): SeriesColumns {
  let n = 0;
  for (const r of found.runs) n += r.to - r.from;
  const shared = previous !== undefined && previous.length === n && sameTimestamps(found.runs, previous) ? previous : undefined;
  if (found.runs.length === 1) {
    const run = found.runs[0];
    const { chunk, from, to } = run;
    const one: SeriesColumns = { labels: found.labels, timestampsMs: shared ?? chunk.timestampsMs.subarray(from, to), values: chunk.values.subarray(from, to) };
    one.staleFree = run.facts.staleFree(run.series, () => seriesValues(run));
    one.resetFree = run.facts.resetFree(run.series, () => seriesValues(run));
    return one;
  }
  const timestampsMs = shared ?? new Float64Array(n);
  const values = new Float64Array(n);
  let staleFree = true;
  let resetFree = true;
  let at = 0;
  for (const run of found.runs) {
    const { chunk, from, to } = run;
    if (shared === undefined) timestampsMs.set(chunk.timestampsMs.subarray(from, to), at);
    values.set(chunk.values.subarray(from, to), at);
    staleFree &&= run.facts.staleFree(run.series, () => seriesValues(run));
    // A run that starts below where the one before ended makes a reset at the join.
    resetFree &&= run.facts.resetFree(run.series, () => seriesValues(run)) && !(at > 0 && values[at] < values[at - 1]);
    at += to - from;
  }
  return { labels: found.labels, timestampsMs, values, staleFree, resetFree };
}

/** seriesValues are all of a run's series' values in its chunk: what the chunk's facts describe. */
function seriesValues(run: Run): Float64Array {
  const { chunk, series } = run;
  return chunk.values.subarray(chunk.offsets[series], chunk.offsets[series + 1]);
}

/** sameTimestamps tells whether the runs' timestamps, in order, are exactly `timestamps`, which holds as many. */
function sameTimestamps(runs: readonly Run[], timestamps: Float64Array): boolean {
  let at = 0;
  for (const { chunk, from, to } of runs) {
    const source = chunk.timestampsMs;
    for (let k = from; k < to; k++) if (source[k] !== timestamps[at++]) return false;
  }
  return true;
}
