import { segmentEntryOf } from '../storage/catalog.js';
import { OrgLogView, OrgMetricView } from '../storage/orgViews.js';
import type { LogHeadSnapshot } from '../storage/logHeadSnapshots.js';
import type { MetricHeadSnapshot } from '../storage/metricHeadSnapshots.js';
import type { SharedSegment, SharedSegmentReaders } from '../storage/sharedSegments.js';
import { gatherLogStreams } from './gather.js';
import { countRows } from '../storage/logCounts.js';
import type { LogSelection } from './logqlPlan.js';
import type { SeriesColumns } from '../storage/seriesColumns.js';
import { shardOf, shardPlacement, type ShardKey } from './shards.js';
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
  headSamples: number;
  snapshots(): MetricHeadSnapshot[];
}

/** gatherMetricShare collects what a metric task over `selections` reads from one org's view; no sample is copied. */
export function gatherMetricShare(view: OrgMetricView, selections: readonly Selection[]): MetricShare {
  const { segments, headSamples, snapshots } = view.share(selections);
  let taken: MetricHeadSnapshot[] | undefined;
  return { segments, headSamples, snapshots: () => (taken ??= snapshots()) };
}

/**
 * shareSize estimates the samples a share holds: every row of its segments (an upper bound,
 * since segments are shared whole) plus the heads' samples. It decides whether sharding pays.
 */
export function shareSize(share: MetricShare): number {
  let n = share.headSamples;
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
 * LogShare is a log slice's data: shared segments, how many head lines the slice's selections
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
  let headLines = 0;
  if (selections.length === 1) {
    // One selection: its lines are counted where they lie, none is copied.
    headLines = countRows(heads, selections[0].matchers, selections[0].minNs, selections[0].maxNs);
  } else {
    // Counting needs no message: the heads are scanned, no line's text is copied.
    const bare = selections.map((s) => ({ ...s, lines: false }));
    for (const s of gatherLogStreams(heads, bare)) headLines += s.timestampsNs.length;
  }
  let taken: LogHeadSnapshot[] | undefined;
  return { segments, headLines, snapshots: () => (taken ??= snapshots()) };
}

/**
 * reachedSamples estimates the samples a slice's selections read from a share: the heads'
 * samples in those ranges, counted, plus each segment's rows in proportion to the part of its
 * time span the selections reach. It decides whether sharding pays, which depends on the work
 * done, not on the size of the files: a 5-minute instant query over a day-long segment reads
 * about 1/300 of it, and two tasks would only double its fixed costs.
 */
export function reachedSamples(share: MetricShare, selections: readonly Selection[]): number {
  return share.headSamples + segmentRowsReached(share.segments, hullOf(selections, (s) => s.minMs, (s) => s.maxMs));
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
  for (const { meta } of segments) {
    const covered = Math.min(hull.maxMs, meta.maxMs) - Math.max(hull.minMs, meta.minMs);
    if (covered < 0) continue;
    // Spans in whole ms with both ends included, so a segment of one instant counts whole.
    n += Math.ceil((meta.rows * (covered + 1)) / (meta.maxMs - meta.minMs + 1));
  }
  return n;
}

/** logShareSize estimates the lines a share holds, as shareSize does for samples. */
export function logShareSize(share: LogShare): number {
  let n = share.headLines;
  for (const s of share.segments) n += s.meta.rows;
  return n;
}

/**
 * logTaskData is a share's data for one task. Every task, of any shard, gets the same shared
 * snapshots: a shard task narrows them to its tag sets as it reads (see logViewOf).
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

/** logViewOf is metricViewOf for log tasks; the heads' snapshots are read in place, narrowed to the shard if any. */
export function logViewOf(data: LogTaskData, readers: SharedSegmentReaders, shard?: { index: number; count: number }): OrgLogView {
  const segments = data.segments.map((s) => segmentEntryOf(s.meta));
  const only = shard ? { of: shardOf, index: shard.index, count: shard.count } : undefined;
  const heads = data.heads.map((h) => new SnapshotLogReader(h, only));
  return new OrgLogView(() => ({ segments, heads }), readers.over(data.segments), only);
}
