import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EngineError } from '../../engine/index.js';
import { FailedAuthLimiter } from '../../src/auth/failedAuth.js';
import { connectMcp, textOf } from '../support/mcpClient.js';
import { startTestServer, type TestServer } from '../support/server.js';

/** request sends one HTTP request from a chosen loopback source address (127.0.0.0/8 is all local). */
function request(
  url: string,
  options: { method?: string; headers?: Record<string, string>; localAddress?: string } = {},
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: options.method ?? 'GET', headers: options.headers, localAddress: options.localAddress, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('metrics route label', () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startTestServer();
  });
  afterAll(async () => {
    await srv.stop();
  });

  it('labels requests by route pattern, never by raw path or arbitrary method', async () => {
    const marker = `zz${Date.now().toString(36)}`;
    const paths = [
      `/no/such/${marker}-a`,
      `/api/v1/${marker}-b`,
      // A known pattern with a wrong method: answered 405, but its path holds a random id.
      `/api/orgs/${marker}-org/dashboards/${marker}-c`,
    ];
    for (const p of paths) {
      for (const method of ['GET', 'PATCH', 'DELETE']) await request(`${srv.url}${p}`, { method, headers: { 'x-svc-api-key': srv.key } });
    }
    // uWS drops methods it does not know; TRACE is one it passes on and no route serves.
    await request(`${srv.url}/api/v1/ping`, { method: 'TRACE', headers: { 'x-svc-api-key': srv.key } });
    const metrics = await (await fetch(`${srv.url}/metrics`)).text();
    expect(metrics).not.toContain(marker);
    expect(metrics.toLowerCase()).not.toContain(marker.toLowerCase());
    const routes = new Set([...metrics.matchAll(/sluice_http_requests_total\{[^}]*route="([^"]*)"/g)].map((m) => m[1]));
    expect(routes.has('unmatched')).toBe(true);
    expect(routes.has('/api/orgs/:orgId/dashboards/:id')).toBe(true);
    expect(metrics).toMatch(/sluice_http_requests_total\{[^}]*method="OTHER"/);
  });
});

describe('failed authentication limit', () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startTestServer({ SVC_AUTH_FAILURES_PER_MINUTE: '3' });
  });
  afterAll(async () => {
    await srv.stop();
  });

  const ping = (key: string | undefined, localAddress: string) =>
    request(`${srv.url}/api/v1/ping`, { headers: key === undefined ? {} : { 'x-svc-api-key': key }, localAddress });

  it('answers 429 with Retry-After once an address used up its failures, and still serves valid keys', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) statuses.push((await ping(`slk_wrong_${i}`, '127.0.0.2')).status);
    expect(statuses).toEqual([401, 401, 401]);
    const limited = await ping('slk_wrong_again', '127.0.0.2');
    expect(limited.status).toBe(429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(JSON.parse(limited.body)).toMatchObject({ status: 429, code: 'RATE_LIMITED' });
    expect((await ping(undefined, '127.0.0.2')).status).toBe(429);
    // A valid key is never slowed, even from the limited address.
    expect((await ping(srv.key, '127.0.0.2')).status).toBe(200);
    // Other addresses keep their own budget.
    expect((await ping('slk_wrong', '127.0.0.3')).status).toBe(401);
  });

  it('does not count successful authentications', async () => {
    for (let i = 0; i < 10; i++) expect((await ping(srv.key, '127.0.0.4')).status).toBe(200);
    for (let i = 0; i < 3; i++) expect((await ping('slk_wrong', '127.0.0.4')).status).toBe(401);
  });

  it('keeps a bounded table of addresses', () => {
    let now = 0;
    const limiter = new FailedAuthLimiter(5, 100, () => now);
    for (let i = 0; i < 10_000; i++) limiter.recordFailure(`10.0.${i >> 8}.${i & 255}`);
    expect(limiter.size).toBeLessThanOrEqual(100);
    now += 61_000;
    limiter.recordFailure('10.9.9.9');
    expect(limiter.size).toBe(1);
  });
});

