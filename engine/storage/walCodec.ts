import { Packr } from 'msgpackr';
import { decodeHistogramBlock, encodeHistogramBlock, hasHistograms } from './histogramCodec.js';
import type { Exemplar, SeriesExemplars } from './exemplarStore.js';
import type { LogEntry } from './logHead.js';
import { labelsFromKey } from './labels.js';
import { seriesKey, type MetricSeries } from './metricHead.js';

/** MetricMetadataRecord is what is kept per metric name: type, unit and help. */
export interface MetricMetadataRecord {
  name: string;
  type: string;
  unit: string;
  help: string;
}

/**
 * WalEntry is one acknowledged write: a batch of log lines, of metric series, or of exemplars,
 * for one org. Exemplars travel only through a replicated write log (to the ingesters that
 * hold their series' partitions); the embedded WAL never holds them (see exemplarStore.ts).
 */
export type WalEntry =
  | { kind: 'logs'; org: string; records: LogEntry[] }
  | { kind: 'metrics'; org: string; series: MetricSeries[]; metadata: MetricMetadataRecord[] }
  | { kind: 'exemplars'; org: string; series: SeriesExemplars[] };

const packr = new Packr({ useRecords: false, moreTypes: false });

/** bytesOf views a typed array's bytes without copying, so packing writes them as one binary field. */
function bytesOf(a: ArrayBufferView): Buffer {
  return Buffer.from(a.buffer, a.byteOffset, a.byteLength);
}

/** float64From copies bytes into a fresh, aligned Float64Array (bit-exact, so staleness markers survive). */
function float64From(bytes: Uint8Array): Float64Array {
  const out = new Float64Array(bytes.byteLength / 8);
  new Uint8Array(out.buffer).set(bytes);
  return out;
}

export function encodeWalEntry(entry: WalEntry): Buffer {
  if (entry.kind === 'logs') {
    const ts = new BigInt64Array(entry.records.length);
    entry.records.forEach((r, i) => (ts[i] = r.timestampNs));
    return packr.pack({
      k: 'l',
      o: entry.org,
      t: bytesOf(ts),
      m: entry.records.map((r) => r.message),
      l: entry.records.map((r) => r.level),
      g: entry.records.map((r) => r.tags),
    });
  }
  if (entry.kind === 'exemplars') {
    const packed: PackedExemplars = { k: 'e', o: entry.org, s: entry.series.map((s) => ({ l: s.seriesLabels, e: s.exemplars.map((e) => [e.labels, e.value, e.timestampMs]) })) };
    return packr.pack(packed);
  }
  return packr.pack(packMetrics(entry.org, entry.series, entry.metadata));
}

/**
 * packMetrics writes a metrics write column-wise: each series by its key (one string rather
 * than an object of names and values), every series' timestamps in one binary and values in
 * another, with the per-series sample counts. A remote write request's series already share
 * one buffer per column, which is then written without a copy. Staleness flags and native
 * histograms go only with the series that have them. Encoding a write of thousands of
 * series this way costs a fraction of an object per series.
 */
function packMetrics(org: string, series: readonly MetricSeries[], metadata: MetricMetadataRecord[]): PackedMetricColumns {
  const counts = new Uint32Array(series.length);
  const keys = new Array<string>(series.length);
  let stale: Array<[number, Uint8Array]> | undefined;
  let histograms: Array<[number, Uint8Array]> | undefined;
  for (let i = 0; i < series.length; i++) {
    const s = series[i];
    counts[i] = s.timestampsMs.length;
    // Kept with the series: the head appending it next looks it up by this key.
    keys[i] = s.key ??= seriesKey(s.labels);
    if (s.stale !== undefined) (stale ??= []).push([i, bytesOf(s.stale)]);
    if (hasHistograms(s.histograms)) (histograms ??= []).push([i, encodeHistogramBlock(s.histograms, s.timestampsMs.length)]);
  }
  const packed: PackedMetricColumns = {
    k: 'M',
    o: org,
    n: bytesOf(counts),
    l: keys,
    t: joinedBytes(series.map((s) => s.timestampsMs)),
    v: joinedBytes(series.map((s) => s.values)),
    d: metadata,
  };
  if (stale !== undefined) packed.x = stale;
  if (histograms !== undefined) packed.h = histograms;
  return packed;
}

/** joinedBytes is the bytes of the arrays one after another: a view when they lie so in one buffer, else a copy. */
function joinedBytes(arrays: readonly Float64Array[]): Buffer {
  if (arrays.length === 0) return Buffer.alloc(0);
  const first = arrays[0];
  let end = first.byteOffset + first.byteLength;
  let adjacent = true;
  let total = first.length;
  for (let i = 1; i < arrays.length; i++) {
    const a = arrays[i];
    total += a.length;
    if (adjacent && (a.buffer !== first.buffer || a.byteOffset !== end)) adjacent = false;
    end = a.byteOffset + a.byteLength;
  }
  if (adjacent) return Buffer.from(first.buffer, first.byteOffset, total * 8);
  const out = new Float64Array(total);
  let at = 0;
  for (const a of arrays) {
    out.set(a, at);
    at += a.length;
  }
  return bytesOf(out);
}

