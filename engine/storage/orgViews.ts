import type { SegmentEntry } from './catalog.js';
import { labelsKey, type Labels } from './labels.js';
import type { LogHeadSnapshot } from './logHeadSnapshots.js';
import type { MetricHeadSnapshot } from './metricHeadSnapshots.js';
import { lazyLogStream, lineReader, type LogHead, type LogProjection, type LogReader, type LogStreamData, type LogTagSetReader, type TagSetVisitor } from './logHead.js';
import type { CountWindows, LogCountReader, OpenCounts } from './logCounts.js';
import type { LineMatch, LineMatchOf } from './lineMatch.js';
import { isLineScanner, scanStreams, type AsciiLineVisitor, type LineVisitor, type LogLineScanner } from './logLineScan.js';
import { compileMatchers, type CompiledMatcher, type LabelMatcher } from './matchers.js';
import type { LogSegmentReader } from './logSegment.js';
import type { LabelSetVisitor, MetricHead, MetricQuerier, Reach, SeriesLabelReader } from './metricHead.js';
import type { SeriesColumns } from './seriesColumns.js';
import { selectorKey, type MetricSegmentReader } from './metricSegment.js';
import type { SeriesPartition, TimePart } from './partition.js';
import { logSegmentFilter, metricSegmentFilter } from './pruning.js';
import type { Opened, SegmentFailure, SegmentReaders } from './segmentReaders.js';
import { mergeSeriesRuns, seriesRunsOf, type SeriesRuns } from './seriesMerge.js';
import type { SharedSegment } from './sharedSegments.js';

/**
 * MetricSource is what a view reads besides segments: a live head, or a worker's snapshot of
 * the heads. It can also answer a snapshot of itself in shared memory, which is how metric
 * heads travel to workers (see metricHeadSnapshots.ts), and count samples without copying them.
 */
export type MetricSource = Pick<MetricHead, 'seriesCount' | 'select' | 'forEachLabelSet' | 'snapshot' | 'countReach'>;
/**
 * LogSource is the log counterpart of MetricSource; it can also answer a snapshot of itself
 * in shared memory, which is how log heads travel to workers (see logHeadSnapshots.ts).
 */
export type LogSource = Pick<LogHead, 'rowCount' | 'select' | 'countLines' | 'forEachTagSet' | 'snapshot'>;
/**
 * SegmentOpener opens segments for a view: the store's cached readers (which can also
 * prefetch files asynchronously), or a worker's readers over shared bytes.
 */
export type SegmentOpener = Pick<SegmentReaders, 'metric' | 'log'> & Partial<Pick<SegmentReaders, 'prefetch'>>;

/** MetricRange is one selector's data need: which series, over which time range (ms, inclusive). */
export interface MetricRange {
  matchers: readonly LabelMatcher[];
  minMs: number;
  maxMs: number;
}

/** LogRange is one selector's data need over nanoseconds (inclusive). */
export interface LogRange {
  matchers: readonly LabelMatcher[];
  minNs: bigint;
  maxNs: bigint;
}

/**
 * Shareable is what a worker thread needs to answer some ranges on its own: the segments that
 * may hold matching data (bytes shared, not copied) and a view of the heads alone, which the
 * caller snapshots, since heads keep changing on this thread.
 */
export interface Shareable<V> {
  segments: SharedSegment[];
  heads: V;
}

/**
 * MetricShareable adds the heads' snapshots (taken on call, as for logs) and how many samples
 * the ranges reach: in the heads, counted without copying any; in the segments, estimated from
 * the series the ranges' selectors match. Both are worked out on call, since only a query that
 * could be split across workers asks.
 */
export interface MetricShareable extends Shareable<OrgMetricView> {
  snapshots(): MetricHeadSnapshot[];
  headSamples(): number;
  /** headSeries counts the head series those samples are in (a series in two heads twice). */
  headSeries(): number;
  segmentSamples(): number;
}

/**
 * LogShareable adds the heads' snapshots: the heads themselves in shared memory, as every
 * task over them reads them (taken on call, so only a caller that ships them pays).
 */
