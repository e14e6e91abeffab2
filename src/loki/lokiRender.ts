import type { Labels, LogQLExpr, RawRow, SeriesColumns } from '../../engine/index.js';

/**
 * JSON bodies as Loki's query API writes them: streams carry `[ "<ns>", "<line>" ]` pairs,
 * samples carry `[<unix seconds>, "<value>"]`, and every query answer ends with a `stats`
 * block holding the summary fields Grafana shows in its query inspector.
 */

/** sampleValue writes a sample as Prometheus and Loki do: a string, with NaN and infinities spelled out. */
export function sampleValue(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (value === Infinity) return '+Inf';
  if (value === -Infinity) return '-Inf';
  return String(value);
}

/** unixSeconds writes a millisecond timestamp as the float seconds Loki puts in sample pairs. */
function unixSeconds(ms: number): number {
  return ms / 1000;
}

/** isScalarExpr tells expressions that yield a scalar (`1 + 1`), which Loki answers with resultType scalar. */
export function isScalarExpr(expr: LogQLExpr): boolean {
  if (expr.kind === 'NumberLiteral') return true;
  if (expr.kind === 'BinaryExpr') return isScalarExpr(expr.lhs) && isScalarExpr(expr.rhs);
  return false;
}

/** withoutMessage drops the line itself from a row's tags, leaving the labels of its stream. */
function streamLabels(tags: Labels): Labels {
  if (!('message' in tags)) return tags;
  const out: Record<string, string> = {};
  for (const key of Object.keys(tags)) if (key !== 'message') out[key] = tags[key];
  return out;
}

/** labelKey is a stable key for a label set, its sorted entries. */
function labelKey(labels: Labels): string {
  return JSON.stringify(Object.keys(labels).sort().map((k) => [k, labels[k]]));
}

export interface StreamsResult {
  resultType: 'streams';
  result: Array<{ stream: Labels; values: Array<[string, string]> }>;
}

/**
 * streamsResult groups rows by their label set into Loki streams, keeping the rows' order
 * within each stream (the direction they were read in).
 */
export function streamsResult(rows: readonly RawRow[]): StreamsResult {
  const byKey = new Map<string, { stream: Labels; values: Array<[string, string]> }>();
  const keyOf = new WeakMap<Labels, string>();
  for (const row of rows) {
    let key = keyOf.get(row.tags);
    if (key === undefined) keyOf.set(row.tags, (key = labelKey(streamLabels(row.tags))));
    let entry = byKey.get(key);
    if (!entry) byKey.set(key, (entry = { stream: streamLabels(row.tags), values: [] }));
    entry.values.push([row.timestampNs.toString(), row.line ?? row.tags.message ?? '']);
  }
  return { resultType: 'streams', result: [...byKey.values()] };
}

/** matrixResult writes series as a Loki matrix, dropping points that are not finite as Loki's engine does. */
export function matrixResult(series: readonly SeriesColumns[]): { resultType: 'matrix'; result: Array<{ metric: Labels; values: Array<[number, string]> }> } {
  const result = [];
  for (const s of series) {
    const values: Array<[number, string]> = [];
    for (let i = 0; i < s.timestampsMs.length; i++) values.push([unixSeconds(s.timestampsMs[i]), sampleValue(s.values[i])]);
    if (values.length > 0) result.push({ metric: s.labels, values });
  }
  return { resultType: 'matrix', result };
}

/** vectorResult writes each series' sample at `atMs` (an instant query evaluates one step). */
export function vectorResult(series: readonly SeriesColumns[], atMs: number): { resultType: 'vector'; result: Array<{ metric: Labels; value: [number, string] }> } {
  const result = [];
  for (const s of series) {
    const last = s.timestampsMs.length - 1;
    if (last < 0) continue;
    result.push({ metric: s.labels, value: [unixSeconds(atMs), sampleValue(s.values[last])] as [number, string] });
  }
  return { resultType: 'vector', result };
}

/** scalarResult is the one sample of a scalar expression. */
export function scalarResult(series: readonly SeriesColumns[], atMs: number): { resultType: 'scalar'; result: [number, string] } {
  const s = series.find((x) => x.values.length > 0);
  return { resultType: 'scalar', result: [unixSeconds(atMs), sampleValue(s === undefined ? NaN : s.values[s.values.length - 1])] };
}

export interface QueryFigures {
  execSeconds: number;
  /** entries is how many log lines or samples the answer holds. */
  entries: number;
  /** bytes is the size of the log lines the answer holds. */
  bytes: number;
  /** splits is how many time slices the query was cut into. */
  splits: number;
}

/**
 * statsBlock is the `stats` member Grafana reads: the summary it shows (bytes and lines
 * processed, their rates, execution time) and the per-component sections it expects to find.
 * The engine does not count what it scanned, so processed figures are those of the answer.
 */
export function statsBlock(f: QueryFigures): Record<string, unknown> {
  const perSecond = (n: number): number => (f.execSeconds > 0 ? Math.round(n / f.execSeconds) : n);
  const store = { totalChunksRef: 0, totalChunksDownloaded: 0, chunksDownloadTime: 0, queryReferencedStructuredMetadata: false, chunk: { headChunkBytes: 0, headChunkLines: 0, decompressedBytes: f.bytes, decompressedLines: f.entries, compressedBytes: 0, totalDuplicates: 0, postFilterLines: f.entries, headChunkStructuredMetadataBytes: 0, decompressedStructuredMetadataBytes: 0 } };
  const cache = { entriesFound: 0, entriesRequested: 0, entriesStored: 0, bytesReceived: 0, bytesSent: 0, requests: 0, downloadTime: 0, queryLengthServed: 0 };
  return {
    summary: {
      bytesProcessedPerSecond: perSecond(f.bytes),
      linesProcessedPerSecond: perSecond(f.entries),
      totalBytesProcessed: f.bytes,
      totalLinesProcessed: f.entries,
      execTime: f.execSeconds,
      queueTime: 0,
      subqueries: 0,
      totalEntriesReturned: f.entries,
      splits: f.splits,
      shards: 0,
      totalPostFilterLines: f.entries,
      totalStructuredMetadataBytesProcessed: 0,
    },
    querier: { store },
    ingester: { totalReached: 0, totalChunksMatched: 0, totalBatches: 0, totalLinesSent: 0, store },
    cache: { chunk: cache, index: cache, result: cache, statsResult: cache, volumeResult: cache, seriesResult: cache, labelResult: cache, instantMetricResult: cache },
  };
}

/** rowsBytes is the size of the lines in `rows`, for the stats block. */
export function rowsBytes(rows: readonly RawRow[]): number {
  let n = 0;
  for (const row of rows) n += (row.line ?? '').length;
  return n;
}

/** seriesPoints counts the samples of `series`, for the stats block. */
export function seriesPoints(series: readonly SeriesColumns[]): number {
  let n = 0;
  for (const s of series) n += s.timestampsMs.length;
  return n;
}
