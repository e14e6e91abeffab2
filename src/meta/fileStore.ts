import { promises as fs, watch, type FSWatcher } from 'node:fs';
import path from 'node:path';
import { writeFileAtomic, withFileLock } from './atomicFile.js';
import { DashboardFiles } from './dashboardFiles.js';
import { MAX_RETENTION_DAYS, isRetentionDays } from './retentionDays.js';
import { applySettingsChange, checkSettingsChange } from './orgSettingsChange.js';
import type { OrgSettingsChange } from './orgSettings.js';
import {
  MetaConflictError,
  MetaNotFoundError,
  type ApiKeyRecord,
  type DashboardChange,
  type DashboardListQuery,
  type DashboardPage,
  type DashboardRecord,
  type IntegrationRecord,
  type MetaStore,
  type NewDashboard,
  type Org,
} from './types.js';

/** MetaDocument is the on-disk shape of the embedded store; `version` allows later migrations. */
interface MetaDocument {
  version: 1;
  orgs: Org[];
  apiKeys: ApiKeyRecord[];
  /** integrations was added after version 1 shipped; documents without it have none. */
  integrations?: IntegrationRecord[];
}

const EMPTY: MetaDocument = { version: 1, orgs: [], apiKeys: [] };

/**
 * FileMetaStore keeps orgs and keys in one JSON document under `<dataDir>/meta/`, and each
 * org's dashboards in its own file under `<dataDir>/meta/dashboards/`. Every change is a locked
 * read-modify-write with an atomic replace, so the CLI can manage keys while the server runs;
 * the server notices such changes through a directory watch and reloads.
 */
export class FileMetaStore implements MetaStore {
  private readonly dir: string;
  private readonly file: string;
  private readonly lockFile: string;
  private doc: MetaDocument = EMPTY;
  /** writes counts this process' own writes, so a reload that read the file before one is dropped. */
  private writes = 0;
  private readonly listeners = new Set<() => void>();
  private watcher: FSWatcher | undefined;
  private reloadTimer: NodeJS.Timeout | undefined;
  private readonly dashboards: DashboardFiles;

  private constructor(dataDir: string) {
    this.dir = path.join(dataDir, 'meta');
    this.file = path.join(this.dir, 'meta.json');
    this.lockFile = path.join(this.dir, 'meta.lock');
    this.dashboards = new DashboardFiles(path.join(this.dir, 'dashboards'));
  }

  /** open loads the store, creating its directory; `watchChanges` follows other processes' writes. */
  static async open(dataDir: string, options: { watchChanges?: boolean } = {}): Promise<FileMetaStore> {
    const store = new FileMetaStore(dataDir);
    await fs.mkdir(store.dir, { recursive: true, mode: 0o700 });
    await store.dashboards.open();
    store.doc = await store.read();
    if (options.watchChanges) store.startWatching();
    return store;
  }

