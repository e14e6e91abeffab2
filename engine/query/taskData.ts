import { segmentEntryOf } from '../storage/catalog.js';
import { OrgLogView, OrgMetricView } from '../storage/orgViews.js';
import type { LogStreamData } from '../storage/logHead.js';
import type { SharedSegment, SharedSegmentReaders } from '../storage/sharedSegments.js';
import { gatherLogStreams, gatherSeries } from './gather.js';
import type { LogSelection } from './logqlPlan.js';
import { logTransferables, packLogStreams, unpackLogStreams, type PackedLogs } from './logPacking.js';
import { packSeries, transferablesOf, unpackSeries, type PackedSeries, type SeriesColumns } from './packing.js';
import { shardOf } from './shards.js';
import type { Selection } from './promqlPlan.js';
import { StaticLogReader } from './staticLogReader.js';
import { StaticQuerier } from './staticQuerier.js';

/**
 * A task's data is what a worker reads to evaluate its slice: the segments that may hold
 * matching data, shared with the worker (the file bytes live in shared memory, so nothing is
 * copied however large they are), and a snapshot of the in-memory heads for the slice's
 * ranges, packed into buffers that are moved, not cloned. The worker selects, merges and
 * decodes segment rows itself, so the query front only prunes and snapshots. A task for one
 * series shard (see shards.ts) carries the same segments and only its shard of the heads.
 */
export interface MetricTaskData {
  segments: SharedSegment[];
  head: PackedSeries;
}

/** LogTaskData is MetricTaskData for log queries. */
export interface LogTaskData {
  segments: SharedSegment[];
  head: PackedLogs;
}

/** MetricShare is a metric slice's data before packing: shared segments and the heads' series. */
export interface MetricShare {
  segments: SharedSegment[];
  head: SeriesColumns[];
}

/** gatherMetricShare collects what a metric task over `selections` reads from one org's view. */
export function gatherMetricShare(view: OrgMetricView, selections: readonly Selection[]): MetricShare {
  const { segments, heads } = view.share(selections);
  return { segments, head: gatherSeries(heads, selections) };
}

/**
 * shareSize estimates the samples a share holds: every row of its segments (an upper bound,
 * since segments are shared whole) plus the heads' samples. It decides whether sharding pays.
 */
export function shareSize(share: MetricShare): number {
  let n = 0;
  for (const s of share.segments) n += s.meta.rows;
  for (const s of share.head) n += s.timestampsMs.length;
  return n;
}

/** metricTaskData packs a share for one task; with a shard, only the heads' series of that shard are packed. */
export function metricTaskData(share: MetricShare, shard?: { index: number; count: number }): MetricTaskData {
  const head = shard ? share.head.filter((s) => shardOf(s.labels, shard.count) === shard.index) : share.head;
  return { segments: share.segments, head: packSeries(head) };
}

/** shareMetrics prepares the data of a metric task over `selections` from one org's view. */
export function shareMetrics(view: OrgMetricView, selections: readonly Selection[]): MetricTaskData {
  return metricTaskData(gatherMetricShare(view, selections));
}

/** LogShare is a log slice's data before packing: shared segments and the heads' streams. */
export interface LogShare {
  segments: SharedSegment[];
  head: LogStreamData[];
}

/** gatherLogShare collects what a log task over `selections` reads from one org's view. */
export function gatherLogShare(view: OrgLogView, selections: readonly LogSelection[]): LogShare {
  const { segments, heads } = view.share(selections);
  return { segments, head: gatherLogStreams(heads, selections) };
}

/** logShareSize estimates the lines a share holds, as shareSize does for samples. */
export function logShareSize(share: LogShare): number {
  let n = 0;
  for (const s of share.segments) n += s.meta.rows;
  for (const s of share.head) n += s.timestampsNs.length;
  return n;
}

/** logTaskData packs a share for one task; with a shard, only the heads' tag sets of that shard are packed. */
export function logTaskData(share: LogShare, shard?: { index: number; count: number }): LogTaskData {
  const head = shard ? share.head.filter((s) => shardOf(s.tags, shard.count) === shard.index) : share.head;
  return { segments: share.segments, head: packLogStreams(head) };
}

/** shareLogs prepares the data of a log task over `selections` from one org's view. */
export function shareLogs(view: OrgLogView, selections: readonly LogSelection[]): LogTaskData {
  return logTaskData(gatherLogShare(view, selections));
}

/** metricViewOf rebuilds, on the worker, a view reading the task's segments and head snapshot as one store. */
export function metricViewOf(data: MetricTaskData, readers: SharedSegmentReaders, shard?: { index: number; count: number }): OrgMetricView {
  const segments = data.segments.map((s) => segmentEntryOf(s.meta));
  const heads = [new StaticQuerier(unpackSeries(data.head))];
  // The head snapshot was cut to the shard before it was sent; segments are narrowed as they are read.
  const only = shard ? { of: shardOf, index: shard.index, count: shard.count } : undefined;
  return new OrgMetricView(() => ({ segments, heads }), readers.over(data.segments), only);
}

/** logViewOf is metricViewOf for log tasks. */
export function logViewOf(data: LogTaskData, readers: SharedSegmentReaders, shard?: { index: number; count: number }): OrgLogView {
  const segments = data.segments.map((s) => segmentEntryOf(s.meta));
  const heads = [new StaticLogReader(unpackLogStreams(data.head))];
  const only = shard ? { of: shardOf, index: shard.index, count: shard.count } : undefined;
  return new OrgLogView(() => ({ segments, heads }), readers.over(data.segments), only);
}

/** metricDataTransferables lists the buffers to move with a metric task (segment bytes are shared, never moved). */
export function metricDataTransferables(data: MetricTaskData): ArrayBuffer[] {
  return transferablesOf(data.head);
}

/** logDataTransferables lists the buffers to move with a log task. */
export function logDataTransferables(data: LogTaskData): ArrayBuffer[] {
  return logTransferables(data.head);
}
