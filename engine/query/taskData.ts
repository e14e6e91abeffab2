import { segmentEntryOf } from '../storage/catalog.js';
import { OrgLogView, OrgMetricView } from '../storage/orgViews.js';
import type { LogHeadSnapshot } from '../storage/logHeadSnapshots.js';
import type { MetricHeadSnapshot } from '../storage/metricHeadSnapshots.js';
import type { SharedSegment, SharedSegmentReaders } from '../storage/sharedSegments.js';
import { countRows } from '../storage/logCounts.js';
import type { LogSelection } from './logqlPlan.js';
import type { SeriesColumns } from '../storage/seriesColumns.js';
import { shardPlacement, type ShardKey } from './shards.js';
import type { TimePart } from '../storage/partition.js';
import type { Selection } from './promqlPlan.js';
import { SnapshotLogReader } from './snapshotLogReader.js';
import { SnapshotMetricReader } from './snapshotMetricReader.js';

/**
 * A task's data is what a worker reads to evaluate its slice: the segments that may hold
 * matching data, shared with the worker (the file bytes live in shared memory, so nothing is
 * copied however large they are), and the in-memory heads, whole, as their shared snapshots
 * (metricHeadSnapshots.ts, logHeadSnapshots.ts): every task of every query over an unchanged
 * head reads the same memory, and the worker selects the slice's ranges and its shard itself.
 * The worker selects, merges and decodes segment rows itself, so the query front only prunes
 * and snapshots.
 */
export interface MetricTaskData {
  segments: SharedSegment[];
  /** heads are the org's metric heads (a head being cut, then the active one), as snapshots. */
  heads: MetricHeadSnapshot[];
}

/** LogTaskData is MetricTaskData for log queries: segments and heads, both in shared memory. */
export interface LogTaskData {
  segments: SharedSegment[];
  /** heads are the org's log heads (a head being cut, then the active one), as snapshots. */
  heads: LogHeadSnapshot[];
}

/**
 * MetricShare is a metric slice's data: shared segments, how many head samples the slice's
 * selections reach (to decide whether sharding pays), and the heads' snapshots, taken once on
 * first use so that all shards of a slice read the same moment.
 */
export interface MetricShare {
  segments: SharedSegment[];
  /** headSamples counts the head samples the selections reach (worked out on call). */
  headSamples(): number;
  /** headSeries counts the head series those samples are in (worked out on call, with headSamples). */
  headSeries(): number;
  /** segmentSamples estimates the segment samples the selections reach (worked out on call). */
  segmentSamples(): number;
  snapshots(): MetricHeadSnapshot[];
}

/** gatherMetricShare collects what a metric task over `selections` reads from one org's view; no sample is copied. */
export function gatherMetricShare(view: OrgMetricView, selections: readonly Selection[]): MetricShare {
  const { segments, headSamples, headSeries, segmentSamples, snapshots } = view.share(selections);
  let taken: MetricHeadSnapshot[] | undefined;
  return { segments, headSamples, headSeries, segmentSamples, snapshots: () => (taken ??= snapshots()) };
}

/**
 * shareSize estimates the samples a share holds: every row of its segments (an upper bound,
 * since segments are shared whole) plus the heads' samples. It decides whether sharding pays.
 */
export function shareSize(share: MetricShare): number {
  let n = share.headSamples();
  for (const s of share.segments) n += s.meta.rows;
  return n;
}

/**
 * metricTaskData is a share's data for one task. Every task, of any shard, gets the same shared
 * snapshots: a shard task narrows them to its series as it reads (see metricViewOf).
 */
export function metricTaskData(share: MetricShare): MetricTaskData {
  return { segments: share.segments, heads: share.snapshots() };
}

/** shareMetrics prepares the data of a metric task over `selections` from one org's view. */
export function shareMetrics(view: OrgMetricView, selections: readonly Selection[]): MetricTaskData {
  const { segments, snapshots } = view.share(selections);
  return { segments, heads: snapshots() };
}

/**
 * LogShare is a log slice's data: shared segments, about how many head lines the slice's selections
 * reach (to decide whether sharding pays), and the heads' snapshots, taken once on first use
 * so that all shards of a slice read the same moment.
 */
export interface LogShare {
  segments: SharedSegment[];
  headLines: number;
  snapshots(): LogHeadSnapshot[];
}

