import { ArrowSection, float64Data, tableToFileBytes, uint32Data, utf8Data } from './arrowColumns.js';
import { METRIC_NAME, labelsKey, type Labels } from './labels.js';
import { matchesAll, type CompiledMatcher, type LabelMatcher } from './matchers.js';
import { lowerBound, upperBound } from './metricHead.js';
import type { SeriesColumns } from './seriesColumns.js';
import type { SeriesPartition } from './partition.js';
import { SegmentFormatError, encodeSegmentFile, readSegmentFile, type ChecksumPolicy } from './segmentFormat.js';
import { BlockSamples, ColumnSamples, wordsOf, type SegmentSamples } from './segmentSamples.js';
import { encodeSampleBlock } from './sampleBlocks.js';
import { decodeHistogramBlock, encodeHistogramBlock, hasHistograms } from './histogramCodec.js';
import type { FloatHistogram } from '../histogram/floatHistogram.js';

/**
 * A metric segment is two sections. The first is always an Arrow table of the series, one
 * row per series sorted by label set: `labels` (canonical JSON of the sorted labels), `first`
 * and `count` (the series' run of sample rows), `minT`/`maxT` (ms), so selection and pruning
 * read no sample.
 *
 * - Version 2 (written now): the series table also has `block` and `words`, where the
 *   series' sample block (sampleBlocks.ts) sits in the second section, a plain run of 32-bit
 *   words. Regular scrapes cost about one byte per sample instead of twenty; a reader decodes
 *   a series once, on first use, into typed arrays it keeps.
 * - Version 3 (written when a series holds native histograms): version 2 plus a third
 *   section of histogram blocks (histogramCodec.ts), placed by the series table's `hblock`
 *   and `hbytes` (byte offset and length; 0 bytes for a float-only series). The sample block
 *   still holds every sample's timestamp, and a histogram sample's value there is 0. A series
 *   may mix floats and histograms. Float-only data is still written as version 2, so such
 *   files stay readable by readers that predate histograms.
 * - Version 1 (still read): the second section is an Arrow table sorted by (series, time):
 *   `series` (Uint32), `t` (Float64 ms), `v` (Float64, copied bit for bit so staleness
 *   markers survive), read as zero-copy views of the file's bytes.
 */

/** METRIC_SEGMENT_VERSION is the format version new metric segments are written in. */
export const METRIC_SEGMENT_VERSION = 2;

/** METRIC_SEGMENT_HISTOGRAM_VERSION is the version a segment holding histogram samples is written in. */
export const METRIC_SEGMENT_HISTOGRAM_VERSION = 3;

/** EncodedMetricSegment is a finished segment file and the facts the catalog keeps about it. */
export interface EncodedMetricSegment {
  bytes: Uint8Array;
  formatVersion: number;
  crc: number;
  rows: number;
  seriesCount: number;
  minMs: number;
  maxMs: number;
  metricNames: string[];
}

/**
 * selectorKey is a selector's matchers as a key: the same matchers in the same order give the
 * same key, and different ones never do (JSON quotes every name and value, whatever they hold).
 */
export function selectorKey(matchers: readonly LabelMatcher[]): string {
  return JSON.stringify(matchers.map((m) => [m.type, m.name, m.value]));
}

/** MAX_PARTITIONINGS bounds the series placements a segment reader remembers (4 bytes per series each). */
const MAX_PARTITIONINGS = 4;

/**
 * MAX_MATCHED_SELECTORS bounds the selectors whose matching series a segment reader remembers
 * (4 bytes per matching series each; four positions per series of the segment in all): a
 * dashboard's panels, asked again and again.
 */
const MAX_MATCHED_SELECTORS = 64;

/**
 * encodeMetricSegment writes series (each already sorted by time with unique timestamps, as
 * `MetricHead` and `mergeSeriesRuns` produce them) into a segment; series with no samples are
 * left out. Returns undefined when there is nothing to write. `version` 1 is kept so tests and
 * benchmarks can write the old layout and compare.
 */
