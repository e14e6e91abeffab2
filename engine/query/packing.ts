import { eachBatch, floatText, type FloatTextBatch } from '../common/floatText.js';
import { decodeHistogramBlock, encodeHistogramBlock, hasHistograms } from '../storage/histogramCodec.js';
import { KeyedSeries } from '../storage/keyedSeries.js';
import { inNameOrder, labelPairKey, type Labels } from '../storage/labels.js';
import { jsonQuoted } from '../common/labelsJson.js';
import type { SeriesColumns } from '../storage/seriesColumns.js';

/**
 * PackedSeries moves many series between threads as their keys and a few buffers: each
 * series' label-set key (KeyedSeries), and all samples concatenated into two typed arrays with
 * offsets. The buffers are transferred, not cloned, so the cost does not grow with the number
 * of samples, and no per-sample objects are ever made. Each array owns its whole ArrayBuffer:
 * transferring a view of a shared buffer (a pooled Buffer, a packer's scratch space) would
 * detach that buffer for every other user.
 */
export interface PackedSeries {
  /**
   * keys has every series' label-set key (seriesKeyOf). Separate strings, not slices of one: a
   * slice keeps the whole string it was cut from alive, and keys outlive their answer in the
   * caches of rendered series and of results.
   */
  keys: string[];
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
  /**
   * Every series' label set as the Prometheus API writes it (labelsJson), when the task asked
   * for the points' text: `labelsText[labelsTextAt[i], labelsTextAt[i + 1])` is series i's, as
   * UTF-8. Sent for answers of any size: it costs the worker what the answering thread saves.
   */
  labelsText?: Uint8Array;
  labelsTextAt?: Uint32Array;
}

/**
 * PackOptions: `valueText` adds the values' text and `sampleText` the Prometheus API's
 * rendering of every point (see PackedSeries) to answers of at least VALUE_TEXT_MIN_POINTS
 * samples; `sampleText` also adds that API's JSON of every label set, whatever the size.
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
  const packed: PackedSeries = { keys: [], offsets, timestampsMs, values };
  const withHistograms = series.some((s) => hasHistograms(s.histograms));
  if (withHistograms) packHistograms(series, packed);
  return withText(series, packed, options, withHistograms);
}

/** VectorPoint is one float sample of an instant vector: a series' labels and its one point. */
export interface VectorPoint {
  labels: Labels;
  timestampMs: number;
  value: number;
}

/**
 * packVector packs an instant vector of floats as packSeries packs its series of one point
 * each, straight from the samples: a vector of 10,000 series would otherwise make two
 * one-element arrays and a series object per sample on the worker, only to copy them.
 */
export function packVector(samples: readonly VectorPoint[], options: PackOptions = {}): PackedSeries {
  const count = samples.length;
  const offsets = new Uint32Array(count + 1);
  const timestampsMs = new Float64Array(count);
  const values = new Float64Array(count);
  for (let i = 0; i < count; i++) {
    offsets[i] = i;
    timestampsMs[i] = samples[i].timestampMs;
    values[i] = samples[i].value;
  }
  offsets[count] = count;
  return withText(samples, { keys: [], offsets, timestampsMs, values }, options, false);
}

/** withText adds the keys and what `options` ask for to a pack of `series`' points. */
function withText(series: readonly LabelledSeries[], packed: PackedSeries, options: PackOptions, withHistograms: boolean): PackedSeries {
  packLabels(series, packed, options.sampleText === true);
  const total = packed.values.length;
  if (options.valueText === true && total >= VALUE_TEXT_MIN_POINTS) packValueText(packed.values, packed);
  if (options.sampleText === true && !withHistograms && total >= VALUE_TEXT_MIN_POINTS) packSampleText(packed.timestampsMs, packed.values, packed);
  return packed;
}

/** LabelledSeries is what packing reads of a series to key it: its labels, or a worker's series' key. */
type LabelledSeries = Pick<SeriesColumns, 'labels'>;

/**
 * packLabels gives every series' key (seriesKeyOf) and, with `json`, its label set as the
 * Prometheus API writes it (labelsJson) as UTF-8, in one pass over each label set. Names and
 * values of printable ASCII without a quote or backslash, which nearly all are, are their own
 * key and JSON text and are copied as they are: escaping each with regular expressions and
 * encoding each set on its own took a worker 1.7 µs a series.
 */
function packLabels(series: readonly LabelledSeries[], packed: PackedSeries, json: boolean): void {
  const keys = new Array<string>(series.length);
  const at = json ? new Uint32Array(series.length + 1) : undefined;
  let bytes = valueTextScratch;
  let length = 0;
  for (let i = 0; i < series.length; i++) {
    const s = series[i];
    const keyed = s instanceof KeyedSeries;
    if (!json && keyed) {
      keys[i] = s.key;
      continue;
    }
    const labels = inNameOrder(s.labels);
    let key = '';
    let first = true;
    if (at !== undefined) {
      at[i] = length;
      if (bytes.length - length < 2) bytes = grownScratch(length, 2);
      bytes[length++] = OPEN_BRACE;
    }
    for (const name in labels) {
      const value = labels[name];
      const plain = plainAscii(name) && plainAscii(value);
      if (!keyed) key += plain ? name + '\u0001' + value + '\u0000' : labelPairKey(name, value);
      if (at === undefined) continue;
      if (plain) {
        if (bytes.length - length < name.length + value.length + 8) bytes = grownScratch(length, name.length + value.length + 8);
        if (!first) bytes[length++] = COMMA;
        bytes[length++] = QUOTE;
        for (let k = 0; k < name.length; k++) bytes[length++] = name.charCodeAt(k);
        bytes[length++] = QUOTE;
        bytes[length++] = COLON;
        bytes[length++] = QUOTE;
        for (let k = 0; k < value.length; k++) bytes[length++] = value.charCodeAt(k);
        bytes[length++] = QUOTE;
      } else {
        const text = (first ? '' : ',') + jsonQuoted(name) + ':' + jsonQuoted(value);
        // UTF-8 takes at most three bytes per UTF-16 code unit.
        if (bytes.length - length < text.length * 3) bytes = grownScratch(length, text.length * 3);
        length += bytes.write(text, length, 'utf8');
      }
      first = false;
    }
    if (at !== undefined) {
      if (bytes.length - length < 1) bytes = grownScratch(length, 1);
      bytes[length++] = CLOSE_BRACE;
    }
    keys[i] = keyed ? s.key : key;
  }
  packed.keys = keys;
  if (at === undefined) return;
  at[series.length] = length;
  packed.labelsText = new Uint8Array(bytes.subarray(0, length));
  packed.labelsTextAt = at;
  releaseScratch();
}

