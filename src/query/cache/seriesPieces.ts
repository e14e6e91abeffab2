import { seriesKeyOf, sortSeriesByKey, withColumns, type SeriesColumns } from '../../../engine/index.js';

/**
 * Series cut into time pieces and joined back: the results cache keeps a query's answer as
 * pieces of its steps and serves any run of them. Every function here keeps the order a PromQL
 * range result has (series sorted by labels) and leaves out series with no point in a piece,
 * as an evaluation over that piece would.
 */

/** SERIES_OVERHEAD_BYTES stands for a series' label object and arrays in size estimates. */
const SERIES_OVERHEAD_BYTES = 96;

/** seriesBytes estimates what holding `series` costs: 16 bytes a point plus the labels (as long as their key). */
export function seriesBytes(series: readonly SeriesColumns[]): number {
  let bytes = 0;
  for (const s of series) bytes += SERIES_OVERHEAD_BYTES + s.timestampsMs.length * 16 + 2 * seriesKeyOf(s).length;
  return bytes;
}

/**
 * PLAIN_FIELDS are the fields of a series the cache keeps or may drop (the workers' text, and
 * where a worker's series lies in its answer); any other set field makes it not plain.
 */
const PLAIN_FIELDS = new Set(['labels', 'key', 'timestampsMs', 'values', 'valueText', 'sampleText', 'labelsText', 'columns', 'from', 'to', 'index']);

/**
 * plainSeries tells whether every series is just labels, timestamps and float values (no
 * histograms), which is what the cache keeps; the text a worker may add is not kept
 * (joinSeries copies the numbers only).
 */
export function plainSeries(series: readonly SeriesColumns[]): boolean {
  for (const s of series) {
    for (const field in s) if (!PLAIN_FIELDS.has(field) && (s as unknown as Record<string, unknown>)[field] !== undefined) return false;
  }
  return true;
}

/** lowerBound is the first index of `ts` whose value is at least `t`. */
function lowerBound(ts: Float64Array, t: number): number {
  let lo = 0;
  let hi = ts.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (ts[mid] < t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * sliceSeries keeps the points of each series within [fromMs, toMs] as views (no copy); series
 * left without a point are dropped.
 */
export function sliceSeries(series: readonly SeriesColumns[], fromMs: number, toMs: number): SeriesColumns[] {
  const out: SeriesColumns[] = [];
  for (const s of series) {
    const from = lowerBound(s.timestampsMs, fromMs);
    const to = lowerBound(s.timestampsMs, toMs + 1);
    if (to <= from) continue;
    if (from === 0 && to === s.timestampsMs.length) out.push(s);
    else {
      const cut = withColumns(s, s.timestampsMs.subarray(from, to), s.values.subarray(from, to));
      if (s.valueText !== undefined) cut.valueText = { source: s.valueText.source, at: s.valueText.at.subarray(from, to + 1) };
      if (s.sampleText !== undefined) cut.sampleText = { bytes: s.sampleText.bytes, at: s.sampleText.at.subarray(from, to + 1) };
      cut.labelsText = s.labelsText;
      out.push(cut);
    }
  }
  return out;
}

/**
 * joinSeries concatenates pieces that follow each other in time (each piece's points all after
 * the previous piece's) into one array per series, copied into fresh arrays so that what is
 * kept does not hold a worker's whole answer alive; the result is sorted by labels.
 */
export function joinSeries(pieces: ReadonlyArray<readonly SeriesColumns[]>): SeriesColumns[] {
  const byKey = new Map<string, { parts: SeriesColumns[]; points: number }>();
  for (const piece of pieces) {
    for (const s of piece) {
      const key = seriesKeyOf(s);
      let entry = byKey.get(key);
      if (!entry) byKey.set(key, (entry = { parts: [], points: 0 }));
      entry.parts.push(s);
      entry.points += s.timestampsMs.length;
    }
  }
  const out: SeriesColumns[] = [];
  for (const { parts, points } of byKey.values()) {
    const timestampsMs = new Float64Array(points);
    const values = new Float64Array(points);
    let at = 0;
    for (const part of parts) {
      timestampsMs.set(part.timestampsMs, at);
      values.set(part.values, at);
      at += part.timestampsMs.length;
    }
    out.push(withColumns(parts[0], timestampsMs, values));
  }
  return sortSeriesByKey(out);
}
