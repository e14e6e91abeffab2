import { ArrowSection, float64Data, tableToFileBytes, uint32Data, utf8Data } from './arrowColumns.js';
import { METRIC_NAME, labelsKey, type Labels } from './labels.js';
import { matchesAll, type CompiledMatcher, type LabelMatcher } from './matchers.js';
import { lowerBound, upperBound } from './metricHead.js';
import type { SeriesColumns } from './seriesColumns.js';
import type { SeriesPartition } from './partition.js';
import { SegmentFormatError, decodeSegmentFile, encodeSegmentFile, type ChecksumPolicy } from './segmentFormat.js';

/**
 * A metric segment holds two Arrow tables:
 *
 * - series: one row per series, sorted by label set: `labels` (canonical JSON of the sorted
 *   labels), `first` and `count` (the series' run of sample rows), `minT`/`maxT` (ms).
 * - samples: sorted by (series, time): `series` (Uint32, the series row), `t` (Float64 ms),
 *   `v` (Float64, copied bit for bit so staleness markers survive).
 *
 * One series' samples are therefore one contiguous run, and reading it is a subarray of the
 * file's bytes.
 */

/** EncodedMetricSegment is a finished segment file and the facts the catalog keeps about it. */
export interface EncodedMetricSegment {
  bytes: Uint8Array;
  crc: number;
  rows: number;
  seriesCount: number;
  minMs: number;
  maxMs: number;
  metricNames: string[];
}

/**
 * encodeMetricSegment writes series (each already sorted by time with unique timestamps, as
 * `MetricHead` and `mergeSeriesRuns` produce them) into a segment; series with no samples are
 * left out. Returns undefined when there is nothing to write.
 */
export function encodeMetricSegment(input: readonly SeriesColumns[]): EncodedMetricSegment | undefined {
  const series = input.filter((s) => s.timestampsMs.length > 0).map((s) => ({ s, key: labelsKey(s.labels) }));
  if (series.length === 0) return undefined;
  series.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  let total = 0;
  for (const { s } of series) total += s.timestampsMs.length;
  const sampleSeries = new Uint32Array(total);
  const t = new Float64Array(total);
  const v = new Float64Array(total);
  const first = new Uint32Array(series.length);
  const count = new Uint32Array(series.length);
  const minT = new Float64Array(series.length);
  const maxT = new Float64Array(series.length);
  const labels: string[] = new Array(series.length);
  const names = new Set<string>();
  let at = 0;
  let minMs = Infinity;
  let maxMs = -Infinity;
  series.forEach(({ s }, i) => {
    const n = s.timestampsMs.length;
    first[i] = at;
    count[i] = n;
    minT[i] = s.timestampsMs[0];
    maxT[i] = s.timestampsMs[n - 1];
    if (minT[i] < minMs) minMs = minT[i];
    if (maxT[i] > maxMs) maxMs = maxT[i];
    sampleSeries.fill(i, at, at + n);
    t.set(s.timestampsMs, at);
    // Same-type set copies bytes, so NaN payloads (staleness markers) are preserved.
    v.set(s.values, at);
    labels[i] = JSON.stringify(s.labels);
    names.add(s.labels[METRIC_NAME] ?? '');
    at += n;
  });
  const seriesTable = tableToFileBytes([
    { name: 'labels', data: utf8Data(labels) },
    { name: 'first', data: uint32Data(first) },
    { name: 'count', data: uint32Data(count) },
    { name: 'minT', data: float64Data(minT) },
    { name: 'maxT', data: float64Data(maxT) },
  ]);
  const samplesTable = tableToFileBytes([
    { name: 'series', data: uint32Data(sampleSeries) },
    { name: 't', data: float64Data(t) },
    { name: 'v', data: float64Data(v) },
  ]);
  const { bytes, crc } = encodeSegmentFile([seriesTable, samplesTable]);
  return { bytes, crc, rows: total, seriesCount: series.length, minMs, maxMs, metricNames: [...names].sort() };
}

/**
 * MetricSegmentReader answers series selections from one decoded segment. Label sets are
 * parsed once when the segment is opened; sample arrays are views into the file's bytes and
 * must be treated as read-only.
 */
export class MetricSegmentReader {
  private readonly byName = new Map<string, number[]>();

  private constructor(
    readonly labels: Labels[],
    private readonly first: Uint32Array,
    private readonly count: Uint32Array,
    private readonly minT: Float64Array,
    private readonly maxT: Float64Array,
    private readonly t: Float64Array,
    private readonly v: Float64Array,
    /** bytes is the whole file, which the reader's arrays are views into; shareable with worker threads. */
    readonly bytes: Uint8Array,
  ) {
    labels.forEach((l, i) => {
      const name = l[METRIC_NAME] ?? '';
      const list = this.byName.get(name);
      if (list) list.push(i);
      else this.byName.set(name, [i]);
    });
  }

