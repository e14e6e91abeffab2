import { packMetricChunk, type SeriesRun, type SharedMetricChunk } from './metricChunk.js';

/**
 * MetricHeadSnapshot is a metric head as of one moment, as worker tasks read it: its samples
 * in chunks of shared memory, each chunk holding what the series took after the previous one.
 * Posting it to a worker copies no sample.
 */
export interface MetricHeadSnapshot {
  chunks: readonly SharedMetricChunk[];
}

/**
 * METRIC_CHUNK_SAMPLES is the number of unsealed samples at which they are sealed into a chunk:
 * 1 MiB of timestamps and values, cheap to repack after each append, while a head of a few
 * hundred million samples is still only a few thousand chunks.
 */
export const METRIC_CHUNK_SAMPLES = 65_536;

/** HeadState is what a head tells its snapshots about itself when asked for one. */
export interface HeadState {
  /** version changes with every append (the head's sample count). */
  version: number;
  /** disorders counts appends that went back in time in a series, which rewrites it. */
  disorders: number;
  /** series lists every series, sorted with one sample per timestamp, ascending by ref; views valid until the next append. */
  series: () => readonly SeriesRun[];
}

/**
 * MetricHeadSnapshots packs one metric head for worker tasks, once per change. A series
 * normally grows only at its end, so each sealed chunk takes, from every series, the samples
 * after those in earlier chunks: the chunks of a series follow each other in time, and a
 * reader concatenates them. The samples after the last sealed chunk (the open tail) are
 * packed again only when the head has taken appends since the previous snapshot; between
 * appends every task of every query gets the same snapshot.
 *
 * A sample older than its series' newest rewrites the series (it is sorted in, and may
 * replace a sample at the same time), so sealed chunks would no longer be a prefix of it: the
 * next snapshot then drops them and packs the head afresh. Out-of-order writes into the head
 * are rare; while they last, the head is packed once per change, never once per task.
 *
 * Memory: the sealed chunks (16 bytes per sample, as the head) live as long as the head; of
 * the tails, only the newest is kept here, and an older one lives only while a task that was
 * given it still runs.
 */
export class MetricHeadSnapshots {
  private sealed: SharedMetricChunk[] = [];
  /** sealedUpTo[ref] is how many of the series' samples the sealed chunks hold. */
  private sealedUpTo: number[] = [];
  private disordersSeen = 0;
  private latest: { version: number; snapshot: MetricHeadSnapshot } | undefined;
  /** chunksPacked counts every chunk packed (sealed or tail), to tell reuse from repacking. */
  chunksPacked = 0;

  constructor(private readonly chunkSamples: number = METRIC_CHUNK_SAMPLES) {}

  snapshot(head: HeadState): MetricHeadSnapshot {
    if (this.latest?.version === head.version && head.disorders === this.disordersSeen) return this.latest.snapshot;
    if (head.disorders !== this.disordersSeen) {
      this.sealed = [];
      this.sealedUpTo = [];
      this.disordersSeen = head.disorders;
    }
    const runs: SeriesRun[] = [];
    let pending = 0;
    for (const s of head.series()) {
      const from = this.sealedUpTo[s.ref] ?? 0;
      const to = s.timestampsMs.length;
      if (to <= from) continue;
      const run: SeriesRun = { ref: s.ref, labels: s.labels, timestampsMs: s.timestampsMs.subarray(from, to), values: s.values.subarray(from, to) };
      if (s.histograms !== undefined) run.histograms = s.histograms.slice(from, to);
      runs.push(run);
      pending += to - from;
    }
    let chunks: SharedMetricChunk[];
    if (pending >= this.chunkSamples) {
      this.sealed.push(this.pack(runs));
      for (const r of runs) this.sealedUpTo[r.ref] = (this.sealedUpTo[r.ref] ?? 0) + r.timestampsMs.length;
      chunks = [...this.sealed];
    } else {
      chunks = runs.length > 0 ? [...this.sealed, this.pack(runs)] : [...this.sealed];
    }
    const snapshot = { chunks };
    this.latest = { version: head.version, snapshot };
    return snapshot;
  }

  /** packedBytes is the shared memory held here: sealed chunks and the newest tail. */
  get packedBytes(): number {
    let n = 0;
    for (const c of this.latest?.snapshot.chunks ?? this.sealed) n += c.timestampsMs.buffer.byteLength;
    return n;
  }

  private pack(runs: readonly SeriesRun[]): SharedMetricChunk {
    this.chunksPacked++;
    return packMetricChunk(runs);
  }
}
