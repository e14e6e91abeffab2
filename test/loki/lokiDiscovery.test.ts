import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, waitFor, type TestServer } from '../support/server.js';

/**
 * What Grafana's Logs Drilldown and log volume histogram read from the Loki API, over the real
 * server: detected_level on lines pushed without a level, index/volume and volume_range,
 * detected_labels, detected_fields with their values, patterns, and format_query.
 */

const BASE_NS = BigInt(Date.now() - 10 * 60_000) * 1_000_000n;
const SYSTEM_KEY = 'system-key-for-loki-discovery-tests-0123456789abcdef';

const PAYMENT_LINES = [
  '{"level":"error","msg":"card declined","amount":12.5}',
  '{"level":"error","msg":"card declined","amount":3.25}',
  'ts=1 level=warn duration=12ms status=200 user=alice msg="slow call"',
  'ts=2 level=warn duration=40ms status=500 user=bob msg="slow call"',
  'retrying [ERROR] upstream reset',
];
const WEB_LINES = ['GET /index.html 200', 'GET /app.js 200', 'GET /missing 404'];

interface Sample {
  metric: Record<string, string>;
  value?: [number, string];
  values?: Array<[number, string]>;
}

/** bytesOf is the byte size of lines, what volumes add up. */
const bytesOf = (lines: readonly string[]): number => lines.reduce((n, line) => n + Buffer.byteLength(line), 0);