export function encodeMetricSegment(input: readonly SeriesColumns[], version: 1 | 2 = METRIC_SEGMENT_VERSION): EncodedMetricSegment | undefined {
  const series = input.filter((s) => s.timestampsMs.length > 0).map((s) => ({ s, key: labelsKey(s.labels) }));
  if (series.length === 0) return undefined;
  series.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const sorted = series.map(({ s }) => s);
  let total = 0;
  for (const s of sorted) total += s.timestampsMs.length;
  const first = new Uint32Array(sorted.length);
  const count = new Uint32Array(sorted.length);
  const minT = new Float64Array(sorted.length);
  const maxT = new Float64Array(sorted.length);
  const labels: string[] = new Array(sorted.length);
  const names = new Set<string>();
  let at = 0;
  let minMs = Infinity;
  let maxMs = -Infinity;
  sorted.forEach((s, i) => {
    const n = s.timestampsMs.length;
    first[i] = at;
    count[i] = n;
    minT[i] = s.timestampsMs[0];
    maxT[i] = s.timestampsMs[n - 1];
    if (minT[i] < minMs) minMs = minT[i];
    if (maxT[i] > maxMs) maxMs = maxT[i];
    labels[i] = JSON.stringify(s.labels);
    names.add(s.labels[METRIC_NAME] ?? '');
    at += n;
  });
  const seriesColumns = [
    { name: 'labels', data: utf8Data(labels) },
    { name: 'first', data: uint32Data(first) },
    { name: 'count', data: uint32Data(count) },
    { name: 'minT', data: float64Data(minT) },
    { name: 'maxT', data: float64Data(maxT) },
  ];
  let samples: Uint8Array;
  if (version === 1) samples = columnSamplesTable(sorted, total);
  else {
    const blocks = sorted.map((s) => encodeSampleBlock(s.timestampsMs, s.values));
    const offsets = new Uint32Array(blocks.length);
    const lengths = new Uint32Array(blocks.length);
    let words = 0;
    blocks.forEach((b, i) => {
      offsets[i] = words;
      lengths[i] = b.length;
      words += b.length;
    });
    const all = new Uint32Array(words);
    blocks.forEach((b, i) => all.set(b, offsets[i]));
    samples = new Uint8Array(all.buffer);
    seriesColumns.push({ name: 'block', data: uint32Data(offsets) }, { name: 'words', data: uint32Data(lengths) });
  }
  const sections = [tableToFileBytes(seriesColumns), samples];
  let written: number = version;
  if (version === 2 && sorted.some((s) => hasHistograms(s.histograms))) {
    written = METRIC_SEGMENT_HISTOGRAM_VERSION;
    const blocks = sorted.map((s) => (hasHistograms(s.histograms) ? encodeHistogramBlock(s.histograms, s.timestampsMs.length) : undefined));
    const hblock = new Uint32Array(blocks.length);
    const hbytes = new Uint32Array(blocks.length);
    let total = 0;
    blocks.forEach((b, i) => {
      hblock[i] = total;
      hbytes[i] = b?.length ?? 0;
      total += b?.length ?? 0;
    });
    const all = new Uint8Array(total);
    blocks.forEach((b, i) => b !== undefined && all.set(b, hblock[i]));
    seriesColumns.push({ name: 'hblock', data: uint32Data(hblock) }, { name: 'hbytes', data: uint32Data(hbytes) });
    sections[0] = tableToFileBytes(seriesColumns);
    sections.push(all);
  } else if (version === 1 && sorted.some((s) => hasHistograms(s.histograms))) {
    throw new Error('version 1 metric segments cannot hold histogram samples');
  }
  const { bytes, crc } = encodeSegmentFile(sections, written);
  return { bytes, formatVersion: written, crc, rows: total, seriesCount: sorted.length, minMs, maxMs, metricNames: [...names].sort() };
}

