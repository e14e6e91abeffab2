import { rm } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CATALOG_VERSION, type CatalogState, type SegmentMeta } from '../../engine/storage/catalog.js';
import { PostgresCatalogStore } from '../../src/postgres/catalogStore.js';
import { PostgresDatabase } from '../../src/postgres/database.js';
import { postgresAvailable, startTestPostgres, type TestPostgres } from '../support/postgres.js';
import { fill, openStorage, snapshot, tempDir } from '../engine/storage/segmentFixtures.js';

/**
 * The segment catalog in PostgreSQL: what is saved loads back equal, a save writes only the
 * segments that changed, and a real storage cuts, compacts and restarts over it.
 */

const withPostgres = postgresAvailable('the PostgreSQL catalog store tests');

function segment(id: number, org = 'org-a', extra: Partial<SegmentMeta> = {}): SegmentMeta {
  return {
    id,
    seq: id,
    org,
    signal: id % 2 === 0 ? 'logs' : 'metrics',
    file: `${org}-${id}.arrow`,
    formatVersion: 2,
    crc: 1234 + id,
    bytes: 1000 * id,
    rows: 10 * id,
    minMs: 1_700_000_000_000 + id,
    maxMs: 1_700_000_100_000 + id,
    metricNames: ['up', 'http_requests_total'],
    tagValues: { service_name: ['api', ''], level: null },
    createdMs: 1_700_000_200_000,
    ...extra,
  };
}

function state(segments: SegmentMeta[], walCheckpoint = 3): CatalogState {
  return { version: CATALOG_VERSION, walCheckpoint, nextSegmentId: 100, segments, metricMetadata: { 'org-a': [{ name: 'up', type: 'gauge', unit: '', help: 'is it up' }] } as CatalogState['metricMetadata'] };
}

describe.skipIf(!withPostgres)('PostgresCatalogStore', () => {
  let pg: TestPostgres;
  let db: PostgresDatabase;
  let database: string;

  beforeAll(async () => {
    pg = await startTestPostgres();
    database = await pg.createDatabase('catalog');
    db = await PostgresDatabase.open({ url: pg.url(database), poolSize: 4, statementTimeoutMs: 5000 });
  }, 60_000);
  afterAll(async () => {
    await db?.close();
    await pg?.close();
  });

  /** rowVersions maps each segment row to its xmin, which changes exactly when the row is written. */
  async function rowVersions(name: string): Promise<Map<number, string>> {
    const { rows } = await pg.query<{ id: string; xmin: string }>(database, 'SELECT id, xmin::text FROM catalog_segments WHERE catalog = $1', [name]);
    return new Map(rows.map((r) => [Number(r.id), r.xmin]));
  }

  it('loads nothing before the first save, then exactly what was saved, separately per catalog name', async () => {
    const a = new PostgresCatalogStore(db, 'a');
    const b = new PostgresCatalogStore(db, 'b');
    expect(await a.load()).toBeUndefined();
    const saved = state([segment(1), segment(2, 'org-b', { minNs: '1700000000000000001', maxNs: '1700000100000000001', streamCount: 4 })]);
    await a.save(saved);
    expect(await a.load()).toEqual(saved);
    expect(await b.load()).toBeUndefined();
    await b.save(state([]));
    expect((await b.load())!.segments).toEqual([]);
    expect((await a.load())!.segments).toHaveLength(2);
  });

  it('writes only what changed, keeps the storage order, and selects by org and time from columns', async () => {
    const store = new PostgresCatalogStore(db, 'diff');
    const first = state([segment(1), segment(2), segment(3), segment(4)]);
    await store.save(first);
    const before = await rowVersions('diff');
    // The same state again: no segment row is touched.
    await store.save({ ...first, walCheckpoint: 4 });
    expect(await rowVersions('diff')).toEqual(before);
    expect((await store.load())!.walCheckpoint).toBe(4);
    // A compaction: 2 and 3 replaced by 5, appended; 1 and 4 stay untouched.
    const compacted = state([segment(1), segment(4), segment(5, 'org-a', { rows: 99 })], 5);
    await store.save(compacted);
    const after = await rowVersions('diff');
    expect([...after.keys()].sort()).toEqual([1, 4, 5]);
    expect(after.get(1)).toBe(before.get(1));
    expect(after.get(4)).toBe(before.get(4));
    expect(await store.load()).toEqual(compacted);
    // A changed entry is rewritten in place; an order the storage never produces is still kept.
    const reordered = state([segment(5, 'org-a', { rows: 100 }), segment(1), segment(4)], 5);
    await store.save(reordered);
    expect(await store.load()).toEqual(reordered);
    const { rows } = await pg.query<{ id: string }>(database, "SELECT id FROM catalog_segments WHERE catalog = 'diff' AND org = 'org-a' AND signal = 'metrics' AND max_ms >= $1 ORDER BY id", [1_700_000_100_003]);
    expect(rows.map((r) => Number(r.id))).toEqual([5]);
  });

  it('carries a real storage through cuts, compaction and a restart', async () => {
    const dir = await tempDir();
    const orgs = ['org-a', 'org-b'];
    try {
      const catalogStore = new PostgresCatalogStore(db, 'storage');
      const { storage } = await openStorage(dir, { catalogStore });
      await fill(storage, orgs, 0, 2);
      await storage.cut();
      await fill(storage, orgs, 2, 4);
      await storage.cut();
      await storage.compact();
      await fill(storage, orgs, 4, 5);
      const expected = orgs.map((o) => snapshot(storage, o));
      const segments = storage.segments().length;
      await storage.close();
      const loaded = await catalogStore.load();
      expect(loaded!.segments).toHaveLength(segments);
      const { rows } = await pg.query<{ n: string }>(database, "SELECT count(*) AS n FROM catalog_segments WHERE catalog = 'storage'");
      expect(Number(rows[0].n)).toBe(segments);
      const reopened = await openStorage(dir, { catalogStore: new PostgresCatalogStore(db, 'storage') });
      try {
        expect(reopened.storage.segments().length).toBe(segments);
        expect(orgs.map((o) => snapshot(reopened.storage, o))).toEqual(expected);
      } finally {
        await reopened.storage.close();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
