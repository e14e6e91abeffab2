import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { encodeRemoteWriteBody, type TimeSeriesInput } from '../../engine/ingest/encode/remoteWrite.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { connectMcp } from '../support/mcpClient.js';
import { query, readSse } from '../support/sse.js';

/**
 * An instant query (SSE with s equal to e, the tool gateway at start equal to end, and the
 * Prometheus and Loki /query endpoints) is evaluated as one everywhere: the order sort(),
 * sort_desc(), topk() and bottomk() give survives each path, and LogQL's approx_topk is
 * accepted. Every path must answer the same series, in the same order, with the same values.
 */

const SYSTEM_KEY = 'system-key-for-instant-tests-0123456789abcdef';
/** AT is the instant every query is asked at: whole seconds, a minute ago. */
const AT = Math.floor(Date.now() / 1000) * 1000 - 60_000;
/** COUNTS are per value of label x: distinct, and neither alphabetical nor reversed alphabetical. */
const COUNTS: Record<string, number> = { a: 3, b: 7, c: 1, d: 5 };

/** Point is one series of an answer: its x label and value, in answer order. */
type Point = [x: string, value: number];

function metricsBody(): Uint8Array {
  const timeseries: TimeSeriesInput[] = Object.entries(COUNTS).map(([x, value]) => ({
    labels: [
      { name: '__name__', value: 'inst_gauge' },
      { name: 'x', value: x },
    ],
    samples: [60, 45, 30, 15, 0].map((back) => ({ value, timestamp: AT - back * 1000 })),
  }));
  return encodeRemoteWriteBody({ timeseries });
}

function logsBody(): string {
  const streams = Object.entries(COUNTS).map(([x, n]) => ({
    stream: { service_name: 'inst', x },
    values: Array.from({ length: n }, (_, i): [string, string] => [String(BigInt(AT - (i + 1) * 1000) * 1_000_000n), `line ${i} of ${x}`]),
  }));
  return JSON.stringify({ streams });
}

