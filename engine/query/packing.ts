import { Packr } from 'msgpackr';
import { formatGoFloat } from '../common/goFloat.js';
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
  /**
   * The values as text, when the task asked for it: `valueText` is every value followed by a
   * comma (finite values only have text), `valueTextAt[g]` where sample g's text starts
   * (`valueTextAt[total]` is the text's length). The string is copied to the receiving thread
   * at one byte a character: up to 24 bytes for a value that needs all its digits, more than the
   * 8 of the number, which is why only large answers carry it.
   */
  valueText?: string;
  valueTextAt?: Uint32Array;
  /**
   * Every point as the Prometheus API writes it, when the task asked for it: `sampleText` is
   * each point's `[unixSeconds,"value"]` followed by a comma, as ASCII bytes (transferred with
   * the rest), `sampleTextAt[g]` where sample g's starts (SeriesColumns.sampleText). Left out
   * when any series has histogram samples.
   */
  sampleText?: Uint8Array;
  sampleTextAt?: Uint32Array;
}

const packr = new Packr({ useRecords: false });

/**
 * PackOptions: `valueText` adds the values' text and `sampleText` the Prometheus API's
 * rendering of every point (see PackedSeries) to answers of at least VALUE_TEXT_MIN_POINTS samples.
 */
export interface PackOptions {
  valueText?: boolean;
  sampleText?: boolean;
}

export function packSeries(series: readonly SeriesColumns[], options: PackOptions = {}): PackedSeries {
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
  const withHistograms = series.some((s) => hasHistograms(s.histograms));
  if (withHistograms) packHistograms(series, packed);
  if (options.valueText === true && total >= VALUE_TEXT_MIN_POINTS) packValueText(values, packed);
  if (options.sampleText === true && !withHistograms && total >= VALUE_TEXT_MIN_POINTS) packSampleText(offsets, timestampsMs, values, packed);
  return packed;
}

/**
 * packValueText formats every value once, on the thread that evaluated them. Each value's
 * characters are copied into one growing byte buffer, read back as a single flat string at the
 * end: joining the values as strings built a rope of hundreds of thousands of pieces whose
 * flattening (for the copy to the receiving thread) cost as much as the formatting itself.
 */
function packValueText(values: Float64Array, packed: PackedSeries): void {
  const at = new Uint32Array(values.length + 1);
  let lastValue = NaN;
  let lastText = '';
  let bytes = valueTextScratch;
  let length = 0;
  for (let g = 0; g < values.length; g++) {
    at[g] = length;
    if (bytes.length - length < MAX_VALUE_CHARS + 1) bytes = grownScratch(length, MAX_VALUE_CHARS + 1);
    const v = values[g];
    if (Number.isFinite(v)) {
      // A series that holds its value (a flat gauge, a rate of zero) repeats the last text.
      if (v !== lastValue) {
        lastValue = v;
        lastText = '' + v;
      }
      const text = lastText;
      for (let k = 0; k < text.length; k++) bytes[length++] = text.charCodeAt(k);
    }
    bytes[length++] = COMMA;
  }
  at[values.length] = length;
  packed.valueText = bytes.toString('latin1', 0, length);
  packed.valueTextAt = at;
  releaseScratch();
}

/**
 * packSampleText renders every point as the Prometheus API's JSON pair `[unixSeconds,"value"]`
 * (the value in Go's positional form), each followed by a comma, into one string: the thread
 * that answers then joins each series' slice of it instead of rendering 240,000 pairs itself,
 * which for a 1,000-series answer was most of that thread's time. A timestamp's text is kept
 * by its place in the series, since the series of one answer mostly share their steps.
 */
