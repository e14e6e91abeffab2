import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KeyAdmin } from '../../src/auth/apiKeys.js';
import { KeyIndex } from '../../src/auth/keyIndex.js';
import { MetaUnavailableError } from '../../src/meta/types.js';
import { PostgresDatabase } from '../../src/postgres/database.js';
import { LISTENER_NAME, PostgresMetaStore } from '../../src/postgres/metaStore.js';
import { MIGRATIONS, migrate } from '../../src/postgres/migrations.js';
import { postgresAvailable, startTestPostgres, type TestPostgres } from '../support/postgres.js';
import { waitFor } from '../support/server.js';

/**
 * The PostgreSQL store as replicas use it: several processes' worth of pools and listeners
 * over one database, a schema migrated by whichever starts first, revocations that reach the
 * others through NOTIFY, and a database that goes away and comes back.
 */

const withPostgres = postgresAvailable('the PostgreSQL metadata store tests');

describe.skipIf(!withPostgres)('PostgresMetaStore across replicas', () => {
  let pg: TestPostgres;
  const opened: Array<{ close(): Promise<void> }> = [];

  beforeAll(async () => {
    pg = await startTestPostgres();
  }, 60_000);
  afterAll(async () => {
    for (const o of opened.reverse()) await o.close().catch(() => undefined);
    await pg?.close();
  });

  async function replica(database: string): Promise<{ db: PostgresDatabase; store: PostgresMetaStore }> {
    const db = await PostgresDatabase.open({ url: pg.url(database), poolSize: 3, statementTimeoutMs: 5000, connectTimeoutMs: 2000 });
    const store = await PostgresMetaStore.open(db, { watchChanges: true });
    opened.push(db, store);
    return { db, store };
  }

  it('migrates a fresh database once when replicas start together, and finds nothing to do afterwards', async () => {
    const database = await pg.createDatabase('migrate');
    const dbs = await Promise.all(Array.from({ length: 4 }, () => PostgresDatabase.open({ url: pg.url(database), poolSize: 2, statementTimeoutMs: 5000 })));
    opened.push(...dbs);
    const { rows } = await pg.query<{ version: number; n: string }>(database, 'SELECT version, count(*) AS n FROM schema_migrations GROUP BY version ORDER BY version');
    expect(rows.map((r) => [r.version, Number(r.n)])).toEqual(MIGRATIONS.map((m) => [m.version, 1]));
    const client = dbs[0].newClient();
    await client.connect();
    try {
      expect(await migrate(client)).toEqual([]);
      // A later release adds a migration: only it runs, in its own transaction.
      const next = { version: 1000, name: 'test addition', sql: 'CREATE TABLE migration_probe (x integer)' };
      expect(await migrate(client, [...MIGRATIONS, next])).toEqual([1000]);
      expect(await migrate(client, [...MIGRATIONS, next])).toEqual([]);
      // A failing migration leaves no trace: neither its tables nor its row.
      const broken = { version: 1001, name: 'broken', sql: 'CREATE TABLE half_done (x integer); SELECT no_such_function()' };
      await expect(migrate(client, [...MIGRATIONS, next, broken])).rejects.toThrow(/migration 1001 \(broken\) failed/);
      const tables = await pg.query(database, "SELECT 1 FROM pg_tables WHERE tablename = 'half_done'");
      expect(tables.rowCount).toBe(0);
      expect((await pg.query(database, 'SELECT 1 FROM schema_migrations WHERE version = 1001')).rowCount).toBe(0);
    } finally {
      await client.end();
    }
  });

  it('revokes a key on one replica and the other stops accepting it within a second', async () => {
    const database = await pg.createDatabase('revoke');
    const a = await replica(database);
    const b = await replica(database);
    const admin = new KeyAdmin(a.store);
    const org = await admin.createOrg('revocation');
    const { key, record } = await admin.createKey(org.id, 'k');
    const index = await KeyIndex.create(b.store, undefined);
    opened.push({ close: async () => index.close() });
    expect(index.verify(key)).toMatchObject({ orgId: org.id });
    const started = Date.now();
    await a.store.revokeApiKey(record.id, new Date().toISOString());
    await waitFor(() => index.verify(key) === undefined, 1000);
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('reloads after its listening connection is cut, so a change made meanwhile is still seen', async () => {
    const database = await pg.createDatabase('resync');
    const a = await replica(database);
    const b = await replica(database);
    const admin = new KeyAdmin(a.store);
    const org = await admin.createOrg('resync');
    const { key, record } = await admin.createKey(org.id, 'k');
    const index = await KeyIndex.create(b.store, undefined);
    opened.push({ close: async () => index.close() });
    expect(index.verify(key)).toBeDefined();
    // Cut b's listener and revoke in the same statement: the NOTIFY has nobody to reach.
    await pg.query(
      database,
      `WITH cut AS (SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1 AND datname = current_database())
       UPDATE api_keys SET revoked_at = now() WHERE id = $2 AND (SELECT count(*) FROM cut) >= 0`,
      [LISTENER_NAME, record.id],
    );
    await waitFor(() => index.verify(key) === undefined, 3000);
  });

  it('survives a PostgreSQL restart: reads work again and a change made right after it reaches the other replica', async () => {
    const database = await pg.createDatabase('restart');
    const a = await replica(database);
    const b = await replica(database);
    const admin = new KeyAdmin(a.store);
    const org = await admin.createOrg('restart');
    const first = await admin.createKey(org.id, 'first');
    const second = await admin.createKey(org.id, 'second');
    const index = await KeyIndex.create(b.store, undefined);
    opened.push({ close: async () => index.close() });
    let changes = 0;
    b.store.onChange(() => changes++);

    await pg.stop('fast');
    await expect(a.store.listOrgs()).rejects.toBeInstanceOf(MetaUnavailableError);
    await expect(a.store.revokeApiKey(first.record.id, new Date().toISOString())).rejects.toBeInstanceOf(MetaUnavailableError);
    await pg.start();
    // The first change after the restart; b's listener may or may not be back yet.
    await a.store.revokeApiKey(first.record.id, new Date().toISOString());
    await waitFor(() => index.verify(first.key) === undefined, 5000);
    expect(changes).toBeGreaterThan(0);
    expect((await b.store.getOrg(org.id))!.name).toBe('restart');

    // A crash (immediate shutdown) as well, and a change once it is back.
    await pg.stop('immediate');
    await pg.start();
    await waitFor(async () => (await a.store.revokeApiKey(second.record.id, new Date().toISOString()).then(() => true, () => false)), 5000);
    await waitFor(() => index.verify(second.key) === undefined, 5000);
  }, 60_000);
});
