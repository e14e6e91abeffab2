/**
 * The metadata store holds the small, precious records of an installation: orgs and API
 * keys now, dashboards later. It is an interface so a single laptop keeps them in files under
 * the data directory while a scaled-out deployment keeps them in PostgreSQL.
 */

export interface Org {
  id: string;
  name: string;
  createdAt: string;
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

export class MetaConflictError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MetaConflictError';
  }
}

export class MetaNotFoundError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MetaNotFoundError';
  }
}

export interface MetaStore {
  listOrgs(): Promise<Org[]>;
  getOrg(id: string): Promise<Org | undefined>;
  /** createOrg fails with MetaConflictError when the id or the name is taken. */
  createOrg(org: Org): Promise<Org>;
  listApiKeys(filter?: { orgId?: string }): Promise<ApiKeyRecord[]>;
  /** insertApiKey fails with MetaNotFoundError for an unknown org, MetaConflictError for a duplicate. */
  insertApiKey(record: ApiKeyRecord): Promise<void>;
  /** revokeApiKey marks the key revoked and returns it; undefined when no such key exists. */
  revokeApiKey(id: string, at: string): Promise<ApiKeyRecord | undefined>;
  /**
   * onChange registers a listener called after any change, including changes made by another
   * process (the CLI beside a running server). Returns a function that unregisters it.
   */
  onChange(listener: () => void): () => void;
  close(): Promise<void>;
}
