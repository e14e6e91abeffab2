import type { OrgSettingsChange, OrgSettings } from './orgSettings.js';

/**
 * The metadata store holds the small, precious records of an installation: orgs, API keys
 * and dashboards. It is an interface so a single laptop keeps them in files under
 * the data directory while a scaled-out deployment keeps them in PostgreSQL.
 */

export interface Org {
  id: string;
  name: string;
  createdAt: string;
  /**
   * retentionDays is how many days of this org's data are kept; 0 keeps them forever. Absent,
   * the service default (SVC_RETENTION_DAYS) applies, so changing that default reaches every
   * org that never chose its own.
   */
  retentionDays?: number;
  /**
   * settings are the org's own limits and per-signal retention (ORG_SETTINGS in
   * orgSettings.ts), name to value; a missing name follows the service default. Absent when
   * the org has none.
   */
  settings?: OrgSettings;
}

/** ApiKeyRecord is what is stored of a key: never the key itself, only its SHA-256. */
export interface ApiKeyRecord {
  id: string;
  orgId: string;
  name: string;
  /** hash is the hex SHA-256 of the full key. */
  hash: string;
  /** prefix is the first characters of the key, shown in listings so a person can tell keys apart. */
  prefix: string;
  createdAt: string;
  revokedAt?: string;
}

/**
 * DashboardRecord is a stored dashboard: the spec as accepted plus what the service adds. The
 * store treats the spec as opaque JSON; `category` is copied out of it at write time so
 * listings can filter without reading specs.
 */
export interface DashboardRecord {
  id: string;
  orgId: string;
  name: string;
  category: string;
  /** version starts at 1 and grows by one on every replace; it is the ETag of optimistic concurrency. */
  version: number;
  createdAt: string;
  updatedAt: string;
  spec: Record<string, unknown>;
}

/**
 * IntegrationRecord is one org's configuration of one tool gateway driver. Secrets (header
 * values, the kubeconfig) are stored here and never printed back by the CLI or logged.
 */
export interface IntegrationRecord {
  orgId: string;
  /** driver is the short lowercase name served at /api/orgs/{orgId}/integrations/{driver}/mcp. */
  driver: string;
  enabled: boolean;
  /** url is the upstream MCP server a forwarding driver calls. */
  url?: string;
  /** headers are injected into every upstream call (credentials); the caller never sees them. */
  headers?: Record<string, string>;
  /** kubeconfig is the kube driver's kubeconfig document (YAML), one context per cluster slug. */
  kubeconfig?: string;
  updatedAt: string;
}

/** DashboardSummary is a listing row: the record without its spec. */
export type DashboardSummary = Omit<DashboardRecord, 'spec'>;

/** NewDashboard is what create needs; the store sets version, createdAt and updatedAt. */
export interface NewDashboard {
  id: string;
  orgId: string;
  name: string;
  category: string;
  spec: Record<string, unknown>;
}

/** DashboardChange is what replace writes; the id, org and creation time stay. */
export interface DashboardChange {
  /** name undefined keeps the current name. */
  name?: string;
  category: string;
  spec: Record<string, unknown>;
}

/** DashboardListQuery filters and pages a listing, sorted by name (case-insensitive), then id. */
export interface DashboardListQuery {
  /** name keeps dashboards whose name contains it, ignoring case. */
  name?: string;
  /** category keeps dashboards in this category, ignoring case. */
  category?: string;
  offset: number;
  limit: number;
}

export interface DashboardPage {
  /** total counts every match, not only this page. */
  total: number;
  items: DashboardSummary[];
}

export class MetaConflictError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MetaConflictError';
  }
}

/** MetaVersionConflictError reports a write whose expected version is stale; it carries the current one. */
export class MetaVersionConflictError extends Error {
  constructor(readonly currentVersion: number) {
    super(`the stored version is ${currentVersion}`);
    this.name = 'MetaVersionConflictError';
  }
}

export class MetaNotFoundError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MetaNotFoundError';
  }
}

/**
 * MetaUnavailableError means the store could not be reached (a database restarting, a
 * connection lost, a statement timed out), not that the request was wrong: callers answer 503
 * and a retry may succeed.
 */
export class MetaUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MetaUnavailableError';
  }
}

export interface MetaStore {
  listOrgs(): Promise<Org[]>;
  getOrg(id: string): Promise<Org | undefined>;
  /** createOrg fails with MetaConflictError when the id or the name is taken. */
  createOrg(org: Org): Promise<Org>;
  /**
   * updateOrgSettings sets the org's own values of the named settings, or with null removes
   * them so the default applies; names not in the change stay. One atomic step: an invalid value
   * (RangeError) changes nothing. Returns the changed org; undefined when no such org exists.
   */
  updateOrgSettings(id: string, change: OrgSettingsChange): Promise<Org | undefined>;
  listApiKeys(filter?: { orgId?: string }): Promise<ApiKeyRecord[]>;
  /** insertApiKey fails with MetaNotFoundError for an unknown org, MetaConflictError for a duplicate. */
  insertApiKey(record: ApiKeyRecord): Promise<void>;
  /** revokeApiKey marks the key revoked and returns it; undefined when no such key exists. */
  revokeApiKey(id: string, at: string): Promise<ApiKeyRecord | undefined>;
  /** listIntegrations returns the stored integration records, of one org when `orgId` is given. */
  listIntegrations(filter?: { orgId?: string }): Promise<IntegrationRecord[]>;
  /**
   * putIntegration creates or replaces the record of (orgId, driver); MetaNotFoundError for an
   * unknown org.
   */
  putIntegration(record: IntegrationRecord): Promise<IntegrationRecord>;
  /** listDashboards pages through one org's dashboards. */
  listDashboards(orgId: string, query: DashboardListQuery): Promise<DashboardPage>;
  getDashboard(orgId: string, id: string): Promise<DashboardRecord | undefined>;
  /** createDashboard fails with MetaNotFoundError for an unknown org, MetaConflictError when the id is taken. */
  createDashboard(dashboard: NewDashboard, at: string): Promise<DashboardRecord>;
  /**
   * replaceDashboard writes a new version and returns it; undefined when no such dashboard
   * exists. With `expectedVersion`, a different stored version fails with MetaVersionConflictError
   * and nothing is written: the check and the write are one atomic step.
   */
  replaceDashboard(orgId: string, id: string, change: DashboardChange, at: string, expectedVersion?: number): Promise<DashboardRecord | undefined>;
  /** deleteDashboard removes and returns the dashboard; undefined when none exists. `expectedVersion` as for replace. */
  deleteDashboard(orgId: string, id: string, expectedVersion?: number): Promise<DashboardRecord | undefined>;
  /**
   * onChange registers a listener called after any change to orgs, keys or integrations, including changes
   * made by another process (the CLI beside a running server). Dashboard writes do not call
   * it: nothing caches them. Returns a function that unregisters it.
   */
  onChange(listener: () => void): () => void;
  close(): Promise<void>;
}
