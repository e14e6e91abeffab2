import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { pageDashboards } from '../meta/dashboardOrder.js';
import { checkSettingsChange } from '../meta/orgSettingsChange.js';
import { isOrgSettingName, type OrgSettings, type OrgSettingsChange } from '../meta/orgSettings.js';
import { MAX_RETENTION_DAYS, isRetentionDays } from '../meta/retentionDays.js';
import {
  MetaConflictError,
  MetaNotFoundError,
  MetaUnavailableError,
  MetaVersionConflictError,
  type ApiKeyRecord,
  type DashboardChange,
  type DashboardListQuery,
  type DashboardPage,
  type DashboardRecord,
  type DashboardSummary,
  type IntegrationRecord,
  type MetaStore,
  type NewDashboard,
  type Org,
} from '../meta/types.js';
import { ChangeFeed } from './changeFeed.js';
import { FOREIGN_KEY_VIOLATION, UNIQUE_VIOLATION, inTransaction, isUnavailable, pgConstraint, pgErrorCode } from './connection.js';
import type { PostgresDatabase } from './database.js';

/** META_CHANNEL is the NOTIFY channel every change to orgs, keys and integrations is announced on. */
export const META_CHANNEL = 'sluice_meta';

/** LISTENER_NAME is the application_name of listening connections, which tells them apart in pg_stat_activity. */
export const LISTENER_NAME = 'sluice-listener';

/**
 * PostgresMetaStore keeps the metadata in PostgreSQL so any number of replicas share it. Reads
 * go to the database every time (the callers that need speed, the key index and the org
 * settings view, cache and rebuild on change); every write is one transaction that also sends
 * a NOTIFY, delivered to every listening replica when it commits. Dashboard versions are
 * checked and bumped in the same UPDATE, so If-Match holds across replicas without locks held
 * between requests.
 */
export class PostgresMetaStore implements MetaStore {
  private readonly listeners = new Set<() => void>();
  /** origin tags this store's own notifications, which it has already reported locally. */
  private readonly origin = randomUUID();
  private feed: ChangeFeed | undefined;

  private constructor(private readonly db: PostgresDatabase) {}

  /**
   * open returns a store over `db`; `watchChanges` follows other processes' writes through
   * LISTEN (a server does; a one-shot CLI command need not).
   */
  static async open(db: PostgresDatabase, options: { watchChanges?: boolean } = {}): Promise<PostgresMetaStore> {
    const store = new PostgresMetaStore(db);
    if (options.watchChanges) {
      store.feed = await ChangeFeed.start({
        channel: META_CHANNEL,
        newClient: () => db.newClient(LISTENER_NAME),
        onNotify: (payload) => {
          if (payload !== store.origin) store.emit();
        },
        onResync: () => store.emit(),
        onEvent: db.onEvent,
      });
    }
    return store;
  }

  /** query runs one statement on the pool; a failure to reach the database becomes MetaUnavailableError. */
  private query<R extends pg.QueryResultRow>(sql: string, params?: unknown[]): Promise<pg.QueryResult<R>> {
    return this.db.pool.query<R>(sql, params).catch((err: unknown) => {
      throw unavailable(err);
    });
  }

  private emit(): void {
    for (const listener of this.listeners) {
      try {
        listener();
      } catch (err) {
        this.db.onEvent({ level: 'warn', message: 'a metadata change listener failed', fields: { err: err instanceof Error ? err.message : String(err) } });
      }
    }
  }

