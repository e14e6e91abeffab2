import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { encodeRemoteWriteBody, type TimeSeriesInput } from '../../engine/ingest/encode/remoteWrite.js';
import { connectMcp, textOf } from '../support/mcpClient.js';
import { startTestServer, type TestServer } from '../support/server.js';

const NOW = Date.now();
const SCRAPE = 15_000;

/** Two services counting requests for the last hour, scraped every 15s: api at 10/s, payments at 2/s. */
function metricsBody(): Uint8Array {
  const series: TimeSeriesInput[] = [];
  for (const [service, perSecond] of [
    ['api', 10],
    ['payments', 2],
  ] as const) {
    const samples = [];
    for (let i = 240; i >= 0; i--) samples.push({ value: ((240 - i) * perSecond * SCRAPE) / 1000, timestamp: NOW - i * SCRAPE });
    series.push({ labels: [{ name: '__name__', value: 'http_requests_total' }, { name: 'service_name', value: service }], samples });
  }
  return encodeRemoteWriteBody({ timeseries: series });
}

/** panelSpec is a dashboard whose panel uses built-ins and a dashboard variable, and links to `targets`. */
function panelSpec(targets: string[] = []): Record<string, unknown> {
  return {
    duration: '1h',
    variables: [{ name: 'service', kind: 'query', source: { signal: 'metrics', metric: 'http_requests_total', label: 'service_name' }, multi: true, defaultValue: ['api'] }],
    panels: {
      rate: {
        id: 'rate',
        kind: 'timeseries',
        title: 'Requests per second',
        queries: [
          { query: 'sum by (service_name) (rate(http_requests_total{service_name=~"$service"}[$__rate_interval]))' },
          { query: 'sum(increase(http_requests_total{service_name=~"$service"}[${__range}])) / $__range_s' },
        ],
        interlinks: targets.map((targetDashboardId) => ({ label: 'Open {{service_name}}', targetDashboardId, requiredLabels: ['service_name'], paramMap: { service: 'service_name' } })),
      },
    },
    sections: [{ title: 'Main', cells: [{ i: 'rate', x: 0, y: 0, w: 24, h: 8 }] }],
  };
}

interface Issue {
  rule: string;
  severity: string;
  path: string;
  message: string;
}

