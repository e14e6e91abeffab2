import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FileMetaStore } from '../../src/meta/fileStore.js';
import { MetaConflictError, MetaNotFoundError, MetaVersionConflictError, type NewDashboard } from '../../src/meta/types.js';

const AT = '2024-05-01T10:00:00.000Z';
const LATER = '2024-05-01T11:00:00.000Z';

function dashboard(orgId: string, id: string, name: string, category = 'Custom'): NewDashboard {
  return { id, orgId, name, category, spec: { duration: '1h', panels: {}, sections: [], category } };
}

describe('FileMetaStore dashboards', () => {
  let dataDir: string;
  let store: FileMetaStore;

  beforeEach(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'sluice-dash-store-'));
    store = await FileMetaStore.open(dataDir);
    await store.createOrg({ id: 'org-a', name: 'A', createdAt: AT });
    await store.createOrg({ id: 'org-b', name: 'B', createdAt: AT });
  });

  afterEach(async () => {
    await store.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('creates at version 1 and reads back an equal, independent copy', async () => {
    const created = await store.createDashboard(dashboard('org-a', 'd1', 'One'), AT);
    expect(created).toMatchObject({ id: 'd1', orgId: 'org-a', name: 'One', version: 1, createdAt: AT, updatedAt: AT });
    const read = await store.getDashboard('org-a', 'd1');
    expect(read).toEqual(created);
    (read!.spec as Record<string, unknown>).duration = 'changed';
    expect((await store.getDashboard('org-a', 'd1'))!.spec.duration).toBe('1h');
  });

  it('refuses a taken id and an unknown org', async () => {
    await store.createDashboard(dashboard('org-a', 'd1', 'One'), AT);
    await expect(store.createDashboard(dashboard('org-a', 'd1', 'Again'), AT)).rejects.toBeInstanceOf(MetaConflictError);
    await expect(store.createDashboard(dashboard('nope', 'd1', 'One'), AT)).rejects.toBeInstanceOf(MetaNotFoundError);
  });

  it('keeps orgs apart: the same id in two orgs, each seen only by its own', async () => {
    await store.createDashboard(dashboard('org-a', 'd1', 'A one'), AT);
    await store.createDashboard(dashboard('org-b', 'd1', 'B one'), AT);
    expect((await store.getDashboard('org-a', 'd1'))!.name).toBe('A one');
    expect((await store.getDashboard('org-b', 'd1'))!.name).toBe('B one');
    expect((await store.listDashboards('org-a', { offset: 0, limit: 10 })).total).toBe(1);
    expect(await readdir(path.join(dataDir, 'meta', 'dashboards'))).toEqual(expect.arrayContaining(['org-a.json', 'org-b.json']));
  });

  it('replaces with a new version, keeping the name unless given, and checks the expected version atomically', async () => {
    await store.createDashboard(dashboard('org-a', 'd1', 'One'), AT);
    const spec = { duration: '7d', panels: {}, sections: [] };
    const v2 = await store.replaceDashboard('org-a', 'd1', { category: 'Custom', spec }, LATER, 1);
    expect(v2).toMatchObject({ version: 2, name: 'One', createdAt: AT, updatedAt: LATER, spec });
    const v3 = await store.replaceDashboard('org-a', 'd1', { name: 'Renamed', category: 'Ops', spec }, LATER);
    expect(v3).toMatchObject({ version: 3, name: 'Renamed', category: 'Ops' });
    const stale = store.replaceDashboard('org-a', 'd1', { category: 'Custom', spec: {} }, LATER, 2);
    await expect(stale).rejects.toBeInstanceOf(MetaVersionConflictError);
    await expect(stale).rejects.toMatchObject({ currentVersion: 3 });
    expect((await store.getDashboard('org-a', 'd1'))!.version).toBe(3);
    expect(await store.replaceDashboard('org-a', 'missing', { category: 'Custom', spec }, LATER)).toBeUndefined();
  });

  it('serializes concurrent replaces: each expected version wins once', async () => {
    await store.createDashboard(dashboard('org-a', 'd1', 'One'), AT);
    const attempts = Array.from({ length: 6 }, (_, n) =>
      store.replaceDashboard('org-a', 'd1', { category: 'Custom', spec: { n } }, LATER, 1).then(
        () => 'ok',
        (err: unknown) => (err instanceof MetaVersionConflictError ? 'conflict' : 'other'),
      ),
    );
    const outcomes = await Promise.all(attempts);
    expect(outcomes.filter((o) => o === 'ok')).toHaveLength(1);
    expect(outcomes.filter((o) => o === 'conflict')).toHaveLength(5);
    expect((await store.getDashboard('org-a', 'd1'))!.version).toBe(2);
  });

  it('deletes, honouring the expected version', async () => {
    await store.createDashboard(dashboard('org-a', 'd1', 'One'), AT);
    await expect(store.deleteDashboard('org-a', 'd1', 5)).rejects.toBeInstanceOf(MetaVersionConflictError);
    expect((await store.deleteDashboard('org-a', 'd1', 1))!.id).toBe('d1');
    expect(await store.getDashboard('org-a', 'd1')).toBeUndefined();
    expect(await store.deleteDashboard('org-a', 'd1')).toBeUndefined();
  });

  it('lists sorted by name, filtered by name and category, and paged with a total', async () => {
    const names = ['beta', 'Alpha', 'gamma 10', 'gamma 9', 'Delta'];
    for (const [n, name] of names.entries()) {
      await store.createDashboard(dashboard('org-a', `d${n}`, name, n % 2 === 0 ? 'Services' : 'Custom'), AT);
    }
    const all = await store.listDashboards('org-a', { offset: 0, limit: 10 });
    expect(all.items.map((d) => d.name)).toEqual(['Alpha', 'beta', 'Delta', 'gamma 9', 'gamma 10']);
    expect(all.items[0]).not.toHaveProperty('spec');
    const page = await store.listDashboards('org-a', { offset: 1, limit: 2 });
    expect(page).toMatchObject({ total: 5 });
    expect(page.items.map((d) => d.name)).toEqual(['beta', 'Delta']);
    expect((await store.listDashboards('org-a', { name: 'GAM', offset: 0, limit: 10 })).items.map((d) => d.name)).toEqual(['gamma 9', 'gamma 10']);
    const services = await store.listDashboards('org-a', { category: 'services', offset: 0, limit: 10 });
    expect(services.items.map((d) => d.name)).toEqual(['beta', 'Delta', 'gamma 10']);
  });

  it('persists across reopening, and sees writes made through another store on the same directory', async () => {
    await store.createDashboard(dashboard('org-a', 'd1', 'One'), AT);
    const other = await FileMetaStore.open(dataDir);
    expect((await other.getDashboard('org-a', 'd1'))!.name).toBe('One');
    await other.replaceDashboard('org-a', 'd1', { name: 'Changed elsewhere', category: 'Custom', spec: {} }, LATER);
    expect((await store.getDashboard('org-a', 'd1'))!).toMatchObject({ name: 'Changed elsewhere', version: 2 });
    await other.close();
    const text = await readFile(path.join(dataDir, 'meta', 'dashboards', 'org-a.json'), 'utf8');
    expect(JSON.parse(text)).toMatchObject({ version: 1, orgId: 'org-a' });
  });

  it('keeps org ids that are not safe file names inside the dashboards directory', async () => {
    await store.createOrg({ id: '../escape', name: 'Odd', createdAt: AT });
    await store.createDashboard(dashboard('../escape', 'd1', 'One'), AT);
    const files = await readdir(path.join(dataDir, 'meta', 'dashboards'));
    expect(files.some((f) => f.startsWith('org-') && f.endsWith('.json'))).toBe(true);
    expect((await store.getDashboard('../escape', 'd1'))!.name).toBe('One');
    expect(await readdir(dataDir)).toEqual(['meta']);
  });

  it('does not signal key listeners on dashboard writes', async () => {
    let calls = 0;
    store.onChange(() => calls++);
    await store.createDashboard(dashboard('org-a', 'd1', 'One'), AT);
    expect(calls).toBe(0);
  });
});