/** columnSamplesTable is version 1's samples table: every sample's series row, time and value as plain columns. */
function columnSamplesTable(sorted: readonly SeriesColumns[], total: number): Uint8Array {
  const sampleSeries = new Uint32Array(total);
  const t = new Float64Array(total);
  const v = new Float64Array(total);
  let at = 0;
  sorted.forEach((s, i) => {
    const n = s.timestampsMs.length;
    sampleSeries.fill(i, at, at + n);
    t.set(s.timestampsMs, at);
    // Same-type set copies bytes, so NaN payloads (staleness markers) are preserved.
    v.set(s.values, at);
    at += n;
  });
  return tableToFileBytes([
    { name: 'series', data: uint32Data(sampleSeries) },
    { name: 't', data: float64Data(t) },
    { name: 'v', data: float64Data(v) },
  ]);
}

/**
 * MetricSegmentReader answers series selections from one decoded segment. Label sets are
 * parsed once when the segment is opened; sample arrays are shared (views of the file's bytes
 * in version 1, decoded once per series in version 2) and must be treated as read-only.
 */
export class MetricSegmentReader {
  private readonly byName = new Map<string, number[]>();

  private constructor(
    readonly labels: Labels[],
    private readonly count: Uint32Array,
    private readonly minT: Float64Array,
    private readonly maxT: Float64Array,
    private readonly samples: SegmentSamples,
    private readonly histogramBlocks: HistogramBlocks | undefined,
    /** bytes is the whole file; shareable with worker threads. */
    readonly bytes: Uint8Array,
    readonly formatVersion: number,
  ) {
    labels.forEach((l, i) => {
      const name = l[METRIC_NAME] ?? '';
      const list = this.byName.get(name);
      if (list) list.push(i);
      else this.byName.set(name, [i]);
    });
  }

  /** decode checks the file (checksum, version, layout) and builds the reader without decoding or copying samples. */
  static decode(bytes: Uint8Array, expectedCrc?: number, checksum: ChecksumPolicy = 'verify'): MetricSegmentReader {
    const { version, sections } = readSegmentFile(bytes, expectedCrc, checksum);
    const expected = version === METRIC_SEGMENT_HISTOGRAM_VERSION ? 3 : 2;
    if (sections.length !== expected) throw new SegmentFormatError(`metric segment has ${sections.length} sections, expected ${expected}`);
    const seriesTable = ArrowSection.parse(sections[0], 'series table');
    const labels = seriesTable.strings('labels').map((json) => JSON.parse(json) as Labels);
    const count = seriesTable.uint32('count');
    let samples: SegmentSamples;
    if (version === 1) {
      const table = ArrowSection.parse(sections[1], 'samples table');
      samples = new ColumnSamples(seriesTable.uint32('first'), count, table.float64('t'), table.float64('v'));
    } else {
      samples = new BlockSamples(wordsOf(sections[1]), seriesTable.uint32('block'), seriesTable.uint32('words'), count);
    }
    const histograms = version === METRIC_SEGMENT_HISTOGRAM_VERSION ? new HistogramBlocks(sections[2], seriesTable.uint32('hblock'), seriesTable.uint32('hbytes'), count) : undefined;
    return new MetricSegmentReader(labels, count, seriesTable.float64('minT'), seriesTable.float64('maxT'), samples, histograms, bytes, version);
  }

