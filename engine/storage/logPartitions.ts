import type { SeriesExemplars } from './exemplarStore.js';
import { labelsKey, sortLabels } from './labels.js';
import type { LogEntry } from './logHead.js';
import { seriesKey, type MetricSeries } from './metricHead.js';
import { encodeWalEntry, type WalEntry } from './walCodec.js';

/**
 * Writes are spread over the write log's partitions by org and series (metrics) or org and
 * stream (logs), so one series or stream always lands in the same partition and keeps its
 * order, while an org's many series spread over all partitions. The hash is FNV-1a over the
 * org and the canonical label key: stable across processes and versions, since a series'
 * partition must not move when another process (or a newer build) computes it.
 */

/** fnv1a hashes a string's UTF-16 code units (32-bit FNV-1a). */
function fnv1a(text: string, seed = 0x811c9dc5): number {
  let h = seed >>> 0;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

/** partitionOf is the partition of key `key` (a series or stream key) of `org`, among `partitions`. */
export function partitionOf(org: string, key: string, partitions: number): number {
  // The org is hashed first and separated by a byte label keys never contain.
  return fnv1a(key, fnv1a('\u0003', fnv1a(org))) % partitions;
}

/** streamKeyOf is the key of a log line's stream: its indexed tags, sorted, as the log head forms streams. */
export function streamKeyOf(tags: Readonly<Record<string, string>>, indexedTags: ReadonlySet<string>): string {
  const indexed: Record<string, string> = {};
  for (const k in tags) if (indexedTags.has(k)) indexed[k] = tags[k];
  return labelsKey(sortLabels(indexed));
}

/** PartitionedEntry is the part of a write that goes to one partition. */
export interface PartitionedEntry {
  partition: number;
  entry: WalEntry;
}

/**
 * splitByPartition cuts one write into one entry per partition it touches, keeping the order
 * of series and lines within each. Metric metadata travels with the org's first series
 * partition (or alone in the org's own partition when the write has no series). Exemplars go
 * to their series' partition, so the ingester holding a series holds its exemplars too.
 */
export function splitByPartition(entry: WalEntry, partitions: number, indexedTags: ReadonlySet<string>): PartitionedEntry[] {
  if (entry.kind === 'logs') {
    const groups = new Map<number, LogEntry[]>();
    for (const r of entry.records) {
      const p = partitionOf(entry.org, streamKeyOf(r.tags, indexedTags), partitions);
      let list = groups.get(p);
      if (!list) groups.set(p, (list = []));
      list.push(r);
    }
    return [...groups].map(([partition, records]) => ({ partition, entry: { kind: 'logs', org: entry.org, records } }));
  }
  if (entry.kind === 'exemplars') {
    const groups = new Map<number, SeriesExemplars[]>();
    for (const s of entry.series) {
      const p = partitionOf(entry.org, labelsKey(sortLabels(s.seriesLabels)), partitions);
      let list = groups.get(p);
      if (!list) groups.set(p, (list = []));
      list.push(s);
    }
    return [...groups].map(([partition, series]) => ({ partition, entry: { kind: 'exemplars', org: entry.org, series } }));
  }
  const groups = new Map<number, MetricSeries[]>();
  for (const s of entry.series) {
    // The series key, which remote write's decoder already built (seriesKey of the labels).
    const p = partitionOf(entry.org, (s.key ??= seriesKey(s.labels)), partitions);
    let list = groups.get(p);
    if (!list) groups.set(p, (list = []));
    list.push(s);
  }
  const out: PartitionedEntry[] = [...groups].map(([partition, series]) => ({ partition, entry: { kind: 'metrics', org: entry.org, series, metadata: [] } }));
  if (entry.metadata.length > 0) {
    if (out.length > 0) (out[0].entry as Extract<WalEntry, { kind: 'metrics' }>).metadata = entry.metadata;
    else out.push({ partition: partitionOf(entry.org, '', partitions), entry: { kind: 'metrics', org: entry.org, series: [], metadata: entry.metadata } });
  }
  return out;
}

/**
 * encodeBounded encodes an entry as one record, or as several when it is bigger than
 * `maxBytes` (the log's record limit), by halving its series or lines. A single series or
 * line that alone exceeds the limit cannot be written and throws.
 */
export function encodeBounded(entry: WalEntry, maxBytes: number): Buffer[] {
  const bytes = encodeWalEntry(entry);
  if (bytes.length <= maxBytes) return [bytes];
  if (entry.kind === 'logs') {
    if (entry.records.length <= 1) throw new Error(`a log line of ${bytes.length} encoded bytes exceeds the write log's record limit of ${maxBytes}`);
    const half = entry.records.length >> 1;
    return [
      ...encodeBounded({ ...entry, records: entry.records.slice(0, half) }, maxBytes),
      ...encodeBounded({ ...entry, records: entry.records.slice(half) }, maxBytes),
    ];
  }
  if (entry.kind === 'exemplars') return encodeExemplarsBounded(entry, bytes.length, maxBytes);
  if (entry.series.length <= 1) {
    const s = entry.series[0];
    if (!s || s.values.length <= 1) throw new Error(`a write of ${bytes.length} encoded bytes exceeds the write log's record limit of ${maxBytes}`);
    // One long series: split its samples, which stay in order.
    const half = s.values.length >> 1;
    const part = (from: number, to: number): MetricSeries => ({
      labels: s.labels,
      timestampsMs: s.timestampsMs.slice(from, to),
      values: s.values.slice(from, to),
      stale: s.stale?.slice(from, to),
    });
    return [
      ...encodeBounded({ ...entry, series: [part(0, half)] }, maxBytes),
      ...encodeBounded({ ...entry, series: [part(half, s.values.length)], metadata: [] }, maxBytes),
    ];
  }
  const half = entry.series.length >> 1;
  return [
    ...encodeBounded({ ...entry, series: entry.series.slice(0, half) }, maxBytes),
    ...encodeBounded({ ...entry, series: entry.series.slice(half), metadata: [] }, maxBytes),
  ];
}

/** encodeExemplarsBounded is encodeBounded for exemplars: halving the series, then one series' exemplars. */
function encodeExemplarsBounded(entry: Extract<WalEntry, { kind: 'exemplars' }>, bytes: number, maxBytes: number): Buffer[] {
  if (entry.series.length > 1) {
    const half = entry.series.length >> 1;
    return [...encodeBounded({ ...entry, series: entry.series.slice(0, half) }, maxBytes), ...encodeBounded({ ...entry, series: entry.series.slice(half) }, maxBytes)];
  }
  const s = entry.series[0];
  if (!s || s.exemplars.length <= 1) throw new Error(`exemplars of ${bytes} encoded bytes exceed the write log's record limit of ${maxBytes}`);
  const half = s.exemplars.length >> 1;
  const part = (exemplars: SeriesExemplars['exemplars']): Extract<WalEntry, { kind: 'exemplars' }> => ({ ...entry, series: [{ seriesLabels: s.seriesLabels, exemplars }] });
  return [...encodeBounded(part(s.exemplars.slice(0, half)), maxBytes), ...encodeBounded(part(s.exemplars.slice(half)), maxBytes)];
}
