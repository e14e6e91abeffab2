import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeRemoteWriteBody } from '../../engine/ingest/encode/remoteWrite.js';
import { evaluateRange } from '../../engine/promql/eval/index.js';
import { parseAndCheckPromQL } from '../../engine/promql/index.js';
import { formatLabels } from '../../engine/storage/labels.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { query, readSse, type SseResponse } from '../support/sse.js';

const STEP_MS = 15_000;
const END_MS = Math.floor(Date.now() / STEP_MS) * STEP_MS;
const START_MS = END_MS - 3_600_000;

/**
 * writeDemoSeries writes an hour of counters and gauges at 15 s through remote write, only the
 * samples whose timestamps `keep` accepts.
 */
async function writeDemoSeries(srv: TestServer, keep: (t: number) => boolean = () => true): Promise<void> {
  const timeseries = [];
  for (const job of ['api', 'web']) {
    for (const code of ['200', '500']) {
      for (const instance of ['a', 'b', 'c']) {
        const samples = [];
        let total = 0;
        for (let t = START_MS, i = 0; t <= END_MS; t += STEP_MS, i++) {
          total += (code === '200' ? 10 : 1) + ((i * 7 + instance.charCodeAt(0)) % 5);
          if (keep(t)) samples.push({ value: total, timestamp: t });
        }
        timeseries.push({
          labels: [
            { name: '__name__', value: 'http_requests_total' },
            { name: 'job', value: job },
            { name: 'code', value: code },
            { name: 'instance', value: instance },
          ],
          samples,
        });
      }
    }
  }
  // A latency histogram: per minute, 60 observations at or below 0.1 s, 30 up to 0.5 s, 10 up to 1 s.
  const perStep: Record<string, number> = { '0.1': 60, '0.5': 90, '1': 100, '+Inf': 100 };
  for (const [le, inc] of Object.entries(perStep)) {
    const samples = [];
    for (let t = START_MS, i = 0; t <= END_MS; t += 60_000, i++) if (keep(t)) samples.push({ value: inc * i, timestamp: t });
    timeseries.push({ labels: [{ name: '__name__', value: 'latency_seconds_bucket' }, { name: 'job', value: 'api' }, { name: 'le', value: le }], samples });
  }
  const temperature = [{ value: 21.5, timestamp: END_MS - 60_000 }, { value: 22.5, timestamp: END_MS }].filter((p) => keep(p.timestamp));
  if (temperature.length > 0) timeseries.push({ labels: [{ name: '__name__', value: 'temperature' }], samples: temperature });
  const res = await fetch(`${srv.url}/api/v1/write`, {
    method: 'POST',
    body: encodeRemoteWriteBody({ timeseries }),
    headers: { 'x-svc-api-key': srv.key, 'content-type': 'application/x-protobuf' },
  });
  expect(res.status).toBe(204);
}