describe('secrets in logs', () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startTestServer();
  });
  afterAll(async () => {
    await srv.stop();
  });

  it('redacts the apiKey query parameter however its name is encoded or cased', async () => {
    const names = ['apiKey', '%61piKey', 'api%4Bey', 'APIKEY', 'api%5Fkey', 'x%2Dsvc%2Dapi%2Dkey'];
    for (const [i, name] of names.entries()) {
      const secret = `slk_secret${i}_${Date.now()}`;
      await fetch(`${srv.url}/api/v1/ping?${name}=${encodeURIComponent(secret)}&page=${i}`, { headers: { 'x-svc-api-key': srv.key } });
      await new Promise((r) => setTimeout(r, 20));
      expect(srv.logs.text(), name).not.toContain(secret);
      const line = srv.logs.records().find((r) => typeof r.query === 'string' && r.query.endsWith(`&page=${i}`));
      expect(line?.query).toBe(`${name}=[REDACTED]&page=${i}`);
    }
  });
});

describe('internal errors', () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startTestServer();
  });
  afterAll(async () => {
    await srv.stop();
  });

  it('answer a generic INTERNAL_ERROR with the query id, the detail only in the log', async () => {
    const storage = srv.service.storage as unknown as { metrics: (org: string) => unknown };
    const original = storage.metrics;
    const failures = [
      new EngineError('INTERNAL_ERROR', "Cannot read properties of undefined (reading 'series') at /srv/engine/plan.js:12"),
      new TypeError("Cannot read properties of undefined (reading 'series') at /srv/engine/plan.js:12"),
    ];
    try {
      for (const failure of failures) {
        storage.metrics = () => {
          throw failure;
        };
        const res = await fetch(`${srv.url}/api/v1/metrics/query`, {
          method: 'POST',
          headers: { 'x-svc-api-key': srv.key, 'content-type': 'application/json', accept: 'text/event-stream' },
          body: JSON.stringify({ q: 'up', s: 'now-5m' }),
        });
        const queryId = res.headers.get('x-svc-query-id')!;
        const body = (await res.json()) as { status: number; code: string; message: string };
        expect(res.status).toBe(500);
        expect(body.code).toBe('INTERNAL_ERROR');
        expect(body.message).not.toContain('Cannot read');
        expect(body.message).not.toContain('/srv/');
        expect(body.message).toContain(queryId);
        await new Promise((r) => setTimeout(r, 20));
        const lines = srv.logs.records().filter((r) => r.queryId === queryId);
        const access = lines.find((r) => r.msg === 'request failed');
        expect(access).toMatchObject({ status: 500, code: 'INTERNAL_ERROR' });
        expect(JSON.stringify(lines)).toContain('Cannot read properties');
      }
    } finally {
      storage.metrics = original;
    }
  });

  it('reach a tool caller as a generic error naming the query id', async () => {
    const storage = srv.service.storage as unknown as { metrics: (org: string) => unknown };
    const original = storage.metrics;
    const client = await connectMcp(srv.url, srv.orgId, 'telemetry', srv.key);
    try {
      storage.metrics = () => {
        throw new TypeError("Cannot read properties of undefined (reading 'series')");
      };
      const result = (await client.callTool({ name: 'query_metrics', arguments: { query: 'up', start: 'now-5m' } })) as { isError?: boolean };
      const text = textOf(result);
      expect(result.isError).toBe(true);
      expect(text).not.toContain('Cannot read');
      expect(text).toContain('INTERNAL_ERROR');
      const queryId = /query id ([0-9a-f-]{36})/.exec(text)?.[1];
      expect(queryId).toBeDefined();
      await new Promise((r) => setTimeout(r, 20));
      const logged = srv.logs.records().find((r) => r.queryId === queryId && r.msg === 'tool failed');
      expect(logged).toMatchObject({ code: 'INTERNAL_ERROR', tool: 'query_metrics' });
      expect(JSON.stringify(logged)).toContain('Cannot read properties');
    } finally {
      storage.metrics = original;
      await client.close();
    }
  });

  it('write the error code on the access line of every failed request', async () => {
    const res = await fetch(`${srv.url}/api/v1/ping`, { headers: { 'x-svc-api-key': 'slk_nope' } });
    const queryId = res.headers.get('x-svc-query-id');
    await new Promise((r) => setTimeout(r, 20));
    expect(srv.logs.records().find((r) => r.queryId === queryId && r.msg === 'request')).toMatchObject({ status: 401, code: 'UNAUTHORIZED' });
    const missing = await fetch(`${srv.url}/nowhere`);
    const missingId = missing.headers.get('x-svc-query-id');
    await new Promise((r) => setTimeout(r, 20));
    expect(srv.logs.records().find((r) => r.queryId === missingId)).toMatchObject({ status: 404, code: 'NOT_FOUND', route: 'unmatched' });
  });
});
