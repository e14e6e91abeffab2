import { formatGoFloat, renderHistogram, sortByLabels, type FloatHistogram, type Labels, type SeriesColumns } from '../../engine/index.js';

/**
 * JSON rendering of Prometheus API results, written by hand: result bodies are the bulk of a
 * dashboard's traffic, and building them as strings avoids one object per point. Values are
 * strings in Go's shortest fixed-point form ('f', -1; `+Inf`, `-Inf`, `NaN`), timestamps are
 * Unix seconds as JSON numbers, and label sets have their names sorted, as Prometheus writes them.
 */

/** namesInOrder lists a label set's names sorted; most sets come sorted already, which is checked first. */
function namesInOrder(labels: Labels): string[] {
  const names = Object.keys(labels);
  return ascending(names) ? names : names.sort();
}

function ascending(names: readonly string[]): boolean {
  for (let i = 1; i < names.length; i++) if (names[i - 1] > names[i]) return false;
  return true;
}

/** PLAIN_JSON matches text that needs no escape in a JSON string (no quote, backslash, control character or surrogate). */
const PLAIN_JSON = /^[^"\\\u0000-\u001f\ud800-\udfff]*$/;

/** jsonQuoted is JSON.stringify for a string, without its work for the common text that needs no escape. */
function jsonQuoted(text: string): string {
  return PLAIN_JSON.test(text) ? `"${text}"` : JSON.stringify(text);
}

/**
 * renderLabels renders a label set as a JSON object with its names sorted. It runs once per
 * series of every answer on the thread that answers all queries (10,000 series: 4 ms, where
 * sorting pairs into arrays and quoting with JSON.stringify took 10), so it builds no arrays.
 */
export function renderLabels(labels: Labels): string {
  const names = namesInOrder(labels);
  let out = '{';
  for (let i = 0; i < names.length; i++) {
    if (i > 0) out += ',';
    out += `${jsonQuoted(names[i])}:${jsonQuoted(labels[names[i]])}`;
  }
  return out + '}';
}

/**
 * sortByLabelSets sorts items by their label sets as Prometheus' labels.Compare orders them:
 * pair by pair in name order, then by length. The engine's sortByLabels does that with one key
 * per set, built in the set's own name order, so a set whose names are out of order is keyed
 * as its sorted copy.
 */
export function sortByLabelSets<T>(items: readonly T[], labelsOf: (item: T) => Labels): T[] {
  return sortByLabels([...items], (item) => inNameOrder(labelsOf(item)));
}

/** inNameOrder is a label set with its names sorted: itself when they already are. */
function inNameOrder(labels: Labels): Labels {
  const names = Object.keys(labels);
  return ascending(names) ? labels : (Object.fromEntries(names.sort().map((name) => [name, labels[name]])) as Labels);
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

/** JsonPieces gathers a body's pieces, running adjacent text together. */
class JsonPieces {
  readonly pieces: JsonPiece[] = [];
  private text = '';

  add(piece: JsonPiece): void {
    if (typeof piece === 'string') this.text += piece;
    else {
      if (this.text !== '') this.pieces.push(this.text);
      this.text = '';
      this.pieces.push(piece);
    }
  }

  done(): JsonPiece[] {
    if (this.text !== '') this.pieces.push(this.text);
    this.text = '';
    return this.pieces;
  }
}

/** joinJson makes a body of pieces: text when it is all text, else one buffer (text encoded as UTF-8). */
export function joinJson(pieces: readonly JsonPiece[]): string | Buffer {
  if (pieces.every((p) => typeof p === 'string')) return pieces.join('');
  return Buffer.concat(pieces.map((p) => (typeof p === 'string' ? Buffer.from(p) : p)));
}

/** renderMatrix renders series with at least one point as a matrix result, sorted by labels as Prometheus sorts range results. */
export function renderMatrix(series: readonly SeriesColumns[]): string {
  const body = joinJson(renderMatrixPieces(series));
  return typeof body === 'string' ? body : body.toString();
}

/** renderMatrixPieces is renderMatrix as pieces: series rendered by the workers are their bytes. */
export function renderMatrixPieces(series: readonly SeriesColumns[]): JsonPiece[] {
  const kept = sortByLabelSets(
    series.filter((s) => s.timestampsMs.length > 0),
    (s) => s.labels,
  );
  const out = new JsonPieces();
  out.add('{"resultType":"matrix","result":[');
  let first = true;
  const part = (text: string): void => {
    out.add(first ? text : ',' + text);
    first = false;
  };
  for (const s of kept) {
    const hists = s.histograms;
    const text = s.sampleText;
    if (hists === undefined && text !== undefined) {
      // The workers' rendering of the points (SeriesColumns.sampleText), each followed by a comma.
      part(`{"metric":${renderLabels(s.labels)},"values":[`);
      out.add(text.bytes.subarray(text.at[0], text.at[text.at.length - 1] - 1));
      out.add(']}');
      continue;
    }
    if (hists === undefined) {
      const points: string[] = new Array<string>(s.timestampsMs.length);
      for (let i = 0; i < s.timestampsMs.length; i++) points[i] = renderSample(s.timestampsMs[i], s.values[i]);
      part(`{"metric":${renderLabels(s.labels)},"values":[${points.join(',')}]}`);
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
    const members = [`"metric":${renderLabels(s.labels)}`];
    if (points.length > 0) members.push(`"values":[${points.join(',')}]`);
    if (histograms.length > 0) members.push(`"histograms":[${histograms.join(',')}]`);
    part(`{${members.join(',')}}`);
  }
  out.add(']}');
  return out.done();
}

/**
 * renderVectorPieces renders each series' point at `timestampMs` (the evaluation time) as an
 * instant vector, in pieces: points rendered by the workers are their bytes.
 */
export function renderVectorPieces(series: readonly SeriesColumns[], timestampMs: number): JsonPiece[] {
  const out = new JsonPieces();
  out.add('{"resultType":"vector","result":[');
  let first = true;
  for (const s of series) {
    const at = s.timestampsMs.indexOf(timestampMs);
    if (at < 0) continue;
    const head = `${first ? '' : ','}{"metric":${renderLabels(s.labels)},`;
    first = false;
    const h = s.histograms?.[at];
    const text = s.sampleText;
    if (h !== undefined) out.add(`${head}"histogram":${renderHistogramSample(timestampMs, h)}}`);
    else if (text !== undefined) {
      // The workers' rendering of the point, without the comma that follows it.
      out.add(`${head}"value":`);
      out.add(text.bytes.subarray(text.at[at], text.at[at + 1] - 1));
      out.add('}');
    } else out.add(`${head}"value":${renderSample(timestampMs, s.values[at])}}`);
  }
  out.add(']}');
  return out.done();
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
