import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FileMetaStore } from '../../src/meta/fileStore.js';
import { MetaConflictError, MetaNotFoundError, MetaVersionConflictError, type ApiKeyRecord, type MetaStore, type NewDashboard } from '../../src/meta/types.js';
import { PostgresDatabase } from '../../src/postgres/database.js';
import { PostgresMetaStore } from '../../src/postgres/metaStore.js';
import { postgresAvailable, startTestPostgres, type TestPostgres } from '../support/postgres.js';
import { waitFor } from '../support/server.js';

/**
 * What every metadata store must do, run against the embedded file store and the PostgreSQL
 * store alike. Each backend opens "replicas": independent store instances over the same
 * place (the same data directory; the same database through separate pools), as two
 * processes would.
 */

const AT = '2024-05-01T10:00:00.000Z';
const LATER = '2024-05-01T11:00:00.000Z';

interface Backend {
  /** replica opens one more store instance over the shared place; it follows others' changes. */
  replica(): Promise<MetaStore>;
  close(): Promise<void>;
}

type BackendFactory = () => Promise<Backend>;

let pgServer: TestPostgres | undefined;
const withPostgres = postgresAvailable('the PostgreSQL metadata store contract');

const backends: Array<[string, BackendFactory]> = [
  [
    'file',
    async () => {
      const dir = await mkdtemp(path.join(tmpdir(), 'sluice-meta-contract-'));
      const opened: MetaStore[] = [];
      return {
        async replica() {
          const store = await FileMetaStore.open(dir, { watchChanges: true });
          opened.push(store);
          return store;
        },
        async close() {
          for (const s of opened) await s.close();
          await rm(dir, { recursive: true, force: true });
        },
      };
    },
  ],
];
if (withPostgres) {
  backends.push([
    'postgres',
    async () => {
      const database = await pgServer!.createDatabase('contract');
      const opened: Array<{ store: MetaStore; db: PostgresDatabase }> = [];
      return {
        async replica() {
          const db = await PostgresDatabase.open({ url: pgServer!.url(database), poolSize: 4, statementTimeoutMs: 5000 });
          const store = await PostgresMetaStore.open(db, { watchChanges: true });
          opened.push({ store, db });
          return store;
        },
        async close() {
          for (const { store, db } of opened) {
            await store.close();
            await db.close();
          }
        },
      };
    },
  ]);
}

beforeAll(async () => {
  if (withPostgres) pgServer = await startTestPostgres();
}, 60_000);
afterAll(async () => {
  await pgServer?.close();
});

function dashboard(orgId: string, id: string, name: string, category = 'Custom'): NewDashboard {
  return { id, orgId, name, category, spec: { duration: '1h', panels: {}, sections: [], category } };
}

function key(id: string, orgId: string, hash: string): ApiKeyRecord {
  return { id, orgId, name: `key ${id}`, hash, prefix: hash.slice(0, 6), createdAt: AT };
}

