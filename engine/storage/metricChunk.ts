import type { FloatHistogram } from '../histogram/floatHistogram.js';
import { decodeHistogramBlock, encodeHistogramBlock, hasHistograms } from './histogramCodec.js';
import type { Labels } from './labels.js';

/**
 * SharedMetricChunk is an immutable run of a metric head's samples, packed into one
 * SharedArrayBuffer: posting it to a worker shares the bytes, as segment files are shared, so
 * any number of tasks over the head read the same memory. It holds, for each series that took
 * samples in the run, those samples (ascending, one per timestamp), series ordered by their
 * head reference, which is the order the head lists them in.
 */
export interface SharedMetricChunk {
  /** id is unique within the process: workers key what they decode from a chunk by it. */
  id: string;
  samples: number;
  minMs: number;
  maxMs: number;
  /** refs[i] is series i's reference in its head, ascending; equal refs in two chunks are one series. */
  refs: Uint32Array;
  /** offsets[i]..offsets[i+1] are series i's samples. */
  offsets: Uint32Array;
  timestampsMs: Float64Array;
  /** values keep their exact bits, staleness markers included. */
  values: Float64Array;
  /**
   * labels is the chunk's label sets as UTF-8 JSON, in series order. Not msgpack: its native
   * decoder must not be handed shared memory, while Buffer and JSON.parse read it safely.
   */
  labels: Uint8Array;
  /**
   * histogramOffsets[i]..histogramOffsets[i+1] are series i's histogram block in
   * `histogramBytes` (histogramCodec.ts); an empty range means the series' run holds floats only.
   */
  histogramOffsets: Uint32Array;
  histogramBytes: Uint8Array;
}

/** SeriesRun is the part of one head series that goes into a chunk: views, valid until the head's next append. */
export interface SeriesRun {
  ref: number;
  labels: Labels;
  timestampsMs: Float64Array;
  values: Float64Array;
  histograms?: readonly (FloatHistogram | undefined)[];
}

let chunkSeq = 0;

/** align8 rounds a byte offset up so a 64-bit view may start there. */
const align8 = (n: number): number => (n + 7) & ~7;

/** packMetricChunk copies runs (ascending refs, none empty) into one SharedArrayBuffer allocated at its final size. */
export function packMetricChunk(runs: readonly SeriesRun[]): SharedMetricChunk {
  let samples = 0;
  for (const r of runs) samples += r.timestampsMs.length;
  const labelBytes = Buffer.from(JSON.stringify(runs.map((r) => r.labels)), 'utf8');
  const blocks = runs.map((r) => (hasHistograms(r.histograms) ? encodeHistogramBlock(r.histograms, r.timestampsMs.length) : undefined));
  let histogramTotal = 0;
  for (const b of blocks) histogramTotal += b?.length ?? 0;
  const tsAt = 0;
  const valuesAt = tsAt + samples * 8;
  const refsAt = valuesAt + samples * 8;
  const offsetsAt = refsAt + runs.length * 4;
  const labelsAt = offsetsAt + (runs.length + 1) * 4;
  const histogramOffsetsAt = align8(labelsAt + labelBytes.byteLength);
  const histogramsAt = histogramOffsetsAt + (runs.length + 1) * 4;
  const shared = new SharedArrayBuffer(align8(histogramsAt + histogramTotal));
  const chunk: SharedMetricChunk = {
    id: `m${process.pid}.${++chunkSeq}`,
    samples,
    minMs: Infinity,
    maxMs: -Infinity,
    refs: new Uint32Array(shared, refsAt, runs.length),
    offsets: new Uint32Array(shared, offsetsAt, runs.length + 1),
    timestampsMs: new Float64Array(shared, tsAt, samples),
    values: new Float64Array(shared, valuesAt, samples),
    labels: new Uint8Array(shared, labelsAt, labelBytes.byteLength),
    histogramOffsets: new Uint32Array(shared, histogramOffsetsAt, runs.length + 1),
    histogramBytes: new Uint8Array(shared, histogramsAt, histogramTotal),
  };
  let hAt = 0;
  blocks.forEach((b, i) => {
    chunk.histogramOffsets[i] = hAt;
    if (b !== undefined) chunk.histogramBytes.set(b, hAt);
    hAt += b?.length ?? 0;
  });
  chunk.histogramOffsets[runs.length] = hAt;
  chunk.labels.set(labelBytes);
  let at = 0;
  runs.forEach((r, i) => {
    const n = r.timestampsMs.length;
    chunk.refs[i] = r.ref;
    chunk.offsets[i] = at;
    chunk.timestampsMs.set(r.timestampsMs, at);
    // Same-type set copies bytes, so NaN payloads (staleness markers) survive.
    chunk.values.set(r.values, at);
    if (r.timestampsMs[0] < chunk.minMs) chunk.minMs = r.timestampsMs[0];
    if (r.timestampsMs[n - 1] > chunk.maxMs) chunk.maxMs = r.timestampsMs[n - 1];
    at += n;
  });
  chunk.offsets[runs.length] = at;
  return chunk;
}

/**
 * chunkHistograms decodes series i's histogram slots in a chunk (one per sample of its run), or
 * undefined when the run holds floats only.
 */
export function chunkHistograms(chunk: SharedMetricChunk, i: number): (FloatHistogram | undefined)[] | undefined {
  const from = chunk.histogramOffsets[i];
  const to = chunk.histogramOffsets[i + 1];
  if (to <= from) return undefined;
  return decodeHistogramBlock(chunk.histogramBytes.subarray(from, to), chunk.offsets[i + 1] - chunk.offsets[i]);
}

/** unpackChunkLabels reads a chunk's label sets back, in series order. */
export function unpackChunkLabels(chunk: SharedMetricChunk): Labels[] {
  return JSON.parse(Buffer.from(chunk.labels.buffer, chunk.labels.byteOffset, chunk.labels.byteLength).toString('utf8')) as Labels[];
}