describe('Loki discovery endpoints', () => {
  let srv: TestServer;
  const get = async (path: string, params: Record<string, string>): Promise<{ status: number; body: any }> => {
    const res = await fetch(`${srv.url}${path}?${new URLSearchParams(params)}`, { headers: { 'x-svc-api-key': srv.key } });
    const text = await res.text();
    return { status: res.status, body: res.headers.get('content-type')?.startsWith('application/json') ? JSON.parse(text) : text };
  };
  const window = (): Record<string, string> => ({ start: String(BASE_NS - 60_000_000_000n), end: String(BASE_NS + 60_000_000_000n) });

  beforeAll(async () => {
    srv = await startTestServer({ SVC_MCP_API_KEY: SYSTEM_KEY });
    const values = (lines: string[]): Array<[string, string]> => lines.map((line, i) => [String(BASE_NS + BigInt(i) * 1_000_000_000n), line]);
    const body = {
      streams: [
        { stream: { service_name: 'payments', cluster: 'eu' }, values: values(PAYMENT_LINES) },
        { stream: { service_name: 'web', cluster: 'eu', level: 'info' }, values: values(WEB_LINES) },
      ],
    };
    const res = await fetch(`${srv.url}/loki/api/v1/push`, { method: 'POST', body: JSON.stringify(body), headers: { 'x-svc-api-key': srv.key, 'content-type': 'application/json' } });
    expect(res.status).toBe(204);
  });

  afterAll(async () => {
    await srv?.stop();
  });

  it("gives Grafana's log volume query volumes by level for lines pushed without a level", async () => {
    const start = BASE_NS / 1_000_000_000n;
    const q = 'sum by (level, detected_level) (count_over_time({service_name="payments"} | drop __error__ [1m]))';
    const { body } = await get('/loki/api/v1/query_range', { query: q, start: String(start), end: String(start + 60n), step: '60s' });
    const counts = Object.fromEntries((body.data.result as Sample[]).map((s) => [`${s.metric.level}/${s.metric.detected_level}`, s.values!.at(-1)![1]]));
    // JSON field, logfmt field, then the [ERROR] keyword of a plain line.
    expect(counts).toEqual({ 'error/error': '3', 'warn/warn': '2' });
  });

  it('shows detected_level with the stream labels, and not on lines whose level was labelled', async () => {
    const { body } = await get('/loki/api/v1/query_range', { query: '{cluster="eu"}', limit: '100', ...window() });
    const streams = body.data.result as Array<{ stream: Record<string, string>; values: unknown[] }>;
    const payments = streams.filter((s) => s.stream.service_name === 'payments');
    expect(payments.map((s) => s.stream.detected_level).sort()).toEqual(['error', 'warn']);
    const web = streams.filter((s) => s.stream.service_name === 'web');
    expect(web).toHaveLength(1);
    expect(web[0].stream).toEqual({ service_name: 'web', cluster: 'eu', level: 'info' });
  });

  it("leaves level and detected_level off for an org whose discoverLogLevels is off, and shows metadata repeating a stream label as <name>_extracted", async () => {
    const org = await srv.admin.createOrg('no-level-discovery');
    const { key } = await srv.admin.createKey(org.id, 'k');
    const settings = await fetch(`${srv.url}/api/admin/orgs/${org.id}/settings`, {
      method: 'PATCH',
      body: JSON.stringify({ discoverLogLevels: false }),
      headers: { 'x-svc-api-key': SYSTEM_KEY, 'content-type': 'application/json' },
    });
    expect(settings.status).toBe(200);
    expect(((await settings.json()) as { settings: Record<string, { value: number; source: string }> }).settings.discoverLogLevels).toMatchObject({ value: 0, source: 'org' });
    const body = {
      streams: [
        {
          stream: { service_name: 'payments', cluster: 'eu' },
          values: PAYMENT_LINES.map((line, i) => [String(BASE_NS + BigInt(i) * 1_000_000_000n), line, { cluster: 'us', trace_id: `t${i}` }]),
        },
      ],
    };
    const headers = { 'x-svc-api-key': key };
    // The settings view reloads after the change; until it has, lines would still get a level.
    let streams: Array<{ stream: Record<string, string> }> = [];
    await waitFor(async () => {
      const res = await fetch(`${srv.url}/loki/api/v1/push`, { method: 'POST', body: JSON.stringify(body), headers: { ...headers, 'content-type': 'application/json' } });
      expect(res.status).toBe(204);
      const answer = await fetch(`${srv.url}/loki/api/v1/query_range?${new URLSearchParams({ query: '{service_name="payments"}', limit: '1000', ...window() })}`, { headers });
      streams = ((await answer.json()) as { data: { result: typeof streams } }).data.result;
      return streams.some((s) => s.stream.detected_level === undefined);
    }, 5000);
    const last = streams.filter((s) => s.stream.detected_level === undefined);
    expect(last.length).toBeGreaterThan(0);
    for (const s of last) {
      expect(s.stream.level).toBeUndefined();
      expect(s.stream).toMatchObject({ service_name: 'payments', cluster: 'eu', cluster_extracted: 'us' });
    }
    const volume = await fetch(`${srv.url}/loki/api/v1/query?${new URLSearchParams({ query: 'sum by (level, detected_level) (count_over_time({cluster="eu"} | cluster_extracted="us" | detected_level="" [10m]))', time: String(BASE_NS + 60_000_000_000n) })}`, { headers });
    const samples = ((await volume.json()) as { data: { result: Sample[] } }).data.result;
    expect(samples.map((s) => s.metric)).toEqual([{}]);
  });

  it('answers index/volume with the bytes per selector label, largest first, with targetLabels, aggregateBy and limit', async () => {
    const bySeries = await get('/loki/api/v1/index/volume', { query: '{service_name=~".+"}', ...window() });
    expect(bySeries.status).toBe(200);
    expect(bySeries.body.data.resultType).toBe('vector');
    const result = bySeries.body.data.result as Sample[];
    expect(result.map((s) => [s.metric, s.value![1]])).toEqual([
      [{ service_name: 'payments' }, String(bytesOf(PAYMENT_LINES))],
      [{ service_name: 'web' }, String(bytesOf(WEB_LINES))],
    ]);
    expect(result[0].value![0]).toBe(Number((BASE_NS + 60_000_000_000n) / 1_000_000n) / 1000);

    const targeted = await get('/loki/api/v1/index/volume', { query: '{service_name=~".+"}', targetLabels: 'cluster', ...window() });
    expect((targeted.body.data.result as Sample[]).map((s) => [s.metric, s.value![1]])).toEqual([[{ cluster: 'eu' }, String(bytesOf(PAYMENT_LINES) + bytesOf(WEB_LINES))]]);

    const byLabels = await get('/loki/api/v1/index/volume', { query: '{cluster="eu"}', aggregateBy: 'labels', targetLabels: 'service_name,level', ...window() });
    const labelVolumes = Object.fromEntries((byLabels.body.data.result as Sample[]).map((s) => [Object.keys(s.metric)[0], Number(s.value![1])]));
    expect(labelVolumes).toEqual({ service_name: bytesOf(PAYMENT_LINES) + bytesOf(WEB_LINES), level: bytesOf(PAYMENT_LINES) + bytesOf(WEB_LINES) });
    expect((byLabels.body.data.result as Sample[])[0].metric).toEqual({ level: '' });

    const limited = await get('/loki/api/v1/index/volume', { query: '{service_name=~".+"}', limit: '1', ...window() });
    expect((limited.body.data.result as Sample[]).map((s) => s.metric.service_name)).toEqual(['payments']);
  });

  it('answers index/volume_range with a matrix whose steps add up to the volume', async () => {
    const start = BASE_NS / 1_000_000_000n - 1n;
    const { status, body } = await get('/loki/api/v1/index/volume_range', { query: '{service_name="payments"}', start: String(start), end: String(start + 10n), step: '2s' });
    expect(status).toBe(200);
    expect(body.data.resultType).toBe('matrix');
    const series = body.data.result as Sample[];
    expect(series).toHaveLength(1);
    expect(series[0].metric).toEqual({ service_name: 'payments' });
    expect(series[0].values!.reduce((n, [, v]) => n + Number(v), 0)).toBe(bytesOf(PAYMENT_LINES));
  });

  it('refuses bad volume requests with 400', async () => {
    const bad: Array<Record<string, string>> = [{ query: '{service_name="payments"}', aggregateBy: 'streams' }, { query: 'count_over_time({service_name="payments"}[1m])' }, { query: '{service_name="payments"}', targetLabels: 'bad-name' },
      { query: '{service_name="payments"}', aggregateBy: 'labels', targetLabels: Array.from({ length: 51 }, (_, i) => `l${i}`).join(',') },
      {},
    ];
    for (const params of bad) {
      const { status, body } = await get('/loki/api/v1/index/volume', { ...window(), ...params });
      expect(status, JSON.stringify(params)).toBe(400);
      expect(typeof body.message, JSON.stringify(params)).toBe('string');
    }
  });

  it('lists detected labels with their cardinality from the stream index', async () => {
    const { body } = await get('/loki/api/v1/detected_labels', { query: '{cluster="eu"}', ...window() });
    const labels = Object.fromEntries((body.detectedLabels as Array<{ label: string; cardinality: number }>).map((l) => [l.label, l.cardinality]));
    expect(labels.service_name).toBe(2);
    expect(labels.cluster).toBe(1);
    expect(labels.detected_level).toBe(2);
  });

  it('lists detected fields with type, cardinality, parsers and JSON path, and the values of one field', async () => {
    const { status, body } = await get('/loki/api/v1/detected_fields', { query: '{service_name="payments"}', ...window() });
    expect(status).toBe(200);
    const fields = Object.fromEntries((body.fields as Array<{ label: string; parsers: string[] }>).map((f) => [f.label, f]));
    expect(fields.duration).toEqual({ label: 'duration', type: 'duration', cardinality: 2, parsers: ['logfmt'] });
    expect(fields.status).toEqual({ label: 'status', type: 'int', cardinality: 2, parsers: ['logfmt'] });
    expect(fields.amount).toEqual({ label: 'amount', type: 'float', cardinality: 2, parsers: ['json'], jsonPath: ['amount'] });
    // `level` is a label of every line, so the parsed field is renamed as the parsers rename it.
    expect(fields.level_extracted.parsers).toEqual(['json', 'logfmt']);
    expect(body.limit).toBe(1000);

    const values = await get('/loki/api/v1/detected_field/user/values', { query: '{service_name="payments"}', ...window() });
    expect(values.body).toEqual({ values: ['alice', 'bob'], limit: 1000 });
    const bad = await get('/loki/api/v1/detected_fields', { query: 'rate({service_name="payments"}[1m])', ...window() });
    expect(bad.status).toBe(400);
  });

  it('mines patterns with counts per step in Loki pattern syntax', async () => {
    const { status, body } = await get('/loki/api/v1/patterns', { query: '{service_name="web"}', step: '10s', ...window() });
    expect(status).toBe(200);
    const found = body.data as Array<{ pattern: string; level: string; samples: Array<[number, number]> }>;
    expect(found.length).toBeGreaterThanOrEqual(1);
    expect(found.reduce((n, p) => n + p.samples.reduce((m, [, c]) => m + c, 0), 0)).toBe(WEB_LINES.length);
    expect(found.some((p) => p.pattern.includes('<_>'))).toBe(true);
    expect(found[0].level).toBe('info');
  });

  it('formats a query, and refuses one that does not parse', async () => {
    const ok = await get('/loki/api/v1/format_query', { query: '{service_name =  "web"}|="GET"' });
    expect(ok.body).toEqual({ status: 'success', data: '{service_name="web"} |= "GET"' });
    const bad = await get('/loki/api/v1/format_query', { query: '{service_name=' });
    expect(bad.status).toBe(400);
  });
});
