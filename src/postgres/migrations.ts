import type pg from 'pg';

/**
 * The schema is built by numbered migrations, applied in order at start-up. Each runs once, in
 * its own transaction together with the row that records it, so a crash leaves it either done
 * or not started. Replicas starting together take a session advisory lock first: one applies
 * what is missing while the others wait, then find nothing left to do. A migration, once
 * released, is never edited; a change to the schema is a new migration.
 */
export interface Migration {
  version: number;
  name: string;
  sql: string;
}

/** MIGRATION_LOCK is the advisory lock key held while migrating ("sluice" in ASCII). */
export const MIGRATION_LOCK = 0x736c75696365;

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'metadata: orgs, settings, keys, integrations, dashboards',
    sql: `
      CREATE TABLE orgs (
        id text PRIMARY KEY,
        name text NOT NULL CONSTRAINT orgs_name_key UNIQUE,
        created_at timestamptz NOT NULL,
        -- ordinal keeps listings in creation order, as the embedded store lists them
        ordinal bigint GENERATED ALWAYS AS IDENTITY
      );
      -- One row per setting an org holds itself; a setting absent here follows the service default.
      CREATE TABLE org_settings (
        org_id text NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
        name text NOT NULL,
        value double precision NOT NULL,
        PRIMARY KEY (org_id, name)
      );
      CREATE TABLE api_keys (
        id text PRIMARY KEY,
        org_id text NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
        name text NOT NULL,
        hash text NOT NULL CONSTRAINT api_keys_hash_key UNIQUE,
        prefix text NOT NULL,
        created_at timestamptz NOT NULL,
        revoked_at timestamptz,
        ordinal bigint GENERATED ALWAYS AS IDENTITY
      );
      CREATE INDEX api_keys_org ON api_keys (org_id);
      CREATE TABLE integrations (
        org_id text NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
        driver text NOT NULL,
        enabled boolean NOT NULL,
        url text,
        headers json,
        kubeconfig text,
        updated_at timestamptz NOT NULL,
        ordinal bigint GENERATED ALWAYS AS IDENTITY,
        PRIMARY KEY (org_id, driver)
      );
      -- spec is json, not jsonb: the document is returned exactly as it was accepted, key order included.
      CREATE TABLE dashboards (
        org_id text NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
        id text NOT NULL,
        name text NOT NULL,
        category text NOT NULL,
        version integer NOT NULL,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        spec json NOT NULL,
        PRIMARY KEY (org_id, id)
      );
    `,
  },
  {
    version: 2,
    name: 'segment catalog',
    sql: `
      CREATE TABLE catalogs (
        name text PRIMARY KEY,
        version integer NOT NULL,
        wal_checkpoint bigint NOT NULL,
        next_segment_id bigint NOT NULL,
        metric_metadata json NOT NULL,
        updated_at timestamptz NOT NULL DEFAULT now()
      );
      -- One row per segment; org, signal and time bounds are columns so a planner can select by them.
      CREATE TABLE catalog_segments (
        catalog text NOT NULL REFERENCES catalogs (name) ON DELETE CASCADE,
        id bigint NOT NULL,
        position bigint NOT NULL,
        org text NOT NULL,
        signal text NOT NULL,
        min_ms bigint NOT NULL,
        max_ms bigint NOT NULL,
        meta json NOT NULL,
        PRIMARY KEY (catalog, id)
      );
      CREATE INDEX catalog_segments_range ON catalog_segments (catalog, org, signal, max_ms);
    `,
  },
  {
    version: 3,
    name: 'write log positions in the catalog, partition leases, live ingesters',
    sql: `
      ALTER TABLE catalogs ADD COLUMN log_identity text;
      -- How far the segments cover each write log partition; saved with the segments they describe.
      CREATE TABLE catalog_log_positions (
        catalog text NOT NULL REFERENCES catalogs (name) ON DELETE CASCADE,
        partition integer NOT NULL,
        position bigint NOT NULL,
        PRIMARY KEY (catalog, partition)
      );
      -- Which ingester owns each partition until when. owner_id changes only by a takeover of an
      -- expired lease or a release, so an owner that still finds its id here still owns it.
      CREATE TABLE partition_leases (
        catalog text NOT NULL,
        partition integer NOT NULL,
        owner_id text,
        base_url text,
        expires_at timestamptz NOT NULL DEFAULT '-infinity',
        PRIMARY KEY (catalog, partition)
      );
      -- Ingesters alive now (a heartbeat with an expiry), so each knows its fair share.
      CREATE TABLE ingesters (
        catalog text NOT NULL,
        owner_id text NOT NULL,
        base_url text NOT NULL,
        expires_at timestamptz NOT NULL,
        PRIMARY KEY (catalog, owner_id)
      );
    `,
  },
  {
    version: 4,
    name: 'live ingest processes',
    sql: `
      -- Ingest processes alive now (a heartbeat with an expiry): an org's ingestion rate is shared among them.
      CREATE TABLE ingest_processes (
        catalog text NOT NULL,
        owner_id text NOT NULL,
        expires_at timestamptz NOT NULL,
        PRIMARY KEY (catalog, owner_id)
      );
    `,
  },
];

/**
 * migrate applies the migrations `client`'s database lacks and returns the versions it
 * applied. `client` must be a dedicated connection: the advisory lock belongs to its session.
 */
export async function migrate(client: pg.ClientBase, migrations: readonly Migration[] = MIGRATIONS): Promise<number[]> {
  await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
  try {
    await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version integer PRIMARY KEY,
      name text NOT NULL,
      applied_at timestamptz NOT NULL DEFAULT now()
    )`);
    const done = new Set((await client.query<{ version: number }>('SELECT version FROM schema_migrations')).rows.map((r) => r.version));
    const applied: number[] = [];
    for (const migration of [...migrations].sort((a, b) => a.version - b.version)) {
      if (done.has(migration.version)) continue;
      await client.query('BEGIN');
      try {
        await client.query(migration.sql);
        await client.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [migration.version, migration.name]);
        await client.query('COMMIT');
      } catch (err) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw new Error(`PostgreSQL migration ${migration.version} (${migration.name}) failed: ${err instanceof Error ? err.message : String(err)}`);
      }
      applied.push(migration.version);
    }
    return applied;
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => undefined);
  }
}