export interface LogShareable extends Shareable<OrgLogView> {
  snapshots(): LogHeadSnapshot[];
}

/**
 * OrgSources is what one org's data consists of at the moment of a read: its segments of one
 * signal (oldest first) and its heads (a head being cut, then the active one). It is looked
 * up on every call, so a view obtained before a cut or compaction reads the new layout after
 * it, and never a segment that was already deleted.
 */
export interface OrgSources<H> {
  segments: readonly SegmentEntry[];
  heads: readonly H[];
}

/** SelectResult is a selection plus the segments it had to skip: non-empty means the answer is partial. */
export interface SelectResult<T> {
  series: T[];
  failedSegments: SegmentFailure[];
}

/** openShared opens segments to share, recording the unreadable ones as skipped. */
function openShared(segments: readonly SegmentEntry[], open: (meta: SegmentEntry['meta']) => Opened<{ bytes: Uint8Array }>, failures: FailureLog): SharedSegment[] {
  const shared: SharedSegment[] = [];
  for (const entry of segments) {
    const opened = open(entry.meta);
    if (opened.failure) failures.add(opened.failure);
    else shared.push({ meta: entry.meta, bytes: opened.reader.bytes });
  }
  return shared;
}

/**
 * segmentSamplesReached estimates the samples `ranges` read from segments: each segment's
 * series that one of the ranges' selectors matches, over the span from the earliest start to
 * the latest end (MetricSegmentReader.samplesWithin).
 */
function segmentSamplesReached(readers: readonly MetricSegmentReader[], ranges: readonly MetricRange[]): number {
  if (readers.length === 0 || ranges.length === 0) return 0;
  const selectors = new Map<string, { key: string; matchers: readonly LabelMatcher[]; compiled: ReturnType<typeof compileMatchers> }>();
  let minMs = Infinity;
  let maxMs = -Infinity;
  for (const r of ranges) {
    minMs = Math.min(minMs, r.minMs);
    maxMs = Math.max(maxMs, r.maxMs);
    const key = selectorKey(r.matchers);
    if (!selectors.has(key)) selectors.set(key, { key, matchers: r.matchers, compiled: compileMatchers(r.matchers) });
  }
  const distinct = [...selectors.values()];
  let n = 0;
  for (const reader of readers) n += reader.samplesWithin(distinct, minMs, maxMs);
  return n;
}

/** ReadScope is one selector a query reads and the milliseconds (inclusive) it reads it over. */
export interface ReadScope {
  matchers: readonly LabelMatcher[];
  minMs: number;
  maxMs: number;
}

/**
 * ViewRefresh brings a view's sources up to date before a query reads them (a query process
 * reloads the catalog and fetches the heads other processes hold). It is told the selectors'
 * matchers the query reads and over what time, so only the series or streams they match, in
 * that range, need to travel, and answers the sources that could not be reached, which make
 * the answer partial.
 */
export type ViewRefresh = (scopes: readonly ReadScope[]) => Promise<readonly string[]>;

/**
 * sourceKeys remembers the label key of each label set a source handed out: a segment's label
 * objects live as long as its reader, so a query that groups 10,000 series from two segments
 * looks their keys up instead of building and hashing 20,000 key strings again.
 */
const sourceKeys = new WeakMap<Labels, string>();

/** keyOf is labelsKey, remembered per label object. */
function keyOf(labels: Labels): string {
  let key = sourceKeys.get(labels);
  if (key === undefined) sourceKeys.set(labels, (key = labelsKey(labels)));
  return key;
}

/** floorDiv divides rounding down, so negative nanoseconds map to the millisecond that holds them. */
function floorDiv(a: bigint, b: bigint): bigint {
  const q = a / b;
  return a % b !== 0n && a < 0n ? q - 1n : q;
}

/** logScope is a log range in milliseconds: the ones holding its first and last nanosecond. */
function logScope(r: LogRange): ReadScope {
  return { matchers: r.matchers, minMs: Number(floorDiv(r.minNs, 1_000_000n)), maxMs: Number(floorDiv(r.maxNs, 1_000_000n)) };
}

