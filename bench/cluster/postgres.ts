import { spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, readdirSync, statSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { freePort } from '../peers/processes.js';
import { spawnServer, stopServer, waitUntilServing, type ServerProcess } from './serverProcess.js';

/**
 * A real PostgreSQL (Debian's postgresql package) on loopback, in a cluster of its own under
 * a temporary directory: initdb, then the postgres server on a free TCP port, with its Unix
 * socket in the same directory. PostgreSQL refuses to run as root, so when the tests run as
 * root the cluster belongs to the `postgres` system user the package creates, and its
 * processes are started under that uid.
 *
 * Password authentication is on for TCP (scram-sha-256), so tests exercise the same login a
 * deployment does; the Unix socket trusts local users. `stop` and `start` take the server
 * down and bring it back on the same port with the same data, as an operator's restart does.
 */

const BIN_ROOT = '/usr/lib/postgresql';

/** postgresBinDir returns the newest installed server's bin directory, or undefined. */
export function postgresBinDir(): string | undefined {
  if (!existsSync(BIN_ROOT)) return undefined;
  const versions = readdirSync(BIN_ROOT)
    .filter((v) => existsSync(path.join(BIN_ROOT, v, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return versions.length === 0 ? undefined : path.join(BIN_ROOT, versions[0], 'bin');
}

/**
 * postgresAvailable tells whether the server binaries are installed. Without them a suite is
 * skipped with a message, except under CI=true, where .ci/run installs them and their absence
 * is a failure.
 */
export function postgresAvailable(suite: string): boolean {
  if (postgresBinDir() !== undefined) return true;
  const reason = `${suite} needs Debian's postgresql package (${BIN_ROOT}/*/bin/initdb); .ci/run installs it`;
  if (process.env.CI === 'true') throw new Error(`${reason}; with CI=true it is required`);
  console.warn(`skipped: ${reason}`);
  return false;
}

export interface TestPostgres {
  host: string;
  port: number;
  /** socketDir holds the server's Unix socket. */
  socketDir: string;
  user: string;
  password: string;
  /** url returns a password-authenticated TCP URL of `database`. */
  url(database: string): string;
  /** createDatabase creates a fresh, empty database and returns its name. */
  createDatabase(prefix?: string): Promise<string>;
  /** env returns the service settings that keep metadata (and, with `catalog`, the segment catalog) in `database`. */
  env(database: string, options?: { catalog?: boolean }): Record<string, string>;
  /** query runs one statement in `database` as the superuser. */
  query<R extends pg.QueryResultRow = pg.QueryResultRow>(database: string, sql: string, params?: unknown[]): Promise<pg.QueryResult<R>>;
  /** stop shuts the server down: `fast` as an orderly restart does, `immediate` like a crash. */
  stop(mode?: 'fast' | 'immediate'): Promise<void>;
  start(): Promise<void>;
  close(): Promise<void>;
}

const SUPERUSER = 'sluice';

/** runAs is the uid and gid the cluster's processes use: the postgres user under root, else ourselves. */
function runAs(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const found = spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' });
  const groups = spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' });
  if (found.status !== 0 || groups.status !== 0) throw new Error('running as root, and there is no postgres user to run PostgreSQL as (install the postgresql package)');
  return { uid: Number(found.stdout.trim()), gid: Number(groups.stdout.trim()) };
}

/**
 * openAncestors lets the cluster's user reach `dir` when it is not ours: each parent gets the
 * search bit for others (not read: names stay unlisted). Test temporary directories are
 * private to root by default.
 */
function openAncestors(dir: string): void {
  for (let at = path.dirname(dir); at !== path.dirname(at); at = path.dirname(at)) {
    const mode = statSync(at).mode;
    if ((mode & 0o001) === 0) chmodSync(at, (mode & 0o7777) | 0o001);
  }
}

export async function startTestPostgres(): Promise<TestPostgres> {
  const bin = postgresBinDir();
  if (bin === undefined) throw new Error(`PostgreSQL is not installed (${BIN_ROOT}/*/bin/initdb)`);
  const owner = runAs();
  const root = await mkdtemp(path.join(tmpdir(), 'sluice-pg-'));
  const dataDir = path.join(root, 'data');
  const socketDir = root;
  const password = 'sluice-test-' + Math.random().toString(36).slice(2);
  const pwFile = path.join(root, 'pwfile');
  await writeFile(pwFile, password + '\n', { mode: 0o600 });
  if (owner) {
    openAncestors(root);
    chownSync(root, owner.uid, owner.gid);
    chownSync(pwFile, owner.uid, owner.gid);
  }
  const spawnOptions = { ...(owner ?? {}), env: { ...process.env, LC_ALL: 'C.UTF-8', TZ: 'UTC' } };
  const init = spawnSync(
    path.join(bin, 'initdb'),
    ['-D', dataDir, '-U', SUPERUSER, `--pwfile=${pwFile}`, '--auth-local=trust', '--auth-host=scram-sha-256', '-E', 'UTF8', '--no-sync', '--locale=C.UTF-8'],
    { ...spawnOptions, encoding: 'utf8', timeout: 60_000 },
  );
  if (init.status !== 0) {
    await rm(root, { recursive: true, force: true });
    throw new Error(`initdb failed (${init.status}): ${init.stderr || init.stdout}`);
  }
  const port = await freePort();
  let server: ServerProcess | undefined;

  const admin = async <T>(database: string, work: (client: pg.Client) => Promise<T>): Promise<T> => {
    const client = new pg.Client({ host: '127.0.0.1', port, user: SUPERUSER, password, database });
    await client.connect();
    try {
      return await work(client);
    } finally {
      await client.end();
    }
  };

  const ready = async (): Promise<boolean> => {
    try {
      await admin('postgres', (c) => c.query('SELECT 1'));
      return true;
    } catch {
      return false;
    }
  };

  const start = async (): Promise<void> => {
    // Durability is not under test here; fsync off keeps eight engineers' disks quiet.
    const args = ['-D', dataDir, '-p', String(port), '-c', 'listen_addresses=127.0.0.1', '-c', `unix_socket_directories=${socketDir}`, '-c', 'fsync=off', '-c', 'max_connections=200', '-c', 'shared_buffers=16MB'];
    server = spawnServer(path.join(bin, 'postgres'), args, spawnOptions);
    await waitUntilServing(server, 'postgres', ready, 30_000, 50);
  };

  // SIGINT is PostgreSQL's fast shutdown (sessions are ended); SIGQUIT its immediate one.
  const stop = async (mode: 'fast' | 'immediate' = 'fast'): Promise<void> => {
    const stopping = server;
    server = undefined;
    await stopServer(stopping, mode === 'fast' ? 'SIGINT' : 'SIGQUIT', 20_000);
  };

  await start();
  let databases = 0;
  const url = (database: string) => `postgres://${SUPERUSER}:${encodeURIComponent(password)}@127.0.0.1:${port}/${database}`;
  return {
    host: '127.0.0.1',
    port,
    socketDir,
    user: SUPERUSER,
    password,
    url,
    async createDatabase(prefix = 'sluice') {
      const name = `${prefix}_${process.pid}_${++databases}`;
      await admin('postgres', (c) => c.query(`CREATE DATABASE ${name}`));
      return name;
    },
    env: (database, options = {}) => ({
      SVC_META_STORE: 'postgres',
      SVC_POSTGRES_URL: url(database),
      ...(options.catalog ? { SVC_CATALOG_STORE: 'postgres' } : {}),
    }),
    query: (database, sql, params) => admin(database, (c) => c.query(sql, params)),
    stop,
    start,
    async close() {
      await stop('immediate');
      await rm(root, { recursive: true, force: true });
    },
  };
}