function packSampleText(offsets: Uint32Array, timestampsMs: Float64Array, values: Float64Array, packed: PackedSeries): void {
  const at = new Uint32Array(values.length + 1);
  const stepMs: number[] = [];
  const stepText: string[] = [];
  let bytes = valueTextScratch;
  let length = 0;
  for (let i = 0; i + 1 < offsets.length; i++) {
    for (let g = offsets[i], p = 0; g < offsets[i + 1]; g++, p++) {
      at[g] = length;
      const t = timestampsMs[g];
      let time: string;
      if (stepMs[p] === t) time = stepText[p];
      else {
        stepMs[p] = t;
        time = stepText[p] = '' + t / 1000;
      }
      const value = formatGoFloat(values[g]);
      if (bytes.length - length < time.length + value.length + 8) bytes = grownScratch(length, time.length + value.length + 8);
      bytes[length++] = OPEN_BRACKET;
      for (let k = 0; k < time.length; k++) bytes[length++] = time.charCodeAt(k);
      bytes[length++] = COMMA;
      bytes[length++] = QUOTE;
      for (let k = 0; k < value.length; k++) bytes[length++] = value.charCodeAt(k);
      bytes[length++] = QUOTE;
      bytes[length++] = CLOSE_BRACKET;
      bytes[length++] = COMMA;
    }
  }
  at[values.length] = length;
  // A copy of its own: the scratch buffer stays with this thread, the copy is transferred.
  packed.sampleText = new Uint8Array(bytes.subarray(0, length));
  packed.sampleTextAt = at;
  releaseScratch();
}

/** MAX_VALUE_CHARS bounds the text of one float as JavaScript prints it ("-1.2345678901234567e-308"). */
const MAX_VALUE_CHARS = 24;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const QUOTE = 0x22;
const COMMA = 0x2c;
/** VALUE_TEXT_SCRATCH_KEPT is the size of the value text buffer a thread keeps between answers. */
const VALUE_TEXT_SCRATCH_KEPT = 1 << 20;
let valueTextScratch = Buffer.allocUnsafe(VALUE_TEXT_SCRATCH_KEPT);

/** grownScratch doubles the thread's text buffer (or more, to fit `need` more bytes), keeping its first `length` bytes. */
function grownScratch(length: number, need: number): typeof valueTextScratch {
  const grown = Buffer.allocUnsafe(Math.max(valueTextScratch.length * 2, length + need));
  valueTextScratch.copy(grown, 0, 0, length);
  return (valueTextScratch = grown);
}

/** releaseScratch drops a text buffer grown for one huge answer, so it is not kept for the thread's lifetime. */
function releaseScratch(): void {
  if (valueTextScratch.length > VALUE_TEXT_SCRATCH_KEPT) valueTextScratch = Buffer.allocUnsafe(VALUE_TEXT_SCRATCH_KEPT);
}

/**
 * VALUE_TEXT_MIN_POINTS is the smallest answer whose values are sent as text: below it the
 * writing thread formats them in well under a millisecond, and the text would only add a copy
 * and garbage. Answers of many series are where formatting on that one thread held every
 * other query back (0.28 µs a value, 67 ms for 1,000 series of 241 points).
 */
export const VALUE_TEXT_MIN_POINTS = 4_096;

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
    if (packed.valueText !== undefined) out[i].valueText = { source: packed.valueText, at: packed.valueTextAt!.subarray(from, to + 1) };
    if (packed.sampleText !== undefined) out[i].sampleText = { bytes: packed.sampleText, at: packed.sampleTextAt!.subarray(from, to + 1) };
  }
  return out;
}

/** transferablesOf lists the buffers to move with a message carrying `packed`. */
export function transferablesOf(packed: PackedSeries): ArrayBuffer[] {
  const buffers = new Set<ArrayBuffer>();
  for (const a of [packed.labels, packed.offsets, packed.timestampsMs, packed.values, packed.histogramOffsets, packed.histogramBytes, packed.valueTextAt, packed.sampleText, packed.sampleTextAt]) if (a !== undefined) buffers.add(a.buffer as ArrayBuffer);
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
    (series.histogramBytes?.byteLength ?? 0) +
    (series.valueText?.length ?? 0) +
    (series.valueTextAt?.byteLength ?? 0) +
    (series.sampleText?.byteLength ?? 0) +
    (series.sampleTextAt?.byteLength ?? 0)
  );
}
