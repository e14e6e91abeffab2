import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, waitFor, type TestServer } from '../support/server.js';

const b64 = (s: string): string => Buffer.from(s, 'utf8').toString('base64');
const SYSTEM_KEY = 'system-key-for-tests-0123456789abcdef0123456789';

describe('authentication', () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startTestServer({ SVC_MCP_API_KEY: SYSTEM_KEY });
  });
  afterAll(async () => {
    await srv.stop();
  });

  const ping = (headers: Record<string, string>): Promise<Response> => fetch(`${srv.url}/api/v1/ping`, { headers });

  it('accepts the key in every place the spec lists', async () => {
    const places: Array<Record<string, string>> = [
      { 'x-svc-api-key': srv.key },
      { 'X-SVC-API-KEY': srv.key },
      { 'Api-Key': srv.key },
      { Authorization: `ApiKey ${b64(`${srv.keyId}:${srv.key}`)}` },
      { Authorization: `Basic ${b64(`anyone:${srv.key}`)}` },
      { Cookie: `theme=dark; api_key=${srv.key}; other=1` },
    ];
    for (const headers of places) {
      const res = await ping(headers);
      expect(res.status, JSON.stringify(Object.keys(headers))).toBe(200);
      expect(await res.json()).toEqual({ status: 'ok', org: srv.orgId });
    }
  });

  it('answers 401 UNAUTHORIZED in the JSON error shape when the key is missing or wrong', async () => {
    const cases: Array<Record<string, string>> = [{}, { 'x-svc-api-key': 'slk_wrong' }, { 'x-svc-api-key': '' }, { Authorization: 'Basic !!!' }];
    for (const headers of cases) {
      const res = await ping(headers);
      expect(res.status).toBe(401);
      expect(res.headers.get('content-type')).toBe('application/json');
      const body = (await res.json()) as Record<string, unknown>;
      expect(Object.keys(body).sort()).toEqual(['code', 'message', 'status']);
      expect(body).toMatchObject({ status: 401, code: 'UNAUTHORIZED' });
      expect(typeof body.message).toBe('string');
    }
  });

  it('lets the first place present decide, even when a later place holds a valid key', async () => {
    const cases: Array<Record<string, string>> = [
      { 'x-svc-api-key': 'slk_invalid', 'Api-Key': srv.key },
      { 'Api-Key': 'slk_invalid', Authorization: `Basic ${b64(`u:${srv.key}`)}` },
      { Authorization: `ApiKey ${b64(`${srv.keyId}:wrong`)}`, Cookie: `api_key=${srv.key}` },
      { Authorization: `Basic ${b64('u:wrong')}`, Cookie: `api_key=${srv.key}` },
    ];
    for (const headers of cases) expect((await ping(headers)).status, JSON.stringify(headers)).toBe(401);
  });

  it('checks the key id of Authorization: ApiKey against the key', async () => {
    expect((await ping({ Authorization: `ApiKey ${b64(`not-the-id:${srv.key}`)}` })).status).toBe(401);
  });

  it('ignores authorization schemes it does not own and falls through to the cookie', async () => {
    expect((await ping({ Authorization: 'Bearer something', Cookie: `api_key=${srv.key}` })).status).toBe(200);
  });

  it('serves the probes without a key', async () => {
    for (const p of ['/healthz', '/api/health']) {
      const res = await fetch(`${srv.url}${p}`);
      expect(res.status).toBe(200);
      expect(await res.text()).toBe('ok');
    }
  });

  it('recognises the system key with cross-org access', async () => {
    const res = await ping({ 'x-svc-api-key': SYSTEM_KEY });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok', system: true });
  });

  it('rejects a revoked key as soon as the store reports the revocation', async () => {
    const { key, record } = await srv.admin.createKey(srv.orgId, 'short-lived');
    expect((await ping({ 'x-svc-api-key': key })).status).toBe(200);
    await srv.admin.revokeKey(record.id);
    await waitFor(async () => (await ping({ 'x-svc-api-key': key })).status === 401);
    expect((await ping({ 'x-svc-api-key': srv.key })).status).toBe(200);
  });
});

describe('system key disabled', () => {
  it('treats SVC_MCP_API_KEY unset or empty as no system key', async () => {
    const envs: Array<Record<string, string>> = [{}, { SVC_MCP_API_KEY: '' }];
    for (const env of envs) {
      const srv = await startTestServer(env);
      try {
        const res = await fetch(`${srv.url}/api/v1/ping`, { headers: { 'x-svc-api-key': '' } });
        expect(res.status).toBe(401);
        const other = await fetch(`${srv.url}/api/v1/ping`, { headers: { 'x-svc-api-key': SYSTEM_KEY } });
        expect(other.status).toBe(401);
      } finally {
        await srv.stop();
      }
    }
  });
});

describe('rate limiting', () => {
  it('answers 429 RATE_LIMITED with Retry-After per key, leaving other keys alone', async () => {
    const srv = await startTestServer({ SVC_RATE_LIMIT_RPS: '1', SVC_RATE_LIMIT_BURST: '3' });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 5; i++) {
        statuses.push((await fetch(`${srv.url}/api/v1/ping`, { headers: { 'x-svc-api-key': srv.key } })).status);
      }
      expect(statuses.slice(0, 3)).toEqual([200, 200, 200]);
      expect(statuses[4]).toBe(429);
      const limited = await fetch(`${srv.url}/api/v1/ping`, { headers: { 'x-svc-api-key': srv.key } });
      expect(limited.status).toBe(429);
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(await limited.json()).toMatchObject({ status: 429, code: 'RATE_LIMITED' });
      const { key: otherKey } = await srv.admin.createKey(srv.orgId, 'other');
      await waitFor(async () => (await fetch(`${srv.url}/api/v1/ping`, { headers: { 'x-svc-api-key': otherKey } })).status === 200);
      expect((await fetch(`${srv.url}/healthz`)).status).toBe(200);
    } finally {
      await srv.stop();
    }
  });
});