/** FailureLog collects the segments a view skipped, once each, across all its calls, and the head holders it could not reach. */
class FailureLog {
  readonly list: SegmentFailure[] = [];
  readonly unavailable: string[] = [];
  private readonly ids = new Set<number>();

  addUnavailable(sources: readonly string[]): void {
    for (const s of sources) if (!this.unavailable.includes(s)) this.unavailable.push(s);
  }

  add(failure: SegmentFailure, into?: SegmentFailure[]): void {
    into?.push(failure);
    if (this.ids.has(failure.segmentId)) return;
    this.ids.add(failure.segmentId);
    this.list.push(failure);
  }
}

/**
 * OrgMetricView reads one org's samples across its segments and heads as if they were one
 * head: series with the same labels are merged in time order, a newer source winning on equal
 * timestamps. Samples that come from a single segment are views into the segment file
 * (read-only, and shareable with worker threads since segment bytes live in a
 * SharedArrayBuffer); anything from a head or merged is a fresh copy.
 *
 * A segment that cannot be read is skipped; `failedSegments` lists every segment this view
 * skipped, so the query that owns the view can end with a partial-result status.
 */
export class OrgMetricView implements MetricQuerier, SeriesLabelReader {
  private readonly failures = new FailureLog();

  /**
   * `only`, when given, narrows what `select` reads from segments to one part of the series (a
   * worker evaluating one shard of a query); a worker's heads are narrowed by their readers.
   */
  constructor(
    private readonly sources: () => OrgSources<MetricSource>,
    private readonly readers: SegmentOpener,
    private readonly only?: SeriesPartition,
    private readonly refresh?: ViewRefresh,
  ) {}

  /** failedSegments lists the segments skipped by any call on this view so far. */
  get failedSegments(): readonly SegmentFailure[] {
    return this.failures.list;
  }

  /** unavailableHeads lists the head holders `prepare` could not reach: recent data is missing from the answer. */
  get unavailableHeads(): readonly string[] {
    return this.failures.unavailable;
  }

  /**
   * share opens every segment that may hold data for one of `ranges` (pruned by the catalog,
   * unreadable ones recorded as skipped) and returns them with a heads-only view taken at the
   * same moment, so the two never overlap or leave a gap across a concurrent cut.
   */
  share(ranges: readonly MetricRange[]): MetricShareable {
    const { segments, heads } = this.sources();
    const opened: MetricSegmentReader[] = [];
    const shared = openShared(this.needed(segments, ranges), (meta) => {
      const o = this.readers.metric(meta);
      if (o.reader) opened.push(o.reader);
      return o;
    }, this.failures);
    const live = heads.filter((h) => h.seriesCount > 0);
    let reach: Reach | undefined;
    const headReach = (): Reach =>
      (reach ??= live.reduce<Reach>((sum, h) => {
        const r = h.countReach(ranges);
        return { samples: sum.samples + r.samples, series: sum.series + r.series };
      }, { samples: 0, series: 0 }));
    return {
      segments: shared,
      heads: new OrgMetricView(() => ({ segments: [], heads }), this.readers),
      snapshots: () => live.map((h) => h.snapshot()),
      headSamples: () => headReach().samples,
      headSeries: () => headReach().series,
      segmentSamples: () => segmentSamplesReached(opened, ranges),
    };
  }

  /**
   * prepare brings the view's sources up to date (see ViewRefresh) and reads the segments
   * `share(ranges)` will need without blocking on I/O, where the readers can. `scope` is what
   * the whole query will read when `ranges` are one slice of it: the first slice's refresh
   * then fetches for every slice, and the later ones find it done.
   */
  async prepare(ranges: readonly MetricRange[], scope: readonly MetricRange[] = []): Promise<void> {
    if (this.refresh) this.failures.addUnavailable(await this.refresh([...scope, ...ranges]));
    await this.readers.prefetch?.(this.needed(this.sources().segments, ranges).map((e) => e.meta));
  }