  /** decode checks the file (checksum, version, layout) and builds the reader without copying samples. */
  static decode(bytes: Uint8Array, expectedCrc?: number, checksum: ChecksumPolicy = 'verify'): MetricSegmentReader {
    const sections = decodeSegmentFile(bytes, expectedCrc, checksum);
    if (sections.length !== 2) throw new SegmentFormatError(`metric segment has ${sections.length} sections, expected 2`);
    const seriesTable = ArrowSection.parse(sections[0], 'series table');
    const samples = ArrowSection.parse(sections[1], 'samples table');
    const labels = seriesTable.strings('labels').map((json) => JSON.parse(json) as Labels);
    const first = seriesTable.uint32('first');
    const count = seriesTable.uint32('count');
    const t = samples.float64('t');
    const v = samples.float64('v');
    for (let i = 0; i < labels.length; i++) {
      if (first[i] + count[i] > t.length) throw new SegmentFormatError(`series ${i} points past the samples table`);
    }
    return new MetricSegmentReader(labels, first, count, seriesTable.float64('minT'), seriesTable.float64('maxT'), t, v, bytes);
  }

  /** byteSize is what the reader keeps alive (the file's bytes), for cache accounting. */
  get byteSize(): number {
    return this.bytes.byteLength;
  }

  get seriesCount(): number {
    return this.labels.length;
  }

  /** candidates narrows to one metric's series when the selector names it, as the head's postings do. */
  private candidates(matchers: readonly LabelMatcher[]): Iterable<number> {
    const byName = matchers.find((m) => m.name === METRIC_NAME && m.type === '=');
    if (byName) return this.byName.get(byName.value) ?? [];
    return this.labels.keys();
  }

  /** window returns the sample rows of series i within [minMs, maxMs] as [from, end). */
  private window(i: number, minMs: number, maxMs: number): [number, number] {
    if (this.maxT[i] < minMs || this.minT[i] > maxMs) return [0, 0];
    const start = this.first[i];
    const ts = this.t.subarray(start, start + this.count[i]);
    return [start + lowerBound(ts, minMs), start + upperBound(ts, maxMs)];
  }

  /**
   * select returns matching series' samples in [minMs, maxMs] as zero-copy views; with `only`,
   * just the series that predicate places (a worker's shard), decided once per series and reused.
   */
  select(matchers: readonly LabelMatcher[], compiled: readonly CompiledMatcher[], minMs: number, maxMs: number, only?: SeriesPartition): SeriesColumns[] {
    const out: SeriesColumns[] = [];
    const parts = only ? this.partition(only) : undefined;
    for (const i of this.candidates(matchers)) {
      if (parts && parts[i] !== only!.index) continue;
      if (!matchesAll(this.labels[i], compiled)) continue;
      const [from, end] = this.window(i, minMs, maxMs);
      if (end <= from) continue;
      out.push({ labels: this.labels[i], timestampsMs: this.t.subarray(from, end), values: this.v.subarray(from, end) });
    }
    return out;
  }

  private partitions: { of: SeriesPartition['of']; count: number; parts: Uint32Array } | undefined;

  /** partition assigns every series its part under `only`, once per partitioning function and count. */
  private partition(only: SeriesPartition): Uint32Array {
    const cached = this.partitions;
    if (cached && cached.of === only.of && cached.count === only.count) return cached.parts;
    const parts = new Uint32Array(this.labels.length);
    for (let i = 0; i < parts.length; i++) parts[i] = only.of(this.labels[i], only.count);
    this.partitions = { of: only.of, count: only.count, parts };
    return parts;
  }

  /** forEachLabelSet visits matching series with a sample in the window, reading no sample values. */
  forEachLabelSet(matchers: readonly LabelMatcher[], compiled: readonly CompiledMatcher[], minMs: number, maxMs: number, visit: (labels: Labels) => boolean | void): boolean {
    for (const i of this.candidates(matchers)) {
      if (!matchesAll(this.labels[i], compiled)) continue;
      const [from, end] = this.window(i, minMs, maxMs);
      if (end <= from) continue;
      if (visit(this.labels[i]) === false) return false;
    }
    return true;
  }

  /** allSeries lists every series with all its samples (views), for compaction. */
  allSeries(): SeriesColumns[] {
    return this.labels.map((labels, i) => {
      const from = this.first[i];
      const end = from + this.count[i];
      return { labels, timestampsMs: this.t.subarray(from, end), values: this.v.subarray(from, end) };
    });
  }
}