describe('POST /api/v1/metrics/query', () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startTestServer({ SVC_QUERY_WORKERS: '2' });
    // The first 40 minutes go to a segment, which workers read from shared memory; the rest
    // (and 5 minutes written twice) stays in the head, so queries merge both.
    const cutAt = START_MS + 40 * 60_000;
    await writeDemoSeries(srv, (t) => t < cutAt);
    await srv.service.storage.cut();
    expect(srv.service.storage.segments().filter((s) => s.signal === 'metrics')).toHaveLength(1);
    await writeDemoSeries(srv, (t) => t >= cutAt - 5 * 60_000);
  });
  afterAll(async () => {
    await srv.stop();
  });

  const run = async (body: Record<string, unknown>, headers: Record<string, string> = {}): Promise<SseResponse> =>
    readSse(await query(srv.url, '/api/v1/metrics/query', srv.key, body, headers));

  it('streams points with the spec headers, framing and a final done', async () => {
    const res = await run({ q: 'sum by (job) (rate(http_requests_total[5m]))', s: String(START_MS), e: String(END_MS), step: 60 });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    expect(res.headers.get('cache-control')).toBe('no-cache');
    expect(res.headers.get('connection')).toBe('keep-alive');
    expect(res.headers.get('x-svc-query-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.raw).toMatch(/^data: \{"type":"result","data":\{/);
    expect(res.raw.endsWith('data: {"type":"done","data":{"status":"ok"}}\n\n')).toBe(true);
    for (const block of res.raw.split('\n\n').slice(0, -1)) expect(block).toMatch(/^data: \{.*\}$/s);
    const results = res.events.filter((e) => e.type === 'result');
    // 61 steps per job, less the first: rate needs two samples and data starts at s.
    expect(results.length).toBe(2 * 60);
    const first = results[0].data;
    expect(Object.keys(first).sort()).toEqual(['label', 'tags', 'timestamp', 'value']);
    expect(first.label).toMatch(/^\{job="(api|web)"\}$/);
    expect(Number.isInteger(first.timestamp)).toBe(true);
    expect(res.events.at(-1)).toEqual({ type: 'done', data: { status: 'ok' } });
  });

  it('refuses a subquery finer than the sample budget before allocating its grid, and stays up', async () => {
    // 30 days at 1 ms is 2.6 billion inner steps: the grid alone would take tens of GB.
    const res = await run({ q: 'max_over_time(http_requests_total[30d:1ms])', s: String(END_MS), e: String(END_MS) });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'VALIDATION_FAILED', message: expect.stringContaining('too many samples') });
    expect((await fetch(`${srv.url}/api/health`)).status).toBe(200);
  });

  it('gives the same points as a single evaluation over the same data (parallel slices = one worker)', async () => {
    for (const q of ['sum by (job) (rate(http_requests_total[5m]))', 'http_requests_total{code="500"} - http_requests_total{code="500"} offset 10m', 'max_over_time(temperature[30m])', 'topk(2, http_requests_total)']) {
      const res = await run({ q, s: String(START_MS), e: String(END_MS), step: 15 });
      const got = new Map<string, number>();
      for (const e of res.events.filter((x) => x.type === 'result')) got.set(`${e.data.label as string}@${e.data.timestamp as number}`, e.data.value as number);
      const direct = evaluateRange(parseAndCheckPromQL(q), srv.service.storage.metrics(srv.orgId), START_MS, END_MS, STEP_MS);
      const want = new Map<string, number>();
      for (const s of direct.series) s.timestampsMs.forEach((t, i) => Number.isFinite(s.values[i]) && want.set(`${formatLabels(s.labels)}@${t}`, s.values[i]));
      expect(got.size, q).toBe(want.size);
      for (const [k, v] of want) expect(got.get(k), `${q} ${k}`).toBeCloseTo(v, 9);
    }
  });

  it('matches a single evaluation for random queries, windows and steps (property)', async () => {
    let seed = 12345;
    const rand = (): number => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    const pick = <T,>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)];
    const queries = [
      'sum by (job) (rate(http_requests_total[5m]))',
      'avg_over_time(http_requests_total{code="200"}[10m])',
      'max by (instance) (irate(http_requests_total[2m]))',
      'http_requests_total{job="web"} > bool 500',
      'count_over_time(temperature[30m])',
      'deriv(http_requests_total{instance="b"}[15m])',
      'sum(rate(http_requests_total[5m])) by (code) / ignoring(code) group_left sum(rate(http_requests_total[5m]))',
      'histogram_quantile(0.9, sum by (le) (rate(latency_seconds_bucket[5m])))',
      'max_over_time(rate(http_requests_total{job="api", code="500"}[5m])[10m:1m])',
    ];
    for (let i = 0; i < 25; i++) {
      const q = pick(queries);
      const stepS = pick([15, 30, 45, 60, 120, 300]);
      const startMs = START_MS + Math.floor(rand() * 40) * 60_000 + Math.floor(rand() * 60) * 1000;
      const endMs = Math.min(END_MS, startMs + Math.floor(rand() * 50 + 1) * 60_000);
      const res = await run({ q, s: String(startMs), e: String(endMs), step: stepS });
      expect(res.status, q).toBe(200);
      const got = new Map<string, number>();
      for (const e of res.events.filter((x) => x.type === 'result')) got.set(`${e.data.label as string}@${e.data.timestamp as number}`, e.data.value as number);
      const direct = evaluateRange(parseAndCheckPromQL(q), srv.service.storage.metrics(srv.orgId), startMs, endMs, stepS * 1000);
      const want = new Map<string, number>();
      for (const s of direct.series) s.timestampsMs.forEach((t, j) => Number.isFinite(s.values[j]) && want.set(`${formatLabels(s.labels)}@${t}`, s.values[j]));
      const context = `${q} [${startMs}, ${endMs}] step ${stepS}`;
      expect([...got.keys()].sort(), context).toEqual([...want.keys()].sort());
      for (const [k, v] of want) expect(got.get(k), `${context} ${k}`).toBeCloseTo(v, 9);
    }
  });

  it('sorts tag keys, writes integer tag values as JSON integers, and drops NaN and infinities', async () => {
    const res = await run({ q: 'http_requests_total{job="api", instance="a", code="200"}', s: String(END_MS - 60_000), e: String(END_MS), step: 60 });
    const tags = res.events[0].data.tags as Record<string, unknown>;
    expect(Object.keys(tags)).toEqual(['__name__', 'code', 'instance', 'job']);
    expect(tags.code).toBe(200);
    expect(res.raw).toContain('"code":200');
    const nan = await run({ q: 'temperature / 0 - temperature / 0', s: String(END_MS - 60_000), e: String(END_MS), step: 60 });
    expect(nan.events).toEqual([{ type: 'done', data: { status: 'ok' } }]);
    const inf = await run({ q: 'temperature / 0', s: String(END_MS - 60_000), e: String(END_MS), step: 60 });
    expect(inf.events.filter((e) => e.type === 'result')).toEqual([]);
  });

  it('writes only canonical integer tag values as JSON integers: -0, 007, +3 and 1e3 stay strings', async () => {
    const cases: Array<[string, string | number]> = [
      ['-0', '-0'],
      ['007', '007'],
      ['+3', '+3'],
      ['1e3', '1e3'],
      ['9007199254740993', '9007199254740993'],
      ['0', 0],
      ['-5', -5],
      ['42', 42],
    ];
    for (const [text, want] of cases) {
      const q = `label_replace(temperature, "v", "${text}", "__name__", ".*")`;
      const res = await run({ q, s: String(END_MS - 60_000), e: String(END_MS), step: 60 });
      const tags = res.events[0].data.tags as Record<string, unknown>;
      expect(tags.v, `tag value ${text}`).toBe(want);
      expect(res.raw).toContain(typeof want === 'number' ? `"v":${text}` : `"v":"${text}"`);
    }
  });

  it('derives the step from maxDataPoints and honours an explicit one', async () => {
    const auto = await run({ q: 'http_requests_total{job="api", code="200", instance="a"}', s: String(END_MS - 3_600_000), e: String(END_MS), maxDataPoints: 10 });
    const stamps = auto.events.filter((e) => e.type === 'result').map((e) => e.data.timestamp as number);
    expect(stamps.length).toBeLessThanOrEqual(10);
    expect(stamps.at(-1)! - stamps.at(-2)!).toBe(600_000);
    const explicit = await run({ q: 'http_requests_total{job="api", code="200", instance="a"}', s: String(END_MS - 3_600_000), e: String(END_MS), maxDataPoints: 10, step: 300 });
    expect(explicit.events.filter((e) => e.type === 'result')).toHaveLength(13);
  });

  it('returns per-series statistics when summary is true', async () => {
    const res = await run({ q: 'temperature', s: String(END_MS - 120_000), e: String(END_MS), step: 60, summary: true });
    const results = res.events.filter((e) => e.type === 'result');
    expect(results).toHaveLength(1);
    expect(results[0].data).toEqual({ label: 'temperature', tags: { __name__: 'temperature' }, min: 21.5, max: 22.5, avg: 22, sum: 44, count: 2 });
    expect(res.events.at(-1)).toEqual({ type: 'done', data: { status: 'ok' } });
  });

  it('adds percentiles to the summary of a histogram, from its bucket distribution', async () => {
    const res = await run({ q: 'latency_seconds_bucket - latency_seconds_bucket offset 1m', s: String(END_MS - 30 * 60_000), e: String(END_MS), step: 60, summary: true });
    const results = res.events.filter((e) => e.type === 'result');
    expect(results).toHaveLength(1);
    const data = results[0].data as Record<string, number | Record<string, unknown>>;
    expect(data.tags).toEqual({ job: 'api' });
    // Median: rank 50 of 100 lies in the first bucket (60 of 100 at or below 0.1 s).
    expect(data.p50).toBeCloseTo((0.1 * 50) / 60, 9);
    // 90th: rank 90 is the top of the 0.5 s bucket; 95th and 99th fall in (0.5, 1].
    expect(data.p90).toBeCloseTo(0.5, 9);
    expect(data.p95).toBeCloseTo(0.75, 9);
    expect(data.p99).toBeCloseTo(0.95, 9);
    expect(data.min).toBe(100);
    expect(data.max).toBe(100);
  });

  it('answers the error table before the stream starts', async () => {
    const cases: Array<[Record<string, unknown>, Record<string, string>, number, string]> = [
      [{}, {}, 400, 'BAD_REQUEST'],
      [{ q: 'sum(rate(x[5m])' }, {}, 400, 'INVALID_EXPR'],
      [{ q: 'rate(temperature)' }, {}, 422, 'COMPILE_ERROR'],
      [{ q: 'temperature[5m]' }, {}, 422, 'COMPILE_ERROR'],
      [{ q: 'temperature', s: 'now', e: 'now-1h' }, {}, 400, 'VALIDATION_FAILED'],
      [{ q: 'temperature', s: 'now-30d', step: 1 }, {}, 400, 'VALIDATION_FAILED'],
      [{ q: 'temperature' }, { accept: 'application/json' }, 406, 'SSE_UNSUPPORTED'],
      [{ q: 'temperature' }, { 'x-svc-api-key': 'slk_nope' }, 401, 'UNAUTHORIZED'],
    ];
    for (const [body, headers, status, code] of cases) {
      const res = await run(body, headers);
      expect(res.status, JSON.stringify(body)).toBe(status);
      expect(res.body).toMatchObject({ status, code });
    }
    const positioned = await run({ q: 'sum(rate(x[5m])' });
    expect(positioned.body?.position).toEqual({ start: expect.any(Number), end: expect.any(Number) });
    const get = await fetch(`${srv.url}/api/v1/metrics/query`, { headers: { 'x-svc-api-key': srv.key } });
    expect(get.status).toBe(405);
  });

  it('evaluates an evaluation-time failure as a JSON error when nothing was streamed yet', async () => {
    const res = await run({ q: 'http_requests_total + on(job) http_requests_total', s: String(END_MS - 60_000), e: String(END_MS), step: 60 });
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({ code: 'COMPILE_ERROR' });
  });
});