  /** needed lists the segments the catalog cannot rule out for any of `ranges`. */
  private needed(segments: readonly SegmentEntry[], ranges: readonly MetricRange[]): SegmentEntry[] {
    const filters = ranges.map((r) => ({ r, mayMatch: metricSegmentFilter(r.matchers) }));
    return segments.filter((entry) => filters.some(({ r, mayMatch }) => mayMatch(entry, r.minMs, r.maxMs)));
  }

  select(matchers: readonly LabelMatcher[], minMs: number, maxMs: number): SeriesColumns[] {
    return this.selectWithStatus(matchers, minMs, maxMs).series;
  }

  /** selectWithStatus is `select` that also says which segments this call skipped. */
  selectWithStatus(matchers: readonly LabelMatcher[], minMs: number, maxMs: number): SelectResult<SeriesColumns> {
    const failedSegments: SegmentFailure[] = [];
    const read = this.read(matchers, minMs, maxMs, failedSegments);
    const series = Array.isArray(read) ? read : [...read.values()].map(mergeSeriesRuns);
    return { series, failedSegments };
  }

  /**
   * selectRuns is `select` that leaves each series' runs from different sources apart when they
   * follow each other in time (see SeriesRuns), for readers that need not join them.
   */
  selectRuns(matchers: readonly LabelMatcher[], minMs: number, maxMs: number): SeriesRuns[] {
    const read = this.read(matchers, minMs, maxMs, []);
    if (Array.isArray(read)) return read.map((s) => ({ labels: s.labels, runs: [s] }));
    return [...read.values()].map(seriesRunsOf);
  }

  /**
   * read selects from every source: a list when at most one source answered (no series can
   * then be split between sources), else each series' runs by label key, oldest source first.
   */
  private read(matchers: readonly LabelMatcher[], minMs: number, maxMs: number, failedSegments: SegmentFailure[]): SeriesColumns[] | Map<string, SeriesColumns[]> {
    const { segments, heads } = this.sources();
    if (segments.length === 0 && heads.length === 1) return heads[0].select(matchers, minMs, maxMs);
    const compiled = compileMatchers(matchers);
    const mayMatch = metricSegmentFilter(matchers);
    const parts: SeriesColumns[][] = [];
    for (const entry of segments) {
      if (!mayMatch(entry, minMs, maxMs)) continue;
      const opened = this.readers.metric(entry.meta);
      if (opened.failure) this.failures.add(opened.failure, failedSegments);
      else parts.push(opened.reader.select(matchers, compiled, minMs, maxMs, this.only));
    }
    for (const head of heads) if (head.seriesCount > 0) parts.push(head.select(matchers, minMs, maxMs));
    const nonEmpty = parts.filter((p) => p.length > 0);
    if (nonEmpty.length <= 1) return nonEmpty[0] ?? [];
    const runs = new Map<string, SeriesColumns[]>();
    for (const list of nonEmpty) {
      for (const s of list) {
        const key = keyOf(s.labels);
        const existing = runs.get(key);
        if (existing) existing.push(s);
        else runs.set(key, [s]);
      }
    }
    return runs;
  }

  labelNames(matchers: readonly LabelMatcher[], minMs: number, maxMs: number): string[] {
    const names = new Set<string>();
    this.forEachLabelSet(matchers, minMs, maxMs, (labels) => {
      for (const n in labels) names.add(n);
    });
    return [...names].sort();
  }

  labelValues(name: string, matchers: readonly LabelMatcher[], minMs: number, maxMs: number): string[] {
    const values = new Set<string>();
    this.forEachLabelSet(matchers, minMs, maxMs, (labels) => {
      const v = labels[name];
      if (v !== undefined) values.add(v);
    });
    return [...values].sort();
  }

