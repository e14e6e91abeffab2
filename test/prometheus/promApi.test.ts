import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeRemoteWriteBody } from '../../engine/ingest/encode/remoteWrite.js';
import { startTestServer, type TestServer } from '../support/server.js';

/**
 * The Prometheus-compatible API's own behaviour, beyond what the differential test compares
 * with Prometheus: authentication as Grafana sends it, org scoping by X-Scope-OrgID, the status
 * documents Grafana's health check and feature detection read, and Prometheus' error envelope.
 */

const SYSTEM_KEY = 'system-key-for-prometheus-api-tests-0123456789abcdef';
const NOW_MS = Math.floor(Date.now() / 1000) * 1000;

async function write(srv: TestServer, key: string, metric: string, value: number): Promise<void> {
  const res = await fetch(`${srv.url}/api/v1/write`, {
    method: 'POST',
    headers: { 'x-svc-api-key': key, 'content-type': 'application/x-protobuf' },
    body: encodeRemoteWriteBody({
      timeseries: [{ labels: [{ name: '__name__', value: metric }, { name: 'job', value: 'api' }], samples: [{ value, timestamp: NOW_MS - 30_000 }] }],
      metadata: [{ type: 'gauge', metricFamilyName: metric, help: `${metric} help.` }],
    }),
  });
  expect(res.status).toBe(204);
}

const basic = (key: string): string => `Basic ${Buffer.from(`grafana:${key}`).toString('base64')}`;