  /** change runs a write and its NOTIFY in one transaction, then tells local listeners. */
  private async change<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    const out = await inTransaction(this.db.pool, async (client) => {
      const result = await work(client);
      await client.query('SELECT pg_notify($1, $2)', [META_CHANNEL, this.origin]);
      return result;
    }).catch((err: unknown) => {
      throw unavailable(err);
    });
    this.emit();
    return out;
  }

  async listOrgs(): Promise<Org[]> {
    const { rows } = await this.query<OrgRow>(`${ORG_SELECT} ORDER BY o.ordinal`);
    return rows.map(orgOf);
  }

  async getOrg(id: string): Promise<Org | undefined> {
    const { rows } = await this.query<OrgRow>(`${ORG_SELECT} WHERE o.id = $1`, [id]);
    return rows[0] && orgOf(rows[0]);
  }

  async createOrg(org: Org): Promise<Org> {
    if (org.retentionDays !== undefined && !isRetentionDays(org.retentionDays)) {
      throw new RangeError(`retention must be a whole number of days from 0 to ${MAX_RETENTION_DAYS}, got ${org.retentionDays}`);
    }
    if (org.settings !== undefined) checkSettingsChange(org.settings);
    const settings: OrgSettings = { ...org.settings };
    if (org.retentionDays !== undefined) settings.retentionDays = org.retentionDays;
    try {
      await this.change(async (client) => {
        await client.query('INSERT INTO orgs (id, name, created_at) VALUES ($1, $2, $3)', [org.id, org.name, org.createdAt]);
        await writeSettings(client, org.id, settings);
      });
    } catch (err) {
      if (pgErrorCode(err) === UNIQUE_VIOLATION) {
        throw new MetaConflictError(pgConstraint(err) === 'orgs_name_key' ? `an org named "${org.name}" already exists` : `org ${org.id} already exists`);
      }
      throw err;
    }
    return copyOrg(org);
  }

  async updateOrgSettings(id: string, change: OrgSettingsChange): Promise<Org | undefined> {
    checkSettingsChange(change);
    const found = await this.change(async (client) => {
      // The row lock orders concurrent changes to one org; other orgs are not held up.
      const { rowCount } = await client.query('SELECT 1 FROM orgs WHERE id = $1 FOR UPDATE', [id]);
      if (rowCount === 0) return false;
      const set: OrgSettings = {};
      const removed: string[] = [];
      for (const [name, value] of Object.entries(change)) {
        if (!isOrgSettingName(name) || value === undefined) continue;
        if (value === null) removed.push(name);
        else set[name] = value;
      }
      if (removed.length > 0) await client.query('DELETE FROM org_settings WHERE org_id = $1 AND name = ANY($2::text[])', [id, removed]);
      await writeSettings(client, id, set);
      return true;
    });
    return found ? this.getOrg(id) : undefined;
  }

  async listApiKeys(filter: { orgId?: string } = {}): Promise<ApiKeyRecord[]> {
    const { rows } = await this.query<KeyRow>(
      `SELECT id, org_id, name, hash, prefix, created_at, revoked_at FROM api_keys WHERE $1::text IS NULL OR org_id = $1 ORDER BY ordinal`,
      [filter.orgId ?? null],
    );
    return rows.map(keyOf);
  }

  async insertApiKey(record: ApiKeyRecord): Promise<void> {
    try {
      await this.change((client) =>
        client.query('INSERT INTO api_keys (id, org_id, name, hash, prefix, created_at, revoked_at) VALUES ($1, $2, $3, $4, $5, $6, $7)', [
          record.id,
          record.orgId,
          record.name,
          record.hash,
          record.prefix,
          record.createdAt,
          record.revokedAt ?? null,
        ]),
      );
    } catch (err) {
      const code = pgErrorCode(err);
      if (code === FOREIGN_KEY_VIOLATION) throw new MetaNotFoundError(`org ${record.orgId} does not exist`);
      if (code === UNIQUE_VIOLATION) throw new MetaConflictError('an identical API key already exists');
      throw err;
    }
  }

  async revokeApiKey(id: string, at: string): Promise<ApiKeyRecord | undefined> {
    const rows = await this.change(async (client) => {
      const result = await client.query<KeyRow>(
        `UPDATE api_keys SET revoked_at = coalesce(revoked_at, $2) WHERE id = $1 RETURNING id, org_id, name, hash, prefix, created_at, revoked_at`,
        [id, at],
      );
      return result.rows;
    });
    return rows[0] && keyOf(rows[0]);
  }

  async listIntegrations(filter: { orgId?: string } = {}): Promise<IntegrationRecord[]> {
    const { rows } = await this.query<IntegrationRow>(
      `SELECT org_id, driver, enabled, url, headers, kubeconfig, updated_at FROM integrations WHERE $1::text IS NULL OR org_id = $1 ORDER BY ordinal`,
      [filter.orgId ?? null],
    );
    return rows.map(integrationOf);
  }

  async putIntegration(record: IntegrationRecord): Promise<IntegrationRecord> {
    try {
      await this.change((client) =>
        client.query(
          `INSERT INTO integrations (org_id, driver, enabled, url, headers, kubeconfig, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7)
           ON CONFLICT (org_id, driver) DO UPDATE SET enabled = EXCLUDED.enabled, url = EXCLUDED.url, headers = EXCLUDED.headers,
             kubeconfig = EXCLUDED.kubeconfig, updated_at = EXCLUDED.updated_at`,
          [
            record.orgId,
            record.driver,
            record.enabled,
            record.url ?? null,
            record.headers === undefined ? null : JSON.stringify(record.headers),
            record.kubeconfig ?? null,
            record.updatedAt,
          ],
        ),
      );
    } catch (err) {
      if (pgErrorCode(err) === FOREIGN_KEY_VIOLATION) throw new MetaNotFoundError(`org ${record.orgId} does not exist`);
      throw err;
    }
    return { ...record, headers: record.headers && { ...record.headers } };
  }

  async listDashboards(orgId: string, query: DashboardListQuery): Promise<DashboardPage> {
    // An org's listing rows are small and few; ordering them here keeps the order identical to
    // the embedded store's (a numeric-aware, case-blind collation a database may lack).
    const { rows } = await this.query<DashboardRow>(`SELECT ${SUMMARY_COLUMNS} FROM dashboards WHERE org_id = $1`, [orgId]);
    return pageDashboards(rows.map(summaryOf), query);
  }

  async getDashboard(orgId: string, id: string): Promise<DashboardRecord | undefined> {
    const { rows } = await this.query<DashboardRow>(`SELECT ${SUMMARY_COLUMNS}, spec FROM dashboards WHERE org_id = $1 AND id = $2`, [orgId, id]);
    return rows[0] && dashboardOf(rows[0]);
  }

  async createDashboard(dashboard: NewDashboard, at: string): Promise<DashboardRecord> {
    try {
      const { rows } = await this.query<DashboardRow>(
        `INSERT INTO dashboards (org_id, id, name, category, version, created_at, updated_at, spec) VALUES ($1, $2, $3, $4, 1, $5, $5, $6)
         RETURNING ${SUMMARY_COLUMNS}`,
        [dashboard.orgId, dashboard.id, dashboard.name, dashboard.category, at, JSON.stringify(dashboard.spec)],
      );
      return { ...summaryOf(rows[0]), spec: structuredClone(dashboard.spec) };
    } catch (err) {
      const code = pgErrorCode(err);
      if (code === FOREIGN_KEY_VIOLATION) throw new MetaNotFoundError(`org ${dashboard.orgId} does not exist`);
      if (code === UNIQUE_VIOLATION) throw new MetaConflictError(`dashboard ${dashboard.id} already exists`);
      throw err;
    }
  }

  async replaceDashboard(orgId: string, id: string, change: DashboardChange, at: string, expectedVersion?: number): Promise<DashboardRecord | undefined> {
    // The version test and the write are one UPDATE: of two replicas holding the same ETag,
    // the row lock lets one through and the other finds the version already moved.
    const write = () =>
      this.query<DashboardRow>(
        `UPDATE dashboards SET name = coalesce($3, name), category = $4, spec = $5, version = version + 1, updated_at = $6
         WHERE org_id = $1 AND id = $2 AND ($7::integer IS NULL OR version = $7) RETURNING ${SUMMARY_COLUMNS}`,
        [orgId, id, change.name ?? null, change.category, JSON.stringify(change.spec), at, expectedVersion ?? null],
      );
    const row = await this.versioned(orgId, id, expectedVersion, write);
    return row && { ...summaryOf(row), spec: structuredClone(change.spec) };
  }

  async deleteDashboard(orgId: string, id: string, expectedVersion?: number): Promise<DashboardRecord | undefined> {
    const write = () =>
      this.query<DashboardRow>(
        `DELETE FROM dashboards WHERE org_id = $1 AND id = $2 AND ($3::integer IS NULL OR version = $3) RETURNING ${SUMMARY_COLUMNS}, spec`,
        [orgId, id, expectedVersion ?? null],
      );
    const row = await this.versioned(orgId, id, expectedVersion, write);
    return row && dashboardOf(row);
  }

  /**
   * versioned runs a conditional write and tells apart why it touched nothing: no such
   * dashboard (undefined) or another version (MetaVersionConflictError). Should the row have
   * been deleted and created again at the expected version in between, the write is retried.
   */
  private async versioned(orgId: string, id: string, expectedVersion: number | undefined, write: () => Promise<pg.QueryResult<DashboardRow>>): Promise<DashboardRow | undefined> {
    for (let attempt = 0; ; attempt++) {
      const { rows } = await write();
      if (rows.length > 0) return rows[0];
      if (expectedVersion === undefined) return undefined;
      const current = await this.query<{ version: number }>('SELECT version FROM dashboards WHERE org_id = $1 AND id = $2', [orgId, id]);
      if (current.rows.length === 0) return undefined;
      const version = current.rows[0].version;
      if (version !== expectedVersion || attempt >= 2) throw new MetaVersionConflictError(version);
    }
  }

  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** close stops listening; the database handle is its opener's to close. */
  async close(): Promise<void> {
    this.listeners.clear();
    await this.feed?.close();
  }
}