  /** forEachLabelSet visits each distinct series once across segments and heads; segments contribute only their series tables. */
  forEachLabelSet(matchers: readonly LabelMatcher[], minMs: number, maxMs: number, visit: LabelSetVisitor): void {
    const { segments, heads } = this.sources();
    if (segments.length === 0 && heads.length === 1) {
      heads[0].forEachLabelSet(matchers, minMs, maxMs, visit);
      return;
    }
    const compiled = compileMatchers(matchers);
    const mayMatch = metricSegmentFilter(matchers);
    const readers: MetricSegmentReader[] = [];
    for (const entry of segments) {
      if (!mayMatch(entry, minMs, maxMs)) continue;
      const opened = this.readers.metric(entry.meta);
      if (opened.failure) this.failures.add(opened.failure);
      else readers.push(opened.reader);
    }
    const liveHeads = heads.filter((h) => h.seriesCount > 0);
    let stopped = false;
    let visitor: LabelSetVisitor = (labels) => {
      if (visit(labels) === false) stopped = true;
      return !stopped;
    };
    // A series can only repeat when more than one source is read.
    if (readers.length + liveHeads.length > 1) {
      const seen = new Set<string>();
      const inner = visitor;
      visitor = (labels) => {
        const key = labelsKey(labels);
        if (seen.has(key)) return true;
        seen.add(key);
        return inner(labels);
      };
    }
    for (const reader of readers) if (!reader.forEachLabelSet(matchers, compiled, minMs, maxMs, visitor)) return;
    for (const head of liveHeads) {
      head.forEachLabelSet(matchers, minMs, maxMs, visitor);
      if (stopped) return;
    }
  }
}

/**
 * OrgLogView reads one org's log lines across its segments and heads as if they were one
 * head: lines with the same full tag set form one stream, merged in time order, older sources
 * first on equal timestamps (the order the lines arrived in). Skipped segments are reported as
 * in OrgMetricView.
 */
export class OrgLogView implements LogReader, LogCountReader, LogTagSetReader, LogLineScanner {
  private readonly failures = new FailureLog();

  /**
   * `within`, when given, narrows every read to the lines of one part of time (a log shard's,
   * engine/query/taskData.ts logTimeParts): the view then holds only those lines.
   */
  constructor(
    private readonly sources: () => OrgSources<LogSource>,
    private readonly readers: SegmentOpener,
    private readonly within?: TimePart,
    private readonly refresh?: ViewRefresh,
  ) {}

  /** narrowed is [minNs, maxNs] within this view's part of time, or undefined when they do not meet. */
  private narrowed(minNs: bigint, maxNs: bigint): { minNs: bigint; maxNs: bigint } | undefined {
    const part = this.within;
    if (part === undefined) return { minNs, maxNs };
    const from = minNs > part.fromNs ? minNs : part.fromNs;
    const to = maxNs < part.toNs ? maxNs : part.toNs;
    return from <= to ? { minNs: from, maxNs: to } : undefined;
  }

  /** failedSegments lists the segments skipped by any call on this view so far. */
  get failedSegments(): readonly SegmentFailure[] {
    return this.failures.list;
  }

  /** unavailableHeads lists the head holders `prepare` could not reach: recent data is missing from the answer. */
  get unavailableHeads(): readonly string[] {
    return this.failures.unavailable;
  }

  /** share is OrgMetricView.share for log ranges, with the heads' snapshots on demand. */
  share(ranges: readonly LogRange[]): LogShareable {
    const { segments, heads } = this.sources();
    const shared = openShared(this.needed(segments, ranges), (meta) => this.readers.log(meta), this.failures);
    return {
      segments: shared,
      heads: new OrgLogView(() => ({ segments: [], heads }), this.readers),
      snapshots: () => heads.filter((h) => h.rowCount > 0).map((h) => h.snapshot()),
    };
  }

  /** prepare is OrgMetricView.prepare for log ranges. */
  async prepare(ranges: readonly LogRange[], scope: readonly LogRange[] = []): Promise<void> {
    if (this.refresh) this.failures.addUnavailable(await this.refresh([...scope, ...ranges].map(logScope)));
    await this.readers.prefetch?.(this.needed(this.sources().segments, ranges).map((e) => e.meta));
  }

  private needed(segments: readonly SegmentEntry[], ranges: readonly LogRange[]): SegmentEntry[] {
    const filters = ranges.map((r) => ({ r, mayMatch: logSegmentFilter(r.matchers) }));
    return segments.filter((entry) => filters.some(({ r, mayMatch }) => mayMatch(entry, r.minNs, r.maxNs)));
  }

