import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/server.js';

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('query id and logging', () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startTestServer();
  });
  afterAll(async () => {
    await srv.stop();
  });

  it('echoes a well-formed incoming id on every response, errors included', async () => {
    const id = '0b7e3b1c-52a4-4c1e-9b7a-3f0f5b0a9d11';
    for (const [p, headers] of [
      ['/healthz', {}],
      ['/api/v1/ping', { 'x-svc-api-key': srv.key }],
      ['/api/v1/ping', {}],
      ['/no/such/path', {}],
    ] as const) {
      const res = await fetch(`${srv.url}${p}`, { headers: { ...headers, 'x-svc-query-id': id } });
      expect(res.headers.get('x-svc-query-id')).toBe(id);
    }
  });

  it('replaces a malformed or missing id with a fresh v4 UUID', async () => {
    const seen = new Set<string>();
    for (const incoming of [undefined, 'not-a-uuid', '0b7e3b1c-52a4-4c1e-9b7a-3f0f5b0a9d1', "'; drop table", '']) {
      const headers: Record<string, string> = incoming === undefined ? {} : { 'x-svc-query-id': incoming };
      const res = await fetch(`${srv.url}/healthz`, { headers });
      const id = res.headers.get('x-svc-query-id') ?? '';
      expect(id).toMatch(UUID_V4);
      expect(id).not.toBe(incoming);
      seen.add(id);
    }
    expect(seen.size).toBe(5);
  });

  it('puts the query id in the log line of the request', async () => {
    const id = '7d444840-9dc0-11d1-b245-5ffdce74fad2';
    await fetch(`${srv.url}/api/v1/ping`, { headers: { 'x-svc-api-key': srv.key, 'x-svc-query-id': id } });
    await new Promise((r) => setTimeout(r, 50));
    const line = srv.logs.records().find((r) => r.queryId === id);
    expect(line).toMatchObject({ route: '/api/v1/ping', status: 200, org: srv.orgId });
  });

  it('never writes API keys or the apiKey query parameter to the log', async () => {
    const b64 = Buffer.from(`${srv.keyId}:${srv.key}`).toString('base64');
    const secretInQuery = 'slk_querysecret_should_not_leak_0123456789';
    await fetch(`${srv.url}/api/v1/ping`, { headers: { 'x-svc-api-key': srv.key } });
    await fetch(`${srv.url}/api/v1/ping`, { headers: { Authorization: `ApiKey ${b64}` } });
    await fetch(`${srv.url}/api/v1/ping`, { headers: { Cookie: `api_key=${srv.key}` } });
    await fetch(`${srv.url}/api/v1/ping?apiKey=${secretInQuery}&x=1`);
    await fetch(`${srv.url}/nowhere?apiKey=${secretInQuery}`, { headers: { 'x-svc-api-key': 'slk_wrong_key_value' } });
    await new Promise((r) => setTimeout(r, 50));
    const text = srv.logs.text();
    expect(text).toContain('/api/v1/ping');
    expect(text).toContain('apiKey=[REDACTED]');
    for (const secret of [srv.key, b64, secretInQuery, 'slk_wrong_key_value']) expect(text).not.toContain(secret);
  });
});
