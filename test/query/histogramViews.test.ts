/**
 * The plain-number views of query results over native histograms: the SSE summary, the tool
 * gateway's query_metrics lines and render_chart. A custom-bucket histogram series is written
 * through remote write 1.0 (encoded with protobufjs from the upstream .proto); every minute it
 * gains 60 observations at or below 0.1, 30 in (0.1, 0.5] and 10 in (0.5, 1], summing 19.5.
 * The expected figures are worked out here from those numbers, not by the server's code.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { snappyCompress } from '../../engine/ingest/index.js';
import { pbEncode, WriteRequest } from '../engine/ingest/protoTypes.js';
import { numberColumn, timesOf } from '../support/compactSse.js';
import { connectMcp, textOf } from '../support/mcpClient.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { query, readSse } from '../support/sse.js';

const MIN = 60_000;
const END_MS = Math.floor(Date.now() / MIN) * MIN;
const START_MS = END_MS - 60 * MIN;
const BOUNDS = [0.1, 0.5, 1];
const PER_MINUTE = [60, 30, 10, 0];
const SUM_PER_MINUTE = 60 * 0.05 + 30 * 0.3 + 10 * 0.75;

/** Percentiles of the per-minute distribution, interpolated linearly within a custom bucket (the first from 0). */
const EXPECTED = { p50: (0.1 * 50) / 60, p90: 0.5, p95: 0.5 + 0.5 * (5 / 10), p99: 0.5 + 0.5 * (9 / 10) };

function writeBody(): Uint8Array {
  const histograms = [];
  for (let t = START_MS, k = 0; t <= END_MS; t += MIN, k++) {
    histograms.push({
      countFloat: 100 * k,
      sum: SUM_PER_MINUTE * k,
      schema: -53,
      positiveSpans: [{ offset: 0, length: PER_MINUTE.length }],
      positiveCounts: PER_MINUTE.map((c) => c * k),
      customValues: BOUNDS,
      timestamp: String(t),
    });
  }
  const labels = [
    { name: '__name__', value: 'rpc_seconds' },
    { name: 'job', value: 'api' },
  ];
  return snappyCompress(pbEncode(WriteRequest, { timeseries: [{ labels, histograms }] }));
}

