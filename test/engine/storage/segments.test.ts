import { promises as fs } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CatalogState } from '../../../engine/storage/catalog.js';
import { FileCatalogStore, type CatalogStore } from '../../../engine/storage/catalogStore.js';
import type { Storage } from '../../../engine/storage/storage.js';
import { ALL_MS, ALL_NS, fill, logBatch, metricBatch, openStorage, snapshot, tempDir } from './segmentFixtures.js';

const ORGS = ['org-a', 'org-b', 'org-c'];

async function walFiles(dir: string): Promise<string[]> {
  return (await fs.readdir(path.join(dir, 'wal'))).sort();
}

async function segmentFiles(dir: string): Promise<string[]> {
  return (await fs.readdir(path.join(dir, 'segments'))).sort();
}

describe('segments: cut and restart', () => {
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

  it('answers like a storage that never cut, whatever the cut points', async () => {
    const reference = await openStorage(await tempDir());
    open.push(reference.storage);
    await fill(reference.storage, ORGS, 0, 5);
    const expectedAt5 = ORGS.map((o) => snapshot(reference.storage, o));
    await fill(reference.storage, ORGS, 5, 6);
    const expectedAt6 = ORGS.map((o) => snapshot(reference.storage, o));

    const { storage } = await start();
    await fill(storage, ORGS, 0, 2);
    await storage.cut();
    await fill(storage, ORGS, 2, 3);
    await storage.cut();
    await fill(storage, ORGS, 3, 5);
    // Two segments per org and signal, and a head whose samples rewrite timestamps stored in them.
    expect(ORGS.map((o) => snapshot(storage, o))).toEqual(expectedAt5);
    await storage.cut();
    await fill(storage, ORGS, 5, 6);
    expect(ORGS.map((o) => snapshot(storage, o))).toEqual(expectedAt6);
    await storage.cut();
    expect(ORGS.map((o) => snapshot(storage, o))).toEqual(expectedAt6);
    await storage.compact();
    expect(storage.segments().length).toBe(ORGS.length * 2);
    expect(ORGS.map((o) => snapshot(storage, o))).toEqual(expectedAt6);
  });

  it('answers the same after a cut as before it, for several orgs', async () => {
    const { storage } = await start();
    await fill(storage, ORGS, 0, 3);
    const before = ORGS.map((o) => snapshot(storage, o));
    const result = await storage.cut();
    // One metric and one log segment per org.
    expect(result.segments.map((s) => `${s.org}/${s.signal}`).sort()).toEqual(ORGS.flatMap((o) => [`${o}/logs`, `${o}/metrics`]).sort());
    expect(storage.stats().headBytes).toBe(0);
    expect(ORGS.map((o) => snapshot(storage, o))).toEqual(before);

    // Writes after the cut land in the fresh head; the union still answers like one head would.
    await fill(storage, ORGS, 3, 5);
    const mixed = ORGS.map((o) => snapshot(storage, o));
    await storage.cut();
    expect(ORGS.map((o) => snapshot(storage, o))).toEqual(mixed);
  });

  it('lets a newer write win across a cut and keeps staleness markers bit-exact', async () => {
    const { storage } = await start();
    await storage.appendMetrics('o', [{ labels: { __name__: 'g' }, timestampsMs: Float64Array.from([1000, 2000]), values: Float64Array.from([1, 2]) }]);
    await storage.cut();
    await storage.appendMetrics('o', [{ labels: { __name__: 'g' }, timestampsMs: Float64Array.from([2000, 3000]), values: Float64Array.from([20, 0]), stale: Uint8Array.from([0, 1]) }]);
    await storage.cut();
    const [series] = storage.metrics('o').select([], ...ALL_MS);
    expect([...series.timestampsMs]).toEqual([1000, 2000, 3000]);
    expect([...series.values.subarray(0, 2)]).toEqual([1, 20]);
    const words = new Uint32Array(series.values.buffer, series.values.byteOffset + 16, 2);
    expect([words[1], words[0]]).toEqual([0x7ff00000, 2]);
  });

  it('restarts after a cut with nothing lost and nothing duplicated, and trims the WAL', async () => {
    const { storage } = await start();
    await fill(storage, ORGS, 0, 2);
    const walBefore = await walFiles(dir);
    const { walCheckpoint } = await storage.cut();
    await fill(storage, ORGS, 2, 4);
    const expected = ORGS.map((o) => snapshot(storage, o));
    // Only the file writes went to after the cut is left.
    const walAfter = await walFiles(dir);
    expect(walAfter.every((f) => Number(f.slice(0, 10)) >= walCheckpoint)).toBe(true);
    expect(walBefore.some((f) => Number(f.slice(0, 10)) < walCheckpoint)).toBe(true);
    await storage.close();
    open.pop();

    const { storage: again, events } = await start();
    expect(ORGS.map((o) => snapshot(again, o))).toEqual(expected);
    expect(again.metricMetadata('org-b').get('up')).toMatchObject({ type: 'gauge', help: 'Up for org-b.' });
    expect(events.filter((e) => e.level !== 'info')).toEqual([]);
  });

  it('keeps metric metadata once the WAL files it arrived in are gone', async () => {
    const { storage } = await start();
    await storage.appendMetrics('o', [{ labels: { __name__: 'req_total' }, timestampsMs: Float64Array.from([1]), values: Float64Array.from([1]) }], [
      { name: 'req_total', type: 'counter', unit: '', help: 'Requests.' },
    ]);
    await storage.cut();
    await storage.close();
    open.pop();
    const { storage: again } = await start();
    expect(again.metricMetadata('o').get('req_total')).toEqual({ name: 'req_total', type: 'counter', unit: '', help: 'Requests.' });
  });

  it('ignores WAL files the catalog checkpoint covers (crash after the catalog update, before WAL deletion)', async () => {
    const { storage } = await start();
    await fill(storage, ORGS, 0, 2);
    // Keep a copy of the WAL as it was before the cut deleted the covered files.
    const saved = new Map<string, Buffer>();
    for (const f of await walFiles(dir)) saved.set(f, await fs.readFile(path.join(dir, 'wal', f)));
    await storage.cut();
    await fill(storage, ORGS, 2, 3);
    const expected = ORGS.map((o) => snapshot(storage, o));
    await storage.close();
    open.pop();
    for (const [f, bytes] of saved) if (!(await walFiles(dir)).includes(f)) await fs.writeFile(path.join(dir, 'wal', f), bytes);

    const { storage: again } = await start();
    expect(ORGS.map((o) => snapshot(again, o))).toEqual(expected);
    // The stale files were removed at start-up.
    const checkpoint = again.stats().walCheckpoint;
    expect((await walFiles(dir)).every((f) => Number(f.slice(0, 10)) >= checkpoint)).toBe(true);
  });

  it('recovers from a crash between segment write and catalog update: orphan files removed, data from the WAL', async () => {
    class FailingStore implements CatalogStore {
      private readonly inner: FileCatalogStore;
      constructor(file: string) {
        this.inner = new FileCatalogStore(file);
      }
      load(): Promise<CatalogState | undefined> {
        return this.inner.load();
      }
      async save(state: CatalogState): Promise<void> {
        // Start-up saves the empty catalog; the cut's update is what "crashes".
        if (state.segments.length > 0) throw new Error('simulated crash before the catalog was written');
        await this.inner.save(state);
      }
    }
    const { storage } = await start({ catalogStore: new FailingStore(path.join(dir, 'catalog.json')) });
    await fill(storage, ORGS, 0, 2);
    const expected = ORGS.map((o) => snapshot(storage, o));
    await expect(storage.cut()).rejects.toThrow('simulated crash');
    // The segment files reached the disk, the catalog did not; the heads still answer in full.
    expect((await segmentFiles(dir)).length).toBe(ORGS.length * 2);
    expect(ORGS.map((o) => snapshot(storage, o))).toEqual(expected);
    await storage.close();
    open.pop();

    const { storage: again, events } = await start();
    expect(await segmentFiles(dir)).toEqual([]);
    expect(events.filter((e) => e.message.includes('not in the catalog'))).toHaveLength(ORGS.length * 2);
    expect(ORGS.map((o) => snapshot(again, o))).toEqual(expected);
    // A later cut works normally.
    await again.cut();
    expect(ORGS.map((o) => snapshot(again, o))).toEqual(expected);
  });

  it('retries a failed cut: frozen heads stay readable and are written by the next cut', async () => {
    let failures = 1;
    class FlakyStore implements CatalogStore {
      private readonly inner: FileCatalogStore;
      constructor(file: string) {
        this.inner = new FileCatalogStore(file);
      }
      load(): Promise<CatalogState | undefined> {
        return this.inner.load();
      }
      async save(state: CatalogState): Promise<void> {
        if (state.segments.length > 0 && failures-- > 0) throw new Error('disk full');
        await this.inner.save(state);
      }
    }
    const { storage } = await start({ catalogStore: new FlakyStore(path.join(dir, 'catalog.json')) });
    await fill(storage, ['o'], 0, 2);
    await expect(storage.cut()).rejects.toThrow('disk full');
    await fill(storage, ['o'], 2, 3);
    const expected = snapshot(storage, 'o');
    await storage.cut();
    expect(storage.stats().headBytes).toBe(0);
    expect(snapshot(storage, 'o')).toEqual(expected);
    await storage.close();
    open.pop();
    const { storage: again } = await start();
    expect(snapshot(again, 'o')).toEqual(expected);
  });

  it('serves segments plus the intact WAL prefix when the WAL tail is truncated', async () => {
    const { storage } = await start();
    await fill(storage, ['o'], 0, 2);
    await storage.cut();
    await storage.appendLogs('o', logBatch('o', 2));
    await storage.appendLogs('o', [{ timestampNs: 9n, message: 'torn', level: 'info', tags: { service_name: 'x' } }]);
    await storage.close();
    open.pop();
    const files = await walFiles(dir);
    const last = path.join(dir, 'wal', files[files.length - 1]);
    const { size } = await fs.stat(last);
    await fs.truncate(last, size - 3);

    const { storage: again, events } = await start();
    expect(events.some((e) => e.level === 'error' && e.message.includes('write-ahead log damaged'))).toBe(true);
    const messages = again.logs('o').select([], ...ALL_NS).flatMap((s) => s.messages);
    // Rounds 0 and 1 (12 lines, plus round 1's late line) and round 2 (the same).
    expect(messages).toHaveLength(38);
    expect(messages).not.toContain('torn');
    expect(again.metrics('o').select([{ name: '__name__', type: '=', value: 'up' }], ...ALL_MS)).toHaveLength(2);
  });

  it('keeps orgs apart in segments', async () => {
    const { storage } = await start();
    await storage.appendMetrics('org-a', metricBatch('org-a', 0));
    await storage.appendLogs('org-a', logBatch('org-a', 0));
    await storage.cut();
    expect(storage.segments().every((s) => s.org === 'org-a')).toBe(true);
    expect(storage.metrics('org-b').select([], ...ALL_MS)).toEqual([]);
    expect(storage.logs('org-b').select([], ...ALL_NS)).toEqual([]);
    expect(storage.metrics('org-b').labelNames([], ...ALL_MS)).toEqual([]);
    const tagSets: unknown[] = [];
    storage.logs('org-b').forEachTagSet([], ...ALL_NS, (t) => void tagSets.push(t));
    expect(tagSets).toEqual([]);
    // Identical series in two orgs stay separate after both are cut.
    await storage.appendMetrics('org-b', [{ labels: { __name__: 'up', job: 'api' }, timestampsMs: Float64Array.from([1_000_000]), values: Float64Array.from([42]) }]);
    await storage.cut();
    const a = storage.metrics('org-a').select([{ name: '__name__', type: '=', value: 'up' }, { name: 'job', type: '=', value: 'api' }], ...ALL_MS);
    const b = storage.metrics('org-b').select([{ name: '__name__', type: '=', value: 'up' }], ...ALL_MS);
    expect([...a[0].values]).toEqual([1, 0]);
    expect(b.map((s) => [...s.values])).toEqual([[42]]);
    expect(storage.logs('org-b').select([], ...ALL_NS)).toEqual([]);
  });
});

