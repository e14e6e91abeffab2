import { promises as fs } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LocalBlobStore, type BlobStore } from '../../../engine/storage/blobStore.js';
import type { SegmentMeta } from '../../../engine/storage/catalog.js';
import { planCompaction } from '../../../engine/storage/compaction.js';
import type { Storage, StorageEvent } from '../../../engine/storage/storage.js';
import { ALL_MS, ALL_NS, fill, logBatch, openStorage, snapshot, tempDir } from './segmentFixtures.js';

/** CountingBlobStore counts reads per blob, to show which segments a query opened. */
class CountingBlobStore implements BlobStore {
  readonly reads: string[] = [];
  private readonly inner: LocalBlobStore;
  constructor(dir: string) {
    this.inner = new LocalBlobStore(dir);
  }
  read(name: string): Uint8Array {
    this.reads.push(name);
    return this.inner.read(name);
  }
  readAsync(name: string): Promise<Uint8Array> {
    this.reads.push(name);
    return this.inner.readAsync(name);
  }
  write(name: string, bytes: Uint8Array): Promise<void> {
    return this.inner.write(name, bytes);
  }
  remove(name: string): Promise<void> {
    return this.inner.remove(name);
  }
  list(): Promise<string[]> {
    return this.inner.list();
  }
  listStored(): ReturnType<BlobStore['listStored']> {
    return this.inner.listStored();
  }
}

const DAY = 86_400_000;

