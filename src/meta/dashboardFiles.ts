import { promises as fs } from 'node:fs';
import path from 'node:path';
import { withFileLock, writeFileAtomic } from './atomicFile.js';
import { pageDashboards } from './dashboardOrder.js';
import {
  MetaConflictError,
  MetaVersionConflictError,
  type DashboardChange,
  type DashboardListQuery,
  type DashboardPage,
  type DashboardRecord,
  type DashboardSummary,
  type NewDashboard,
} from './types.js';

/** OrgDashboards is the on-disk shape of one org's dashboards; `version` allows later migrations. */
interface OrgDashboards {
  version: 1;
  orgId: string;
  dashboards: DashboardRecord[];
}

interface CachedFile {
  /** stamp identifies the file version read: inode, nanosecond mtime and size. */
  stamp: string;
  doc: OrgDashboards;
}

const SAFE_STEM = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;

/**
 * DashboardFiles keeps each org's dashboards in its own JSON file under `meta/dashboards/`,
 * so the main metadata document stays small and one org's writes never rewrite another's.
 * Writes are locked read-modify-write cycles with an atomic replace, like the main document;
 * reads reuse the parsed file until its inode, mtime or size changes, so a write by another
 * process is seen on the next request.
 */
export class DashboardFiles {
  private readonly cache = new Map<string, CachedFile>();

  constructor(private readonly dir: string) {}

  async open(): Promise<void> {
    await fs.mkdir(this.dir, { recursive: true, mode: 0o700 });
  }

  /** fileStem turns an org id into a file name that cannot escape the directory. */
  private fileStem(orgId: string): string {
    return SAFE_STEM.test(orgId) ? orgId : 'org-' + Buffer.from(orgId, 'utf8').toString('hex');
  }

  private fileOf(orgId: string): string {
    return path.join(this.dir, `${this.fileStem(orgId)}.json`);
  }

  private async read(orgId: string): Promise<OrgDashboards> {
    const file = this.fileOf(orgId);
    let stamp: string;
    try {
      const st = await fs.stat(file, { bigint: true });
      stamp = `${st.ino}:${st.mtimeNs}:${st.size}`;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { version: 1, orgId, dashboards: [] };
      throw err;
    }
    const cached = this.cache.get(orgId);
    if (cached && cached.stamp === stamp) return cached.doc;
    const doc = JSON.parse(await fs.readFile(file, 'utf8')) as OrgDashboards;
    if (doc.version !== 1) throw new Error(`${file}: unsupported dashboards version ${String(doc.version)}`);
    this.cache.set(orgId, { stamp, doc });
    return doc;
  }

  /**
   * mutate applies `change` to a private copy of the freshest file under the org's lock and
   * persists it. A change that returns undefined changed nothing, and nothing is written.
   */
  private async mutate<T>(orgId: string, change: (doc: OrgDashboards) => T): Promise<T> {
    const lock = path.join(this.dir, `${this.fileStem(orgId)}.lock`);
    return withFileLock(lock, async () => {
      const doc = structuredClone(await this.read(orgId));
      const out = change(doc);
      if (out === undefined) return out;
      await writeFileAtomic(this.fileOf(orgId), JSON.stringify(doc) + '\n');
      this.cache.delete(orgId);
      return out;
    });
  }

  async list(orgId: string, query: DashboardListQuery): Promise<DashboardPage> {
    const doc = await this.read(orgId);
    return pageDashboards(doc.dashboards.map(summarize), query);
  }

  async get(orgId: string, id: string): Promise<DashboardRecord | undefined> {
    const found = (await this.read(orgId)).dashboards.find((d) => d.id === id);
    return found && structuredClone(found);
  }

  async create(dashboard: NewDashboard, at: string): Promise<DashboardRecord> {
    return this.mutate(dashboard.orgId, (doc) => {
      if (doc.dashboards.some((d) => d.id === dashboard.id)) throw new MetaConflictError(`dashboard ${dashboard.id} already exists`);
      const record: DashboardRecord = { ...structuredClone(dashboard), version: 1, createdAt: at, updatedAt: at };
      doc.dashboards.push(record);
      return structuredClone(record);
    });
  }

  async replace(orgId: string, id: string, change: DashboardChange, at: string, expectedVersion?: number): Promise<DashboardRecord | undefined> {
    return this.mutate(orgId, (doc) => {
      const index = doc.dashboards.findIndex((d) => d.id === id);
      if (index < 0) return undefined;
      const current = doc.dashboards[index];
      if (expectedVersion !== undefined && current.version !== expectedVersion) throw new MetaVersionConflictError(current.version);
      const next: DashboardRecord = {
        ...current,
        name: change.name ?? current.name,
        category: change.category,
        spec: structuredClone(change.spec),
        version: current.version + 1,
        updatedAt: at,
      };
      doc.dashboards[index] = next;
      return structuredClone(next);
    });
  }

  async remove(orgId: string, id: string, expectedVersion?: number): Promise<DashboardRecord | undefined> {
    return this.mutate(orgId, (doc) => {
      const index = doc.dashboards.findIndex((d) => d.id === id);
      if (index < 0) return undefined;
      const current = doc.dashboards[index];
      if (expectedVersion !== undefined && current.version !== expectedVersion) throw new MetaVersionConflictError(current.version);
      doc.dashboards.splice(index, 1);
      return current;
    });
  }
}

function summarize(record: DashboardRecord): DashboardSummary {
  const { spec: _spec, ...summary } = record;
  return summary;
}
