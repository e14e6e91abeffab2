import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { ROLES, ROLE_TABLE, type Role } from '../../src/roles/roles.js';
import { startService } from '../../src/service.js';
import { StartupError } from '../../src/startupError.js';
import { push } from '../support/ingest.js';
import { LogCapture, startTestServer, type TestServer } from '../support/server.js';
import { query, readSse } from '../support/sse.js';

const NOW_NS = BigInt(Date.now()) * 1_000_000n;
const LOKI_BODY = JSON.stringify({ streams: [{ stream: { service_name: 'api', level: 'info' }, values: [[String(NOW_NS), 'role split works']] }] });

interface ErrorJson {
  status: number;
  code: string;
  message: string;
  details?: { role: string; servedBy: string[] };
}

async function json<T>(res: Response): Promise<T> {
  return (await res.json()) as T;
}

describe('roles: refusal on the embedded backends', () => {
  const dirs: string[] = [];
  afterAll(async () => {
    for (const d of dirs) await rm(d, { recursive: true, force: true });
  });

  const attempt = async (role: Role, env: Record<string, string> = {}): Promise<unknown> => {
    const dataDir = await mkdtemp(path.join(tmpdir(), `sluice-role-${role}-`));
    dirs.push(dataDir);
    const config = loadConfig({ SVC_PORT: '0', SVC_HOST: '127.0.0.1', SVC_DATA_DIR: dataDir, SVC_ROLE: role, ...env });
    try {
      const service = await startService(config, { logDestination: new LogCapture(), announce: () => {} });
      await service.stop();
      return undefined;
    } catch (err) {
      // Refused before anything was written: no metadata, no lock file left behind.
      expect(existsSync(path.join(dataDir, 'meta'))).toBe(false);
      expect(existsSync(path.join(dataDir, 'sluice.lock'))).toBe(false);
      return err;
    }
  };

  it('refuses every role but all, naming the settings each one needs', async () => {
    const expected: Record<Exclude<Role, 'all'>, string[]> = {
      ingest: ['SVC_META_STORE=postgres', 'SVC_WRITE_LOG=jetstream'],
      ingester: ['SVC_META_STORE=postgres', 'SVC_WRITE_LOG=jetstream', 'SVC_BLOB_STORE=s3'],
      query: ['SVC_META_STORE=postgres', 'SVC_BLOB_STORE=s3'],
      compactor: ['SVC_META_STORE=postgres', 'SVC_BLOB_STORE=s3'],
    };
    for (const [role, needs] of Object.entries(expected) as Array<[Exclude<Role, 'all'>, string[]]>) {
      const err = await attempt(role);
      expect(err, role).toBeInstanceOf(StartupError);
      const message = (err as Error).message;
      expect(message).toContain(`role ${role} runs beside other Sluice processes`);
      for (const need of needs) expect(message, role).toContain(need);
      for (const other of ['SVC_META_STORE', 'SVC_WRITE_LOG', 'SVC_BLOB_STORE'].filter((n) => !needs.some((need) => need.startsWith(n)))) {
        expect(message, role).not.toContain(other);
      }
      expect(message).toContain('--role all');
      expect(message).toContain('SVC_ROLE_EMBEDDED=true');
    }
  });

  it('reads each need from the configuration: object storage configured, the query role lacks only PostgreSQL', async () => {
    const err = await attempt('query', { SVC_BLOB_STORE: 's3', SVC_S3_BUCKET: 'segments', SVC_S3_ENDPOINT: 'http://127.0.0.1:1' });
    const message = (err as Error).message;
    expect(message).toContain('SVC_META_STORE=postgres with SVC_POSTGRES_URL');
    expect(message).not.toContain('SVC_BLOB_STORE');
    // Without S3 the blob store need says what is configured instead.
    expect(((await attempt('compactor')) as Error).message).toContain('SVC_BLOB_STORE=s3 with SVC_S3_BUCKET (now local)');
  });
});

