import type { Signal } from '../storage/catalog.js';
import { commonIndexedTags, mergeLogReaders, mergeMetricReaders } from '../storage/compaction.js';
import { logCutColumns, type LogCutInput } from '../storage/logHead.js';
import { SharedSegmentReaders, type SharedSegment } from '../storage/sharedSegments.js';
import type { MergedSegment } from '../storage/storageOptions.js';
import { encodeLogSegment, type EncodedLogSegment } from '../storage/logSegment.js';
import { encodeMetricSegment, type EncodedMetricSegment } from '../storage/metricSegment.js';
import type { MetricHeadSnapshot } from '../storage/metricHeadSnapshots.js';
import { SnapshotMetricReader } from './snapshotMetricReader.js';

/**
 * Cutting a head into a segment encodes everything it holds (sorting, delta and XOR codecs for
 * samples, compression for log lines): about a second of CPU for 64 MiB of metric head or a
 * million log lines. On the main thread that second stalls every request and every write.
 * The heads' snapshots are already in shared memory for queries, so a worker thread can encode
 * them without a sample or a line being copied; the main thread only stores the bytes that
 * come back.
 */

/** SegmentTask is a task of any of the kinds here. */
export type SegmentTask = EncodeMetricSegmentTask | EncodeLogSegmentTask | MergeSegmentsTask;

/** EncodeMetricSegmentTask asks a worker for the segment of a frozen metric head. */
export interface EncodeMetricSegmentTask {
  kind: 'encode-metric-segment';
  snapshot: MetricHeadSnapshot;
}

/**
 * runEncodeMetricSegment encodes the snapshot's series exactly as the head's own series would
 * be (the snapshot holds them sorted, one sample per timestamp, staleness bits and histograms
 * kept) and lists the buffer to move back.
 */
export function runEncodeMetricSegment(task: EncodeMetricSegmentTask): { result: EncodedMetricSegment | undefined; transfer: ArrayBuffer[] } {
  const series = new SnapshotMetricReader(task.snapshot).select([], -Infinity, Infinity);
  return movable(encodeMetricSegment(series));
}

/** EncodeLogSegmentTask asks a worker for the segment of a frozen log head. */
export interface EncodeLogSegmentTask {
  kind: 'encode-log-segment';
  input: LogCutInput;
  indexedTags: readonly string[];
}

/** runEncodeLogSegment encodes the head's rows as the storage would from the head itself. */
export function runEncodeLogSegment(task: EncodeLogSegmentTask): { result: EncodedLogSegment | undefined; transfer: ArrayBuffer[] } {
  return movable(encodeLogSegment(logCutColumns(task.input), task.indexedTags));
}

/**
 * MergeSegmentsTask asks a worker for compaction's merge of a group of segments of one signal:
 * their file bytes, in shared memory, are decoded, merged and encoded into one there.
 */
export interface MergeSegmentsTask {
  kind: 'merge-segments';
  signal: Signal;
  segments: SharedSegment[];
}

/** runMergeSegments merges the task's segments as the compactor would on its own thread. */
export function runMergeSegments(task: MergeSegmentsTask): { result: MergedSegment | undefined; transfer: ArrayBuffer[] } {
  // Inputs are read once: nothing to keep decoded afterwards.
  const open = new SharedSegmentReaders(0).over(task.segments);
  if (task.signal === 'metrics') {
    const readers = task.segments.map((s) => open.metric(s.meta).reader!);
    const { result, transfer } = movable(encodeMetricSegment(mergeMetricReaders(readers)));
    return { result: result && { segment: result }, transfer };
  }
  const readers = task.segments.map((s) => open.log(s.meta).reader!);
  const indexedTags = commonIndexedTags(readers);
  const { result, transfer } = movable(encodeLogSegment(mergeLogReaders(readers), indexedTags));
  return { result: result && { segment: result, indexedTags }, transfer };
}

/** isSegmentTask tells a segment task from a query task arriving at the same worker. */
export function isSegmentTask(task: { kind: string }): task is SegmentTask {
  return task.kind === 'encode-metric-segment' || task.kind === 'encode-log-segment' || task.kind === 'merge-segments';
}

/** runSegmentTask runs a task of any kind. */
export function runSegmentTask(task: SegmentTask): { result: EncodedMetricSegment | EncodedLogSegment | MergedSegment | undefined; transfer: ArrayBuffer[] } {
  if (task.kind === 'merge-segments') return runMergeSegments(task);
  return task.kind === 'encode-metric-segment' ? runEncodeMetricSegment(task) : runEncodeLogSegment(task);
}

/** movable lists an encoded segment's buffer to move back, copying bytes that do not own theirs (a pooled Buffer's slab is not ours to give away). */
function movable<T extends { bytes: Uint8Array }>(encoded: T | undefined): { result: T | undefined; transfer: ArrayBuffer[] } {
  if (encoded === undefined) return { result: undefined, transfer: [] };
  const bytes = encoded.bytes;
  const owned = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength && bytes.buffer instanceof ArrayBuffer;
  const result = owned ? encoded : { ...encoded, bytes: new Uint8Array(bytes) };
  return { result, transfer: [result.bytes.buffer as ArrayBuffer] };
}
