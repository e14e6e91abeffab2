import pg from 'pg';
import type { EventSink } from '../../engine/storage/storageEvent.js';
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
      const client = await pool.connect();
      try {
        const applied = await migrate(client);
        if (applied.length > 0) onEvent({ level: 'info', message: 'PostgreSQL schema migrated', fields: { applied } });
      } finally {
        client.release();
      }
    } catch (err) {
      await pool.end().catch(() => undefined);
      throw err;
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
