import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeMetricSegment } from '../../engine/storage/metricSegment.js';
import { S3BlobStore } from '../../engine/storage/s3/s3BlobStore.js';
import { metricSegment } from '../../engine/storage/segmentMeta.js';
import { Storage, type StorageEvent } from '../../engine/storage/storage.js';
import { PostgresCatalogStore } from '../../src/postgres/catalogStore.js';
import { PostgresDatabase } from '../../src/postgres/database.js';
import { postgresAvailable, startTestPostgres, type TestPostgres } from '../support/postgres.js';
import { startTestS3, type TestS3 } from '../support/s3Server.js';

const HOUR = 3_600_000;

/**
 * The compactor leader's orphan sweep against real object storage (s3rver) and a real
 * PostgreSQL catalog: a segment uploaded by a process that died before committing its record
 * is deleted once older than the grace period; committed segments, fresh uploads and files
 * that are not segments stay, and a catalog that names no segment deletes nothing.
 */
describe.runIf(postgresAvailable('the orphan segment test'))('orphan segment sweep', () => {
  let pg: TestPostgres;
  let s3: TestS3;
  let db: PostgresDatabase;
  let dir: string;
  const opened: Array<{ close(): unknown }> = [];

  beforeAll(async () => {
    [pg, s3] = await Promise.all([startTestPostgres(), startTestS3()]);
    db = await PostgresDatabase.open({ url: pg.url(await pg.createDatabase('orphans')), poolSize: 4, statementTimeoutMs: 5000 });
    dir = await mkdtemp(path.join(tmpdir(), 'sluice-orphans-'));
  }, 90_000);

  afterAll(async () => {
    for (const o of opened.reverse()) await o.close();
    await db?.close();
    await Promise.all([pg?.close(), s3?.close()]);
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  async function blobStore(): Promise<S3BlobStore> {
    const store = await S3BlobStore.open({ ...s3.connection('orphans/segments'), cacheDir: path.join(dir, `cache-${opened.length}`), cacheBytes: 16 * 1024 * 1024 });
    opened.push(store);
    return store;
  }

  async function compactor(catalog: string, blobs: S3BlobStore, events: StorageEvent[]): Promise<Storage> {
    const storage = await Storage.open({
      dir,
      sharedCatalog: new PostgresCatalogStore(db, catalog),
      blobStore: blobs,
      maintenanceIntervalMs: 0,
      compactionIntervalMs: 0,
      onEvent: (e) => events.push(e),
    });
    opened.push(storage);
    return storage;
  }

  /** upload writes a real metric segment under an id from the catalog's counter, committing its record or not. */
  async function upload(store: S3BlobStore, catalog: PostgresCatalogStore, commit: boolean): Promise<string> {
    const id = await catalog.reserveSegmentIds(1);
    const enc = encodeMetricSegment([{ labels: { __name__: 'up', job: `j${id}` }, timestampsMs: Float64Array.of(1000, 2000), values: Float64Array.of(1, 2) }]);
    const segment = metricSegment({ id, org: 'org', createdMs: Date.now(), writer: 'ingester-a' }, enc!);
    await store.write(segment.meta.file, segment.bytes);
    if (commit) await catalog.apply({ add: [segment.meta] });
    return segment.meta.file;
  }

  it('deletes segment files no record names once older than the grace period, and nothing else', async () => {
    const store = await blobStore();
    const catalog = new PostgresCatalogStore(db, 'default');
    const committed = [await upload(store, catalog, true), await upload(store, catalog, true)];
    // An ingester that died between upload and commit left this one behind.
    const orphan = await upload(store, catalog, false);
    await store.write('notes.txt', Buffer.from('not a segment'));
    const events: StorageEvent[] = [];
    const storage = await compactor('default', store, events);

    // Just uploaded: within the grace period, a commit may still be under way.
    expect(await storage.sweepOrphanSegments(HOUR)).toEqual([]);
    expect((await store.list()).sort()).toEqual([...committed, orphan, 'notes.txt'].sort());

    // An hour and more later the orphan goes; committed segments and other files stay.
    expect(await storage.sweepOrphanSegments(HOUR, Date.now() + 2 * HOUR)).toEqual([orphan]);
    expect((await store.list()).sort()).toEqual([...committed, 'notes.txt'].sort());
    expect(events.some((e) => e.message.startsWith('removed segment files no catalog record names') && e.fields?.files === 1)).toBe(true);

    // The committed segments still read back through a fresh store (cache cold).
    const cold = await blobStore();
    for (const file of committed) expect((await cold.readAsync(file)).byteLength).toBeGreaterThan(0);

    // A grace period of 0 turns the sweep off.
    const late = await upload(store, catalog, false);
    expect(await storage.sweepOrphanSegments(0, Date.now() + 2 * HOUR)).toEqual([]);
    expect(await store.list()).toContain(late);
  }, 60_000);

  it('deletes nothing when the catalog names no segment at all (the wrong catalog for this store)', async () => {
    const store = await blobStore();
    const before = (await store.list()).sort();
    expect(before.length).toBeGreaterThan(1);
    const events: StorageEvent[] = [];
    const storage = await compactor('empty', store, events);
    expect(await storage.sweepOrphanSegments(HOUR, Date.now() + 2 * HOUR)).toEqual([]);
    expect((await store.list()).sort()).toEqual(before);
    expect(events.some((e) => e.level === 'warn' && e.message.includes('catalog names none'))).toBe(true);
  }, 60_000);
});