  select(matchers: readonly LabelMatcher[], minNs: bigint, maxNs: bigint, projection?: LogProjection): LogStreamData[] {
    return this.selectWithStatus(matchers, minNs, maxNs, projection).series;
  }

  /** selectWithStatus is `select` that also says which segments this call skipped. */
  selectWithStatus(matchers: readonly LabelMatcher[], fromNs: bigint, toNs: bigint, projection?: LogProjection): SelectResult<LogStreamData> {
    const failedSegments: SegmentFailure[] = [];
    const range = this.narrowed(fromNs, toNs);
    if (range === undefined) return { series: [], failedSegments };
    const { minNs, maxNs } = range;
    const { segments, heads } = this.sources();
    if (segments.length === 0 && heads.length === 1) return { series: heads[0].select(matchers, minNs, maxNs, projection), failedSegments };
    const compiled = compileMatchers(matchers);
    const mayMatch = logSegmentFilter(matchers);
    const parts: LogStreamData[][] = [];
    for (const entry of segments) {
      if (!mayMatch(entry, minNs, maxNs)) continue;
      const opened = this.readers.log(entry.meta);
      if (opened.failure) this.failures.add(opened.failure, failedSegments);
      else parts.push(opened.reader.select(compiled, minNs, maxNs, projection));
    }
    for (const head of heads) if (head.rowCount > 0) parts.push(head.select(matchers, minNs, maxNs, projection));
    const nonEmpty = parts.filter((p) => p.length > 0);
    if (nonEmpty.length <= 1) return { series: nonEmpty[0] ?? [], failedSegments };
    const byTags = new Map<string, LogStreamData[]>();
    for (const list of nonEmpty) {
      for (const s of list) {
        const key = labelsKey(s.tags);
        const existing = byTags.get(key);
        if (existing) existing.push(s);
        else byTags.set(key, [s]);
      }
    }
    const series: LogStreamData[] = [];
    for (const list of byTags.values()) series.push(list.reduce(mergeLogRuns));
    return { series, failedSegments };
  }

  /**
   * countLines is LogCountReader.countLines across the segments and heads: counts add up, so
   * each source adds its lines into the same arrays and no runs are merged. Sources are read
   * in the order `select` reads them, so `open` meets the tag sets in the same order.
   */
  countLines(matchers: readonly LabelMatcher[], fromNs: bigint, toNs: bigint, windows: CountWindows, open: OpenCounts, checkAbort?: () => void, lines?: LineMatch): void {
    this.eachSource(matchers, fromNs, toNs, {
      segment: (reader, compiled, minNs, maxNs) => reader.countLines(compiled, minNs, maxNs, windows, open, checkAbort, lines),
      head: (head, minNs, maxNs) => head.countLines(matchers, minNs, maxNs, windows, open, checkAbort, lines),
    });
  }

  /**
   * scanLines is LogLineScanner.scanLines across the segments and heads: each segment's rows in
   * its own order, then each head's in its own where it scans (a worker's snapshot), else
   * stream by stream, with no runs merged.
   */
  scanLines<G>(
    matchers: readonly LabelMatcher[],
    fromNs: bigint,
    toNs: bigint,
    open: (tags: Labels) => G | undefined,
    visit: LineVisitor<G>,
    visitAscii?: AsciiLineVisitor<G>,
    lineMatchOf?: LineMatchOf<G>,
  ): void {
    this.eachSource(matchers, fromNs, toNs, {
      segment: (reader, compiled, minNs, maxNs) => reader.scanLines(compiled, minNs, maxNs, open, visit, visitAscii, lineMatchOf),
      head: (head, minNs, maxNs) =>
        isLineScanner(head) ? head.scanLines(matchers, minNs, maxNs, open, visit, visitAscii, lineMatchOf) : scanStreams(head.select(matchers, minNs, maxNs), open, visit),
    });
  }