/** gatherLogShare collects what a log task over `selections` reads from one org's view. */
export function gatherLogShare(view: OrgLogView, selections: readonly LogSelection[]): LogShare {
  const { segments, heads, snapshots } = view.share(selections);
  // Each distinct selection's lines are counted where they lie, none is copied. Lines that two
  // selections share count twice: an estimate of the work (each selection reads its lines),
  // where gathering the union (every stream's timestamps copied) took 41 ms of the answering
  // thread for a ratio of two rates over a head of 500,000 lines.
  let headLines = 0;
  const counted = new Set<string>();
  for (const s of selections) {
    const key = JSON.stringify([s.matchers, String(s.minNs), String(s.maxNs)]);
    if (counted.has(key)) continue;
    counted.add(key);
    headLines += countRows(heads, s.matchers, s.minNs, s.maxNs);
  }
  let taken: LogHeadSnapshot[] | undefined;
  return { segments, headLines, snapshots: () => (taken ??= snapshots()) };
}

/**
 * reachedSamples estimates the samples a slice's selections read from a share: the heads'
 * samples in those ranges, counted, plus the segments' samples of the series the selectors
 * match, in proportion to the part of each series' span the selections reach. It decides
 * whether sharding pays, which depends on the work done, not on the size of the files: a
 * 5-minute instant query over a day-long segment reads about 1/300 of it, and a selector
 * matching a few of a segment's series reads only theirs; two tasks would only double its
 * fixed costs.
 */
export function reachedSamples(share: MetricShare): number {
  return share.headSamples() + share.segmentSamples();
}

/**
 * headEvaluationCost estimates what evaluating a share's head data over `steps` steps costs, in
 * sample visits: each sample read once (window kernels slide from step to step; see
 * costsAboutItsSamples for the queries where that holds) and each series visited once per step
 * (its window found, a value written). It sizes a slice for evaluation on the answering thread,
 * which is only considered for a share without segments.
 */
export function headEvaluationCost(share: MetricShare, steps: number): number {
  return share.headSamples() + steps * share.headSeries();
}

/** reachedLines is reachedSamples for log slices. */
export function reachedLines(share: LogShare, selections: readonly LogSelection[]): number {
  const hull = hullOf(selections, (s) => Number(s.minNs / NS_PER_MS), (s) => Number(s.maxNs / NS_PER_MS));
  return share.headLines + segmentRowsReached(share.segments, hull);
}

const NS_PER_MS = 1_000_000n;

/** hullOf is the span from the earliest start to the latest end of `ranges`, in ms. */
function hullOf<R>(ranges: readonly R[], minMs: (r: R) => number, maxMs: (r: R) => number): { minMs: number; maxMs: number } {
  let min = Infinity;
  let max = -Infinity;
  for (const r of ranges) {
    min = Math.min(min, minMs(r));
    max = Math.max(max, maxMs(r));
  }
  return { minMs: min, maxMs: max };
}

/** segmentRowsReached sums the segments' rows within `hull`, taking rows as spread evenly over each segment's time span. */
function segmentRowsReached(segments: readonly SharedSegment[], hull: { minMs: number; maxMs: number }): number {
  let n = 0;
  for (const { meta } of segments) n += segmentRowsWithin(meta, hull);
  return n;
}

/** segmentRowsWithin is the part of a segment's rows within `hull`, its rows taken as spread evenly over its span. */
function segmentRowsWithin(meta: SharedSegment['meta'], hull: { minMs: number; maxMs: number }): number {
  const covered = Math.min(hull.maxMs, meta.maxMs) - Math.max(hull.minMs, meta.minMs);
  if (covered < 0) return 0;
  // Spans in whole ms with both ends included, so a segment of one instant counts whole.
  return Math.ceil((meta.rows * (covered + 1)) / (meta.maxMs - meta.minMs + 1));
}

/** logShareSize estimates the lines a share holds, as shareSize does for samples. */
export function logShareSize(share: LogShare): number {
  let n = share.headLines;
  for (const s of share.segments) n += s.meta.rows;
  return n;
}

/**
 * logTaskData is a share's data for one task. Every task, of any shard, gets the same shared
 * snapshots: a shard task narrows them to its part of time as it reads (see logViewOf).
 */
export function logTaskData(share: LogShare): LogTaskData {
  return { segments: share.segments, heads: share.snapshots() };
}

/** shareLogs prepares the data of a log task over `selections` from one org's view. */
export function shareLogs(view: OrgLogView, selections: readonly LogSelection[]): LogTaskData {
  const { segments, snapshots } = view.share(selections);
  return { segments, heads: snapshots() };
}