  /** byteSize is what the reader keeps alive (the file's bytes and the series decoded so far), for cache accounting. */
  get byteSize(): number {
    return this.bytes.byteLength + this.samples.decodedBytes + (this.histogramBlocks?.decodedBytes ?? 0);
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

  /** window returns the positions of series i's samples within [minMs, maxMs] as [from, end), or [0, 0]. */
  private window(i: number, minMs: number, maxMs: number): [number, number] {
    if (this.maxT[i] < minMs || this.minT[i] > maxMs) return [0, 0];
    if (this.minT[i] >= minMs && this.maxT[i] <= maxMs) return [0, this.count[i]];
    const ts = this.samples.timestamps(i);
    return [lowerBound(ts, minMs), upperBound(ts, maxMs)];
  }

  /**
   * select returns matching series' samples in [minMs, maxMs] as zero-copy views; with `only`,
   * just the series that predicate places (a worker's shard), decided once per series and reused.
   */
  select(matchers: readonly LabelMatcher[], compiled: readonly CompiledMatcher[], minMs: number, maxMs: number, only?: SeriesPartition): SeriesColumns[] {
    const out: SeriesColumns[] = [];
    const parts = only ? this.partition(only) : undefined;
    // Series of one scrape target share a timestamp column (version 2): their window is found,
    // and its view made, once for all of them.
    let lastColumn: Float64Array | undefined;
    let lastView: Float64Array | undefined;
    let lastFrom = 0;
    let lastEnd = 0;
    for (const i of this.matchedBy(selectorKey(matchers), matchers, compiled)) {
      if (parts && parts[i] !== only!.index) continue;
      if (this.maxT[i] < minMs || this.minT[i] > maxMs) continue;
      const t = this.samples.timestamps(i);
      if (t !== lastColumn) {
        lastColumn = t;
        [lastFrom, lastEnd] = this.window(i, minMs, maxMs);
        lastView = lastFrom === 0 && lastEnd === t.length ? t : t.subarray(lastFrom, lastEnd);
      }
      const from = lastFrom;
      const end = lastEnd;
      if (end <= from) continue;
      const v = this.samples.values(i);
      const series: SeriesColumns = {
        labels: this.labels[i],
        timestampsMs: lastView!,
        values: from === 0 && end === v.length ? v : v.subarray(from, end),
        staleFree: this.samples.staleFree(i),
        resetFree: this.samples.resetFree(i),
      };
      const h = this.histogramBlocks?.histograms(i);
      if (h !== undefined) series.histograms = from === 0 && end === h.length ? h : h.slice(from, end);
      out.push(series);
    }
    return out;
  }

  /**
   * samplesWithin estimates the samples of the series any of `selectors` (keyed by selectorKey) matches within
   * [minMs, maxMs], each series' samples taken as spread evenly over its span: what a query
   * reading them would read, without decoding a sample. It decides whether a query is worth
   * splitting across workers, where the segment's row count overstated a selective query by as
   * much as the segment holds other series (a 750-series selector over a 10,000-series
   * segment was split in two, paying two tasks' fixed costs for 1 ms of work). Each selector's
   * matching series are remembered, so a repeated query costs one pass over its own series.
   */
  samplesWithin(selectors: ReadonlyArray<{ key: string; matchers: readonly LabelMatcher[]; compiled: readonly CompiledMatcher[] }>, minMs: number, maxMs: number): number {
    const lists = selectors.map((sel) => this.matchedBy(sel.key, sel.matchers, sel.compiled));
    let seen: Uint8Array | undefined;
    if (lists.length > 1) seen = new Uint8Array(this.labels.length);
    let n = 0;
    for (const list of lists) {
      for (let k = 0; k < list.length; k++) {
        const i = list[k];
        if (seen !== undefined) {
          if (seen[i] === 1) continue;
          seen[i] = 1;
        }
        const covered = Math.min(maxMs, this.maxT[i]) - Math.max(minMs, this.minT[i]);
        if (covered < 0) continue;
        // Spans in whole ms with both ends included, so a series of one instant counts whole.
        n += (this.count[i] * (covered + 1)) / (this.maxT[i] - this.minT[i] + 1);
      }
    }
    return Math.ceil(n);
  }

  private readonly matched = new Map<string, Uint32Array>();
  private matchedLength = 0;

  /**
   * matchedBy lists the series a selector matches, remembered under `key` (selectorKey): the
   * segment never changes, and testing every series of a metric against a selector's regular
   * expressions was most of a selective query's work (10,000 series, two regular expressions:
   * ~1 ms a query on the worker, for 750 series read).
   */
  private matchedBy(key: string, matchers: readonly LabelMatcher[], compiled: readonly CompiledMatcher[]): Uint32Array {
    const known = this.matched.get(key);
    if (known !== undefined) return known;
    const found: number[] = [];
    for (const i of this.candidates(matchers)) if (matchesAll(this.labels[i], compiled)) found.push(i);
    const list = Uint32Array.from(found);
    // At most MAX_MATCHED_SELECTORS lists, holding at most four positions per series in all.
    this.matchedLength += list.length;
    for (const [oldest, kept] of this.matched) {
      if (this.matched.size < MAX_MATCHED_SELECTORS && this.matchedLength <= 4 * this.labels.length) break;
      this.matched.delete(oldest);
      this.matchedLength -= kept.length;
    }
    this.matched.set(key, list);
    return list;
  }

  /**
   * partitions keeps each series' part per partitioning function and count: queries of several
   * shapes (shards placed by all labels, or by a key's) alternate under dashboard load, and
   * one remembered placement would be recomputed over every series at each change.
   */
  private readonly partitions = new Map<SeriesPartition['of'], { count: number; parts: Uint32Array }>();

  /** partition assigns every series its part under `only`, once per partitioning function and count. */
  private partition(only: SeriesPartition): Uint32Array {
    const cached = this.partitions.get(only.of);
    if (cached && cached.count === only.count) return cached.parts;
    const parts = new Uint32Array(this.labels.length);
    for (let i = 0; i < parts.length; i++) parts[i] = only.of(this.labels[i], only.count);
    // The placing functions are a handful (shardPlacement keeps one per key); past a few, the oldest goes.
    if (this.partitions.size >= MAX_PARTITIONINGS) this.partitions.delete(this.partitions.keys().next().value!);
    this.partitions.set(only.of, { count: only.count, parts });
    return parts;
  }

  /** forEachLabelSet visits matching series with a sample in the window, reading no sample values. */
  forEachLabelSet(matchers: readonly LabelMatcher[], compiled: readonly CompiledMatcher[], minMs: number, maxMs: number, visit: (labels: Labels) => boolean | void): boolean {
    for (const i of this.matchedBy(selectorKey(matchers), matchers, compiled)) {
      const [from, end] = this.window(i, minMs, maxMs);
      if (end <= from) continue;
      if (visit(this.labels[i]) === false) return false;
    }
    return true;
  }

  /** allSeries lists every series with all its samples, for compaction; decoded series are not kept. */
  allSeries(): SeriesColumns[] {
    return this.labels.map((labels, i) => {
      const { timestamps, values } = this.samples.uncached(i);
      const series: SeriesColumns = { labels, timestampsMs: timestamps, values };
      const h = this.histogramBlocks?.uncached(i);
      if (h !== undefined) series.histograms = h;
      return series;
    });
  }
}

/**
 * HistogramBlocks reads version 3's histogram section: each series' block decoded on first
 * use and kept, as BlockSamples keeps decoded floats. A decoded histogram is counted at the
 * size of its typed arrays plus a fixed overhead for the cache accounting.
 */
class HistogramBlocks {
  private readonly decoded: (readonly (FloatHistogram | undefined)[] | undefined)[];
  decodedBytes = 0;

  constructor(
    private readonly bytes: Uint8Array,
    private readonly block: Uint32Array,
    private readonly length: Uint32Array,
    private readonly count: Uint32Array,
  ) {
    for (let i = 0; i < block.length; i++) {
      if (block[i] + length[i] > bytes.length) throw new SegmentFormatError(`series ${i}: histogram block runs past the histogram section`);
    }
    this.decoded = new Array(block.length);
  }

  /** histograms is series i's histogram slots, or undefined for a float-only series. */
  histograms(i: number): readonly (FloatHistogram | undefined)[] | undefined {
    if (this.length[i] === 0) return undefined;
    let h = this.decoded[i];
    if (h === undefined) {
      h = this.decoded[i] = this.uncached(i)!;
      for (const x of h) if (x !== undefined) this.decodedBytes += 96 + 12 * (x.posIndex.length + x.negIndex.length);
    }
    return h;
  }

  uncached(i: number): (FloatHistogram | undefined)[] | undefined {
    if (this.length[i] === 0) return undefined;
    return decodeHistogramBlock(this.bytes.subarray(this.block[i], this.block[i] + this.length[i]), this.count[i]);
  }
}