describe.each(backends)('MetaStore contract: %s', (_name, factory) => {
  let backend: Backend;
  let store: MetaStore;

  beforeEach(async () => {
    backend = await factory();
    store = await backend.replica();
    await store.createOrg({ id: 'org-a', name: 'A', createdAt: AT });
    await store.createOrg({ id: 'org-b', name: 'B', createdAt: AT, retentionDays: 7, settings: { maxSeries: 100 } });
  });
  afterEach(async () => {
    await backend.close();
  });

  it('creates orgs, lists them in creation order, and refuses a taken id or name', async () => {
    expect((await store.listOrgs()).map((o) => o.id)).toEqual(['org-a', 'org-b']);
    expect(await store.getOrg('org-b')).toEqual({ id: 'org-b', name: 'B', createdAt: AT, retentionDays: 7, settings: { maxSeries: 100 } });
    expect(await store.getOrg('org-a')).toEqual({ id: 'org-a', name: 'A', createdAt: AT });
    expect(await store.getOrg('nope')).toBeUndefined();
    await expect(store.createOrg({ id: 'org-a', name: 'Other', createdAt: AT })).rejects.toBeInstanceOf(MetaConflictError);
    await expect(store.createOrg({ id: 'org-c', name: 'A', createdAt: AT })).rejects.toThrow(/named "A"/);
    await expect(store.createOrg({ id: 'org-c', name: 'C', createdAt: AT, retentionDays: -1 })).rejects.toBeInstanceOf(RangeError);
    expect(await store.getOrg('org-c')).toBeUndefined();
  });

  it('sets and removes org settings in one step, and an invalid change changes nothing', async () => {
    const changed = await store.updateOrgSettings('org-a', { retentionDays: 30, maxStreams: 5, maxSeries: 9 });
    expect(changed).toEqual({ id: 'org-a', name: 'A', createdAt: AT, retentionDays: 30, settings: { maxStreams: 5, maxSeries: 9 } });
    const removed = await store.updateOrgSettings('org-a', { retentionDays: null, maxSeries: null });
    expect(removed).toEqual({ id: 'org-a', name: 'A', createdAt: AT, settings: { maxStreams: 5 } });
    await expect(store.updateOrgSettings('org-a', { maxStreams: 6, maxSeries: -5 })).rejects.toBeInstanceOf(RangeError);
    await expect(store.updateOrgSettings('org-a', { bogus: 1 } as never)).rejects.toBeInstanceOf(RangeError);
    expect((await store.getOrg('org-a'))!.settings).toEqual({ maxStreams: 5 });
    expect(await store.updateOrgSettings('org-a', { maxStreams: null })).toEqual({ id: 'org-a', name: 'A', createdAt: AT });
    expect(await store.updateOrgSettings('nope', { maxStreams: 1 })).toBeUndefined();
  });

  it('stores, lists and revokes API keys', async () => {
    await store.insertApiKey(key('k1', 'org-a', 'aa'.repeat(32)));
    await store.insertApiKey(key('k2', 'org-b', 'bb'.repeat(32)));
    await expect(store.insertApiKey(key('k3', 'nope', 'cc'.repeat(32)))).rejects.toBeInstanceOf(MetaNotFoundError);
    await expect(store.insertApiKey(key('k1', 'org-a', 'dd'.repeat(32)))).rejects.toBeInstanceOf(MetaConflictError);
    await expect(store.insertApiKey(key('k4', 'org-a', 'aa'.repeat(32)))).rejects.toBeInstanceOf(MetaConflictError);
    expect((await store.listApiKeys()).map((k) => k.id)).toEqual(['k1', 'k2']);
    expect(await store.listApiKeys({ orgId: 'org-b' })).toEqual([key('k2', 'org-b', 'bb'.repeat(32))]);
    expect(await store.revokeApiKey('k1', LATER)).toMatchObject({ id: 'k1', revokedAt: LATER });
    // A second revocation keeps the first time.
    expect(await store.revokeApiKey('k1', '2025-01-01T00:00:00.000Z')).toMatchObject({ revokedAt: LATER });
    expect(await store.revokeApiKey('nope', LATER)).toBeUndefined();
  });

  it('creates and replaces integrations per org and driver', async () => {
    const record = { orgId: 'org-a', driver: 'upstream', enabled: true, url: 'http://127.0.0.1:9/mcp', headers: { authorization: 'Bearer x' }, updatedAt: AT };
    expect(await store.putIntegration(record)).toEqual(record);
    await store.putIntegration({ orgId: 'org-b', driver: 'kube', enabled: false, kubeconfig: 'apiVersion: v1\n', updatedAt: AT });
    const replaced = { orgId: 'org-a', driver: 'upstream', enabled: false, updatedAt: LATER };
    await store.putIntegration(replaced);
    expect(await store.listIntegrations({ orgId: 'org-a' })).toEqual([replaced]);
    expect((await store.listIntegrations()).map((i) => i.driver).sort()).toEqual(['kube', 'upstream']);
    await expect(store.putIntegration({ ...record, orgId: 'nope' })).rejects.toBeInstanceOf(MetaNotFoundError);
  });

  it('creates dashboards at version 1, refuses a taken id and an unknown org, and keeps orgs apart', async () => {
    const created = await store.createDashboard(dashboard('org-a', 'd1', 'One'), AT);
    expect(created).toMatchObject({ id: 'd1', orgId: 'org-a', name: 'One', version: 1, createdAt: AT, updatedAt: AT });
    expect(await store.getDashboard('org-a', 'd1')).toEqual(created);
    await expect(store.createDashboard(dashboard('org-a', 'd1', 'Again'), AT)).rejects.toBeInstanceOf(MetaConflictError);
    await expect(store.createDashboard(dashboard('nope', 'd1', 'One'), AT)).rejects.toBeInstanceOf(MetaNotFoundError);
    await store.createDashboard(dashboard('org-b', 'd1', 'B one'), AT);
    expect((await store.getDashboard('org-b', 'd1'))!.name).toBe('B one');
    expect((await store.listDashboards('org-a', { offset: 0, limit: 10 })).total).toBe(1);
  });

  it('replaces and deletes with the expected version checked atomically', async () => {
    await store.createDashboard(dashboard('org-a', 'd1', 'One'), AT);
    const spec = { duration: '7d', panels: {}, sections: [] };
    expect(await store.replaceDashboard('org-a', 'd1', { category: 'Custom', spec }, LATER, 1)).toMatchObject({ version: 2, name: 'One', createdAt: AT, updatedAt: LATER, spec });
    expect(await store.replaceDashboard('org-a', 'd1', { name: 'Renamed', category: 'Ops', spec }, LATER)).toMatchObject({ version: 3, name: 'Renamed', category: 'Ops' });
    const stale = store.replaceDashboard('org-a', 'd1', { category: 'Custom', spec: {} }, LATER, 2);
    await expect(stale).rejects.toBeInstanceOf(MetaVersionConflictError);
    await expect(stale).rejects.toMatchObject({ currentVersion: 3 });
    expect(await store.replaceDashboard('org-a', 'missing', { category: 'Custom', spec }, LATER, 1)).toBeUndefined();
    await expect(store.deleteDashboard('org-a', 'd1', 5)).rejects.toBeInstanceOf(MetaVersionConflictError);
    expect(await store.deleteDashboard('org-a', 'd1', 3)).toMatchObject({ id: 'd1', version: 3, spec });
    expect(await store.getDashboard('org-a', 'd1')).toBeUndefined();
    expect(await store.deleteDashboard('org-a', 'd1')).toBeUndefined();
  });

  it('lets exactly one of two replicas holding the same version win a replace', async () => {
    const other = await backend.replica();
    await store.createDashboard(dashboard('org-a', 'd1', 'One'), AT);
    const attempts = Array.from({ length: 8 }, (_, n) =>
      (n % 2 === 0 ? store : other).replaceDashboard('org-a', 'd1', { category: 'Custom', spec: { n } }, LATER, 1).then(
        () => 'ok',
        (err: unknown) => (err instanceof MetaVersionConflictError ? 'conflict' : `other: ${String(err)}`),
      ),
    );
    const outcomes = await Promise.all(attempts);
    expect(outcomes.filter((o) => o === 'ok')).toHaveLength(1);
    expect(outcomes.filter((o) => o === 'conflict')).toHaveLength(7);
    expect((await other.getDashboard('org-a', 'd1'))!.version).toBe(2);
  });

  it('lists dashboards sorted by name, filtered and paged with a total', async () => {
    const names = ['beta', 'Alpha', 'gamma 10', 'gamma 9', 'Delta'];
    for (const [n, name] of names.entries()) await store.createDashboard(dashboard('org-a', `d${n}`, name, n % 2 === 0 ? 'Services' : 'Custom'), AT);
    const all = await store.listDashboards('org-a', { offset: 0, limit: 10 });
    expect(all.items.map((d) => d.name)).toEqual(['Alpha', 'beta', 'Delta', 'gamma 9', 'gamma 10']);
    expect(all.items[0]).not.toHaveProperty('spec');
    const page = await store.listDashboards('org-a', { offset: 1, limit: 2 });
    expect(page.total).toBe(5);
    expect(page.items.map((d) => d.name)).toEqual(['beta', 'Delta']);
    expect((await store.listDashboards('org-a', { name: 'GAM', offset: 0, limit: 10 })).items.map((d) => d.name)).toEqual(['gamma 9', 'gamma 10']);
    expect((await store.listDashboards('org-a', { category: 'services', offset: 0, limit: 10 })).items.map((d) => d.name)).toEqual(['beta', 'Delta', 'gamma 10']);
  });

  it("tells listeners of another replica's org, key and integration changes within a second, but not of dashboard writes", async () => {
    const other = await backend.replica();
    let calls = 0;
    other.onChange(() => calls++);
    const changes: Array<() => Promise<unknown>> = [
      () => store.createOrg({ id: 'org-c', name: 'C', createdAt: AT }),
      () => store.insertApiKey(key('k1', 'org-a', 'ee'.repeat(32))),
      () => store.revokeApiKey('k1', LATER),
      () => store.updateOrgSettings('org-a', { maxSeries: 3 }),
      () => store.putIntegration({ orgId: 'org-a', driver: 'upstream', enabled: true, url: 'http://127.0.0.1:9/mcp', updatedAt: AT }),
    ];
    for (const change of changes) {
      const before = calls;
      await change();
      await waitFor(() => calls > before, 1000);
    }
    expect((await other.listApiKeys())[0].revokedAt).toBe(LATER);
    await new Promise((r) => setTimeout(r, 100));
    const settled = calls;
    await store.createDashboard(dashboard('org-a', 'd1', 'One'), AT);
    await store.replaceDashboard('org-a', 'd1', { category: 'Custom', spec: {} }, LATER, 1);
    await new Promise((r) => setTimeout(r, 300));
    expect(calls).toBe(settled);
  });
});
