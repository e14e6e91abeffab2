import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { encodeRemoteWriteBody, type TimeSeriesInput } from '../../engine/ingest/encode/remoteWrite.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { connectMcp, rpc, textOf } from '../support/mcpClient.js';
import { decodePng } from '../support/png.js';

const SYSTEM_KEY = 'system-key-for-gateway-tests-0123456789abcdef';
const NOW = Date.now();
const MIN = 60_000;

/** Two services: api serves 5xx at a steady share, payments logs a burst of errors. */
function metricsBody(): Uint8Array {
  const series: TimeSeriesInput[] = [];
  for (const [service, code, perMin] of [
    ['api', '200', 600],
    ['api', '500', 60],
    ['payments', '200', 120],
  ] as const) {
    const samples = [];
    for (let i = 60; i >= 0; i--) samples.push({ value: (60 - i) * perMin, timestamp: NOW - i * MIN });
    series.push({
      labels: [
        { name: '__name__', value: 'http_requests_total' },
        { name: 'service_name', value: service },
        { name: 'code', value: code },
      ],
      samples,
    });
  }
  return encodeRemoteWriteBody({ timeseries: series, metadata: [{ type: 'counter', metricFamilyName: 'http_requests_total', help: 'Requests served.' }] });
}

function logsBody(): string {
  const streams = [];
  const payments: Array<[string, string]> = [];
  for (let i = 0; i < 40; i++) {
    payments.push([String(BigInt(NOW - (40 - i) * 30_000) * 1_000_000n), `charge failed for order ${1000 + i}: card declined by issuer ${i % 3}`]);
  }
  streams.push({ stream: { service_name: 'payments', level: 'error' }, values: payments });
  const info: Array<[string, string]> = [];
  for (let i = 0; i < 20; i++) info.push([String(BigInt(NOW - (20 - i) * 60_000) * 1_000_000n), `served GET /items/${i} in ${10 + i}ms`]);
  streams.push({ stream: { service_name: 'api', level: 'info' }, values: info });
  return JSON.stringify({ streams });
}