/** metricViewOf rebuilds, on the worker, a view reading the task's segments and head snapshots as one store, narrowed to the shard if any. */
export function metricViewOf(data: MetricTaskData, readers: SharedSegmentReaders, shard?: { index: number; count: number; key?: ShardKey }): OrgMetricView {
  const segments = data.segments.map((s) => segmentEntryOf(s.meta));
  const only = shard ? { of: shardPlacement(shard.key), index: shard.index, count: shard.count } : undefined;
  const heads = data.heads.map((h) => new SnapshotMetricReader(h, only));
  return new OrgMetricView(() => ({ segments, heads }), readers.over(data.segments), only);
}

/**
 * logViewOf is metricViewOf for log tasks; the heads' snapshots are read in place. A shard
 * reads the lines of its part of time (logTimeParts).
 */
export function logViewOf(data: LogTaskData, readers: SharedSegmentReaders, shard?: { timePart?: TimePart }): OrgLogView {
  // Without its part a shard would read every line, and the merge would count them once per shard.
  if (shard !== undefined && shard.timePart === undefined) throw new Error('a log shard without its part of time');
  const segments = data.segments.map((s) => segmentEntryOf(s.meta));
  const heads = data.heads.map((h) => new SnapshotLogReader(h));
  return new OrgLogView(() => ({ segments, heads }), readers.over(data.segments), shard?.timePart);
}

/** The first and last instants a TimePart can name (int64 nanoseconds). */
const EARLIEST_NS = -(2n ** 63n);
const LATEST_NS = 2n ** 63n - 1n;

/**
 * logTimeParts cuts all time into `count` parts that hold about as many of a slice's lines
 * each, for the shards of a LogQL metric query: the additive range aggregations it is split
 * into (shards.ts logShardPlanFor) add up over any split of the lines, and a split by time
 * spreads the lines of a few big streams, which a split by tag set left on one shard (one
 * stream, one shard), and lets each shard read only the segments of its part. Lines are
 * taken as spread evenly over each segment's span (as reachedLines counts them) and the heads'
 * over the time after the segments; with no estimate the slice's span is cut evenly. The first
 * part starts at the earliest instant and the last ends at the latest, so every line falls in
 * exactly one part whatever the estimate.
 */
export function logTimeParts(share: LogShare, selections: readonly LogSelection[], count: number): TimePart[] {
  const hull = hullOf(selections, (s) => Number(s.minNs / NS_PER_MS), (s) => Number(s.maxNs / NS_PER_MS));
  const spans: { fromMs: number; toMs: number; lines: number }[] = [];
  let segmentsEndMs = -Infinity;
  for (const { meta } of share.segments) {
    const fromMs = Math.max(hull.minMs, meta.minMs);
    const toMs = Math.min(hull.maxMs, meta.maxMs);
    segmentsEndMs = Math.max(segmentsEndMs, meta.maxMs);
    if (toMs >= fromMs) spans.push({ fromMs, toMs, lines: segmentRowsWithin(meta, hull) });
  }
  if (share.headLines > 0) spans.push({ fromMs: Math.min(hull.maxMs, Math.max(hull.minMs, segmentsEndMs)), toMs: hull.maxMs, lines: share.headLines });
  const total = spans.reduce((n, span) => n + span.lines, 0);
  // linesBefore(t) estimates the lines stamped before the ms t.
  const linesBefore = (t: number): number => {
    let n = 0;
    for (const span of spans) n += span.lines * Math.min(1, Math.max(0, (t - span.fromMs) / (span.toMs - span.fromMs + 1)));
    return n;
  };
  const boundariesMs: number[] = [];
  for (let k = 1; k < count; k++) {
    let lo = hull.minMs;
    let hi = hull.maxMs + 1;
    if (total > 0 && Number.isFinite(lo) && Number.isFinite(hi)) {
      // The first ms before which a k-th of the lines lie.
      const want = (total * k) / count;
      while (lo < hi) {
        const mid = Math.floor((lo + hi) / 2);
        if (linesBefore(mid) < want) lo = mid + 1;
        else hi = mid;
      }
      boundariesMs.push(lo);
    } else {
      boundariesMs.push(Number.isFinite(lo) && Number.isFinite(hi) ? Math.floor(lo + ((hi - lo) * k) / count) : 0);
    }
  }
  const parts: TimePart[] = [];
  for (let k = 0; k < count; k++) {
    const fromNs = k === 0 ? EARLIEST_NS : BigInt(boundariesMs[k - 1]) * NS_PER_MS;
    const toNs = k === count - 1 ? LATEST_NS : BigInt(boundariesMs[k]) * NS_PER_MS - 1n;
    parts.push({ fromNs, toNs });
  }
  return parts;
}