describe('segments: damaged and missing files', () => {
  let dir: string;
  const open: Storage[] = [];
  beforeEach(async () => {
    dir = await tempDir();
  });
  afterEach(async () => {
    for (const s of open.splice(0)) await s.close();
    await rm(dir, { recursive: true, force: true });
  });

  /** prepare writes two cuts' worth for one org and returns what the second cut wrote. */
  async function prepare(): Promise<{ expectedRounds: number }> {
    const { storage } = await openStorage(dir);
    await fill(storage, ['o'], 0, 1);
    await storage.cut();
    await fill(storage, ['o'], 1, 2);
    await storage.cut();
    await storage.close();
    return { expectedRounds: 2 };
  }

  it('reports a segment with a flipped byte, skips it, and serves everything else', async () => {
    await prepare();
    const files = (await segmentFiles(dir)).filter((f) => f.endsWith('.logs.seg'));
    const victim = path.join(dir, 'segments', files[0]);
    const bytes = await fs.readFile(victim);
    bytes[Math.floor(bytes.length / 2)] ^= 0x40;
    await fs.writeFile(victim, bytes);

    const { storage, events } = await openStorage(dir);
    open.push(storage);
    const view = storage.logs('o');
    const result = view.selectWithStatus([], ...ALL_NS);
    // Round 1's lines survive; round 0's segment is skipped.
    const messages = result.series.flatMap((s) => s.messages);
    expect(messages).toHaveLength(13);
    expect(messages.every((m) => m.includes('round 1'))).toBe(true);
    expect(result.failedSegments).toHaveLength(1);
    expect(result.failedSegments[0]).toMatchObject({ file: files[0], org: 'o', signal: 'logs' });
    expect(result.failedSegments[0].reason).toMatch(/damaged: checksum mismatch/);
    expect(view.failedSegments).toHaveLength(1);
    const errors = events.filter((e) => e.level === 'error');
    expect(errors).toHaveLength(1);
    expect(errors[0].fields).toMatchObject({ file: files[0] });
    // Metrics are untouched, and a second query is told again without a second event.
    expect(storage.metrics('o').select([{ name: '__name__', type: '=', value: 'up' }], ...ALL_MS)).toHaveLength(2);
    expect(storage.logs('o').selectWithStatus([], ...ALL_NS).failedSegments).toHaveLength(1);
    expect(events.filter((e) => e.level === 'error')).toHaveLength(1);
    // Compaction leaves the damaged segment alone.
    const { merged } = await storage.compact();
    expect(merged.every((m) => m.inputs.every((s) => s.file !== files[0]))).toBe(true);
  });

  it('reports a missing segment file at start-up and skips it in queries', async () => {
    await prepare();
    const files = (await segmentFiles(dir)).filter((f) => f.endsWith('.metrics.seg'));
    await fs.rm(path.join(dir, 'segments', files[1]));

    const { storage, events } = await openStorage(dir);
    open.push(storage);
    expect(events.filter((e) => e.level === 'error').map((e) => e.fields?.file)).toEqual([files[1]]);
    const view = storage.metrics('o');
    const up = view.select([{ name: '__name__', type: '=', value: 'up' }, { name: 'job', type: '=', value: 'web' }], ...ALL_MS);
    // Only round 0's samples remain.
    expect([...up[0].timestampsMs]).toEqual([1_000_000, 1_030_000]);
    expect(view.failedSegments.map((f) => [f.file, f.reason])).toEqual([[files[1], 'segment file missing']]);
    // Label browsing skips it too, and logs are whole.
    const names = storage.metrics('o');
    expect(names.labelValues('job', [], ...ALL_MS)).toEqual(['api', 'web']);
    expect(names.failedSegments).toHaveLength(1);
    expect(storage.logs('o').select([], ...ALL_NS).flatMap((s) => s.messages)).toHaveLength(25);
  });

  it('refuses to start on a damaged or missing catalog rather than lose track of segments', async () => {
    await prepare();
    await fs.writeFile(path.join(dir, 'catalog.json'), '{"segments": [');
    await expect(openStorage(dir)).rejects.toThrow(/catalog is not valid JSON/);
    // A missing catalog next to segment files is refused too, and the files are kept.
    await fs.rm(path.join(dir, 'catalog.json'));
    await expect(openStorage(dir)).rejects.toThrow(/segment files but no catalog/);
    expect(await segmentFiles(dir)).toHaveLength(4);
  });
});
