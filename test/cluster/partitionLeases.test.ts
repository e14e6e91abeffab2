import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CatalogConflictError, PartitionsLostError } from '../../engine/storage/catalogStore.js';
import type { SegmentMeta } from '../../engine/storage/catalog.js';
import { PartitionLeases } from '../../src/cluster/partitionLeases.js';
import { PostgresPartitionOwners } from '../../src/cluster/postgresPartitionOwners.js';
import { PostgresCatalogStore } from '../../src/postgres/catalogStore.js';
import { PostgresDatabase } from '../../src/postgres/database.js';
import { postgresAvailable, startTestPostgres, type TestPostgres } from '../support/postgres.js';

const LEASE_MS = 800;

function segment(id: number): SegmentMeta {
  return { id, seq: id, org: 'o', signal: 'logs', file: `${String(id).padStart(12, '0')}.logs.seg`, formatVersion: 2, crc: 0, bytes: 10, rows: 1, minMs: 0, maxMs: 1, createdMs: 0 };
}

/**
 * The lease table and the fence on recorded positions, against a real PostgreSQL: two
 * ingesters never own one partition, a takeover waits for expiry or a release, and a catalog
 * change recording positions of a partition this process no longer owns is refused whole.
 */
describe.runIf(postgresAvailable('the partition lease test'))('partition leases in PostgreSQL', () => {
  let pg: TestPostgres;
  let db: PostgresDatabase;

  beforeAll(async () => {
    pg = await startTestPostgres();
    db = await PostgresDatabase.open({ url: pg.url(await pg.createDatabase('leases')), poolSize: 4, statementTimeoutMs: 5000 });
  }, 60_000);

  afterAll(async () => {
    await db?.close();
    await pg?.close();
  });

  it('splits, fences, releases and takes over expired leases', async () => {
    const settings = { catalog: 'default', leaseMs: LEASE_MS, partitions: 8 };
    const a = new PartitionLeases(db, { ...settings, ownerId: 'a', baseUrl: 'http://a:8080' });
    const b = new PartitionLeases(db, { ...settings, ownerId: 'b', baseUrl: 'http://b:8080' });
    const storeA = new PostgresCatalogStore(db, 'default', 'a');
    const storeB = new PostgresCatalogStore(db, 'default', 'b');
    const owners = new PostgresPartitionOwners(db, 'default');

    await a.init();
    await b.init();
    expect(await a.heartbeat()).toBe(1);
    expect(await a.take(8)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(await b.heartbeat()).toBe(2);
    // Nothing is free while a renews.
    expect(await b.take(4)).toEqual([]);
    expect(await a.renew([0, 1, 2, 3, 4, 5, 6, 7])).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);

    // Only the owner records positions; another's change is refused whole (its segment too).
    await expect(storeB.apply({ add: [segment(1)], logPositions: { '0': 5 } })).rejects.toBeInstanceOf(PartitionsLostError);
    await storeA.apply({ add: [segment(2)], logPositions: { '0': 5, '4': 7 } });
    expect(await storeB.logPositions([0, 4, 6])).toEqual({ '0': 5, '4': 7, '6': 0 });
    expect((await storeA.load())?.segments.map((s) => s.id)).toEqual([2]);

    // A release hands partitions over at once.
    await a.release([4, 5, 6, 7]);
    expect(await b.take(4)).toEqual([4, 5, 6, 7]);
    expect(await a.renew([0, 1, 2, 3, 4, 5, 6, 7])).toEqual([0, 1, 2, 3]);
    const listed = await owners.owners();
    expect(listed.map((o) => `${o.partition}:${o.ownerId}:${o.baseUrl}`)).toEqual([
      '0:a:http://a:8080', '1:a:http://a:8080', '2:a:http://a:8080', '3:a:http://a:8080',
      '4:b:http://b:8080', '5:b:http://b:8080', '6:b:http://b:8080', '7:b:http://b:8080',
    ]);
    expect(listed.every((o) => o.leaseExpiresAtMs > Date.now() - 1000)).toBe(true);

    // a stops renewing: its leases lapse, drop out of the owners list and b takes them over.
    await new Promise((r) => setTimeout(r, LEASE_MS + 200));
    expect((await owners.owners()).map((o) => o.partition)).toEqual([]);
    expect(await b.renew([4, 5, 6, 7])).toEqual([4, 5, 6, 7]);
    expect(await b.take(4)).toEqual([0, 1, 2, 3]);
    expect(await a.renew([0, 1, 2, 3])).toEqual([]);
    // A cut a made before noticing cannot record positions of what it lost.
    const lost = await storeA.apply({ logPositions: { '0': 9, '1': 3 } }).catch((err: unknown) => err);
    expect(lost).toBeInstanceOf(PartitionsLostError);
    expect((lost as PartitionsLostError).partitions).toEqual([0, 1]);
    expect(await storeB.logPositions([0])).toEqual({ '0': 5 });
  });

  it('refuses a merge whose inputs are gone and hands out segment ids only once', async () => {
    const store = new PostgresCatalogStore(db, 'merges');
    await store.apply({ add: [segment(10), segment(11)] });
    await store.apply({ add: [segment(12)], remove: [10, 11] });
    // A second compactor's merge of the same inputs comes too late.
    await expect(store.apply({ add: [segment(13)], remove: [10, 11] })).rejects.toBeInstanceOf(CatalogConflictError);
    expect((await store.load())?.segments.map((s) => s.id)).toEqual([12]);

    const other = new PostgresCatalogStore(db, 'merges');
    const blocks = await Promise.all([store.reserveSegmentIds(5), other.reserveSegmentIds(5), store.reserveSegmentIds(5)]);
    const ids = blocks.flatMap((first) => [0, 1, 2, 3, 4].map((i) => first + i));
    expect(new Set(ids).size).toBe(15);
  });

  it('keeps the write log positions and identity of a whole-state save (one process on PostgreSQL)', async () => {
    const store = new PostgresCatalogStore(db, 'whole');
    const state = { version: 1, walCheckpoint: 0, nextSegmentId: 3, segments: [segment(1)], metricMetadata: {}, logPositions: { '0': 4, '2': 9 }, logIdentity: 'SLUICE@1' };
    await store.save(state);
    expect(await store.load()).toEqual(state);
    expect(await store.adoptLogIdentity('SLUICE@1')).toBe(false);
    // A recreated log: its positions mean nothing for the new one.
    expect(await store.adoptLogIdentity('SLUICE@2')).toBe(true);
    expect((await store.load())?.logPositions).toBeUndefined();
  });
});
