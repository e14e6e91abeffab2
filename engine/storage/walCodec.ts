import { Packr } from 'msgpackr';
import { decodeHistogramBlock, encodeHistogramBlock, hasHistograms } from './histogramCodec.js';
import type { Exemplar, SeriesExemplars } from './exemplarStore.js';
import type { LogEntry } from './logHead.js';
import type { MetricSeries } from './metricHead.js';

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
  return packr.pack({
    k: 'm',
    o: entry.org,
    s: entry.series.map(packSeries),
    d: entry.metadata,
  });
}

/**
 * packSeries gives a series' record only the fields it has: an absent field written as nil
 * would still cost its key and a byte in every series of every write.
 */
function packSeries(s: MetricSeries): PackedSeries {
  const packed: PackedSeries = { l: s.labels, t: bytesOf(s.timestampsMs), v: bytesOf(s.values) };
  if (s.stale !== undefined) packed.x = bytesOf(s.stale);
  // Native histogram samples, when the series has any, as one histogram block.
  if (hasHistograms(s.histograms)) packed.h = encodeHistogramBlock(s.histograms, s.timestampsMs.length);
  return packed;
}

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

export function decodeWalEntry(payload: Uint8Array): WalEntry {
  const value = packr.unpack(payload) as PackedLogs | PackedMetrics | PackedExemplars;
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