const ORG_SELECT = `SELECT o.id, o.name, o.created_at,
  (SELECT json_object_agg(s.name, s.value) FROM org_settings s WHERE s.org_id = o.id) AS settings
  FROM orgs o`;

const SUMMARY_COLUMNS = 'org_id, id, name, category, version, created_at, updated_at';

interface OrgRow {
  id: string;
  name: string;
  created_at: Date;
  settings: Record<string, number> | null;
}

interface KeyRow {
  id: string;
  org_id: string;
  name: string;
  hash: string;
  prefix: string;
  created_at: Date;
  revoked_at: Date | null;
}

interface IntegrationRow {
  org_id: string;
  driver: string;
  enabled: boolean;
  url: string | null;
  headers: Record<string, string> | null;
  kubeconfig: string | null;
  updated_at: Date;
}

interface DashboardRow {
  org_id: string;
  id: string;
  name: string;
  category: string;
  version: number;
  created_at: Date;
  updated_at: Date;
  spec?: Record<string, unknown>;
}

/** writeSettings upserts an org's own setting values as rows of (org, name, value). */
async function writeSettings(client: pg.PoolClient, orgId: string, settings: OrgSettings): Promise<void> {
  const entries = Object.entries(settings).filter(([, v]) => v !== undefined);
  if (entries.length === 0) return;
  await client.query(
    `INSERT INTO org_settings (org_id, name, value) SELECT $1, n, v FROM unnest($2::text[], $3::float8[]) AS t(n, v)
     ON CONFLICT (org_id, name) DO UPDATE SET value = EXCLUDED.value`,
    [orgId, entries.map(([n]) => n), entries.map(([, v]) => v)],
  );
}