describe('native histograms in summaries and tool answers', () => {
  let srv: TestServer;
  const clients: Client[] = [];
  const connect = async (driver: string): Promise<Client> => {
    const c = await connectMcp(srv.url, srv.orgId, driver, srv.key);
    clients.push(c);
    return c;
  };

  beforeAll(async () => {
    srv = await startTestServer();
    const res = await fetch(`${srv.url}/api/v1/write`, {
      method: 'POST',
      headers: { 'x-svc-api-key': srv.key, 'content-type': 'application/x-protobuf', 'content-encoding': 'snappy' },
      body: writeBody(),
    });
    expect(res.status).toBe(204);
    expect(res.headers.get('x-prometheus-remote-write-histograms-written')).toBe('61');
  });

  afterAll(async () => {
    for (const c of clients) await c.close().catch(() => {});
    await srv?.stop();
  });

  it('summarise a histogram series by its observation counts, with percentiles and the mean observation', async () => {
    const s = END_MS - 30 * MIN;
    const res = await readSse(await query(srv.url, '/api/v1/metrics/query', srv.key, { q: 'rate(rpc_seconds[5m])', s: String(s), e: String(END_MS), step: 60, summary: true }));
    expect(res.status).toBe(200);
    const results = res.events.filter((e) => e.type === 'result');
    expect(results).toHaveLength(1);
    const data = results[0].data as Record<string, number | Record<string, string>>;
    expect(data.tags).toEqual({ job: 'api' });
    // 100 observations a minute is 100/60 a second at every step of the 31.
    expect(data.count).toBe(31);
    expect(data.min).toBeCloseTo(100 / 60, 9);
    expect(data.max).toBeCloseTo(100 / 60, 9);
    expect(data.avg).toBeCloseTo(100 / 60, 9);
    expect(data.sum).toBeCloseTo((31 * 100) / 60, 6);
    for (const [name, want] of Object.entries(EXPECTED)) expect(data[name], name).toBeCloseTo(want, 9);
    expect(data.observationAvg).toBeCloseTo(SUM_PER_MINUTE / 100, 9);
    expect(res.events.at(-1)).toEqual({ type: 'done', data: { status: 'ok' } });
  });

  it('give query_metrics the observation counts and a line of percentiles per histogram series', async () => {
    const client = await connect('telemetry');
    const result = await client.callTool({ name: 'query_metrics', arguments: { query: 'rate(rpc_seconds[5m])', start: 'now-30m' } });
    expect(result.isError).toBeFalsy();
    const text = textOf(result);
    expect(text).toContain('native histogram series: values are observation counts');
    expect(text).toMatch(/\n {2}observations: p50=0\.0833\d* p90=0\.5 p95=0\.75 p99=0\.95 mean=0\.195\n?/);
    const structured = result.structuredContent as { series: Array<{ avg: number; last: number; histogram?: { percentiles: Record<string, number>; mean?: number } }> };
    expect(structured.series).toHaveLength(1);
    const row = structured.series[0];
    expect(row.avg).toBeCloseTo(100 / 60, 9);
    expect(row.last).toBeCloseTo(100 / 60, 9);
    for (const [name, want] of Object.entries(EXPECTED)) expect(row.histogram?.percentiles[name], name).toBeCloseTo(want, 9);
    expect(row.histogram?.mean).toBeCloseTo(SUM_PER_MINUTE / 100, 9);
    // With points, the values on the grid are the counts too.
    const points = await client.callTool({ name: 'query_metrics', arguments: { query: 'rate(rpc_seconds[5m])', start: 'now-10m', step: 60, points: true } });
    const series = (points.structuredContent as { series: Array<{ points: Array<number | null> }> }).series;
    const drawn = series[0].points.filter((v): v is number => v !== null);
    expect(drawn.length).toBeGreaterThan(5);
    for (const v of drawn) expect(v).toBeCloseTo(100 / 60, 9);
  });

  it('draw histogram series in charts as observation counts and say so', async () => {
    const client = await connect('common');
    const result = await client.callTool({ name: 'render_chart', arguments: { query: 'rate(rpc_seconds[5m])', start: 'now-30m', width: 400, height: 200 } });
    expect(result.isError).toBeFalsy();
    expect(textOf(result)).toContain('1 native histogram series drawn as observation counts (histogram_count)');
    expect((result.structuredContent as { drawn: number }).drawn).toBe(1);
  });
});

describe('native histograms in the compact format', () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startTestServer();
    const res = await fetch(`${srv.url}/api/v1/write`, {
      method: 'POST',
      headers: { 'x-svc-api-key': srv.key, 'content-type': 'application/x-protobuf', 'content-encoding': 'snappy' },
      body: writeBody(),
    });
    expect(res.status).toBe(204);
  });
  afterAll(async () => {
    await srv?.stop();
  });

  it('carries the same histograms as the default events, in a histograms column', async () => {
    for (const q of ['rpc_seconds', 'rate(rpc_seconds[5m])', 'histogram_count(rate(rpc_seconds[5m]))']) {
      const body = { q, s: String(END_MS - 20 * MIN), e: String(END_MS), step: 60 };
      const events = await readSse(await query(srv.url, '/api/v1/metrics/query', srv.key, body));
      const want = new Map<number, unknown>();
      for (const e of events.events.filter((x) => x.type === 'result')) want.set(e.data.timestamp as number, e.data.histogram ?? e.data.value);
      expect(want.size, q).toBe(21);
      for (const columns of ['json', 'float64']) {
        const compact = await readSse(await query(srv.url, '/api/v1/metrics/query', srv.key, { ...body, format: 'compact', columns }));
        const got = new Map<number, unknown>();
        for (const e of compact.events.filter((x) => x.type === 'points')) {
          const cells = e.data.histograms !== undefined ? (e.data.histograms as unknown[]) : numberColumn(e.data.values as number[] | string);
          // Exactly one of the two columns.
          expect(e.data.histograms === undefined, q).toBe(e.data.values !== undefined);
          timesOf(e.data, cells.length).forEach((t, i) => got.set(t, cells[i]));
        }
        expect(got, `${q} ${columns}`).toEqual(want);
      }
      const first = want.get(END_MS);
      if (q === 'rpc_seconds') expect(first).toMatchObject({ count: 6000, sum: SUM_PER_MINUTE * 60 });
      if (q.startsWith('histogram_count')) expect(first).toBeCloseTo(100 / 60, 9);
    }
  });
});
