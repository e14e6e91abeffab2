import { formatGoFloat, inNameOrder, labelsJson, renderHistogram, sortByLabels, sortSeriesByKey, type FloatHistogram, type Labels, type SeriesColumns } from '../../engine/index.js';

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
 * JsonPiece is part of a JSON body: text, or bytes already rendered (the workers' points, as
 * ASCII). A body of pieces is joined once (joinJson), so the workers' bytes are copied into
 * the body and never become a string on this thread.
 */
export type JsonPiece = string | Uint8Array;

/**
 * JsonWriter builds a body as UTF-8 in one growing buffer: text is encoded as it is added and
 * the workers' bytes (points, label sets) are copied in. An answer of 10,000 series so makes
 * one buffer, where a list of pieces made a string and a buffer per series, and encoding them
 * one by one was most of the time the answering thread spent on it.
 */
export class JsonWriter {
  private buffer = Buffer.allocUnsafe(JSON_WRITER_START_BYTES);
  private length = 0;

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

  /** labels writes a series' label set: the worker's JSON of it when it sent one (SeriesColumns.labelsText). */
  labels(s: SeriesColumns): void {
    const text = s.labelsText;
    if (text !== undefined) this.bytes(text.bytes, text.from, text.to);
    else this.text(labelsJson(s.labels));
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

/** JSON_WRITER_START_BYTES is a body's first buffer; it doubles as the body grows. */
const JSON_WRITER_START_BYTES = 16 * 1024;
/** SHORT_COPY_BYTES: runs shorter than this (one point's text) are copied without making a view. */
const SHORT_COPY_BYTES = 64;

/** joinJson makes a body of pieces: text when it is all text, else one buffer (text encoded as UTF-8). */
export function joinJson(pieces: readonly JsonPiece[]): string | Buffer {
  if (pieces.every((p) => typeof p === 'string')) return pieces.join('');
  return Buffer.concat(pieces.map((p) => (typeof p === 'string' ? Buffer.from(p) : p)));
}

/** renderMatrix renders series with at least one point as a matrix result, sorted by labels as Prometheus sorts range results. */
export function renderMatrix(series: readonly SeriesColumns[]): string {
  const out = new JsonWriter();
  writeMatrix(out, series);
  return out.done().toString();
}

/** renderMatrixPieces is renderMatrix as pieces (one buffer): series rendered by the workers are their bytes. */
export function renderMatrixPieces(series: readonly SeriesColumns[]): JsonPiece[] {
  const out = new JsonWriter();
  writeMatrix(out, series);
  return [out.done()];
}

/** writeMatrix writes series with at least one point as a matrix result, sorted by labels. */
function writeMatrix(out: JsonWriter, series: readonly SeriesColumns[]): void {
  const kept = sortSeriesByKey(series.filter((s) => s.timestampsMs.length > 0));
  out.text('{"resultType":"matrix","result":[');
  let first = true;
  for (const s of kept) {
    out.text(first ? '{"metric":' : ',{"metric":');
    first = false;
    out.labels(s);
    const hists = s.histograms;
    const text = s.sampleText;
    if (hists === undefined && text !== undefined) {
      // The workers' rendering of the points (SeriesColumns.sampleText), each followed by a comma.
      out.text(',"values":[');
      out.bytes(text.bytes, text.at[0], text.at[text.at.length - 1] - 1);
      out.text(']}');
      continue;
    }
    if (hists === undefined) {
      const points: string[] = new Array<string>(s.timestampsMs.length);
      for (let i = 0; i < s.timestampsMs.length; i++) points[i] = renderSample(s.timestampsMs[i], s.values[i]);
      out.text(`,"values":[${points.join(',')}]}`);
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
 * renderVectorPieces renders each series' point at `timestampMs` (the evaluation time) as an
 * instant vector, as pieces (one buffer): points rendered by the workers are their bytes.
 */
export function renderVectorPieces(series: readonly SeriesColumns[], timestampMs: number): JsonPiece[] {
  const out = new JsonWriter();
  out.text('{"resultType":"vector","result":[');
  let first = true;
  for (const s of series) {
    const at = s.timestampsMs.indexOf(timestampMs);
    if (at < 0) continue;
    out.text(first ? '{"metric":' : ',{"metric":');
    first = false;
    out.labels(s);
    const h = s.histograms?.[at];
    const text = s.sampleText;
    if (h !== undefined) out.text(`,"histogram":${renderHistogramSample(timestampMs, h)}}`);
    else if (text !== undefined) {
      // The workers' rendering of the point, without the comma that follows it.
      out.text(',"value":');
      out.bytes(text.bytes, text.at[at], text.at[at + 1] - 1);
      out.text('}');
    } else out.text(`,"value":${renderSample(timestampMs, s.values[at])}}`);
  }
  out.text(']}');
  return [out.done()];
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
  return successPieces([dataJson], warnings, infos).join('');
}

/** successPieces is successBody for `data` in pieces. */
export function successPieces<P extends JsonPiece>(data: readonly P[], warnings: readonly string[] = [], infos: readonly string[] = []): Array<P | string> {
  const extra = (warnings.length > 0 ? `,"warnings":${JSON.stringify(warnings)}` : '') + (infos.length > 0 ? `,"infos":${JSON.stringify(infos)}` : '');
  return ['{"status":"success","data":', ...data, `${extra}}`];
}