/** plainAscii tells whether text is printable ASCII without a quote or backslash: its key part and its JSON are the text itself. */
function plainAscii(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x20 || c > 0x7e || c === QUOTE || c === BACKSLASH) return false;
  }
  return true;
}

/**
 * packValueText formats every value once, on the thread that evaluated them (floatText), into
 * one byte buffer read back as a single flat string: joining the values as strings built a
 * rope of hundreds of thousands of pieces whose flattening (for the copy to the receiving
 * thread) cost as much as the formatting itself.
 */
function packValueText(values: Float64Array, packed: PackedSeries): void {
  const text = textOfColumn(values.length, (from) => floatText().values(values, from, values.length));
  packed.valueText = text.bytes.toString('latin1', 0, text.length);
  packed.valueTextAt = text.at;
  releaseScratch();
}

/**
 * packSampleText renders every point as the Prometheus API writes it, `[seconds,"value"]`
 * followed by a comma (floatText), into one byte buffer: the answering thread copies the bytes
 * into its body and formats no number itself.
 */
function packSampleText(timestampsMs: Float64Array, values: Float64Array, packed: PackedSeries): void {
  const text = textOfColumn(values.length, (from) => floatText().samples(timestampsMs, values, from, values.length));
  // A copy of its own: the scratch buffer stays with this thread, the copy is transferred.
  packed.sampleText = new Uint8Array(text.bytes.subarray(0, text.length));
  packed.sampleTextAt = text.at;
  releaseScratch();
}

/**
 * textOfColumn copies the text of items [0, count), batch after batch, into this thread's
 * scratch buffer: `at[i]` is where item i starts and `at[count]` the text's length.
 */
function textOfColumn(count: number, batchFrom: (from: number) => FloatTextBatch): { bytes: Buffer; length: number; at: Uint32Array } {
  const at = new Uint32Array(count + 1);
  let bytes = valueTextScratch;
  let length = 0;
  eachBatch(count, batchFrom, (batch, from) => {
    if (bytes.length - length < batch.text.length) bytes = grownScratch(length, batch.text.length);
    bytes.set(batch.text, length);
    for (let i = 0; i < batch.written; i++) at[from + i] = length + batch.at[i];
    length += batch.text.length;
  });
  at[count] = length;
  return { bytes, length, at };
}

const QUOTE = 0x22;
const COMMA = 0x2c;
const COLON = 0x3a;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
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

/**
 * unpackSeries returns the series as KeyedSeries over the packed buffers: no sample is copied,
 * and no label set or per-series view is made until something reads it.
 */
export function unpackSeries(packed: PackedSeries): KeyedSeries[] {
  const count = packed.keys.length;
  const out: KeyedSeries[] = new Array(count);
  const ho = packed.histogramOffsets;
  for (let i = 0; i < count; i++) {
    const from = packed.offsets[i];
    const to = packed.offsets[i + 1];
    const s = new KeyedSeries(packed.keys[i], packed.timestampsMs, packed.values, undefined, packed, i, from, to);
    if (ho !== undefined && ho[i + 1] > ho[i]) s.histograms = decodeHistogramBlock(packed.histogramBytes!.subarray(ho[i], ho[i + 1]), to - from);
    out[i] = s;
  }
  return out;
}

/** transferablesOf lists the buffers to move with a message carrying `packed`. */
export function transferablesOf(packed: PackedSeries): ArrayBuffer[] {
  const buffers = new Set<ArrayBuffer>();
  for (const a of [packed.offsets, packed.timestampsMs, packed.values, packed.histogramOffsets, packed.histogramBytes, packed.valueTextAt, packed.sampleText, packed.sampleTextAt, packed.labelsText, packed.labelsTextAt]) if (a !== undefined) buffers.add(a.buffer as ArrayBuffer);
  return [...buffers];
}

/** packedSeriesBytes is the size of packed series, what holding them costs before they are read back. */
export function packedSeriesBytes(series: PackedSeries): number {
  return (
    keysBytes(series.keys) +
    series.offsets.byteLength +
    series.timestampsMs.byteLength +
    series.values.byteLength +
    (series.histogramOffsets?.byteLength ?? 0) +
    (series.histogramBytes?.byteLength ?? 0) +
    (series.valueText?.length ?? 0) +
    (series.valueTextAt?.byteLength ?? 0) +
    (series.sampleText?.byteLength ?? 0) +
    (series.sampleTextAt?.byteLength ?? 0) +
    (series.labelsText?.byteLength ?? 0) +
    (series.labelsTextAt?.byteLength ?? 0)
  );
}

/** keysBytes estimates the keys' size: a character each and a string's header. */
function keysBytes(keys: readonly string[]): number {
  let bytes = 0;
  for (const key of keys) bytes += key.length + 16;
  return bytes;
}
