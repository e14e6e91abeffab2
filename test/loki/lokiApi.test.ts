import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/server.js';

/**
 * The Loki read API over the real server: lines pushed through Loki's push endpoint read back
 * through query_range, query, labels, series and index/stats with Loki's JSON shapes, with
 * Grafana's health check and log volume queries, Basic auth and X-Scope-OrgID scoping.
 */

const SYSTEM_KEY = 'system-key-for-loki-api-tests-0123456789abcdef';
const BASE_NS = BigInt(Date.now() - 10 * 60_000) * 1_000_000n;

interface LokiAnswer {
  status: string;
  data: {
    resultType: string;
    result: Array<{ stream?: Record<string, string>; values?: Array<[string | number, string]>; metric?: Record<string, string>; value?: [number, string] }> | [number, string];
    stats: { summary: Record<string, number> };
  };
}

describe('Loki read API', () => {
  let srv: TestServer;
  const get = (path: string, params: Record<string, string>, headers: Record<string, string> = {}): Promise<Response> =>
    fetch(`${srv.url}${path}?${new URLSearchParams(params)}`, { headers: { 'x-svc-api-key': srv.key, ...headers } });

  beforeAll(async () => {
    srv = await startTestServer({ SVC_MCP_API_KEY: SYSTEM_KEY });
    const values = (service: string, lines: string[]): Array<[string, string]> => lines.map((line, i) => [String(BASE_NS + BigInt(i) * 1_000_000_000n), line]);
    const body = {
      streams: [
        { stream: { service_name: 'checkout', level: 'error' }, values: values('checkout', ['payment failed id=1', 'payment failed id=2', 'payment failed id=3']) },
        { stream: { service_name: 'checkout', level: 'info' }, values: values('checkout', ['order placed id=4', 'order placed id=5']) },
        { stream: { service_name: 'search' }, values: values('search', ['query took 12ms']) },
      ],
    };
    const res = await fetch(`${srv.url}/loki/api/v1/push`, { method: 'POST', body: JSON.stringify(body), headers: { 'x-svc-api-key': srv.key, 'content-type': 'application/json' } });
    expect(res.status).toBe(204);
  });

  afterAll(async () => {
    await srv?.stop();
  });

  const window = (): Record<string, string> => ({ start: String(BASE_NS - 60_000_000_000n), end: String(BASE_NS + 60_000_000_000n) });

  it('answers a log query_range with streams, newest first by default, nanosecond timestamps and a stats block', async () => {
    const res = await get('/loki/api/v1/query_range', { query: '{service_name="checkout"} |= "payment"', ...window() });
    expect(res.status).toBe(200);
    const body = (await res.json()) as LokiAnswer;
    expect(body.status).toBe('success');
    expect(body.data.resultType).toBe('streams');
    const streams = body.data.result as Array<{ stream: Record<string, string>; values: Array<[string, string]> }>;
    expect(streams).toHaveLength(1);
    expect(streams[0].stream).toMatchObject({ service_name: 'checkout', level: 'error' });
    expect(streams[0].values.map((v) => v[1])).toEqual(['payment failed id=3', 'payment failed id=2', 'payment failed id=1']);
    expect(streams[0].values[2][0]).toBe(String(BASE_NS));
    expect(body.data.stats.summary.totalEntriesReturned).toBe(3);
    expect(typeof body.data.stats.summary.execTime).toBe('number');
  });

  it('honours direction=forward and limit', async () => {
    const body = (await (await get('/loki/api/v1/query_range', { query: '{service_name="checkout"}', direction: 'forward', limit: '2', ...window() })).json()) as LokiAnswer;
    const lines = (body.data.result as Array<{ values: Array<[string, string]> }>).flatMap((s) => s.values).sort((a, b) => (BigInt(a[0]) < BigInt(b[0]) ? -1 : 1));
    expect(lines).toHaveLength(2);
    expect(lines[0][0]).toBe(String(BASE_NS));
  });

  it('accepts RFC 3339 and float-second times, and since, in a form-encoded POST', async () => {
    const startSeconds = Number(BASE_NS / 1_000_000n) / 1000 - 60;
    const form = new URLSearchParams({ query: '{service_name="search"}', start: startSeconds.toFixed(3), end: new Date(Number(BASE_NS / 1_000_000n) + 60_000).toISOString() });
    const res = await fetch(`${srv.url}/loki/api/v1/query_range`, { method: 'POST', body: form, headers: { 'x-svc-api-key': srv.key } });
    const body = (await res.json()) as LokiAnswer;
    expect((body.data.result as Array<{ values: Array<[string, string]> }>)[0].values[0][1]).toBe('query took 12ms');
    const recent = (await (await get('/loki/api/v1/query_range', { query: '{service_name="search"}', since: '30m' })).json()) as LokiAnswer;
    expect(recent.data.result).toHaveLength(1);
  });

  it('answers a metric query_range with a matrix of [seconds, "value"] pairs', async () => {
    const start = BASE_NS / 1_000_000_000n;
    const res = await get('/loki/api/v1/query_range', { query: 'sum by (level) (count_over_time({service_name="checkout"}[1m]))', start: String(start), end: String(start + 10n), step: '10s' });
    const body = (await res.json()) as LokiAnswer;
    expect(body.data.resultType).toBe('matrix');
    const series = body.data.result as Array<{ metric: Record<string, string>; values: Array<[number, string]> }>;
    const byLevel = Object.fromEntries(series.map((s) => [s.metric.level, s.values]));
    // The first line is a fraction of a second after `start`, so the first step's window holds none: no point there.
    expect(byLevel.error).toEqual([[Number(start) + 10, '3']]);
    expect(byLevel.info).toEqual([[Number(start) + 10, '2']]);
  });

  it("passes Grafana's health check: vector(1)+vector(1) is one value equal to 2", async () => {
    const body = (await (await get('/loki/api/v1/query', { query: 'vector(1)+vector(1)' })).json()) as LokiAnswer;
    expect(body.data.resultType).toBe('vector');
    const result = body.data.result as Array<{ metric: Record<string, string>; value: [number, string] }>;
    expect(result).toHaveLength(1);
    expect(result[0].value[1]).toBe('2');
  });

  it('answers an instant metric query at time with a vector, and a scalar expression with a scalar', async () => {
    const at = BASE_NS + 30_000_000_000n;
    const body = (await (await get('/loki/api/v1/query', { query: 'sum(count_over_time({service_name="checkout"}[5m]))', time: String(at) })).json()) as LokiAnswer;
    const result = body.data.result as Array<{ value: [number, string] }>;
    expect(result[0].value).toEqual([Number(at / 1_000_000n) / 1000, '5']);
    const scalar = (await (await get('/loki/api/v1/query', { query: '1 + 1' })).json()) as LokiAnswer;
    expect(scalar.data.resultType).toBe('scalar');
    expect((scalar.data.result as [number, string])[1]).toBe('2');
  });

  it("refuses bad queries with Loki's 400 and the JSON error body, whose message Grafana shows", async () => {
    const bad: Array<Record<string, string>> = [
      { query: '{service_name="checkout"' },
      { query: '{service_name="checkout"}', start: 'yesterday' },
      { query: '{service_name="checkout"}', direction: 'sideways' },
      { query: '{service_name="checkout"}', limit: '-1' },
      {},
    ];
    for (const params of bad) {
      const res = await get('/loki/api/v1/query_range', params);
      expect(res.status, JSON.stringify(params)).toBe(400);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      const error = (await res.json()) as { status: number; code: string; message: string };
      expect(error.status).toBe(400);
      expect(error.code).toMatch(/^[A-Z_]+$/);
      expect(error.message.length).toBeGreaterThan(5);
    }
    const instantLogs = await get('/loki/api/v1/query', { query: '{service_name="checkout"}' });
    expect(instantLogs.status).toBe(400);
    expect(((await instantLogs.json()) as { message: string }).message).toMatch(/not supported as an instant query/);
  });

  it("runs Grafana's log volume query grouped by level", async () => {
    const start = BASE_NS / 1_000_000_000n;
    const q = 'sum by (level, detected_level) (count_over_time({service_name="checkout"} | drop __error__ [1m]))';
    const body = (await (await get('/loki/api/v1/query_range', { query: q, start: String(start), end: String(start + 60n), step: '60s' })).json()) as LokiAnswer;
    const series = body.data.result as Array<{ metric: Record<string, string>; values: Array<[number, string]> }>;
    expect(series.map((s) => s.metric.level).sort()).toEqual(['error', 'info']);
  });

  it('lists labels, label values and series from the stream index', async () => {
    const labels = (await (await get('/loki/api/v1/labels', window())).json()) as { status: string; data: string[] };
    expect(labels.status).toBe('success');
    expect(labels.data).toEqual(expect.arrayContaining(['level', 'service_name']));
    const values = (await (await get('/loki/api/v1/label/service_name/values', window())).json()) as { data: string[] };
    expect(values.data).toEqual(['checkout', 'search']);
    const scoped = (await (await get('/loki/api/v1/label/level/values', { ...window(), query: '{service_name="checkout"}' })).json()) as { data: string[] };
    expect(scoped.data).toEqual(['error', 'info']);
    const series = (await (await get('/loki/api/v1/series', { ...window(), 'match[]': '{service_name="checkout"}' })).json()) as { data: Array<Record<string, string>> };
    expect(series.data.map((s) => s.level).sort()).toEqual(['error', 'info']);
  });

  it('answers index/stats from the catalog and the stream index', async () => {
    const res = await get('/loki/api/v1/index/stats', { ...window(), query: '{service_name="checkout"}' });
    const stats = (await res.json()) as Record<string, number>;
    expect(Object.keys(stats).sort()).toEqual(['bytes', 'chunks', 'entries', 'streams']);
    expect(stats.streams).toBe(2);
    await srv.service.storage.cut();
    const cut = (await (await get('/loki/api/v1/index/stats', { ...window(), query: '{service_name="checkout"}' })).json()) as Record<string, number>;
    expect(cut.chunks).toBeGreaterThanOrEqual(1);
    expect(cut.entries).toBeGreaterThanOrEqual(5);
    expect(cut.bytes).toBeGreaterThan(0);
  });

  it('authenticates with Basic auth as Grafana sends it, and scopes the system key with X-Scope-OrgID', async () => {
    const basic = `Basic ${Buffer.from(`${srv.orgId}:${srv.key}`).toString('base64')}`;
    const viaBasic = await fetch(`${srv.url}/loki/api/v1/label/service_name/values?${new URLSearchParams(window())}`, { headers: { authorization: basic } });
    expect(((await viaBasic.json()) as { data: string[] }).data).toEqual(['checkout', 'search']);

    const other = await srv.admin.createOrg('loki-api-other');
    const ignored = await get('/loki/api/v1/label/service_name/values', window(), { 'x-scope-orgid': other.id });
    expect(((await ignored.json()) as { data: string[] }).data).toEqual(['checkout', 'search']);

    const system = (orgId?: string): Promise<Response> =>
      fetch(`${srv.url}/loki/api/v1/label/service_name/values?${new URLSearchParams(window())}`, { headers: { 'x-svc-api-key': SYSTEM_KEY, ...(orgId ? { 'x-scope-orgid': orgId } : {}) } });
    expect(((await (await system(srv.orgId)).json()) as { data: string[] }).data).toEqual(['checkout', 'search']);
    expect(((await (await system(other.id)).json()) as { data: string[] }).data).toEqual([]);
    expect((await system()).status).toBe(400);
    expect((await system('no-such-org')).status).toBe(404);
    expect((await fetch(`${srv.url}/loki/api/v1/labels`)).status).toBe(401);
  });

  it('reports build info', async () => {
    const info = (await (await get('/loki/api/v1/status/buildinfo', {})).json()) as { version: string };
    expect(info.version).toMatch(/^\d+\.\d+\.\d+/);
  });
});