describe.each(ROLES)('role %s over the embedded backends', (role) => {
  let srv: TestServer;
  const components = new Set(ROLE_TABLE[role].components);

  afterAll(async () => {
    await srv?.stop();
  });

  it('starts, and reports its role in /readyz, the start-up log and sluice_build_info', async () => {
    srv = await startTestServer({ SVC_ROLE: role, SVC_ROLE_EMBEDDED: 'true' });
    const ready = await fetch(`${srv.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ready', role, components: [...ROLE_TABLE[role].components] });
    const ping = await fetch(`${srv.url}/api/v1/ping`, { headers: { 'x-svc-api-key': srv.key } });
    expect(await json<{ org: string }>(ping)).toEqual({ status: 'ok', org: srv.orgId });
    const metrics = await (await fetch(`${srv.url}/metrics`)).text();
    expect(metrics).toMatch(new RegExp(`^sluice_build_info\\{version="[^"]+",node="${process.versions.node}",role="${role}"\\} 1$`, 'm'));
    for (const probe of ['/healthz', '/api/health']) expect(await (await fetch(`${srv.url}${probe}`)).text()).toBe('ok');
    const listening = srv.logs.records().find((r) => r.msg === 'sluice listening');
    expect(listening).toMatchObject({ role, components: [...ROLE_TABLE[role].components] });
  });

  it(components.has('ingestApi') ? 'serves the ingest routes' : 'answers the ingest routes with the role that serves them', async () => {
    const res = await push(srv, '/loki/api/v1/push', LOKI_BODY, 'application/json');
    if (components.has('ingestApi')) {
      expect(res.status).toBe(204);
      return;
    }
    expect(res.status).toBe(404);
    const body = await json<ErrorJson>(res);
    expect(body.code).toBe('NOT_FOUND');
    expect(body.message).toBe(`POST /loki/api/v1/push is served by the ingest role (or all); this process runs the ${role} role`);
    expect(body.details).toEqual({ role, servedBy: ['all', 'ingest'] });
  });

  it(components.has('queryApi') ? 'serves the query routes' : 'answers the query routes, dashboards and tool gateway with the role that serves them', async () => {
    const res = await query(srv.url, '/api/v1/logs/query', srv.key, { q: '{service_name="api"}', s: 'now-5m', e: 'now+1m' });
    const dashboards = await fetch(`${srv.url}/api/orgs/${srv.orgId}/dashboards`, { headers: { 'x-svc-api-key': srv.key } });
    const mcp = await fetch(`${srv.url}/api/orgs/${srv.orgId}/integrations/telemetry/mcp`, { method: 'POST', headers: { 'x-svc-api-key': srv.key, 'content-type': 'application/json' }, body: '{}' });
    if (components.has('queryApi')) {
      const sse = await readSse(res);
      expect(sse.status).toBe(200);
      const lines = sse.events.filter((e) => e.type === 'result').map((e) => (e.data.tags as Record<string, string>).message);
      // The all role wrote the line itself just before; the query role alone has no ingest.
      expect(lines).toEqual(role === 'all' ? ['role split works'] : []);
      expect(dashboards.status).toBe(200);
      expect(mcp.status).not.toBe(404);
      return;
    }
    for (const [answer, what] of [[res, 'POST /api/v1/logs/query'], [dashboards, `GET /api/orgs/${srv.orgId}/dashboards`], [mcp, `POST /api/orgs/${srv.orgId}/integrations/telemetry/mcp`]] as const) {
      expect(answer.status, what).toBe(404);
      const body = await json<ErrorJson>(answer);
      expect(body.message).toBe(`${what} is served by the query role (or all); this process runs the ${role} role`);
      expect(body.details).toEqual({ role, servedBy: ['all', 'query'] });
    }
  });

  it('runs only the background loops of its components', () => {
    // The storage is private to the service; element access reads its options and its maintenance timers without widening its API.
    const storage = srv.service.storage as unknown as { options: { maintenanceIntervalMs?: number; compactionIntervalMs?: number }; maintenance: { timers: unknown[] } };
    expect(storage.options.maintenanceIntervalMs === 0).toBe(!components.has('heads'));
    expect(storage.options.compactionIntervalMs === 0).toBe(!components.has('compaction'));
    expect(storage.maintenance.timers.length).toBe(Number(components.has('heads')) + Number(components.has('compaction')));
  });

  it('keeps a plain 404 for paths no role serves, and 405 for a wrong method', async () => {
    const res = await fetch(`${srv.url}/api/v1/no-such-route`);
    expect(res.status).toBe(404);
    expect((await json<ErrorJson>(res)).message).toBe('no route for GET /api/v1/no-such-route');
    const wrongMethod = await fetch(`${srv.url}/readyz`, { method: 'POST' });
    expect(wrongMethod.status).toBe(405);
  });
});

describe('roles share one data directory in turn', () => {
  it('reads with the query role what the ingest role wrote', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'sluice-role-handover-'));
    const start = (role: Role) =>
      startService(loadConfig({ SVC_PORT: '0', SVC_HOST: '127.0.0.1', SVC_DATA_DIR: dataDir, SVC_ROLE: role, SVC_ROLE_EMBEDDED: 'true', SVC_BOOTSTRAP_ORG: 'handover', SVC_BOOTSTRAP_API_KEY: 'slk_handover_9f3b2c7d1e6a4058b2c9d7e1f3a5b6c8' }), {
        logDestination: new LogCapture(),
        announce: () => {},
      });
    const key = 'slk_handover_9f3b2c7d1e6a4058b2c9d7e1f3a5b6c8';
    try {
      const ingest = await start('ingest');
      const written = await fetch(`http://127.0.0.1:${ingest.port}/loki/api/v1/push`, { method: 'POST', headers: { 'x-svc-api-key': key, 'content-type': 'application/json' }, body: LOKI_BODY });
      expect(written.status).toBe(204);
      await ingest.stop();
      const reader = await start('query');
      try {
        const sse = await readSse(await query(`http://127.0.0.1:${reader.port}`, '/api/v1/logs/query', key, { q: '{service_name="api"}', s: 'now-5m', e: 'now+1m' }));
        expect(sse.events.filter((e) => e.type === 'result').map((e) => (e.data.tags as Record<string, string>).message)).toEqual(['role split works']);
      } finally {
        await reader.stop();
      }
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
