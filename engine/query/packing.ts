import { Packr } from 'msgpackr';
import type { Labels } from '../storage/labels.js';
import type { SeriesColumns } from '../storage/seriesColumns.js';

/**
 * PackedSeries moves many series between threads as four buffers: labels packed once with
 * msgpackr, and all samples concatenated into two typed arrays with offsets. The buffers are
 * transferred, not cloned, so the cost does not grow with the number of samples, and no
 * per-sample objects are ever made. Each array owns its whole ArrayBuffer: transferring a
 * view of a shared buffer (a pooled Buffer, a packer's scratch space) would detach that buffer
 * for every other user.
 */
export interface PackedSeries {
  labels: Uint8Array;
  offsets: Uint32Array;
  timestampsMs: Float64Array;
  values: Float64Array;
}

const packr = new Packr({ useRecords: false });

export function packSeries(series: readonly SeriesColumns[]): PackedSeries {
  let total = 0;
  for (const s of series) total += s.timestampsMs.length;
  const offsets = new Uint32Array(series.length + 1);
  const timestampsMs = new Float64Array(total);
  const values = new Float64Array(total);
  let at = 0;
  series.forEach((s, i) => {
    offsets[i] = at;
    timestampsMs.set(s.timestampsMs, at);
    values.set(s.values, at);
    at += s.timestampsMs.length;
  });
  offsets[series.length] = at;
  // pack() answers a view into the packer's reusable buffer; copy it so the buffer we
  // transfer to another thread is ours alone.
  const labels = new Uint8Array(packr.pack(series.map((s) => s.labels)));
  return { labels, offsets, timestampsMs, values };
}

/** unpackSeries returns views into the packed buffers: no sample is copied. */
export function unpackSeries(packed: PackedSeries): SeriesColumns[] {
  const labels = packr.unpack(packed.labels) as Labels[];
  const out: SeriesColumns[] = new Array(labels.length);
  for (let i = 0; i < labels.length; i++) {
    const from = packed.offsets[i];
    const to = packed.offsets[i + 1];
    out[i] = { labels: labels[i], timestampsMs: packed.timestampsMs.subarray(from, to), values: packed.values.subarray(from, to) };
  }
  return out;
}

/** transferablesOf lists the buffers to move with a message carrying `packed`. */
export function transferablesOf(packed: PackedSeries): ArrayBuffer[] {
  const buffers = new Set<ArrayBuffer>();
  for (const a of [packed.labels, packed.offsets, packed.timestampsMs, packed.values]) buffers.add(a.buffer as ArrayBuffer);
  return [...buffers];
}

/** packedSeriesBytes is the size of packed series, what holding them costs before they are read back. */
export function packedSeriesBytes(series: PackedSeries): number {
  return series.labels.byteLength + series.offsets.byteLength + series.timestampsMs.byteLength + series.values.byteLength;
}