/** unpackMetrics reads packMetrics' record back into series, each with its key. */
function unpackMetrics(value: PackedMetricColumns): MetricSeries[] {
  const counts = new Uint32Array(value.n.byteLength / 4);
  new Uint8Array(counts.buffer).set(value.n);
  const times = float64From(value.t);
  const values = float64From(value.v);
  const series = new Array<MetricSeries>(counts.length);
  let at = 0;
  for (let i = 0; i < counts.length; i++) {
    const n = counts[i];
    const key = value.l[i];
    series[i] = { labels: labelsFromKey(key), key, timestampsMs: times.subarray(at, at + n), values: values.subarray(at, at + n) };
    at += n;
  }
  for (const [i, flags] of value.x ?? []) series[i].stale = new Uint8Array(flags);
  for (const [i, block] of value.h ?? []) series[i].histograms = decodeHistogramBlock(block, series[i].timestampsMs.length);
  return series;
}

/** PackedMetricColumns is packMetrics' record. */
interface PackedMetricColumns {
  k: 'M';
  o: string;
  /** sample count per series, as uint32 */
  n: Uint8Array;
  /** series keys (labelsKey of the sorted labels) */
  l: string[];
  /** every series' timestamps, then every series' values, as float64 */
  t: Uint8Array;
  v: Uint8Array;
  /** [series index, staleness flags] of the series that have them */
  x?: Array<[number, Uint8Array]>;
  /** [series index, histogram block] of the series with native histograms */
  h?: Array<[number, Uint8Array]>;
  d: MetricMetadataRecord[];
}

/**
 * PackedSeries is one series of the row-wise metrics record ('m') that earlier versions
 * wrote; logs written then still replay.
 */
interface PackedSeries {
  l: Record<string, string>;
  t: Uint8Array;
  v: Uint8Array;
  x?: Uint8Array;
  h?: Uint8Array;
}

interface PackedLogs {
  k: 'l';
  o: string;
  t: Uint8Array;
  m: string[];
  l: string[];
  g: Array<Record<string, string>>;
}

interface PackedExemplars {
  k: 'e';
  o: string;
  /** per series its labels and its exemplars as [labels, value, timestamp ms] */
  s: Array<{ l: Record<string, string>; e: Array<[Record<string, string>, number, number]> }>;
}

interface PackedMetrics {
  k: 'm';
  o: string;
  s: PackedSeries[];
  d: MetricMetadataRecord[];
}

/** NIL is a record of msgpack's nil alone. */
const NIL = new Uint8Array([0xc0]);

/**
 * forgetLastDecoded makes the decoder let go of the last bytes it read. msgpackr keeps the
 * buffer it last decoded (and a view over that buffer's whole ArrayBuffer) in module state
 * until its next read; after replay that is a whole WAL file, tens of MiB, which would then be
 * held for as long as nothing else is decoded (on a metrics-only server, for good).
 */
export function forgetLastDecoded(): void {
  packr.unpack(NIL);
}

export function decodeWalEntry(payload: Uint8Array): WalEntry {
  const value = packr.unpack(payload) as PackedLogs | PackedMetrics | PackedMetricColumns | PackedExemplars;
  if (value.k === 'M') return { kind: 'metrics', org: value.o, series: unpackMetrics(value), metadata: value.d };
  if (value.k === 'l') {
    const ts = new BigInt64Array(value.m.length);
    new Uint8Array(ts.buffer).set(value.t);
    return {
      kind: 'logs',
      org: value.o,
      records: value.m.map((message, i) => ({ timestampNs: ts[i], message, level: value.l[i], tags: value.g[i] })),
    };
  }
  if (value.k === 'm') {
    return {
      kind: 'metrics',
      org: value.o,
      series: value.s.map((s) => {
        const series: MetricSeries = {
          labels: s.l,
          timestampsMs: float64From(s.t),
          values: float64From(s.v),
          stale: s.x === undefined || s.x === null ? undefined : new Uint8Array(s.x),
        };
        if (s.h !== undefined && s.h !== null) series.histograms = decodeHistogramBlock(s.h, series.timestampsMs.length);
        return series;
      }),
      metadata: value.d,
    };
  }
  if (value.k === 'e') {
    return {
      kind: 'exemplars',
      org: value.o,
      series: value.s.map((s) => ({ seriesLabels: s.l, exemplars: s.e.map(([labels, v, t]): Exemplar => ({ labels, value: v, timestampMs: t })) })),
    };
  }
  throw new Error(`unknown WAL entry kind ${String((value as { k: unknown }).k)}`);
}
