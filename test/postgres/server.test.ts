import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/child.js';
import { postgresAvailable, startTestPostgres, type TestPostgres } from '../support/postgres.js';
import { startTestServer, waitFor, type TestServer } from '../support/server.js';
import { storedLines } from '../support/ingest.js';
import { minimalSpec } from '../dashboards/fixtures.js';

/**
 * Two real servers over one PostgreSQL, as two replicas of a scaled-out deployment: each has
 * its own data directory and catalog, and they share every org, key and dashboard. One reaches
 * the database by URL, the other by separate settings with the password in a file (a mounted
 * Secret). The CLI manages the same database.
 */

const withPostgres = postgresAvailable('the PostgreSQL server tests');

describe.skipIf(!withPostgres)('servers with SVC_META_STORE=postgres', () => {
  let pg: TestPostgres;
  let database: string;
  let secrets: string;
  let a: TestServer;
  let b: TestServer;
  let cliEnv: Record<string, string>;

  beforeAll(async () => {
    pg = await startTestPostgres();
    database = await pg.createDatabase('server');
    secrets = await mkdtemp(path.join(tmpdir(), 'sluice-pg-secret-'));
    const passwordFile = path.join(secrets, 'password');
    await writeFile(passwordFile, pg.password + '\n', { mode: 0o600 });
    const common = { SVC_QUERY_WORKERS: '1', SVC_CATALOG_STORE: 'postgres' };
    // Started together on an empty database: both migrate and bootstrap at once.
    [a, b] = await Promise.all([
      startTestServer({ ...common, ...pg.env(database), SVC_CATALOG_NAME: 'replica-a' }),
      startTestServer({
        ...common,
        SVC_META_STORE: 'postgres',
        SVC_POSTGRES_HOST: pg.host,
        SVC_POSTGRES_PORT: String(pg.port),
        SVC_POSTGRES_USER: pg.user,
        SVC_POSTGRES_PASSWORD_FILE: passwordFile,
        SVC_POSTGRES_DATABASE: database,
        SVC_CATALOG_NAME: 'replica-b',
      }),
    ]);
    cliEnv = pg.env(database);
  }, 120_000);
  afterAll(async () => {
    await a?.stop();
    await b?.stop();
    await pg?.close();
    if (secrets) await rm(secrets, { recursive: true, force: true });
  });

  async function call(srv: TestServer, method: string, url: string, options: { key?: string; body?: unknown; headers?: Record<string, string> } = {}): Promise<{ status: number; body: Record<string, unknown>; etag: string | null }> {
    const headers: Record<string, string> = { 'x-svc-api-key': options.key ?? a.key, ...options.headers };
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(`${srv.url}${url}`, { method, headers, body: options.body === undefined ? undefined : JSON.stringify(options.body) });
    const text = await res.text();
    return { status: res.status, body: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>), etag: res.headers.get('etag') };
  }

  it('bootstraps one default org between replicas that start together', async () => {
    const res = runCli(['orgs', 'list', '--json'], cliEnv);
    expect(res.stderr).toBe('');
    expect(res.status).toBe(0);
    const orgs = JSON.parse(res.stdout) as Array<{ id: string; name: string }>;
    expect(orgs.filter((o) => o.name === 'default')).toHaveLength(1);
    expect(orgs.map((o) => o.id)).toEqual(expect.arrayContaining([a.orgId, b.orgId]));
    expect(a.announced.length + b.announced.length).toBe(1);
  });

  it('accepts a key made on one replica at the other, and serves one set of dashboards', async () => {
    const base = `/api/orgs/${a.orgId}/dashboards`;
    const created = await call(a, 'POST', `${base}?name=Shared&id=shared`, { body: minimalSpec() });
    expect(created.status).toBe(201);
    const read = await call(b, 'GET', `${base}/shared`);
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ id: 'shared', name: 'Shared', version: 1 });
    const list = await call(b, 'GET', base);
    expect(list.body).toMatchObject({ total: 1 });
  });

  it('holds If-Match across replicas: of two writers with the same ETag, one gets 412', async () => {
    const base = `/api/orgs/${a.orgId}/dashboards`;
    expect((await call(a, 'POST', `${base}?name=Race&id=race`, { body: minimalSpec() })).status).toBe(201);
    const [first, second] = await Promise.all([
      call(a, 'PUT', `${base}/race`, { body: { ...minimalSpec(), duration: '2h' }, headers: { 'if-match': '"1"' } }),
      call(b, 'PUT', `${base}/race`, { body: { ...minimalSpec(), duration: '3h' }, headers: { 'if-match': '"1"' } }),
    ]);
    expect([first.status, second.status].sort()).toEqual([200, 412]);
    const loser = first.status === 412 ? first : second;
    expect(loser.body).toMatchObject({ status: 412, details: { currentVersion: 2 } });
    expect((await call(b, 'GET', `${base}/race`)).body).toMatchObject({ version: 2 });
  });

  it('revokes a key with the CLI and both replicas refuse it within a second', async () => {
    const created = runCli(['keys', 'create', '--org', a.orgId, '--name', 'short-lived', '--json'], cliEnv);
    expect(created.status).toBe(0);
    const { key, id } = JSON.parse(created.stdout) as { key: string; id: string };
    const ping = (srv: TestServer) => call(srv, 'GET', '/api/v1/ping', { key }).then((r) => r.status);
    await waitFor(async () => (await ping(a)) === 200 && (await ping(b)) === 200, 1000);
    const revoked = runCli(['keys', 'revoke', id], cliEnv);
    expect(revoked.status).toBe(0);
    const started = Date.now();
    await waitFor(async () => (await ping(a)) === 401 && (await ping(b)) === 401, 1000);
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('applies an org limit changed with the CLI on both replicas within a second', async () => {
    const set = runCli(['orgs', 'set', b.orgId, '--max-streams', '1', '--json'], cliEnv);
    expect(set.status).toBe(0);
    let n = 0;
    // Each attempt pushes a stream not seen before; once the limit is in force, it is refused.
    const pushNewStream = (srv: TestServer) => {
      const body = { streams: [{ stream: { service_name: `limited-${n++}` }, values: [[String(Date.now() * 1e6), 'x']] }] };
      return fetch(`${srv.url}/loki/api/v1/push`, { method: 'POST', headers: { 'x-svc-api-key': b.key, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    };
    for (const srv of [a, b]) {
      let refused = '';
      await waitFor(async () => {
        const res = await pushNewStream(srv);
        if (res.status === 204) return false;
        refused = `${res.status} ${await res.text()}`;
        return true;
      }, 1000);
      expect(refused).toMatch(/^400 .*stream_limit/);
    }
  });

  it('records each replica’s segments in its own catalog in PostgreSQL', async () => {
    const now = Date.now();
    const push = { streams: [{ stream: { service_name: 'pg-test' }, values: [[String(now * 1e6), 'hello from a']] }] };
    const res = await fetch(`${a.url}/loki/api/v1/push`, { method: 'POST', headers: { 'x-svc-api-key': a.key, 'content-type': 'application/json' }, body: JSON.stringify(push) });
    expect(res.status).toBe(204);
    await a.service.storage.cut();
    const { rows } = await pg.query<{ catalog: string; org: string; signal: string }>(database, 'SELECT catalog, org, signal FROM catalog_segments');
    expect(rows).toContainEqual({ catalog: 'replica-a', org: a.orgId, signal: 'logs' });
    // B was never cut: its catalog row exists, with no segments in it.
    expect(rows.every((r) => r.catalog === 'replica-a')).toBe(true);
    expect((await pg.query(database, "SELECT 1 FROM catalogs WHERE name = 'replica-b'")).rowCount).toBe(1);
    expect(await storedLines(a, '{service_name="pg-test"}', now - 1000, now + 1000)).toEqual(['hello from a']);
  });

  it('answers 503 with the JSON error body while PostgreSQL is down, and recovers when it is back', async () => {
    const url = `/api/orgs/${a.orgId}/dashboards/shared`;
    await pg.stop('fast');
    try {
      const started = Date.now();
      const down = await call(b, 'GET', url);
      expect(down.status).toBe(503);
      expect(down.body).toMatchObject({ code: 'SERVICE_UNAVAILABLE', status: 503 });
      expect(Date.now() - started).toBeLessThan(10_000);
      // Authentication does not need the database: the keys in memory still answer.
      expect((await call(b, 'GET', '/api/v1/ping')).status).toBe(200);
    } finally {
      await pg.start();
    }
    await waitFor(async () => (await call(b, 'GET', url)).status === 200, 10_000);
    // The listener is back too: a revocation made now reaches both replicas.
    const created = runCli(['keys', 'create', '--org', a.orgId, '--name', 'after-restart', '--json'], cliEnv);
    const { key, id } = JSON.parse(created.stdout) as { key: string; id: string };
    await waitFor(async () => (await call(a, 'GET', '/api/v1/ping', { key })).status === 200, 3000);
    expect(runCli(['keys', 'revoke', id], cliEnv).status).toBe(0);
    await waitFor(async () => (await call(a, 'GET', '/api/v1/ping', { key })).status === 401 && (await call(b, 'GET', '/api/v1/ping', { key })).status === 401, 3000);
  }, 60_000);
});