describe('instant queries keep the order and values of the query on every path', () => {
  let srv: TestServer;
  let client: Client;

  beforeAll(async () => {
    srv = await startTestServer({ SVC_MCP_API_KEY: SYSTEM_KEY });
    const headers = { 'x-svc-api-key': srv.key };
    const w = await fetch(`${srv.url}/api/v1/write`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/x-protobuf', 'content-encoding': 'snappy' },
      body: metricsBody(),
    });
    expect(w.status).toBe(204);
    const l = await fetch(`${srv.url}/loki/api/v1/push`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: logsBody() });
    expect(l.status).toBe(204);
    client = await connectMcp(srv.url, srv.orgId, 'telemetry', srv.key);
  });

  afterAll(async () => {
    await client?.close().catch(() => {});
    await srv?.stop();
  });

  /** viaSse asks the SSE endpoint with s = e = AT and reads the result events in stream order. */
  async function viaSse(path: '/api/v1/metrics/query' | '/api/v1/logs/query', q: string): Promise<Point[]> {
    const res = await readSse(await query(srv.url, path, srv.key, { q, s: String(AT), e: String(AT) }));
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.events.at(-1)?.type).toBe('done');
    const results = res.events.filter((e) => e.type === 'result').map((e) => e.data as { tags: Record<string, unknown>; value: number; timestamp: number });
    for (const r of results) expect(r.timestamp).toBe(AT);
    return results.map((r) => [String(r.tags.x), r.value]);
  }

  async function viaPrometheus(q: string): Promise<Point[]> {
    const res = await fetch(`${srv.url}/prometheus/api/v1/query?${new URLSearchParams({ query: q, time: String(AT / 1000) })}`, { headers: { 'x-svc-api-key': srv.key } });
    const body = (await res.json()) as { status: string; warnings?: string[]; data: { resultType: string; result: Array<{ metric: Record<string, string>; value: [number, string] }> } };
    expect(body.status, JSON.stringify(body)).toBe('success');
    expect(body.data.resultType).toBe('vector');
    // An instant query is no range query: sort() is effective and draws no warning.
    expect(body.warnings ?? []).toEqual([]);
    return body.data.result.map((r) => [r.metric.x, Number(r.value[1])]);
  }

  async function viaLoki(q: string): Promise<Point[]> {
    const params = new URLSearchParams({ query: q, time: String(BigInt(AT) * 1_000_000n) });
    const res = await fetch(`${srv.url}/loki/api/v1/query?${params}`, { headers: { 'x-svc-api-key': srv.key } });
    const body = (await res.json()) as { status: string; data: { resultType: string; result: Array<{ metric: Record<string, string>; value: [number, string] }> } };
    expect(body.status, JSON.stringify(body)).toBe('success');
    expect(body.data.resultType).toBe('vector');
    return body.data.result.map((r) => [r.metric.x, Number(r.value[1])]);
  }

  /** viaMcp runs the tool at start = end = AT and reads its structured series rows in order. */
  async function viaMcp(tool: 'query_metrics' | 'query_logs', q: string): Promise<Point[]> {
    const at = new Date(AT).toISOString();
    const result = await client.callTool({ name: tool, arguments: { query: q, start: at, end: at } });
    expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
    const structured = result.structuredContent as { series: Array<{ labels: Record<string, string>; last: number }> };
    return structured.series.map((s) => [s.labels.x, s.last]);
  }

  /** expected is COUNTS ordered as `order` says, cut to `k`. */
  function expected(order: 'asc' | 'desc', k = 4): Point[] {
    const points = Object.entries(COUNTS).sort((p, q) => (order === 'asc' ? p[1] - q[1] : q[1] - p[1]));
    return points.slice(0, k);
  }

  const LOGS = 'count_over_time({service_name="inst"}[5m])';

  it.each([
    [`sort_desc(sum by (x) (${LOGS}))`, expected('desc')],
    [`sort(sum by (x) (${LOGS}))`, expected('asc')],
    [`approx_topk(2, sum by (x) (${LOGS}))`, undefined],
  ])('LogQL %s: SSE and the tool gateway answer as /loki/api/v1/query', async (q, want) => {
    const loki = await viaLoki(q);
    if (want) expect(loki).toEqual(want);
    else expect(new Set(loki.map(([x]) => x))).toEqual(new Set(['b', 'd']));
    expect(await viaSse('/api/v1/logs/query', q)).toEqual(loki);
    expect(await viaMcp('query_logs', q)).toEqual(loki);
  });

  it.each([
    ['sort_desc(inst_gauge)', expected('desc')],
    ['sort(inst_gauge)', expected('asc')],
    ['topk(3, inst_gauge)', expected('desc', 3)],
    ['bottomk(2, inst_gauge)', expected('asc', 2)],
  ])('PromQL %s: SSE and the tool gateway answer as /prometheus/api/v1/query', async (q, want) => {
    const prom = await viaPrometheus(q);
    expect(prom).toEqual(want);
    expect(await viaSse('/api/v1/metrics/query', q)).toEqual(prom);
    expect(await viaMcp('query_metrics', q)).toEqual(prom);
  });

  it('refuses approx_topk over a range, with the JSON error on SSE and a tool error on the gateway', async () => {
    const q = `approx_topk(2, sum by (x) (${LOGS}))`;
    const sse = await readSse(await query(srv.url, '/api/v1/logs/query', srv.key, { q, s: String(AT - 600_000), e: String(AT) }));
    expect(sse.status).toBe(422);
    expect(JSON.stringify(sse.body)).toContain('approx_topk is only supported on instant queries');
    const result = await client.callTool({ name: 'query_logs', arguments: { query: q, start: new Date(AT - 600_000).toISOString(), end: new Date(AT).toISOString() } });
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toContain('approx_topk is only supported on instant queries');
  });

  it('keeps range queries ordered by labels with every step (s before e)', async () => {
    const res = await readSse(await query(srv.url, '/api/v1/metrics/query', srv.key, { q: 'sort_desc(inst_gauge)', s: String(AT - 30_000), e: String(AT), step: 15 }));
    expect(res.status).toBe(200);
    const results = res.events.filter((e) => e.type === 'result').map((e) => e.data as { tags: Record<string, unknown>; timestamp: number });
    // Three steps make one block of point events (POINT_BLOCK_STEPS): series by series in label order, each in time order.
    expect(results.map((r) => String(r.tags.x))).toEqual(['a', 'a', 'a', 'b', 'b', 'b', 'c', 'c', 'c', 'd', 'd', 'd']);
    expect(results.slice(0, 3).map((r) => r.timestamp)).toEqual([AT - 30_000, AT - 15_000, AT]);
  });
});
