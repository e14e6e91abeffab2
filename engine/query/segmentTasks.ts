import { encodeMetricSegment, type EncodedMetricSegment } from '../storage/metricSegment.js';
import type { MetricHeadSnapshot } from '../storage/metricHeadSnapshots.js';
import { SnapshotMetricReader } from './snapshotMetricReader.js';

/**
 * Cutting a metric head into a segment encodes every sample it holds (sorting series, delta
 * and XOR codecs): about a second of CPU for 64 MiB of head. On the main thread that second
 * stalls every request and every write. The head's snapshot is already in shared memory for
 * queries, so a worker thread can encode it without a sample being copied; the main thread
 * only stores the bytes that come back.
 */

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
  const encoded = encodeMetricSegment(series);
  if (encoded === undefined) return { result: undefined, transfer: [] };
  // Moved only when the bytes own their buffer: a pooled Buffer's slab is not ours to give away.
  const bytes = encoded.bytes;
  const owned = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength && bytes.buffer instanceof ArrayBuffer;
  const result = owned ? encoded : { ...encoded, bytes: new Uint8Array(bytes) };
  return { result, transfer: [result.bytes.buffer as ArrayBuffer] };
}