describe('segments: compaction, retention, pruning, triggers', () => {
  let dir: string;
  const open: Storage[] = [];
  beforeEach(async () => {
    dir = await tempDir();
  });
  afterEach(async () => {
    for (const s of open.splice(0)) await s.close();
    await rm(dir, { recursive: true, force: true });
  });

  const start = async (extra = {}) => {
    const opened = await openStorage(dir, extra);
    open.push(opened.storage);
    return opened;
  };

  it('merges adjacent small segments, keeps every answer, deletes the inputs, and survives a restart', async () => {
    const { storage } = await start();
    for (let round = 0; round < 4; round++) {
      await fill(storage, ['o', 'p'], round, round + 1);
      await storage.cut();
    }
    const expected = ['o', 'p'].map((org) => snapshot(storage, org));
    const before = storage.segments();
    expect(before).toHaveLength(16);
    const { merged } = await storage.compact();
    // One merge per org and signal, of all four cuts.
    expect(merged).toHaveLength(4);
    expect(merged.every((m) => m.inputs.length === 4)).toBe(true);
    const after = storage.segments();
    expect(after).toHaveLength(4);
    expect(after.reduce((n, s) => n + s.rows, 0)).toBeLessThanOrEqual(before.reduce((n, s) => n + s.rows, 0));
    expect(after.filter((s) => s.signal === 'logs').reduce((n, s) => n + s.rows, 0)).toBe(
      before.filter((s) => s.signal === 'logs').reduce((n, s) => n + s.rows, 0),
    );
    const files = (await fs.readdir(path.join(dir, 'segments'))).sort();
    expect(files).toEqual(after.map((s) => s.file).sort());
    expect(['o', 'p'].map((org) => snapshot(storage, org))).toEqual(expected);

    // A merged metric segment holds each series once, sorted, with the newest rewrite.
    const up = storage.metrics('o').select([{ name: '__name__', type: '=', value: 'up' }, { name: 'job', type: '=', value: 'api' }], ...ALL_MS);
    expect(up).toHaveLength(1);
    expect([...up[0].timestampsMs]).toEqual([...up[0].timestampsMs].sort((a, b) => a - b));
    expect(up[0].values[0]).toBe(101);

    await storage.close();
    open.pop();
    const { storage: again } = await start();
    expect(['o', 'p'].map((org) => snapshot(again, org))).toEqual(expected);
    // Nothing left to merge.
    expect((await again.compact()).merged).toEqual([]);
  });

  it('plans merges only of neighbours, within the target size, skipping big and unreadable segments', () => {
    const seg = (id: number, bytes: number): SegmentMeta => ({
      id,
      seq: id,
      org: 'o',
      signal: 'metrics',
      file: `${id}`,
      formatVersion: 1,
      crc: 0,
      bytes,
      rows: 1,
      minMs: 0,
      maxMs: 0,
      createdMs: 0,
    });
    const segments = [seg(1, 10), seg(2, 10), seg(3, 60), seg(4, 10), seg(5, 10), seg(6, 10), seg(7, 30), seg(8, 10), seg(9, 10)];
    const plan = planCompaction(segments, 100, (id) => id === 8);
    expect(plan.map((g) => g.map((s) => s.id))).toEqual([
      [1, 2],
      [4, 5, 6, 7],
    ]);
  });

  it('deletes only segments older than the retention, per org', async () => {
    let nowMs = 1_000_000 + 40 * DAY;
    const { storage, events } = await start({ now: () => nowMs, retentionMs: 30 * DAY, retentionFor: (org: string) => (org === 'keep' ? 0 : undefined) });
    await fill(storage, ['o', 'keep'], 0, 1);
    await storage.cut();
    // Round 0 lies 40 days back; these writes are one day old.
    await storage.appendLogs('o', [{ timestampNs: BigInt(nowMs - DAY) * 1_000_000n, message: 'recent', level: 'info', tags: { service_name: 'cart' } }]);
    await storage.appendMetrics('o', [{ labels: { __name__: 'up', job: 'api' }, timestampsMs: Float64Array.from([nowMs - DAY]), values: Float64Array.from([7]) }]);
    await storage.cut();
    expect(storage.segments()).toHaveLength(6);

    const deleted = await storage.applyRetention();
    expect(deleted.map((s) => `${s.org}/${s.signal}`).sort()).toEqual(['o/logs', 'o/metrics']);
    expect(storage.segments()).toHaveLength(4);
    expect(events.some((e) => e.message.includes('retention'))).toBe(true);
    expect(storage.logs('o').select([], ...ALL_NS).flatMap((s) => s.messages)).toEqual(['recent']);
    const up = storage.metrics('o').select([{ name: '__name__', type: '=', value: 'up' }], ...ALL_MS);
    expect(up.map((s) => [...s.values])).toEqual([[7]]);
    // The org with retention off keeps everything.
    expect(storage.logs('keep').select([], ...ALL_NS).flatMap((s) => s.messages)).toHaveLength(12);
    const files = await fs.readdir(path.join(dir, 'segments'));
    expect(files.sort()).toEqual(storage.segments().map((s) => s.file).sort());
    nowMs += 100 * DAY;
    expect((await storage.applyRetention()).map((s) => s.org)).toEqual(['o', 'o']);
  });

  it('prunes segments by metric name, indexed tag and time without opening them', async () => {
    const blobs = new CountingBlobStore(path.join(dir, 'segments'));
    const { storage } = await start({ blobStore: blobs });
    const point = (name: string, t: number) => [{ labels: { __name__: name, job: 'x' }, timestampsMs: Float64Array.from([t]), values: Float64Array.from([1]) }];
    await storage.appendMetrics('o', point('a', 1000));
    await storage.cut();
    await storage.appendMetrics('o', point('b', 2000));
    await storage.cut();
    await storage.appendMetrics('o', point('a', 3000));
    await storage.appendMetrics('o', point('b', 3000));
    await storage.cut();
    const [onlyA, onlyB, both] = storage.segments().map((s) => s.file);

    const select = (matchers: Parameters<ReturnType<Storage['metrics']>['select']>[0], min = -Infinity, max = Infinity) => {
      blobs.reads.length = 0;
      const series = storage.metrics('o').select(matchers, min, max);
      return { series, reads: [...blobs.reads].sort() };
    };
    const a = select([{ name: '__name__', type: '=', value: 'a' }]);
    expect(a.reads).toEqual([onlyA, both].sort());
    expect(a.series.map((s) => [...s.timestampsMs])).toEqual([[1000, 3000]]);
    // Cached readers are not read again.
    expect(select([{ name: '__name__', type: '=', value: 'a' }]).reads).toEqual([]);
    expect(select([{ name: '__name__', type: '=~', value: 'b|c' }]).reads).toEqual([onlyB]);
    expect(select([{ name: '__name__', type: '=', value: 'zzz' }]).reads).toEqual([]);
    expect(select([{ name: 'job', type: '=', value: 'x' }], 2500, 4000).series).toHaveLength(2);

    // Logs: an indexed tag's values and the time range prune; a non-indexed tag cannot.
    await storage.appendLogs('o', logBatch('o', 0));
    await storage.cut();
    await storage.appendLogs('o', [{ timestampNs: 5n * 10n ** 15n, message: 'other', level: 'info', tags: { service_name: 'billing' } }]);
    await storage.cut();
    const logFiles = storage.segments().filter((s) => s.signal === 'logs').map((s) => s.file);
    const logs = (matchers: Parameters<ReturnType<Storage['logs']>['select']>[0], min = ALL_NS[0], max = ALL_NS[1]) => {
      blobs.reads.length = 0;
      const lines = storage.logs('o').select(matchers, min, max).flatMap((s) => s.messages);
      return { lines, reads: [...blobs.reads] };
    };
    expect(logs([{ name: 'service_name', type: '=', value: 'billing' }])).toEqual({ lines: ['other'], reads: [logFiles[1]] });
    expect(logs([{ name: 'service_name', type: '=~', value: 'cart|search' }]).reads).toEqual([logFiles[0]]);
    expect(logs([{ name: 'service_name', type: '=', value: 'nope' }]).reads).toEqual([]);
    expect(logs([], 0n, 1n).reads).toEqual([]);
  });

  it('cuts in the background when the heads pass the size limit or grow old', async () => {
    const events: StorageEvent[] = [];
    const bySize = await openStorage(dir, { headMaxBytes: 2048, onEvent: (e: StorageEvent) => events.push(e) });
    open.push(bySize.storage);
    await fill(bySize.storage, ['o'], 0, 3);
    await waitFor(() => bySize.storage.segments().length > 0);
    await bySize.storage.close();
    open.pop();

    let nowMs = 0;
    const { storage } = await start({ now: () => nowMs, headMaxAgeMs: 60_000, maintenanceIntervalMs: 10 });
    const segmentsBefore = storage.segments().length;
    await storage.appendLogs('o', logBatch('o', 5));
    await new Promise((r) => setTimeout(r, 50));
    expect(storage.segments().length).toBe(segmentsBefore);
    nowMs = 60_000;
    await waitFor(() => storage.segments().length > segmentsBefore);
    expect(storage.stats().headBytes).toBe(0);
  });

  it('compacts and applies retention in the background', async () => {
    const nowMs = 1_000_000 + 100 * DAY;
    const { storage } = await start({ now: () => nowMs, retentionFor: (org: string) => (org === 'old' ? DAY : 0) });
    for (let round = 0; round < 3; round++) {
      await fill(storage, ['o', 'old'], round, round + 1);
      await storage.cut();
    }
    expect(storage.segments()).toHaveLength(12);
    await storage.close();
    open.pop();
    const { storage: again } = await start({ now: () => nowMs, retentionFor: (org: string) => (org === 'old' ? DAY : 0), compactionIntervalMs: 20 });
    await waitFor(() => again.segments().length === 2);
    expect(again.segments().every((s) => s.org === 'o')).toBe(true);
    expect(again.logs('o').select([], ...ALL_NS).flatMap((s) => s.messages)).toHaveLength(38);
  });

  it('keeps every concurrent write exactly once when a cut runs in the middle of them', async () => {
    const { storage } = await start();
    const writes: Array<Promise<void>> = [];
    const cuts: Array<Promise<unknown>> = [];
    const write = (i: number): Promise<void> => {
      const p = Promise.all([
        storage.appendLogs('o', [{ timestampNs: BigInt(i), message: `m${i}`, level: 'info', tags: { service_name: 'svc' } }]),
        storage.appendMetrics('o', [{ labels: { __name__: 'c' }, timestampsMs: Float64Array.from([i]), values: Float64Array.from([i]) }]),
      ]).then(() => undefined);
      writes.push(p);
      return p;
    };
    for (let wave = 0; wave < 6; wave++) {
      // Some writes acknowledged, some in flight when the cut starts, some issued while it runs.
      const first = write(wave * 50);
      for (let i = wave * 50 + 1; i < wave * 50 + 25; i++) write(i);
      await first;
      // A brand-new org's first write, still in flight when the cut freezes the heads.
      writes.push(storage.appendLogs(`new-${wave}`, [{ timestampNs: 1n, message: `hello ${wave}`, level: 'info', tags: {} }]).then(() => undefined));
      cuts.push(storage.cut());
      for (let i = wave * 50 + 25; i < wave * 50 + 40; i++) write(i);
      await new Promise((r) => setImmediate(r));
      for (let i = wave * 50 + 40; i < wave * 50 + 50; i++) write(i);
    }
    await Promise.all(writes);
    await Promise.all(cuts);
    const check = (s: Storage) => {
      const lines = s.logs('o').select([], ...ALL_NS).flatMap((x) => x.messages);
      expect(lines).toEqual(Array.from({ length: 300 }, (_, i) => `m${i}`));
      const [series] = s.metrics('o').select([], ...ALL_MS);
      expect([...series.values]).toEqual(Array.from({ length: 300 }, (_, i) => i));
      for (let wave = 0; wave < 6; wave++) expect(s.logs(`new-${wave}`).select([], ...ALL_NS).flatMap((x) => x.messages)).toEqual([`hello ${wave}`]);
    };
    check(storage);
    expect(storage.segments().length).toBeGreaterThan(1);
    await storage.close();
    open.pop();
    const { storage: again } = await start();
    check(again);
  });

  it('writes a new org whose first write is in flight when a cut starts', async () => {
    const { storage } = await start();
    await storage.appendLogs('old', logBatch('old', 0));
    const write = storage.appendLogs('fresh', [{ timestampNs: 1n, message: 'first words', level: 'info', tags: {} }]);
    const cut = storage.cut();
    await Promise.all([write, cut]);
    expect(storage.segments().map((s) => s.org).sort()).toEqual(['fresh', 'old']);
    await storage.close();
    open.pop();
    const { storage: again } = await start();
    expect(again.logs('fresh').select([], ...ALL_NS).flatMap((x) => x.messages)).toEqual(['first words']);
  });

  it('bounds the segment cache by bytes and re-reads evicted segments', async () => {
    const blobs = new CountingBlobStore(path.join(dir, 'segments'));
    const { storage } = await start({ blobStore: blobs, segmentCacheBytes: 1 });
    await fill(storage, ['o'], 0, 1);
    await storage.cut();
    await fill(storage, ['o'], 1, 2);
    await storage.cut();
    blobs.reads.length = 0;
    storage.logs('o').select([], ...ALL_NS);
    storage.logs('o').select([], ...ALL_NS);
    // With room for nothing, every query reads both files again.
    expect(blobs.reads).toHaveLength(4);
    expect(storage.stats().segmentFileReads).toBe(4);
  });
});

async function waitFor(condition: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}