  /**
   * eachSource reads [fromNs, toNs] (within this view's part of time) from every segment that
   * may hold matching lines, oldest first as `select` reads them (a segment that cannot be
   * opened is recorded and skipped), then from every head with lines.
   */
  private eachSource(
    matchers: readonly LabelMatcher[],
    fromNs: bigint,
    toNs: bigint,
    read: { segment: (reader: LogSegmentReader, compiled: readonly CompiledMatcher[], minNs: bigint, maxNs: bigint) => void; head: (head: LogSource, minNs: bigint, maxNs: bigint) => void },
  ): void {
    const range = this.narrowed(fromNs, toNs);
    if (range === undefined) return;
    const { minNs, maxNs } = range;
    const { segments, heads } = this.sources();
    const compiled = compileMatchers(matchers);
    const mayMatch = logSegmentFilter(matchers);
    for (const entry of segments) {
      if (!mayMatch(entry, minNs, maxNs)) continue;
      const opened = this.readers.log(entry.meta);
      if (opened.failure) this.failures.add(opened.failure);
      else read.segment(opened.reader, compiled, minNs, maxNs);
    }
    for (const head of heads) if (head.rowCount > 0) read.head(head, minNs, maxNs);
  }

  forEachTagSet(matchers: readonly LabelMatcher[], fromNs: bigint, toNs: bigint, visit: TagSetVisitor): void {
    const range = this.narrowed(fromNs, toNs);
    if (range === undefined) return;
    const { minNs, maxNs } = range;
    const { segments, heads } = this.sources();
    if (segments.length === 0 && heads.length === 1) {
      heads[0].forEachTagSet(matchers, minNs, maxNs, visit);
      return;
    }
    const compiled = compileMatchers(matchers);
    const mayMatch = logSegmentFilter(matchers);
    const readers: LogSegmentReader[] = [];
    for (const entry of segments) {
      if (!mayMatch(entry, minNs, maxNs)) continue;
      const opened = this.readers.log(entry.meta);
      if (opened.failure) this.failures.add(opened.failure);
      else readers.push(opened.reader);
    }
    const liveHeads = heads.filter((h) => h.rowCount > 0);
    let stopped = false;
    let visitor: TagSetVisitor = (tags) => {
      if (visit(tags) === false) stopped = true;
      return !stopped;
    };
    // A tag set can only repeat when more than one source is read.
    if (readers.length + liveHeads.length > 1) {
      const seen = new Set<string>();
      const inner = visitor;
      visitor = (tags) => {
        const key = labelsKey(tags);
        if (seen.has(key)) return true;
        seen.add(key);
        return inner(tags);
      };
    }
    for (const reader of readers) if (!reader.forEachTagSet(compiled, minNs, maxNs, visitor)) return;
    for (const head of liveHeads) {
      head.forEachTagSet(matchers, minNs, maxNs, visitor);
      if (stopped) return;
    }
  }
}

/** mergeLogRuns merges two time-ordered runs of one stream; on equal timestamps the older run's lines come first. */
export function mergeLogRuns(older: LogStreamData, newer: LogStreamData): LogStreamData {
  const a = older.timestampsNs;
  const b = newer.timestampsNs;
  if (b.length === 0) return older;
  if (a.length === 0) return newer;
  const n = a.length + b.length;
  const timestampsNs = new BigInt64Array(n);
  // fromNewer[k] says which run line k comes from, and index[k] where it is in that run: the
  // messages are merged when read (LogStreamData).
  const fromNewer = new Uint8Array(n);
  const index = new Uint32Array(n);
  let i = 0;
  let j = 0;
  for (let k = 0; k < n; k++) {
    if (j >= b.length || (i < a.length && a[i] <= b[j])) {
      index[k] = i;
      timestampsNs[k] = a[i++];
    } else {
      index[k] = j;
      timestampsNs[k] = b[j++];
      fromNewer[k] = 1;
    }
  }
  const olderAt = lineReader(older);
  const newerAt = lineReader(newer);
  return lazyLogStream(newer.tags, timestampsNs, (k) => (fromNewer[k] === 1 ? newerAt(index[k]) : olderAt(index[k])));
}
