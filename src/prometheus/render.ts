import { eachBatch, emptyPointColumns, floatText, formatGoFloat, inNameOrder, labelsJson, pointColumnsOf, pointCountOf, renderHistogram, sortByLabels, sortSeriesByKey, type FloatHistogram, type Labels, type PointColumns, type SeriesColumns } from '../../engine/index.js';

/**
 * JSON rendering of Prometheus API results, written by hand: result bodies are the bulk of a
 * dashboard's traffic, and building them as strings avoids one object per point. Values are
 * strings in Go's shortest fixed-point form ('f', -1; `+Inf`, `-Inf`, `NaN`), timestamps are
 * Unix seconds as JSON numbers, and label sets have their names sorted, as Prometheus writes them.
 */

/**
 * sortByLabelSets sorts items by their label sets as Prometheus' labels.Compare orders them:
 * pair by pair in name order, then by length. The engine's sortByLabels does that with one key
 * per set, built in the set's own name order, so a set whose names are out of order is keyed
 * as its sorted copy.
 */
export function sortByLabelSets<T>(items: readonly T[], labelsOf: (item: T) => Labels): T[] {
  return sortByLabels([...items], (item) => inNameOrder(labelsOf(item)));
}

/** renderSample renders one `[unixSeconds, "value"]` pair. */
export function renderSample(timestampMs: number, value: number): string {
  return `[${timestampMs / 1000},"${formatGoFloat(value)}"]`;
}

/**
 * renderHistogramSample renders one `[unixSeconds, {count, sum, buckets}]` pair of a native
 * histogram sample as Prometheus does: numbers as strings in Go's form, each bucket
 * `[boundaryRule, "lower", "upper", "count"]`, and no `buckets` member when none is populated.
 */
export function renderHistogramSample(timestampMs: number, h: FloatHistogram): string {
  const r = renderHistogram(h);
  let out = `[${timestampMs / 1000},{"count":"${formatGoFloat(r.count)}","sum":"${formatGoFloat(r.sum)}"`;
  if (r.buckets.length > 0) {
    out += ',"buckets":[' + r.buckets.map(([rule, lower, upper, count]) => `[${rule},"${formatGoFloat(lower)}","${formatGoFloat(upper)}","${formatGoFloat(count)}"]`).join(',') + ']';
  }
  return out + '}]';
}

/**
 * JsonWriter builds a body as UTF-8 in one buffer: text is encoded as it is added and the
 * workers' bytes (points, label sets) are copied in. An answer of 10,000 series so makes one
 * buffer, where a list of pieces made a string and a buffer per series, and encoding them one
 * by one was most of the time the answering thread spent on it. The buffer is sized up front
 * from what the answer holds (PromData.bytes): a buffer doubled from a small start allocated
 * four times the body, and that much memory outside the heap per answer made every answer of
 * many series end in a full collection of the answering thread's heap.
 */
export class JsonWriter {
  private buffer: Buffer;
  private length = 0;

  /** `expectedBytes` is the body's likely size; the buffer still grows past it if needed. */
  constructor(expectedBytes = JSON_WRITER_START_BYTES) {
    this.buffer = Buffer.allocUnsafe(Math.max(JSON_WRITER_START_BYTES, Math.ceil(expectedBytes)));
  }

  text(text: string): void {
    // UTF-8 takes at most three bytes per UTF-16 code unit.
    this.reserve(text.length * 3);
    this.length += this.buffer.write(text, this.length, 'utf8');
  }

  /** bytes copies `source[from, to)`: short runs byte by byte, which costs less than a view to copy from. */
  bytes(source: Uint8Array, from: number, to: number): void {
    this.reserve(to - from);
    if (to - from < SHORT_COPY_BYTES) {
      const buffer = this.buffer;
      let at = this.length;
      for (let i = from; i < to; i++) buffer[at++] = source[i];
    } else this.buffer.set(source.subarray(from, to), this.length);
    this.length += to - from;
  }

  /** labels writes a series' label set: the worker's JSON of it when it sent one (PointColumns.labelsText, found by pointColumnsOf). */
  labels(s: SeriesColumns, where: PointColumns): void {
    if (where.labelsText !== undefined) this.bytes(where.labelsText, where.labelsFrom, where.labelsTo);
    else this.text(labelsJson(s.labels));
  }

  /**
   * samples writes points as `[seconds,"value"]` pairs separated by commas, formatted in
   * batches (floatText) straight into the body: no string per point on this thread.
   */
  samples(timestampsMs: Float64Array, values: Float64Array): void {
    eachBatch(
      values.length,
      (from) => floatText().samples(timestampsMs, values, from, values.length),
      (batch) => this.bytes(batch.text, 0, batch.text.length),
    );
    // Each pair is written with the comma that follows it; the last one's is dropped.
    if (values.length > 0) this.length--;
  }

