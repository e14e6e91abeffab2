import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SnapshotLogReader } from '../../../engine/query/snapshotLogReader.js';
import { SnapshotMetricReader } from '../../../engine/query/snapshotMetricReader.js';
import { filterHeadExport, narrowHeadExport, selectorsKey } from '../../../engine/storage/headFilter.js';
import { decodeHeadExport, encodeHeadExport, encodedLength, type HeadExport, type KnownChunks } from '../../../engine/storage/headWire.js';
import type { LabelMatcher } from '../../../engine/storage/matchers.js';
import { Storage } from '../../../engine/storage/storage.js';

const ORG = 'org';
const MIN_NS = -(2n ** 63n);
const MAX_NS = 2n ** 63n - 1n;
const SERIES = 100;
/** 700 samples per series: 70,000 in all, past the 65,536 at which a snapshot seals a chunk. */
const SAMPLES = 700;
/** 6,000 lines per stream: 18,000 in all, past the 16,384 rows of a sealed log chunk. */
const LINES = 6000;

/** wire sends an export through the head wire format, as the internal endpoint does. */
function wire(data: HeadExport, have: ReadonlySet<string> = new Set(), known?: KnownChunks): { data: HeadExport; bytes: number } {
  const parts = encodeHeadExport(data, 'h:', have);
  return { data: decodeHeadExport(Buffer.concat(parts), known), bytes: encodedLength(parts) };
}

function metricReaders(data: HeadExport): SnapshotMetricReader[] {
  return data.metrics.map((s) => new SnapshotMetricReader(s));
}

function selectMetrics(data: HeadExport, matchers: LabelMatcher[], minMs = -Infinity, maxMs = Infinity) {
  return metricReaders(data).flatMap((r) => r.select(matchers, minMs, maxMs)).map((s) => ({ labels: s.labels, t: [...s.timestampsMs], v: [...s.values] }));
}

function selectLogs(data: HeadExport, matchers: LabelMatcher[], minNs = MIN_NS, maxNs = MAX_NS) {
  return data.logs.flatMap((s) => new SnapshotLogReader(s).select(matchers, minNs, maxNs)).map((s) => ({ tags: s.tags, t: [...s.timestampsNs], m: s.messages }));
}

const chunkIds = (data: HeadExport) => [...data.metrics, ...data.logs].flatMap((s) => s.chunks.map((c) => c.id));

/**
 * The head filter over a real storage's heads: a narrowed export answers every query over its
 * selectors exactly as the whole heads do, carries a fraction of the bytes, keeps chunks whose
 * series all match as they are, and gives a repacked sealed chunk the same id each time, so a
 * query process that kept it is not sent it again.
 */