describe('tool gateway over HTTP with the MCP SDK client', () => {
  let srv: TestServer;
  let otherOrg: string;
  let otherKey: string;
  const clients: Client[] = [];
  const connect = async (driver: string, key = srv.key, org = srv.orgId, headers: Record<string, string> = {}): Promise<Client> => {
    const c = await connectMcp(srv.url, org, driver, key, headers);
    clients.push(c);
    return c;
  };
  const mcpUrl = (driver: string, org = srv.orgId): string => `${srv.url}/api/orgs/${org}/integrations/${driver}/mcp`;

  beforeAll(async () => {
    srv = await startTestServer({ SVC_MCP_API_KEY: SYSTEM_KEY });
    const other = await srv.admin.createOrg('other-org');
    otherOrg = other.id;
    otherKey = (await srv.admin.createKey(other.id, 'k')).key;
    const headers = { 'x-svc-api-key': srv.key };
    const w = await fetch(`${srv.url}/api/v1/write`, { method: 'POST', headers: { ...headers, 'content-type': 'application/x-protobuf', 'content-encoding': 'snappy' }, body: metricsBody() });
    expect(w.status).toBe(204);
    const l = await fetch(`${srv.url}/loki/api/v1/push`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: logsBody() });
    expect(l.status).toBe(204);
  });

  afterAll(async () => {
    for (const c of clients) await c.close().catch(() => {});
    await srv?.stop();
  });

  it('keeps /api/health open and plain', async () => {
    const res = await fetch(`${srv.url}/api/health`);
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('ok');
  });

  it('discovers the active integrations of an org, by header, query parameter or system key', async () => {
    const byHeader = await fetch(`${srv.url}/api/orgs/${srv.orgId}/integrations`, { headers: { 'X-SVC-API-KEY': srv.key } });
    expect(byHeader.status).toBe(200);
    const body = (await byHeader.json()) as { integrations: Array<{ type: string }> };
    expect(body.integrations.map((i) => i.type)).toEqual(['telemetry', 'common']);
    const byQuery = await fetch(`${srv.url}/api/orgs/${srv.orgId}/integrations?apiKey=${encodeURIComponent(srv.key)}`);
    expect(byQuery.status).toBe(200);
    const bySystem = await fetch(`${srv.url}/api/orgs/${otherOrg}/integrations`, { headers: { 'x-svc-api-key': SYSTEM_KEY } });
    expect(bySystem.status).toBe(200);
    // The query parameter never reaches a log line.
    expect(srv.logs.text()).not.toContain(srv.key);
  });

  it('answers auth failures as the spec words them', async () => {
    const missing = await fetch(`${srv.url}/api/orgs/${srv.orgId}/integrations`);
    expect(missing.status).toBe(401);
    expect(((await missing.json()) as { message: string }).message).toMatch(/^Unauthorized: missing API key/);
    const mcpMissing = await rpc(mcpUrl('telemetry'), { jsonrpc: '2.0', id: 1, method: 'tools/list' }, { accept: 'application/json' });
    expect(mcpMissing.status).toBe(401);
    expect(((await mcpMissing.json()) as { message: string }).message).toMatch(/^Unauthorized: missing API key/);
    const wrongOrg = await fetch(`${srv.url}/api/orgs/${otherOrg}/integrations`, { headers: { 'x-svc-api-key': srv.key } });
    expect(wrongOrg.status).toBe(403);
    expect(((await wrongOrg.json()) as { message: string }).message).toMatch(/Forbidden/);
    const wrongOrgMcp = await rpc(mcpUrl('telemetry', otherOrg), { jsonrpc: '2.0', id: 1, method: 'tools/list' }, { 'x-svc-api-key': srv.key });
    expect(wrongOrgMcp.status).toBe(403);
    const badKey = await fetch(`${srv.url}/api/orgs/${srv.orgId}/integrations`, { headers: { 'x-svc-api-key': 'slk_nope' } });
    expect(badKey.status).toBe(401);
    const unknownDriver = await rpc(mcpUrl('nope'), { jsonrpc: '2.0', id: 1, method: 'tools/list' }, { 'x-svc-api-key': srv.key });
    expect(unknownDriver.status).toBe(404);
    // The system key and an org this installation does not have: an empty discovery, a Forbidden call.
    const stranger = '00000000-0000-4000-8000-000000000000';
    const emptyDiscovery = await fetch(`${srv.url}/api/orgs/${stranger}/integrations`, { headers: { 'x-svc-api-key': SYSTEM_KEY } });
    expect(await emptyDiscovery.json()).toEqual({ integrations: [] });
    const strangerCall = await rpc(mcpUrl('telemetry', stranger), { jsonrpc: '2.0', id: 1, method: 'tools/list' }, { 'x-svc-api-key': SYSTEM_KEY });
    expect(strangerCall.status).toBe(403);
    expect(((await strangerCall.json()) as { message: string }).message).toMatch(/^Forbidden: /);
  });

  it('serves tools/list per driver with schemas, annotations and a small definition size', async () => {
    const telemetry = await connect('telemetry');
    const { tools } = await telemetry.listTools();
    const names = tools.map((t) => t.name).sort();
    expect(names).toEqual(
      ['error_overview', 'explain_query', 'find_metrics', 'list_labels', 'list_series', 'list_services', 'log_patterns', 'metric_metadata', 'query_dashboard_panel', 'query_logs', 'query_metrics', 'validate_query'].sort(),
    );
    for (const t of tools) {
      expect(t.description!.length).toBeGreaterThan(20);
      expect(t.inputSchema.type).toBe('object');
      expect(t.outputSchema, t.name).toBeDefined();
      expect(t.annotations?.readOnlyHint).toBe(true);
      expect(t.annotations?.title).toBeTruthy();
    }
    // The whole list must stay cheap to keep in an agent's context: under ~4k tokens (4 chars each).
    expect(JSON.stringify(tools).length / 4).toBeLessThan(4000);
    const common = await connect('common');
    const commonTools = (await common.listTools()).tools.map((t) => t.name).sort();
    expect(commonTools).toEqual(['current_time', 'render_chart', 'resolve_time_range']);
    expect(JSON.stringify((await common.listTools()).tools).length / 4).toBeLessThan(4000);
  });

  it('query_metrics summarises each series and agrees with the query API', async () => {
    const client = await connect('telemetry');
    const q = 'sum by (service_name) (rate(http_requests_total{code=~"5.."}[5m]))';
    const result = await client.callTool({ name: 'query_metrics', arguments: { query: q, start: 'now-30m' } });
    expect(result.isError).toBeFalsy();
    const text = textOf(result);
    expect(text).toContain('min,max,avg,last,trend,series');
    expect(text).toContain('1,1,1,1,flat,{service_name="api"}');
    const structured = result.structuredContent as { series: Array<{ labels: Record<string, string>; last: number; avg: number }> };
    expect(structured.series).toHaveLength(1);
    // 60 requests per minute of 5xx = 1 per second.
    expect(structured.series[0].last).toBeCloseTo(1, 6);
    const sse = await fetch(`${srv.url}/api/v1/metrics/query`, {
      method: 'POST',
      headers: { 'x-svc-api-key': srv.key, 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ q, s: 'now-30m', summary: true }),
    });
    const raw = await sse.text();
    const summary = raw
      .split('\n')
      .filter((l) => l.startsWith('data: '))
      .map((l) => JSON.parse(l.slice(6)) as { type: string; data: { avg?: number; max?: number } })
      .find((e) => e.type === 'result')!;
    expect(structured.series[0].avg).toBeCloseTo(summary.data.avg!, 9);
  });

  it('query_metrics gives points on request and hints with the closest names when empty', async () => {
    const client = await connect('telemetry');
    const points = await client.callTool({ name: 'query_metrics', arguments: { query: 'sum(rate(http_requests_total[5m]))', start: 'now-10m', step: 60, points: true } });
    const series = (points.structuredContent as { series: Array<{ points: Array<number | null> }> }).series;
    expect(series[0].points.length).toBe(11);
    const typo = await client.callTool({ name: 'query_metrics', arguments: { query: 'rate(http_request_total[5m])' } });
    expect(textOf(typo)).toContain('http_requests_total');
    const badValue = await client.callTool({ name: 'query_metrics', arguments: { query: 'rate(http_requests_total{service_name="paymnts"}[5m])' } });
    expect(textOf(badValue)).toMatch(/closest: "payments"/);
    const parse = await client.callTool({ name: 'query_metrics', arguments: { query: 'sum(rate(x[5m])' } });
    expect(parse.isError).toBe(true);
    expect(textOf(parse)).toMatch(/1:\d+: parse error/);
  });

  it('query_logs returns compact rows with the tags that vary, pages by cursor and counts like the query API', async () => {
    const client = await connect('telemetry');
    const first = await client.callTool({ name: 'query_logs', arguments: { query: '{service_name="payments"}', limit: 15, start: 'now-1h' } });
    const page1 = first.structuredContent as { rows: string[][]; columns: string[]; common: Record<string, string>; truncated: boolean; nextCursor: string };
    expect(page1.common).toEqual({ level: 'error', service_name: 'payments' });
    expect(page1.columns).toEqual(['time', 'message']);
    expect(page1.rows).toHaveLength(15);
    expect(page1.truncated).toBe(true);
    const second = await client.callTool({ name: 'query_logs', arguments: { query: '{service_name="payments"}', limit: 15, start: 'now-1h', cursor: page1.nextCursor } });
    const page2 = second.structuredContent as { rows: string[][] };
    const all = [...page1.rows, ...page2.rows].map((r) => r[1]);
    expect(new Set(all).size).toBe(30);
    expect(page2.rows[0][0] <= page1.rows[14][0]).toBe(true);
    const count = await client.callTool({ name: 'query_logs', arguments: { query: 'sum(count_over_time({service_name="payments"}[1h]))', start: 'now', end: 'now' } });
    expect((count.structuredContent as { series: Array<{ last: number }> }).series[0].last).toBe(40);
    const budget = await client.callTool({ name: 'query_logs', arguments: { query: '{service_name=~".+"}', limit: 2000, maxTokens: 500 } });
    const cut = budget.structuredContent as { returned: number; truncated: boolean };
    expect(cut.truncated).toBe(true);
    expect(cut.returned).toBeLessThan(60);
    expect(textOf(budget).length / 4).toBeLessThan(700);
  });

  it('lists services, labels, series, metrics and metadata', async () => {
    const client = await connect('telemetry');
    const services = await client.callTool({ name: 'list_services', arguments: {} });
    expect(textOf(services)).toContain('payments (logs, metrics)');
    const keys = await client.callTool({ name: 'list_labels', arguments: { signal: 'metrics' } });
    expect((keys.structuredContent as { items: string[] }).items).toEqual(expect.arrayContaining(['__name__', 'code', 'service_name']));
    const values = await client.callTool({ name: 'list_labels', arguments: { signal: 'logs', label: 'level' } });
    expect((values.structuredContent as { items: string[] }).items).toEqual(['error', 'info']);
    const missingKey = await client.callTool({ name: 'list_labels', arguments: { signal: 'logs', label: 'servce_name' } });
    expect(textOf(missingKey)).toContain('service_name');
    const series = await client.callTool({ name: 'list_series', arguments: { signal: 'metrics', match: 'http_requests_total{service_name="api"}' } });
    expect((series.structuredContent as { items: unknown[] }).items).toHaveLength(2);
    const found = await client.callTool({ name: 'find_metrics', arguments: { search: 'requests' } });
    expect(textOf(found)).toContain('http_requests_total,counter');
    const meta = await client.callTool({ name: 'metric_metadata', arguments: { metric: 'http_requests_total' } });
    expect(meta.structuredContent).toMatchObject({ metric: 'http_requests_total', type: 'counter', series: 3, labels: { code: 2, service_name: 2 } });
  });

  it('validates and explains queries', async () => {
    const client = await connect('telemetry');
    const ok = await client.callTool({ name: 'validate_query', arguments: { language: 'promql', query: 'sum by(code)(rate(http_requests_total[5m]))' } });
    expect(ok.structuredContent).toMatchObject({ valid: true, kind: 'vector', canonical: 'sum by (code) (rate(http_requests_total[5m]))' });
    const bad = await client.callTool({ name: 'validate_query', arguments: { language: 'logql', query: '{service_name="x"} |= ' } });
    expect(bad.structuredContent).toMatchObject({ valid: false });
    expect(textOf(bad)).toMatch(/^invalid: 1:\d+:/);
    const explain = await client.callTool({ name: 'explain_query', arguments: { language: 'promql', query: 'rate(http_requests_total{service_name="api"}[5m])' } });
    const plan = explain.structuredContent as { selectors: Array<{ matching: number; scanUpTo: number }>; estimatedSamples: number; structure: string[] };
    expect(plan.selectors[0].matching).toBe(2);
    expect(plan.structure).toEqual([
      'Call: rate(http_requests_total{service_name="api"}[5m])',
      '  MatrixSelector: http_requests_total{service_name="api"}[5m]',
      '    VectorSelector: http_requests_total{service_name="api"}',
    ]);
    expect(plan.estimatedSamples).toBeGreaterThan(0);
  });

  it('summarises errors per service and mines log patterns', async () => {
    const client = await connect('telemetry');
    const overview = await client.callTool({ name: 'error_overview', arguments: { start: 'now-1h' } });
    const services = (overview.structuredContent as { services: Array<{ service: string; errorLines: number; http5xxShare: number | null; topErrors: Array<{ template: string; count: number }> }> }).services;
    const payments = services.find((s) => s.service === 'payments')!;
    expect(payments.errorLines).toBe(40);
    expect(payments.topErrors[0].count).toBe(40);
    const api = services.find((s) => s.service === 'api')!;
    expect(api.http5xxShare).toBeCloseTo(60 / 660, 3);
    const patterns = await client.callTool({ name: 'log_patterns', arguments: { query: '{service_name="payments"}' } });
    const mined = (patterns.structuredContent as { patterns: Array<{ template: string; count: number }> }).patterns;
    expect(mined).toHaveLength(1);
    expect(mined[0].count).toBe(40);
    expect(mined[0].template).toContain('<*>');
  });

  it('offers prompts for common investigations', async () => {
    const client = await connect('telemetry');
    const { prompts } = await client.listPrompts();
    expect(prompts.map((p) => p.name).sort()).toEqual(['error_spike', 'missing_data', 'service_health']);
    const health = await client.getPrompt({ name: 'service_health', arguments: { service: 'api' } });
    expect(JSON.stringify(health.messages)).toContain('error_overview');
  });

  it('common resolves times and renders a chart as a PNG of the asked size', async () => {
    const client = await connect('common');
    const now = await client.callTool({ name: 'current_time', arguments: {} });
    expect(Math.abs((now.structuredContent as { epochMs: number }).epochMs - Date.now())).toBeLessThan(5000);
    const range = await client.callTool({ name: 'resolve_time_range', arguments: { start: '2026-01-01T00:00:00Z', end: '1767229200' } });
    expect(range.structuredContent).toMatchObject({ startMs: Date.parse('2026-01-01T00:00:00Z'), endMs: 1767229200_000, stepSeconds: 60 });
    const chart = await client.callTool({ name: 'render_chart', arguments: { query: 'sum by (code) (rate(http_requests_total[5m]))', width: 640, height: 320, unit: 'req/s' } });
    const image = (chart.content as Array<{ type: string; data?: string; mimeType?: string }>).find((c) => c.type === 'image')!;
    expect(image.mimeType).toBe('image/png');
    const png = Buffer.from(image.data!, 'base64');
    expect(png.subarray(1, 4).toString()).toBe('PNG');
    const decoded = decodePng(png);
    expect([decoded.width, decoded.height]).toEqual([640, 320]);
    // Not blank: a real share of the pixels is not the white background, in several colours.
    let inked = 0;
    const colours = new Set<number>();
    for (let i = 0; i < decoded.rgba.length; i += 4) {
      const [r, g, b] = [decoded.rgba[i], decoded.rgba[i + 1], decoded.rgba[i + 2]];
      if (r < 240 || g < 240 || b < 240) inked++;
      colours.add((r << 16) | (g << 8) | b);
    }
    expect(inked / (640 * 320)).toBeGreaterThan(0.01);
    expect(colours.size).toBeGreaterThan(8);
    expect(chart.structuredContent).toMatchObject({ seriesTotal: 2, drawn: 2, width: 640, height: 320 });
  });

  it('speaks batched JSON-RPC, answers JSON or SSE as Accept asks, and refuses GET and DELETE as a stateless server', async () => {
    const headers = { 'x-svc-api-key': srv.key };
    const batch = [
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'current_time', arguments: {} } },
      { jsonrpc: '2.0', id: 2, method: 'tools/list' },
    ];
    const asJson = await rpc(mcpUrl('common'), batch, { ...headers, accept: 'application/json' });
    expect(asJson.status).toBe(200);
    expect(asJson.headers.get('content-type')).toContain('application/json');
    const answers = (await asJson.json()) as Array<{ id: number; result: unknown }>;
    expect(answers.map((a) => a.id).sort()).toEqual([1, 2]);
    const asSse = await rpc(mcpUrl('common'), { jsonrpc: '2.0', id: 7, method: 'tools/list' }, { ...headers, accept: 'text/event-stream' });
    expect(asSse.headers.get('content-type')).toContain('text/event-stream');
    const sseText = await asSse.text();
    expect(sseText).toMatch(/data: .*"id":7/);
    for (const method of ['GET', 'DELETE']) {
      const res = await fetch(mcpUrl('common'), { method, headers });
      expect(res.status).toBe(405);
      expect(res.headers.get('allow')).toBe('POST');
    }
  });

  it('answers through the system key for any org, and an org key for its own only', async () => {
    const system = await connect('telemetry', SYSTEM_KEY, srv.orgId);
    const services = await system.callTool({ name: 'list_services', arguments: {} });
    expect(textOf(services)).toContain('payments');
    const other = await connect('telemetry', otherKey, otherOrg);
    const empty = await other.callTool({ name: 'list_services', arguments: {} });
    expect((empty.structuredContent as { items: unknown[] }).items).toEqual([]);
  });

  it('a disabled integration leaves discovery and its calls succeed empty; kube needs a cluster', async () => {
    const now = new Date().toISOString();
    await srv.service.store.putIntegration({ orgId: otherOrg, driver: 'telemetry', enabled: false, updatedAt: now });
    const listed = (await (await fetch(`${srv.url}/api/orgs/${otherOrg}/integrations`, { headers: { 'x-svc-api-key': otherKey } })).json()) as { integrations: Array<{ type: string }> };
    expect(listed.integrations.map((i) => i.type)).toEqual(['common']);
    const client = await connect('telemetry', otherKey, otherOrg);
    const call = await client.callTool({ name: 'query_logs', arguments: { query: '{service_name="x"}' } });
    expect(call.isError).toBeFalsy();
    expect(call.structuredContent).toMatchObject({ results: [] });
    expect(textOf(call)).toContain('disabled');
  });
});