  done(): Buffer {
    return this.buffer.subarray(0, this.length);
  }

  private reserve(bytes: number): void {
    if (this.length + bytes <= this.buffer.length) return;
    const grown = Buffer.allocUnsafe(Math.max(this.buffer.length * 2, this.length + bytes));
    this.buffer.copy(grown, 0, 0, this.length);
    this.buffer = grown;
  }
}

/**
 * JSON_WRITER_START_BYTES is the smallest buffer a body starts with: below 4 KiB Node carves
 * buffers out of a shared pool, so a small answer allocates no memory of its own.
 */
const JSON_WRITER_START_BYTES = 1024;
/** SHORT_COPY_BYTES: runs shorter than this (one point's text) are copied without making a view. */
const SHORT_COPY_BYTES = 64;

/**
 * PromData is a result's `data` member, ready to write into a body: `bytes` is about the size
 * it will take (exact for what the workers rendered, estimated for the rest), so the body that
 * holds it is allocated once.
 */
export interface PromData {
  readonly bytes: number;
  write(out: JsonWriter): void;
}

/** Estimates for what the answering thread renders itself: a label set, a float point, a histogram point. */
const LABELS_BYTES_GUESS = 128;
const POINT_BYTES_GUESS = 32;
const HISTOGRAM_POINT_BYTES_GUESS = 512;
/** SERIES_FRAMING_BYTES covers a series' `{"metric":…,"values":[…]}` around its label set and points. */
const SERIES_FRAMING_BYTES = 24;

/** labelsBytes is the size of a series' label set in the body (exact when the worker rendered it). */
function labelsBytes(where: PointColumns): number {
  return where.labelsText === undefined ? LABELS_BYTES_GUESS : where.labelsTo - where.labelsFrom;
}

/** pointsBytes is the size of a series' points at positions [from, to) of its columns in the body (exact when the worker rendered them). */
function pointsBytes(s: SeriesColumns, where: PointColumns, from: number, to: number): number {
  const at = where.sampleTextAt;
  if (at !== undefined && s.histograms === undefined) return at[to] - at[from];
  return (to - from) * (s.histograms === undefined ? POINT_BYTES_GUESS : HISTOGRAM_POINT_BYTES_GUESS);
}

/** textData is data already rendered as JSON text. */
export function textData(json: string): PromData {
  return { bytes: json.length * 3, write: (out) => out.text(json) };
}

/** renderMatrix renders series with at least one point as a matrix result, sorted by labels as Prometheus sorts range results. */
export function renderMatrix(series: readonly SeriesColumns[]): string {
  return renderData(matrixData(series));
}

/** renderVector renders an instant vector result (vectorData) as text. */
export function renderVector(series: readonly SeriesColumns[], timestampMs: number): string {
  return renderData(vectorData(series, timestampMs));
}

function renderData(data: PromData): string {
  const out = new JsonWriter(data.bytes);
  data.write(out);
  return out.done().toString();
}

/** matrixData is a matrix result of the series with at least one point, sorted by labels; points the workers rendered are copied as their bytes. */
export function matrixData(series: readonly SeriesColumns[]): PromData {
  const kept = sortSeriesByKey(series.filter((s) => pointCountOf(s) > 0));
  let bytes = 64;
  // Texts are read where the workers' answers hold them (pointColumnsOf): no view per series.
  const where = emptyPointColumns();
  for (const s of kept) {
    pointColumnsOf(s, where);
    bytes += SERIES_FRAMING_BYTES + labelsBytes(where) + pointsBytes(s, where, where.from, where.to);
  }
  return { bytes, write: (out) => writeMatrix(out, kept) };
}