describe('head export narrowed to selectors', () => {
  let dir: string;
  let storage: Storage;
  let whole: HeadExport;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'sluice-head-filter-'));
    storage = await Storage.open({ dir, indexedTags: ['app'], maintenanceIntervalMs: 0, compactionIntervalMs: 0 });
    await storage.appendMetrics(
      ORG,
      Array.from({ length: SERIES }, (_, n) => {
        const ts = Float64Array.from({ length: SAMPLES }, (_, i) => 1000 + i * 10);
        return { labels: { __name__: n % 2 === 0 ? 'even' : 'odd', n: String(n) }, timestampsMs: ts, values: ts.map((t) => t + n) };
      }),
    );
    for (const app of ['a', 'b', 'c']) {
      await storage.appendLogs(ORG, Array.from({ length: LINES }, (_, i) => ({ timestampNs: BigInt(1000 + i) * 1_000_000n, message: `${app} line ${i} ${'x'.repeat(i % 50)}`, level: 'info', tags: { app } })));
    }
    // A snapshot now seals what the heads hold; what comes after it is the open tail of the next one.
    storage.exportHeads(ORG, { metrics: true, logs: true });
    await storage.appendMetrics(ORG, [{ labels: { __name__: 'even', n: '0' }, timestampsMs: Float64Array.of(9000), values: Float64Array.of(9) }]);
    await storage.appendLogs(ORG, [{ timestampNs: 9000n * 1_000_000n, message: 'a late line', level: 'info', tags: { app: 'a' } }]);
    whole = storage.exportHeads(ORG, { metrics: true, logs: true });
    expect(whole.metrics[0].chunks.length).toBeGreaterThan(1);
    expect(whole.logs[0].chunks.length).toBeGreaterThan(1);
  });

  afterAll(async () => {
    await storage.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('answers every query over its selectors as the whole heads do, with a fraction of the bytes', () => {
    const selectors: LabelMatcher[][] = [[{ name: 'n', type: '=~', value: '1|2' }], [{ name: '__name__', type: '=', value: 'odd' }, { name: 'n', type: '=', value: '31' }]];
    const narrow = wire(filterHeadExport(whole, selectors, () => false));
    const full = wire(whole);
    for (const matchers of [...selectors, [{ name: 'n', type: '=', value: '2' } as LabelMatcher]]) {
      const want = selectMetrics(full.data, matchers);
      expect(want.length).toBeGreaterThan(0);
      expect(selectMetrics(narrow.data, matchers)).toEqual(want);
    }
    expect(selectMetrics(narrow.data, [])).toHaveLength(3);
    // Three series of a hundred, and no log line (no tag set has an `n`).
    expect(narrow.bytes * 20).toBeLessThan(full.bytes);
    expect(narrow.data.logs).toEqual([]);
    expect(narrow.data.segmentsBefore).toBe(full.data.segmentsBefore);
  });

  it('narrows log heads to the streams a stream selector matches', () => {
    const selector: LabelMatcher[] = [{ name: 'app', type: '=', value: 'b' }];
    const narrow = wire(filterHeadExport(whole, [selector], () => false));
    const full = wire(whole);
    const want = selectLogs(full.data, selector);
    expect(want[0].m.length).toBe(LINES);
    expect(selectLogs(narrow.data, selector)).toEqual(want);
    expect(selectLogs(narrow.data, [])).toEqual(want);
    expect(narrow.data.metrics).toEqual([]);
    expect(narrow.bytes * 2).toBeLessThan(full.bytes);
  });

  it('sends chunks whose series all match as they are, and repacks a sealed chunk under the same derived id every time', () => {
    const all = filterHeadExport(whole, [[{ name: 'n', type: '=~', value: '.*' }, { name: '__name__', type: '=~', value: '.+' }], [{ name: 'app', type: '!=', value: '' }]], () => false);
    expect(chunkIds(all)).toEqual(chunkIds(whole));

    const selectors: LabelMatcher[][] = [[{ name: '__name__', type: '=', value: 'even' }]];
    const first = filterHeadExport(whole, selectors, () => false);
    const again = filterHeadExport(whole, selectors, () => false);
    expect(chunkIds(again)).toEqual(chunkIds(first));
    const [sealed, tail] = whole.metrics[0].chunks;
    // The sealed chunk holds odd series too: repacked, under its id and the selectors'. The tail's one series matches: sent as it is.
    expect(first.metrics[0].chunks.map((c) => c.id)).toEqual([`${sealed.id}~${selectorsKey(selectors)}`, tail.id]);
    expect(first.metrics[0].chunks[1]).toBe(tail);

    // A query process that kept the first answer names its chunks: none is sent again, and the answer reads the same.
    const received = wire(first);
    const kept = new Map([...received.data.metrics].flatMap((s) => s.chunks.map((c) => [c.id, c] as const)));
    const have = new Set(kept.keys());
    const repeat = wire(filterHeadExport(whole, selectors, (id) => have.has(`h:${id}`)), have, { metric: (id) => kept.get(id), log: () => undefined });
    expect(repeat.bytes * 10).toBeLessThan(received.bytes);
    expect(selectMetrics(repeat.data, selectors[0])).toEqual(selectMetrics(received.data, selectors[0]));
    expect(selectMetrics(repeat.data, selectors[0])).toHaveLength(SERIES / 2);
  });

  it('cuts chunks to a narrow time range: the same answer over that range for a small part of the bytes', () => {
    const selectors: LabelMatcher[][] = [[{ name: '__name__', type: '=', value: 'even' }]];
    const wide = wire(filterHeadExport(whole, selectors, () => false));
    const narrow = wire(narrowHeadExport(whole, { selectors, minMs: 7500, maxMs: 8000 }, () => false));
    const want = selectMetrics(wide.data, selectors[0], 7500, 8000);
    expect(want).toHaveLength(SERIES / 2);
    expect(want[0].t).toHaveLength(50);
    expect(selectMetrics(narrow.data, selectors[0], 7500, 8000)).toEqual(want);
    // Nothing outside the range travels: 50 of 700 samples per series.
    expect(selectMetrics(narrow.data, selectors[0]).every((s) => s.t.every((t) => t >= 7500 && t <= 8000))).toBe(true);
    expect(narrow.bytes * 5).toBeLessThan(wide.bytes);

    // Logs: the lines of one stream in the last half second of 6 s.
    const stream: LabelMatcher[] = [{ name: 'app', type: '=', value: 'c' }];
    const [minNs, maxNs] = [6500n * 1_000_000n, 7000n * 1_000_000n + 999_999n];
    const logsWide = wire(filterHeadExport(whole, [stream], () => false));
    const logsNarrow = wire(narrowHeadExport(whole, { selectors: [stream], minMs: 6500, maxMs: 7000 }, () => false));
    const lines = selectLogs(logsWide.data, stream, minNs, maxNs);
    expect(lines[0].m).toHaveLength(500);
    expect(selectLogs(logsNarrow.data, stream, minNs, maxNs)).toEqual(lines);
    expect(selectLogs(logsNarrow.data, stream)).toEqual(lines);
    expect(logsNarrow.bytes * 5).toBeLessThan(logsWide.bytes);
  });

  it('gives a cut chunk an id of its range, and sends a chunk mostly inside the range whole under its reusable id', () => {
    const selectors: LabelMatcher[][] = [[{ name: '__name__', type: '=', value: 'even' }]];
    const [sealed] = whole.metrics[0].chunks;
    const selectedId = `${sealed.id}~${selectorsKey(selectors)}`;
    const cut = (minMs: number, maxMs: number, known: (id: string) => boolean = () => false) => narrowHeadExport(whole, { selectors, minMs, maxMs }, known).metrics[0].chunks[0];
    // Mostly inside: the same chunk the selectors alone give, whatever the range.
    expect(cut(1500, 9000).id).toBe(selectedId);
    expect(cut(1200, 20_000).id).toBe(selectedId);
    // Cut: the id names the range, the same for the same range, another for another.
    expect(cut(7500, 8000).id).not.toBe(selectedId);
    expect(cut(7500, 8000).id).toBe(cut(7500, 8000).id);
    expect(cut(7510, 8000).id).not.toBe(cut(7500, 8000).id);
    // An asker holding the chunk narrowed to the selectors is named that, not sent a cut.
    expect(cut(7500, 8000, (id) => id === selectedId).id).toBe(selectedId);
    // Wholly outside: left out; without selectors, a range alone cuts every series.
    expect(narrowHeadExport(whole, { selectors, minMs: 20_000, maxMs: 30_000 }, () => false).metrics).toEqual([]);
    const all = wire(narrowHeadExport(whole, { minMs: 7900, maxMs: 8000 }, () => false));
    expect(selectMetrics(all.data, [])).toHaveLength(SERIES);
    expect(selectMetrics(all.data, []).every((s) => s.t.length === 10)).toBe(true);
  });

  it('names a set of selectors independently of their order', () => {
    const a: LabelMatcher[] = [{ name: 'x', type: '=', value: '1' }];
    const b: LabelMatcher[] = [{ name: 'y', type: '!~', value: 'z.*' }];
    expect(selectorsKey([a, b])).toBe(selectorsKey([b, a]));
    expect(selectorsKey([a])).not.toBe(selectorsKey([b]));
  });
});