/**
 * orgOf rebuilds the record the rest of the service knows: the single retention, which
 * predates the settings map, stays a field of its own; the other rows form `settings`.
 */
function orgOf(row: OrgRow): Org {
  const org: Org = { id: row.id, name: row.name, createdAt: row.created_at.toISOString() };
  const settings: OrgSettings = {};
  for (const [name, value] of Object.entries(row.settings ?? {})) {
    if (name === 'retentionDays') org.retentionDays = value;
    else if (isOrgSettingName(name)) settings[name] = value;
  }
  if (Object.keys(settings).length > 0) org.settings = settings;
  return org;
}

function keyOf(row: KeyRow): ApiKeyRecord {
  const key: ApiKeyRecord = { id: row.id, orgId: row.org_id, name: row.name, hash: row.hash, prefix: row.prefix, createdAt: row.created_at.toISOString() };
  if (row.revoked_at !== null) key.revokedAt = row.revoked_at.toISOString();
  return key;
}

function integrationOf(row: IntegrationRow): IntegrationRecord {
  const record: IntegrationRecord = { orgId: row.org_id, driver: row.driver, enabled: row.enabled, updatedAt: row.updated_at.toISOString() };
  if (row.url !== null) record.url = row.url;
  if (row.headers !== null) record.headers = row.headers;
  if (row.kubeconfig !== null) record.kubeconfig = row.kubeconfig;
  return record;
}

function summaryOf(row: DashboardRow): DashboardSummary {
  return {
    id: row.id,
    orgId: row.org_id,
    name: row.name,
    category: row.category,
    version: row.version,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

function dashboardOf(row: DashboardRow): DashboardRecord {
  return { ...summaryOf(row), spec: row.spec ?? {} };
}

/** unavailable turns a failure to reach the database into MetaUnavailableError, keeping other errors as they are. */
function unavailable(err: unknown): unknown {
  return isUnavailable(err) ? new MetaUnavailableError(`PostgreSQL is unavailable: ${(err as Error).message}`) : err;
}

function copyOrg(org: Org): Org {
  return org.settings === undefined ? { ...org } : { ...org, settings: { ...org.settings } };
}