/** writeMatrix writes series, each with at least one point and already in label order, as a matrix result. */
function writeMatrix(out: JsonWriter, kept: readonly SeriesColumns[]): void {
  out.text('{"resultType":"matrix","result":[');
  let first = true;
  const where = emptyPointColumns();
  for (const s of kept) {
    out.text(first ? '{"metric":' : ',{"metric":');
    first = false;
    pointColumnsOf(s, where);
    out.labels(s, where);
    const hists = s.histograms;
    const text = where.sampleText;
    if (hists === undefined && text !== undefined) {
      // The workers' rendering of the points (SeriesColumns.sampleText), each followed by a comma.
      out.text(',"values":[');
      out.bytes(text, where.sampleTextAt![where.from], where.sampleTextAt![where.to] - 1);
      out.text(']}');
      continue;
    }
    if (hists === undefined) {
      out.text(',"values":[');
      out.samples(s.timestampsMs, s.values);
      out.text(']}');
      continue;
    }
    // Floats go in `values` and histograms in `histograms`, each left out when empty, as Prometheus writes a series.
    const points: string[] = [];
    const histograms: string[] = [];
    for (let i = 0; i < s.timestampsMs.length; i++) {
      const h = hists[i];
      if (h === undefined) points.push(renderSample(s.timestampsMs[i], s.values[i]));
      else histograms.push(renderHistogramSample(s.timestampsMs[i], h));
    }
    let members = '';
    if (points.length > 0) members += `,"values":[${points.join(',')}]`;
    if (histograms.length > 0) members += `,"histograms":[${histograms.join(',')}]`;
    out.text(members + '}');
  }
  out.text(']}');
}

/**
 * vectorData is an instant vector of each series' point at `timestampMs` (the evaluation
 * time); points the workers rendered are copied as their bytes.
 */
export function vectorData(series: readonly SeriesColumns[], timestampMs: number): PromData {
  const kept: SeriesColumns[] = [];
  const positions: number[] = [];
  let bytes = 64;
  // Points and texts are read where the workers' answers hold them (pointColumnsOf): no view per series.
  const where = emptyPointColumns();
  for (const s of series) {
    const { timestampsMs, from, to } = pointColumnsOf(s, where);
    let at = from;
    while (at < to && timestampsMs[at] !== timestampMs) at++;
    if (at === to) continue;
    kept.push(s);
    positions.push(at);
    bytes += SERIES_FRAMING_BYTES + labelsBytes(where) + pointsBytes(s, where, at, at + 1);
  }
  return { bytes, write: (out) => writeVector(out, kept, positions, timestampMs) };
}

/** writeVector writes each kept series' point at its position in the series' columns (PointColumns). */
function writeVector(out: JsonWriter, kept: readonly SeriesColumns[], positions: readonly number[], timestampMs: number): void {
  out.text('{"resultType":"vector","result":[');
  const where = emptyPointColumns();
  for (let i = 0; i < kept.length; i++) {
    const s = kept[i];
    const at = positions[i];
    out.text(i === 0 ? '{"metric":' : ',{"metric":');
    pointColumnsOf(s, where);
    out.labels(s, where);
    const h = s.histograms?.[at - where.from];
    const text = where.sampleText;
    if (h !== undefined) out.text(`,"histogram":${renderHistogramSample(timestampMs, h)}}`);
    else if (text !== undefined) {
      // The workers' rendering of the point, without the comma that follows it.
      out.text(',"value":');
      out.bytes(text, where.sampleTextAt![at], where.sampleTextAt![at + 1] - 1);
      out.text('}');
    } else out.text(`,"value":${renderSample(timestampMs, where.values[at])}}`);
  }
  out.text(']}');
}

/** renderScalar renders a scalar result; a scalar always has a value (NaN when the series is empty). */
export function renderScalar(series: readonly SeriesColumns[], timestampMs: number): string {
  const s = series[0];
  const at = s === undefined ? -1 : s.timestampsMs.indexOf(timestampMs);
  const value = at < 0 ? NaN : s.values[at];
  return `{"resultType":"scalar","result":${renderSample(timestampMs, value)}}`;
}

/** renderString renders a string literal's result. */
export function renderString(text: string, timestampMs: number): string {
  return `{"resultType":"string","result":[${timestampMs / 1000},${JSON.stringify(text)}]}`;
}

/** successBody wraps rendered `data` JSON in the success envelope, with warnings and infos when there are any. */
export function successBody(dataJson: string, warnings: readonly string[] = [], infos: readonly string[] = []): string {
  return `{"status":"success","data":${dataJson}${envelopeTail(warnings, infos)}`;
}

/** successJson is successBody for data written straight into the body: one buffer, sized once. */
export function successJson(data: PromData, warnings: readonly string[] = [], infos: readonly string[] = []): Buffer {
  const head = '{"status":"success","data":';
  const tail = envelopeTail(warnings, infos);
  const out = new JsonWriter(head.length + data.bytes + tail.length * 3);
  out.text(head);
  data.write(out);
  out.text(tail);
  return out.done();
}

/** envelopeTail closes the envelope after `data`, with the annotations Prometheus lists beside it. */
function envelopeTail(warnings: readonly string[], infos: readonly string[]): string {
  return (warnings.length > 0 ? `,"warnings":${JSON.stringify(warnings)}` : '') + (infos.length > 0 ? `,"infos":${JSON.stringify(infos)}` : '') + '}';
}
