import { describe, expect, it } from 'vitest';
import { encodeBounded, partitionOf, splitByPartition, streamKeyOf } from '../../../engine/storage/logPartitions.js';
import { decodeWalEntry, type WalEntry } from '../../../engine/storage/walCodec.js';
import { labelsKey, sortLabels } from '../../../engine/storage/labels.js';

const INDEXED = new Set(['service_name', 'level']);

function series(i: number, samples = 3) {
  return {
    labels: { __name__: 'm', i: String(i) },
    timestampsMs: Float64Array.from({ length: samples }, (_, k) => 1000 * k),
    values: Float64Array.from({ length: samples }, (_, k) => k + i),
  };
}

describe('write log partitioning', () => {
  it('keeps a series in one partition whatever its label order, and spreads an org over all partitions', () => {
    const a = partitionOf('org', labelsKey(sortLabels({ b: '2', a: '1' })), 16);
    const b = partitionOf('org', labelsKey(sortLabels({ a: '1', b: '2' })), 16);
    expect(a).toBe(b);
    const used = new Set(Array.from({ length: 400 }, (_, i) => partitionOf('org', labelsKey(sortLabels({ i: String(i) })), 16)));
    expect(used.size).toBe(16);
    // Pinned values (32-bit FNV-1a): a series must not move partitions when another process,
    // or a newer build, computes it; changing the hash is a data migration, not a refactor.
    expect(partitionOf('org', labelsKey(sortLabels({ job: 'api', __name__: 'up' })), 1024)).toBe(569);
    expect(partitionOf('org', 'k', 1024)).toBe(287);
    expect(partitionOf('org-a', 'k', 1)).toBe(0);
  });

  it('puts log lines of one stream (its indexed tags) together and keeps their order', () => {
    expect(streamKeyOf({ service_name: 'api', pod: 'p1' }, INDEXED)).toBe(streamKeyOf({ pod: 'p2', service_name: 'api' }, INDEXED));
    const records = Array.from({ length: 50 }, (_, i) => ({ timestampNs: BigInt(i), message: `m${i}`, level: 'info', tags: { service_name: `s${i % 7}`, pod: `p${i}` } }));
    const parts = splitByPartition({ kind: 'logs', org: 'o', records }, 4, INDEXED);
    const back = parts.flatMap((p) => (p.entry.kind === 'logs' ? p.entry.records : []));
    expect(back).toHaveLength(50);
    for (const p of parts) {
      if (p.entry.kind !== 'logs') throw new Error('expected logs');
      const ts = p.entry.records.map((r) => r.timestampNs);
      expect([...ts].sort((x, y) => (x < y ? -1 : 1))).toEqual(ts);
      for (const r of p.entry.records) expect(partitionOf('o', streamKeyOf(r.tags, INDEXED), 4)).toBe(p.partition);
    }
  });

  it('sends metric metadata once, with the first series partition or alone', () => {
    const metadata = [{ name: 'm', type: 'counter', unit: '', help: 'h' }];
    const parts = splitByPartition({ kind: 'metrics', org: 'o', series: Array.from({ length: 20 }, (_, i) => series(i)), metadata }, 8, INDEXED);
    expect(parts.filter((p) => p.entry.kind === 'metrics' && p.entry.metadata.length > 0)).toHaveLength(1);
    const alone = splitByPartition({ kind: 'metrics', org: 'o', series: [], metadata }, 8, INDEXED);
    expect(alone).toEqual([{ partition: partitionOf('o', '', 8), entry: { kind: 'metrics', org: 'o', series: [], metadata } }]);
  });

  it('splits a write bigger than the record limit into records that decode back to the same data', () => {
    const entry: WalEntry = { kind: 'metrics', org: 'o', series: [...Array.from({ length: 30 }, (_, i) => series(i, 20)), series(99, 2000)], metadata: [] };
    const records = encodeBounded(entry, 4096);
    expect(records.length).toBeGreaterThan(2);
    for (const r of records) expect(r.length).toBeLessThanOrEqual(4096);
    let samples = 0;
    const long: number[] = [];
    for (const r of records) {
      const e = decodeWalEntry(r);
      if (e.kind !== 'metrics') throw new Error('expected metrics');
      for (const s of e.series) {
        samples += s.values.length;
        if (s.labels.i === '99') long.push(...s.timestampsMs);
      }
    }
    expect(samples).toBe(30 * 20 + 2000);
    expect(long).toEqual(Array.from({ length: 2000 }, (_, k) => 1000 * k));
    const huge = { kind: 'logs', org: 'o', records: [{ timestampNs: 1n, message: 'x'.repeat(10_000), level: 'info', tags: {} }] } as WalEntry;
    expect(() => encodeBounded(huge, 4096)).toThrow(/exceeds the write log's record limit/);
  });

  it('sends exemplars to their series partition, in records that decode back to the same exemplars', () => {
    const exemplarsOf = (i: number, n: number) => ({
      seriesLabels: { __name__: 'm', i: String(i) },
      exemplars: Array.from({ length: n }, (_, k) => ({ labels: { trace_id: `t${i}-${k}` }, value: k === 0 ? NaN : k + 0.5, timestampMs: 1000 * k })),
    });
    const entry: WalEntry = { kind: 'exemplars', org: 'o', series: [...Array.from({ length: 20 }, (_, i) => exemplarsOf(i, 3)), exemplarsOf(99, 400)] };
    const parts = splitByPartition(entry, 4, INDEXED);
    expect(new Set(parts.map((p) => p.partition)).size).toBeGreaterThan(1);
    const decoded = parts.flatMap(({ partition, entry: e }) =>
      encodeBounded(e, 2048).map((r) => {
        expect(r.length).toBeLessThanOrEqual(2048);
        return { partition, entry: decodeWalEntry(r) };
      }),
    );
    const back = new Map<string, Array<{ labels: Record<string, string>; value: number; timestampMs: number }>>();
    for (const { partition, entry: e } of decoded) {
      if (e.kind !== 'exemplars') throw new Error('expected exemplars');
      for (const s of e.series) {
        // A series' exemplars go where its samples go.
        expect(partitionOf('o', labelsKey(sortLabels(s.seriesLabels)), 4)).toBe(partition);
        back.set(s.seriesLabels.i, [...(back.get(s.seriesLabels.i) ?? []), ...s.exemplars]);
      }
    }
    expect(back.size).toBe(21);
    // The long series was split across records, its exemplars still in order, NaN kept.
    expect(back.get('99')).toEqual(exemplarsOf(99, 400).exemplars);
    expect(back.get('7')).toEqual(exemplarsOf(7, 3).exemplars);
  });
});