describe("Grafana's built-in variables and interlinks, on the real server", () => {
  let srv: TestServer;
  let client: Client;

  beforeAll(async () => {
    srv = await startTestServer();
    const w = await fetch(`${srv.url}/api/v1/write`, {
      method: 'POST',
      headers: { 'x-svc-api-key': srv.key, 'content-type': 'application/x-protobuf', 'content-encoding': 'snappy' },
      body: metricsBody(),
    });
    expect(w.status).toBe(204);
    client = await connectMcp(srv.url, srv.orgId, 'telemetry', srv.key);
  });
  afterAll(async () => {
    await client?.close().catch(() => {});
    await srv?.stop();
  });

  async function send(method: string, path: string, body: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
    const res = await fetch(`${srv.url}/api/orgs/${srv.orgId}/dashboards${path}`, {
      method,
      headers: { 'x-svc-api-key': srv.key, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  }

  it('creates a dashboard using built-ins without errors or warnings', async () => {
    const res = await send('POST', '?id=requests', panelSpec());
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.warnings).toEqual([]);
  });

  it('runs the panel over MCP with $__rate_interval and $__range filled from the window', async () => {
    const result = await client.callTool({ name: 'query_dashboard_panel', arguments: { dashboardId: 'requests', panelId: 'rate', start: 'now-1h' } });
    expect(result.isError, textOf(result)).toBeFalsy();
    const answer = result.structuredContent as {
      builtins: Record<string, string>;
      window: { stepSeconds: number };
      queries: Array<{ query: string; series: Array<{ labels: Record<string, string>; last: number }> }>;
    };
    // One hour at 100 points: 36s rounds to 30s, above the 15s floor; the rate window is max(30s + 15s, 4 × 15s).
    expect(answer.builtins).toEqual({ $__interval: '30s', $__rate_interval: '1m', $__range: '3600s' });
    expect(answer.window.stepSeconds).toBe(30);
    expect(answer.queries[0].query).toBe('sum by (service_name) (rate(http_requests_total{service_name=~"api"}[1m]))');
    expect(answer.queries[0].series.map((s) => s.labels)).toEqual([{ service_name: 'api' }]);
    expect(answer.queries[0].series[0].last).toBeCloseTo(10, 6);
    expect(answer.queries[1].query).toBe('sum(increase(http_requests_total{service_name=~"api"}[3600s])) / 3600');
    // The whole hour's increase per second: 36,000 requests over 3600s, give or take extrapolation at the edge.
    expect(answer.queries[1].series[0].last).toBeGreaterThan(9);
    expect(answer.queries[1].series[0].last).toBeLessThan(11);
  });

  it('fills a multi-value variable with the values given, as an alternation', async () => {
    const result = await client.callTool({
      name: 'query_dashboard_panel',
      arguments: { dashboardId: 'requests', panelId: 'rate', start: 'now-1h', variables: { service: ['api', 'payments'] }, maxDataPoints: 10 },
    });
    const answer = result.structuredContent as { builtins: Record<string, string>; queries: Array<{ query: string; series: Array<{ labels: Record<string, string>; last: number }> }> };
    // 360s rounds to 5m, so the rate window is 5m15s.
    expect(answer.builtins.$__rate_interval).toBe('5m15s');
    expect(answer.queries[0].query).toContain('service_name=~"(api|payments)"');
    const byService = Object.fromEntries(answer.queries[0].series.map((s) => [s.labels.service_name, s.last]));
    expect(byService.api).toBeCloseTo(10, 6);
    expect(byService.payments).toBeCloseTo(2, 6);
  });

  it('says which panel or dashboard is missing', async () => {
    const panel = await client.callTool({ name: 'query_dashboard_panel', arguments: { dashboardId: 'requests', panelId: 'nope' } });
    expect(panel.isError).toBe(true);
    expect(textOf(panel)).toContain('its panels are rate');
    const dashboard = await client.callTool({ name: 'query_dashboard_panel', arguments: { dashboardId: 'nope', panelId: 'rate' } });
    expect(dashboard.isError).toBe(true);
    expect(textOf(dashboard)).toContain('no dashboard "nope"');
    const badValue = await client.callTool({ name: 'query_dashboard_panel', arguments: { dashboardId: 'requests', panelId: 'rate', variables: { service: 3 } } });
    expect(badValue.isError).toBe(true);
    expect(textOf(badValue)).toMatch(/variables/);
  });

  it('warns about an interlink to a dashboard the org does not have, on create, replace and validate', async () => {
    const created = await send('POST', '?id=linking', panelSpec(['requests', 'missing-one']));
    expect(created.status).toBe(201);
    const expected = [
      expect.objectContaining({ rule: 'unknown-interlink-target', severity: 'warning', path: '$.panels.rate.interlinks[1].targetDashboardId', message: expect.stringContaining('"missing-one"') }),
    ];
    expect(created.body.warnings).toEqual(expected);
    const replaced = await send('PUT', '/linking', panelSpec(['missing-one', 'linking']));
    expect(replaced.status).toBe(200);
    expect((replaced.body.warnings as Issue[]).map((w) => w.path)).toEqual(['$.panels.rate.interlinks[0].targetDashboardId']);
    const validated = await send('POST', '/validate', panelSpec(['requests', 'missing-one']));
    expect(validated.body).toMatchObject({ valid: true, errors: [], warnings: expected });
  });

  it('finds nothing once every target exists, the dashboard itself included', async () => {
    expect((await send('POST', '?id=missing-one', panelSpec())).status).toBe(201);
    const replaced = await send('PUT', '/linking', panelSpec(['requests', 'missing-one', 'linking']));
    expect(replaced.status).toBe(200);
    expect(replaced.body.warnings).toEqual([]);
    expect((await send('POST', '/validate?id=linking', panelSpec(['linking']))).body.warnings).toEqual([]);
  });

  it('checks thousands of interlinks in bounded time, listing 100 warnings and counting the rest', async () => {
    const targets = Array.from({ length: 5000 }, (_, n) => `target-${n}`);
    const started = performance.now();
    const res = await send('POST', '/validate', panelSpec(['requests', ...targets]));
    const elapsedMs = performance.now() - started;
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ valid: true, truncated: { errors: 0, warnings: 4900 } });
    expect((res.body.warnings as Issue[]).length).toBe(100);
    expect((res.body.warnings as Issue[])[0].path).toBe('$.panels.rate.interlinks[1].targetDashboardId');
    expect(elapsedMs).toBeLessThan(5000);
  });
});
