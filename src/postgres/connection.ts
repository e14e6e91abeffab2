import { readFile } from 'node:fs/promises';
import pg from 'pg';
import type { EventSink } from '../../engine/storage/storageEvent.js';
import { parseUrl } from './url.js';

/**
 * PostgresSettings are what a process needs to reach the PostgreSQL that holds its metadata
 * and catalog. Either a URL or the separate fields; a password file (a mounted Kubernetes
 * Secret) is read at every new connection, so a rotated secret is picked up without a restart.
 */
export interface PostgresSettings {
  url?: string;
  host?: string;
  port?: number;
  user?: string;
  password?: string;
  passwordFile?: string;
  database?: string;
  /** poolSize bounds the connections one process opens for queries (the change listener has its own). */
  poolSize: number;
  /** statementTimeoutMs makes the server cancel a statement that runs longer, so no request hangs on a lock. */
  statementTimeoutMs: number;
  /** connectTimeoutMs bounds connecting, so an unreachable server fails a request instead of stalling it. */
  connectTimeoutMs?: number;
}

const DEFAULT_CONNECT_TIMEOUT_MS = 5000;
const QUERY_TIMEOUT_MARGIN_MS = 2000;

/**
 * clientConfig turns the settings into the driver's connection options. The driver lets a
 * URL's own fields win over separate ones, so the URL is taken apart here: separate settings
 * then fill in what the URL leaves out, and the password file fills in a missing password.
 */
export function clientConfig(settings: PostgresSettings): pg.ClientConfig {
  const fromUrl = settings.url === undefined ? {} : parseUrl(settings.url);
  const config: pg.ClientConfig = {
    host: fromUrl.host ?? settings.host,
    port: fromUrl.port ?? settings.port,
    user: fromUrl.user ?? settings.user,
    database: fromUrl.database ?? settings.database,
    statement_timeout: settings.statementTimeoutMs,
    // The client gives up a little after the server would have: a statement on a connection
    // that silently died (a network partition) fails instead of waiting for TCP to notice.
    query_timeout: settings.statementTimeoutMs + QUERY_TIMEOUT_MARGIN_MS,
    connectionTimeoutMillis: settings.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
    keepAlive: true,
    application_name: 'sluice',
  };
  if (fromUrl.ssl !== undefined) config.ssl = fromUrl.ssl;
  const password = fromUrl.password ?? settings.password;
  if (password !== undefined) config.password = password;
  else if (settings.passwordFile !== undefined) {
    const file = settings.passwordFile;
    config.password = async () => (await readFile(file, 'utf8')).replace(/\r?\n$/, '');
  }
  return config;
}

/**
 * openPool creates the query pool. An idle connection the server drops (a restart, a failover)
 * makes the pool emit an error; it is reported, not thrown, and the pool opens a new
 * connection for the next query.
 */
export function openPool(settings: PostgresSettings, onEvent: EventSink): pg.Pool {
  const pool = new pg.Pool({ ...clientConfig(settings), max: settings.poolSize, idleTimeoutMillis: 30_000 });
  pool.on('error', (err) => onEvent({ level: 'warn', message: 'PostgreSQL dropped an idle connection', fields: { err: err.message } }));
  return pool;
}

/** inTransaction runs `work` in one transaction on one pooled connection, rolling back if it throws. */
export async function inTransaction<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    await client.query('BEGIN');
    const out = await work(client);
    await client.query('COMMIT');
    return out;
  } catch (err) {
    try {
      await client.query('ROLLBACK');
    } catch (rollbackErr) {
      // The connection is gone or unusable: it must not go back to the pool.
      broken = rollbackErr as Error;
    }
    throw err;
  } finally {
    client.release(broken);
  }
}

/** pgErrorCode returns the SQLSTATE of a server error, or undefined for anything else. */
export function pgErrorCode(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return err instanceof Error && typeof code === 'string' ? code : undefined;
}

/** pgConstraint returns the constraint a server error names, if any. */
export function pgConstraint(err: unknown): string | undefined {
  const c = (err as { constraint?: unknown } | null)?.constraint;
  return typeof c === 'string' ? c : undefined;
}

export const UNIQUE_VIOLATION = '23505';
export const FOREIGN_KEY_VIOLATION = '23503';

/**
 * isUnavailable tells a failure to reach or use the server (refused, dropped or timed-out
 * connections; a server shutting down or out of connections; a cancelled statement) from an
 * error in the request itself, which carries an SQLSTATE of another class.
 */
export function isUnavailable(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const code = (err as { code?: unknown }).code;
  // The driver's own connection failures carry no code, only words.
  if (code === undefined) return /connect|connection|terminated|timeout|not queryable/i.test(err.message);
  // A system error (ECONNREFUSED, ECONNRESET, ETIMEDOUT) has a code that is not an SQLSTATE.
  if (typeof code !== 'string' || !/^[0-9A-Z]{5}$/.test(code)) return true;
  return code.startsWith('08') || code.startsWith('53') || code.startsWith('57');
}