  private async read(): Promise<MetaDocument> {
    let text: string;
    try {
      text = await fs.readFile(this.file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { version: 1, orgs: [], apiKeys: [] };
      throw err;
    }
    const parsed = JSON.parse(text) as MetaDocument;
    if (parsed.version !== 1) throw new Error(`${this.file}: unsupported metadata version ${String(parsed.version)}`);
    return parsed;
  }

  private startWatching(): void {
    this.watcher = watch(this.dir, (_event, name) => {
      if (name !== path.basename(this.file)) return;
      clearTimeout(this.reloadTimer);
      this.reloadTimer = setTimeout(() => void this.reload(), 20);
    });
    this.watcher.unref();
  }

  /**
   * reload takes in another process' write. A read that was under way while this process wrote
   * (the watch reports our own writes too) returns the older document; it is dropped, since
   * installing it would briefly undo the write (a key just created would be refused).
   */
  private async reload(): Promise<void> {
    const writesBefore = this.writes;
    try {
      const next = await this.read();
      if (writesBefore !== this.writes) return;
      if (JSON.stringify(next) === JSON.stringify(this.doc)) return;
      this.doc = next;
      this.emit();
    } catch {
      // A half-visible write cannot happen (writes are atomic renames); a read error here is
      // transient, and the next change event retries.
    }
  }

  private emit(): void {
    for (const listener of this.listeners) listener();
  }

  /** mutate applies `change` to the freshest document under the lock and persists the result. */
  private async mutate<T>(change: (doc: MetaDocument) => T): Promise<T> {
    const result = await withFileLock(this.lockFile, async () => {
      const doc = await this.read();
      const out = change(doc);
      await writeFileAtomic(this.file, JSON.stringify(doc, null, 2) + '\n');
      this.doc = doc;
      this.writes++;
      return out;
    });
    this.emit();
    return result;
  }

  async listOrgs(): Promise<Org[]> {
    return this.doc.orgs.map(copyOrg);
  }

  async getOrg(id: string): Promise<Org | undefined> {
    const org = this.doc.orgs.find((o) => o.id === id);
    return org && copyOrg(org);
  }

  async createOrg(org: Org): Promise<Org> {
    if (org.retentionDays !== undefined) checkRetentionDays(org.retentionDays);
    if (org.settings !== undefined) checkSettingsChange(org.settings);
    return this.mutate((doc) => {
      if (doc.orgs.some((o) => o.id === org.id)) throw new MetaConflictError(`org ${org.id} already exists`);
      if (doc.orgs.some((o) => o.name === org.name)) throw new MetaConflictError(`an org named "${org.name}" already exists`);
      doc.orgs.push(copyOrg(org));
      return copyOrg(org);
    });
  }

  async updateOrgSettings(id: string, change: OrgSettingsChange): Promise<Org | undefined> {
    checkSettingsChange(change);
    return this.mutate((doc) => {
      const org = doc.orgs.find((o) => o.id === id);
      if (!org) return undefined;
      applySettingsChange(org, change);
      return copyOrg(org);
    });
  }

  async listApiKeys(filter: { orgId?: string } = {}): Promise<ApiKeyRecord[]> {
    return this.doc.apiKeys.filter((k) => filter.orgId === undefined || k.orgId === filter.orgId).map((k) => ({ ...k }));
  }

  async insertApiKey(record: ApiKeyRecord): Promise<void> {
    await this.mutate((doc) => {
      if (!doc.orgs.some((o) => o.id === record.orgId)) throw new MetaNotFoundError(`org ${record.orgId} does not exist`);
      if (doc.apiKeys.some((k) => k.id === record.id || k.hash === record.hash)) {
        throw new MetaConflictError('an identical API key already exists');
      }
      doc.apiKeys.push({ ...record });
    });
  }

  async revokeApiKey(id: string, at: string): Promise<ApiKeyRecord | undefined> {
    return this.mutate((doc) => {
      const key = doc.apiKeys.find((k) => k.id === id);
      if (!key) return undefined;
      key.revokedAt ??= at;
      return { ...key };
    });
  }

  async listIntegrations(filter: { orgId?: string } = {}): Promise<IntegrationRecord[]> {
    return (this.doc.integrations ?? []).filter((i) => filter.orgId === undefined || i.orgId === filter.orgId).map(copyIntegration);
  }

  async putIntegration(record: IntegrationRecord): Promise<IntegrationRecord> {
    return this.mutate((doc) => {
      if (!doc.orgs.some((o) => o.id === record.orgId)) throw new MetaNotFoundError(`org ${record.orgId} does not exist`);
      const list = (doc.integrations ??= []);
      const at = list.findIndex((i) => i.orgId === record.orgId && i.driver === record.driver);
      if (at >= 0) list[at] = copyIntegration(record);
      else list.push(copyIntegration(record));
      return copyIntegration(record);
    });
  }

  async listDashboards(orgId: string, query: DashboardListQuery): Promise<DashboardPage> {
    return this.dashboards.list(orgId, query);
  }

  async getDashboard(orgId: string, id: string): Promise<DashboardRecord | undefined> {
    return this.dashboards.get(orgId, id);
  }

  async createDashboard(dashboard: NewDashboard, at: string): Promise<DashboardRecord> {
    // The cached document may predate an org the CLI just created; the file is the truth.
    const known = this.doc.orgs.some((o) => o.id === dashboard.orgId) || (await this.read()).orgs.some((o) => o.id === dashboard.orgId);
    if (!known) throw new MetaNotFoundError(`org ${dashboard.orgId} does not exist`);
    return this.dashboards.create(dashboard, at);
  }

  async replaceDashboard(
    orgId: string,
    id: string,
    change: DashboardChange,
    at: string,
    expectedVersion?: number,
  ): Promise<DashboardRecord | undefined> {
    return this.dashboards.replace(orgId, id, change, at, expectedVersion);
  }

  async deleteDashboard(orgId: string, id: string, expectedVersion?: number): Promise<DashboardRecord | undefined> {
    return this.dashboards.remove(orgId, id, expectedVersion);
  }

  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async close(): Promise<void> {
    clearTimeout(this.reloadTimer);
    this.watcher?.close();
    this.listeners.clear();
  }
}

/** checkRetentionDays keeps a value the server could not apply out of the document. */
function checkRetentionDays(days: number): void {
  if (!isRetentionDays(days)) throw new RangeError(`retention must be a whole number of days from 0 to ${MAX_RETENTION_DAYS}, got ${days}`);
}

function copyOrg(org: Org): Org {
  return org.settings === undefined ? { ...org } : { ...org, settings: { ...org.settings } };
}

function copyIntegration(record: IntegrationRecord): IntegrationRecord {
  return { ...record, headers: record.headers && { ...record.headers } };
}
