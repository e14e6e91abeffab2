import type { SegmentMeta, Signal } from './catalog.js';
import type { EncodedLogSegment } from './logSegment.js';
import type { EncodedMetricSegment } from './metricSegment.js';

/** SEGMENT_FILE matches the names segmentFileName makes; other files in the store are left alone. */
export const SEGMENT_FILE = /^\d{12}\.(metrics|logs)\.seg$/;

/** segmentFileName is zero-padded so a directory listing sorts segments by age. */
export function segmentFileName(id: number, signal: Signal): string {
  return `${String(id).padStart(12, '0')}.${signal}.seg`;
}

/** PendingSegment is an encoded segment and its catalog entry, before its bytes are stored. */
export interface PendingSegment {
  meta: SegmentMeta;
  bytes: Uint8Array;
}

/** SegmentStamp is what every new segment's entry says besides its contents. */
export interface SegmentStamp {
  id: number;
  /** seq defaults to the id; a merge takes the highest of its inputs'. */
  seq?: number;
  org: string;
  createdMs: number;
  writer?: string;
}

/** floorDiv rounds toward negative infinity (bigint division truncates toward zero). */
function floorDiv(a: bigint, b: bigint): bigint {
  const q = a / b;
  return q * b > a ? q - 1n : q;
}

function common(stamp: SegmentStamp, signal: Signal, enc: { formatVersion: number; crc: number; bytes: Uint8Array; rows: number }) {
  return {
    id: stamp.id,
    seq: stamp.seq ?? stamp.id,
    org: stamp.org,
    signal,
    file: segmentFileName(stamp.id, signal),
    formatVersion: enc.formatVersion,
    crc: enc.crc,
    bytes: enc.bytes.length,
    rows: enc.rows,
  };
}

export function metricSegment(stamp: SegmentStamp, enc: EncodedMetricSegment): PendingSegment {
  const meta: SegmentMeta = {
    ...common(stamp, 'metrics', enc),
    minMs: enc.minMs,
    maxMs: enc.maxMs,
    metricNames: enc.metricNames,
    seriesCount: enc.seriesCount,
    createdMs: stamp.createdMs,
    ...(stamp.writer !== undefined ? { writer: stamp.writer } : {}),
  };
  return { meta, bytes: enc.bytes };
}

export function logSegment(stamp: SegmentStamp, enc: EncodedLogSegment, indexedTags: readonly string[]): PendingSegment {
  const meta: SegmentMeta = {
    ...common(stamp, 'logs', enc),
    minMs: Number(floorDiv(enc.minNs, 1_000_000n)),
    maxMs: Number(-floorDiv(-enc.maxNs, 1_000_000n)),
    minNs: enc.minNs.toString(),
    maxNs: enc.maxNs.toString(),
    streamCount: enc.streamCount,
    tagValues: Object.fromEntries(indexedTags.map((t) => [t, enc.tagValues[t] ?? null])),
    createdMs: stamp.createdMs,
    ...(stamp.writer !== undefined ? { writer: stamp.writer } : {}),
  };
  return { meta, bytes: enc.bytes };
}

/** mergedWriters is, for a merge of `group`, the highest input seq per writer of those inputs. */
export function mergedWriters(group: readonly SegmentMeta[]): Record<string, number> {
  const out: Record<string, number> = {};
  const note = (writer: string, seq: number) => {
    if ((out[writer] ?? -1) < seq) out[writer] = seq;
  };
  for (const s of group) {
    if (s.writer !== undefined) note(s.writer, s.seq);
    for (const [writer, seq] of Object.entries(s.writers ?? {})) note(writer, seq);
  }
  return out;
}
