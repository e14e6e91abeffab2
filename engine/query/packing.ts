import { Packr } from 'msgpackr';
import { decodeHistogramBlock, encodeHistogramBlock, hasHistograms } from '../storage/histogramCodec.js';
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
  /**
   * Native histogram samples, when any series has some: `histogramOffsets[i]..[i+1]` is series
   * i's histogram block (histogramCodec.ts) in `histogramBytes`, empty for a float-only series.
   */
  histogramOffsets?: Uint32Array;
  histogramBytes?: Uint8Array;
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
  const packed: PackedSeries = { labels, offsets, timestampsMs, values };
  if (series.some((s) => hasHistograms(s.histograms))) packHistograms(series, packed);
  return packed;
}

/** packHistograms adds the series' histogram blocks to `packed`. */
function packHistograms(series: readonly SeriesColumns[], packed: PackedSeries): void {
  const blocks = series.map((s) => (hasHistograms(s.histograms) ? encodeHistogramBlock(s.histograms, s.timestampsMs.length) : undefined));
  const histogramOffsets = new Uint32Array(series.length + 1);
  let total = 0;
  blocks.forEach((b, i) => {
    histogramOffsets[i] = total;
    total += b?.length ?? 0;
  });
  histogramOffsets[series.length] = total;
  const histogramBytes = new Uint8Array(total);
  blocks.forEach((b, i) => b !== undefined && histogramBytes.set(b, histogramOffsets[i]));
  packed.histogramOffsets = histogramOffsets;
  packed.histogramBytes = histogramBytes;
}

/** unpackSeries returns views into the packed buffers: no sample is copied. */
export function unpackSeries(packed: PackedSeries): SeriesColumns[] {
  const labels = packr.unpack(packed.labels) as Labels[];
  const out: SeriesColumns[] = new Array(labels.length);
  for (let i = 0; i < labels.length; i++) {
    const from = packed.offsets[i];
    const to = packed.offsets[i + 1];
    out[i] = { labels: labels[i], timestampsMs: packed.timestampsMs.subarray(from, to), values: packed.values.subarray(from, to) };
    const ho = packed.histogramOffsets;
    if (ho !== undefined && ho[i + 1] > ho[i]) out[i].histograms = decodeHistogramBlock(packed.histogramBytes!.subarray(ho[i], ho[i + 1]), to - from);
  }
  return out;
}

/** transferablesOf lists the buffers to move with a message carrying `packed`. */
export function transferablesOf(packed: PackedSeries): ArrayBuffer[] {
  const buffers = new Set<ArrayBuffer>();
  for (const a of [packed.labels, packed.offsets, packed.timestampsMs, packed.values, packed.histogramOffsets, packed.histogramBytes]) if (a !== undefined) buffers.add(a.buffer as ArrayBuffer);
  return [...buffers];
}

/** packedSeriesBytes is the size of packed series, what holding them costs before they are read back. */
export function packedSeriesBytes(series: PackedSeries): number {
  return (
    series.labels.byteLength +
    series.offsets.byteLength +
    series.timestampsMs.byteLength +
    series.values.byteLength +
    (series.histogramOffsets?.byteLength ?? 0) +
    (series.histogramBytes?.byteLength ?? 0)
  );
}