describe('Prometheus API: auth, org scoping and status documents', () => {
  let srv: TestServer;
  let otherOrg: string;
  let otherKey: string;

  beforeAll(async () => {
    srv = await startTestServer({ SVC_MCP_API_KEY: SYSTEM_KEY, SVC_QUERY_WORKERS: '1' });
    const org = await srv.admin.createOrg('other-team');
    otherOrg = org.id;
    otherKey = (await srv.admin.createKey(org.id, 'other')).key;
    await write(srv, srv.key, 'mine_total', 7);
    await write(srv, otherKey, 'theirs_total', 11);
  });
  afterAll(async () => {
    await srv.stop();
  });

  const get = async (path: string, headers: Record<string, string>): Promise<{ status: number; body: Record<string, any> }> => {
    const res = await fetch(`${srv.url}/prometheus/api/v1${path}`, { headers });
    expect(res.headers.get('content-type')).toBe('application/json');
    return { status: res.status, body: (await res.json()) as Record<string, any> };
  };

  it("answers Grafana's health check (1+1) with Basic auth carrying the key as password", async () => {
    const { status, body } = await get(`/query?query=${encodeURIComponent('1+1')}&time=${NOW_MS / 1000}`, { authorization: basic(srv.key) });
    expect(status).toBe(200);
    expect(body).toEqual({ status: 'success', data: { resultType: 'scalar', result: [NOW_MS / 1000, '2'] } });
  });

  it('refuses a request without a key', async () => {
    const res = await fetch(`${srv.url}/prometheus/api/v1/query?query=1`);
    expect(res.status).toBe(401);
  });

  it("an org key reads its own org and ignores an X-Scope-OrgID naming another", async () => {
    const { body } = await get('/label/__name__/values', { 'x-svc-api-key': srv.key, 'x-scope-orgid': otherOrg });
    expect(body).toEqual({ status: 'success', data: ['mine_total'] });
  });

  it('the system key reads the org X-Scope-OrgID names, and must name an existing one', async () => {
    const named = await get('/label/__name__/values', { authorization: basic(SYSTEM_KEY), 'x-scope-orgid': otherOrg });
    expect(named.body).toEqual({ status: 'success', data: ['theirs_total'] });
    const none = await get('/labels', { 'x-svc-api-key': SYSTEM_KEY });
    expect(none.status).toBe(403);
    expect(none.body).toMatchObject({ status: 'error', errorType: 'bad_data', error: expect.stringMatching(/X-Scope-OrgID/) });
    const unknown = await get('/labels', { 'x-svc-api-key': SYSTEM_KEY, 'x-scope-orgid': 'no-such-org' });
    expect(unknown.status).toBe(403);
    expect(unknown.body.status).toBe('error');
  });

  it('buildinfo names a Prometheus release and no features, so Grafana treats the back end as Prometheus', async () => {
    const { body } = await get('/status/buildinfo', { 'x-svc-api-key': srv.key });
    expect(body.status).toBe('success');
    expect(body.data.version).toMatch(/^\d+\.\d+\.\d+$/);
    expect(body.data.features).toBeUndefined();
    for (const path of ['/status/config', '/status/flags', '/status/runtimeinfo']) {
      const res = await get(path, { 'x-svc-api-key': srv.key });
      expect(res.status, path).toBe(200);
      expect(res.body.status, path).toBe('success');
    }
  });

  it('serves metadata recorded at ingest, empty exemplars and formatted queries', async () => {
    const metadata = await get('/metadata', { 'x-svc-api-key': srv.key });
    expect(metadata.body).toEqual({ status: 'success', data: { mine_total: [{ type: 'gauge', help: 'mine_total help.', unit: '' }] } });
    const exemplars = await get(`/query_exemplars?query=mine_total&start=${NOW_MS / 1000 - 60}&end=${NOW_MS / 1000}`, { 'x-svc-api-key': srv.key });
    expect(exemplars.body).toEqual({ status: 'success', data: [] });
    const formatted = await get(`/format_query?query=${encodeURIComponent('sum  by(job)(rate(mine_total[5m] ))')}`, { 'x-svc-api-key': srv.key });
    expect(formatted.body).toEqual({ status: 'success', data: 'sum by (job) (rate(mine_total[5m]))' });
  });

  it('truncates listings at limit with a warning', async () => {
    await write(srv, srv.key, 'mine_extra', 1);
    const { body } = await get('/label/__name__/values?limit=1', { 'x-svc-api-key': srv.key });
    expect(body).toEqual({ status: 'success', data: ['mine_extra'], warnings: ['results truncated due to limit'] });
  });

  it('rejects malformed parameters with bad_data in bounded time', async () => {
    const started = Date.now();
    for (const path of ['/query?query=1&timeout=soon', '/query_range?query=1&start=1&end=2&step=-1', '/series?match[]=%7B', '/label/1bad/values', '/labels?limit=-3']) {
      const { status, body } = await get(path, { 'x-svc-api-key': srv.key });
      expect(status, path).toBe(400);
      expect(body, path).toMatchObject({ status: 'error', errorType: 'bad_data' });
    }
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('honours the timeout parameter with errorType timeout, 503', async () => {
    // A microsecond cannot cover any evaluation, so the deadline always wins.
    const { status, body } = await get(`/query?query=${encodeURIComponent('sum(rate(mine_total[5m]))')}&timeout=0.000001`, { 'x-svc-api-key': srv.key });
    expect(status).toBe(503);
    expect(body).toMatchObject({ status: 'error', errorType: 'timeout' });
    const after = await get(`/query?query=${encodeURIComponent('sum(mine_total)')}&time=${NOW_MS / 1000}`, { 'x-svc-api-key': srv.key });
    expect(after.body.data.result).toEqual([{ metric: {}, value: [NOW_MS / 1000, '7'] }]);
  });

  it("reports the evaluator's annotations as warnings", async () => {
    const { status, body } = await get(`/query?query=${encodeURIComponent('histogram_quantile(0.5, mine_total)')}&time=${NOW_MS / 1000}`, { 'x-svc-api-key': srv.key });
    expect(status).toBe(200);
    expect(body.data).toEqual({ resultType: 'vector', result: [] });
    expect(body.warnings).toEqual([expect.stringMatching(/^PromQL warning: bucket label "le" is missing/)]);
  });

  it('accepts form-encoded POSTs for range queries', async () => {
    const res = await fetch(`${srv.url}/prometheus/api/v1/query_range`, {
      method: 'POST',
      headers: { 'x-svc-api-key': srv.key, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ query: 'mine_total', start: String(NOW_MS / 1000 - 60), end: String(NOW_MS / 1000), step: '30s' }).toString(),
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as Record<string, any>;
    expect(body.data.resultType).toBe('matrix');
    expect(body.data.result).toEqual([
      { metric: { __name__: 'mine_total', job: 'api' }, values: [[NOW_MS / 1000 - 30, '7'], [NOW_MS / 1000, '7']] },
    ]);
  });
});
