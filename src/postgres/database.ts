import pg from 'pg';
import type { EventSink } from '../../engine/storage/storageEvent.js';
import { StartupError } from '../startupError.js';
import { clientConfig, openPool, type PostgresSettings } from './connection.js';
import { migrate } from './migrations.js';

/**
 * PostgresDatabase is one process's handle on the PostgreSQL that holds metadata and the
 * segment catalog: a bounded pool for queries, and the settings to open the dedicated
 * connections a change listener needs. Opening it brings the schema up to date.
 */
export class PostgresDatabase {
  private constructor(
    readonly pool: pg.Pool,
    readonly settings: PostgresSettings,
    readonly onEvent: EventSink,
  ) {}

  static async open(settings: PostgresSettings, onEvent: EventSink = () => {}): Promise<PostgresDatabase> {
    const pool = openPool(settings, onEvent);
    try {
      // Migrating uses a connection without the statement timeouts: a migration over a large
      // table, or waiting for the lock while another replica runs one, may take longer.
      const client = new pg.Client({ ...clientConfig(settings), statement_timeout: false, query_timeout: undefined });
      await client.connect();
      try {
        const applied = await migrate(client);
        if (applied.length > 0) onEvent({ level: 'info', message: 'PostgreSQL schema migrated', fields: { applied } });
      } finally {
        await client.end().catch(() => undefined);
      }
    } catch (err) {
      await pool.end().catch(() => undefined);
      // The operator fixes this outside Sluice (address, credentials, a database not up yet): the
      // message names where the connection went, never the password.
      throw new StartupError(`cannot open the PostgreSQL database ${describeTarget(settings)}: ${err instanceof Error ? err.message : String(err)}`);
    }
    return new PostgresDatabase(pool, settings, onEvent);
  }

  /** newClient returns an unconnected client outside the pool, for a session that must stay put (LISTEN). */
  newClient(applicationName = 'sluice'): pg.Client {
    return new pg.Client({ ...clientConfig(this.settings), application_name: applicationName });
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}

/** describeTarget names the server and database a connection goes to, for messages. */
function describeTarget(settings: PostgresSettings): string {
  const c = clientConfig(settings);
  return `${c.database ?? '(default database)'} at ${c.host ?? 'localhost'}:${c.port ?? 5432} as ${c.user ?? '(OS user)'}`;
}
