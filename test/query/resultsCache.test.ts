import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeRemoteWriteBody } from '../../engine/ingest/encode/remoteWrite.js';
import { metricValue } from '../support/metrics.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { query, readSse } from '../support/sse.js';

/**
 * The results cache: a server with it on answers a dashboard exactly as a server with it off,
 * byte for byte (SSE and the Prometheus API), on the first load, on a repeat and on a refresh
 * whose window moved; late samples give the new answer; identical queries running together are
 * evaluated once; the cache stays within its budget; one org never sees another's pieces.
 */

const SERIES = 40;
const SCRAPE_MS = 15_000;
const STEP_S = 60;
const NOW_MS = Math.floor(Date.now() / 60_000) * 60_000;
const DATA_START_MS = NOW_MS - 3 * 3_600_000;
const WINDOW_START_MS = NOW_MS - 2.5 * 3_600_000;

/** A dashboard's panels: rates, aggregations, binary operators, offsets, subqueries and time(). */
const PANELS = [
  'sum by (job) (rate(http_requests_total[5m]))',
  'sum(rate(http_requests_total[1m]))',
  'max by (job) (http_requests_total)',
  'avg by (code) (rate(http_requests_total[5m]))',
  'count(http_requests_total)',
  'topk(3, rate(http_requests_total[5m]))',
  'sum by (instance) (increase(http_requests_total{job="job1"}[10m]))',
  'min_over_time(http_requests_total{job="job2"}[15m])',
  'http_requests_total{code="500"} - http_requests_total{code="500"} offset 10m',
  'max_over_time(sum(rate(http_requests_total[5m]))[30m:1m]) + time() * 0',
];

/** counterValue is series `i`'s counter at `t`, whole numbers so every sum is exact. */
function counterValue(i: number, t: number, scale: number): number {
  return Math.floor((t - DATA_START_MS) / SCRAPE_MS) * (1 + (i % 5)) * scale;
}

/** write sends samples of SERIES counters from `fromMs` to `toMs` through remote write. */
async function write(srv: TestServer, key: string, fromMs: number, toMs: number, scale = 1): Promise<void> {
  for (let from = fromMs; from <= toMs; from += 40 * SCRAPE_MS) {
    const timeseries = Array.from({ length: SERIES }, (_, i) => {
      const samples = [];
      for (let t = from; t < from + 40 * SCRAPE_MS && t <= toMs; t += SCRAPE_MS) samples.push({ value: counterValue(i, t, scale), timestamp: t });
      return {
        labels: [
          { name: '__name__', value: 'http_requests_total' },
          { name: 'code', value: String(200 + 100 * (i % 4)) },
          { name: 'instance', value: `host${i}` },
          { name: 'job', value: `job${i % 8}` },
        ],
        samples,
      };
    });
    await remoteWrite(srv, key, timeseries);
  }
}

async function remoteWrite(srv: TestServer, key: string, timeseries: Array<{ labels: Array<{ name: string; value: string }>; samples: Array<{ value: number; timestamp: number }> }>): Promise<void> {
  const res = await fetch(`${srv.url}/api/v1/write`, {
    method: 'POST',
    body: encodeRemoteWriteBody({ timeseries }),
    headers: { 'x-svc-api-key': key, 'content-type': 'application/x-protobuf' },
  });
  expect(res.status).toBe(204);
}

/** load writes three hours: the first two cut into segments, the last in the head. */
async function load(srv: TestServer, key: string, scale = 1): Promise<void> {
  await write(srv, key, DATA_START_MS, NOW_MS - 3_600_000 - SCRAPE_MS, scale);
  await srv.service.storage.cut();
  await write(srv, key, NOW_MS - 3_600_000, NOW_MS, scale);
}

/** pushLogs sends lines of two `api` streams, one every 30 s from `fromMs` to `toMs`, through Loki push. */
async function pushLogs(srv: TestServer, key: string, fromMs: number, toMs: number, text = 'request'): Promise<void> {
  const values: Record<string, Array<[string, string]>> = { info: [], error: [] };
  for (let t = fromMs, i = 0; t <= toMs; t += 30_000, i++) values[i % 5 === 0 ? 'error' : 'info'].push([`${t}000000`, `${text} ${i} took ${i % 17} ms`]);
  const streams = Object.entries(values).map(([level, v]) => ({ stream: { service_name: 'api', level }, values: v }));
  const res = await fetch(`${srv.url}/loki/api/v1/push`, { method: 'POST', body: JSON.stringify({ streams }), headers: { 'x-svc-api-key': key, 'content-type': 'application/json' } });
  expect(res.status).toBe(204);
}

/** logs runs a LogQL metric query over SSE and returns the stream's text without heartbeats. */
async function logs(srv: TestServer, q: string, startMs: number, endMs: number): Promise<string> {
  const res = await readSse(await query(srv.url, '/api/v1/logs/query', srv.key, { q, s: String(startMs), e: String(endMs), step: STEP_S }));
  expect(res.status, q).toBe(200);
  expect(res.events.at(-1), q).toEqual({ type: 'done', data: { status: 'ok' } });
  expect(res.events.filter((e) => e.type === 'result').length, q).toBeGreaterThan(0);
  return res.raw
    .split('\n\n')
    .filter((block) => !block.includes('"type":"heartbeat"'))
    .join('\n\n');
}

/** sse runs a metrics query and returns its stream's text without heartbeats (their timing varies). */
async function sse(srv: TestServer, key: string, q: string, startMs: number, endMs: number, step = STEP_S, summary = false): Promise<string> {
  const res = await readSse(await query(srv.url, '/api/v1/metrics/query', key, { q, s: String(startMs), e: String(endMs), step, summary }));
  expect(res.status, q).toBe(200);
  expect(res.events.at(-1), q).toEqual({ type: 'done', data: { status: 'ok' } });
  expect(res.events.filter((e) => e.type === 'result').length, q).toBeGreaterThan(0);
  return res.raw
    .split('\n\n')
    .filter((block) => !block.includes('"type":"heartbeat"'))
    .join('\n\n');
}

/** promRange runs /prometheus/api/v1/query_range and returns the body text. */
async function promRange(srv: TestServer, key: string, q: string, startMs: number, endMs: number): Promise<string> {
  const params = new URLSearchParams({ query: q, start: String(startMs / 1000), end: String(endMs / 1000), step: String(STEP_S) });
  const res = await fetch(`${srv.url}/prometheus/api/v1/query_range?${params}`, { headers: { 'x-svc-api-key': key } });
  const text = await res.text();
  expect(res.status, text).toBe(200);
  return text;
}

const cacheMetric = (srv: TestServer, name: string, labels = ''): Promise<number> =>
  metricValue(srv.url, new RegExp(`sluice_results_cache_${name}${labels.replace(/[{}]/g, '\\$&')} (\\d+(?:\\.\\d+)?(?:e\\+\\d+)?)`));

describe('results cache', () => {
  let cached: TestServer;
  let fresh: TestServer;
  let otherKey: string;
  let otherFreshKey: string;

  beforeAll(async () => {
    [cached, fresh] = await Promise.all([
      startTestServer({ SVC_QUERY_WORKERS: '1', SVC_HEAD_MAX_BYTES: '1GiB' }),
      startTestServer({ SVC_QUERY_WORKERS: '1', SVC_HEAD_MAX_BYTES: '1GiB', SVC_RESULTS_CACHE: 'false' }),
    ]);
    const other = await cached.admin.createOrg('other-team');
    otherKey = (await cached.admin.createKey(other.id, 'other')).key;
    const otherFresh = await fresh.admin.createOrg('other-team');
    otherFreshKey = (await fresh.admin.createKey(otherFresh.id, 'other')).key;
    await Promise.all([load(cached, cached.key), load(fresh, fresh.key)]);
  }, 120_000);
  afterAll(async () => {
    await Promise.all([cached?.stop(), fresh?.stop()]);
  });

  it('streams a dashboard byte for byte as a fresh evaluation: first load, repeat, and a refresh one step later', async () => {
    const partialBefore = await cacheMetric(cached, 'lookups_total', '{result="partial"}');
    for (const q of PANELS) {
      const want = await sse(fresh, fresh.key, q, WINDOW_START_MS, NOW_MS);
      expect(await sse(cached, cached.key, q, WINDOW_START_MS, NOW_MS), q).toBe(want);
      expect(await sse(cached, cached.key, q, WINDOW_START_MS, NOW_MS), q).toBe(want);
      const moved = await sse(fresh, fresh.key, q, WINDOW_START_MS + STEP_S * 1000, NOW_MS + STEP_S * 1000);
      expect(await sse(cached, cached.key, q, WINDOW_START_MS + STEP_S * 1000, NOW_MS + STEP_S * 1000), q).toBe(moved);
    }
    // Windows ending now always evaluate their newest minutes: the repeats are partial hits.
    expect(await cacheMetric(cached, 'lookups_total', '{result="partial"}')).toBeGreaterThan(partialBefore);
    expect(await cacheMetric(cached, 'steps_total', '{source="cache"}')).toBeGreaterThan(0);
    expect(await cacheMetric(cached, 'bytes')).toBeGreaterThan(0);
  }, 120_000);

  it('summarises a dashboard from the cache as a fresh evaluation does', async () => {
    for (const q of PANELS.slice(0, 4)) {
      const want = await sse(fresh, fresh.key, q, WINDOW_START_MS, NOW_MS, STEP_S, true);
      expect(await sse(cached, cached.key, q, WINDOW_START_MS, NOW_MS, STEP_S, true), q).toBe(want);
      expect(await sse(cached, cached.key, q, WINDOW_START_MS, NOW_MS, STEP_S, true), q).toBe(want);
    }
  }, 60_000);

  it('answers the Prometheus API from the same cache, byte for byte as a fresh evaluation', async () => {
    const stepsBefore = await cacheMetric(cached, 'steps_total', '{source="cache"}');
    for (const q of PANELS.slice(0, 5)) {
      const want = await promRange(fresh, fresh.key, q, WINDOW_START_MS, NOW_MS);
      expect(await promRange(cached, cached.key, q, WINDOW_START_MS, NOW_MS), q).toBe(want);
      expect(await promRange(cached, cached.key, q, WINDOW_START_MS, NOW_MS), q).toBe(want);
    }
    // The SSE test above cached these panels' steps: the Prometheus API read them.
    expect(await cacheMetric(cached, 'steps_total', '{source="cache"}')).toBeGreaterThan(stepsBefore);
  }, 60_000);

  it('gives the new answer once a late sample lands inside a cached piece', async () => {
    const q = 'count(http_requests_total)';
    const before = await sse(cached, cached.key, q, WINDOW_START_MS, NOW_MS);
    expect(await sse(cached, cached.key, q, WINDOW_START_MS, NOW_MS)).toBe(before);
    const invalidatedBefore = await cacheMetric(cached, 'invalidations_total');
    // A series that shows up late, two hours back, inside the steps the cache holds.
    const late = [{ labels: [{ name: '__name__', value: 'http_requests_total' }, { name: 'instance', value: 'late' }], samples: [{ value: 1, timestamp: NOW_MS - 2 * 3_600_000 }] }];
    await Promise.all([remoteWrite(cached, cached.key, late), remoteWrite(fresh, fresh.key, late)]);
    expect(await cacheMetric(cached, 'invalidations_total')).toBeGreaterThan(invalidatedBefore);
    const after = await sse(cached, cached.key, q, WINDOW_START_MS, NOW_MS);
    expect(after).not.toBe(before);
    expect(after).toContain(`"value":${SERIES + 1},"timestamp":${NOW_MS - 2 * 3_600_000}`);
    expect(after).toBe(await sse(fresh, fresh.key, q, WINDOW_START_MS, NOW_MS));
    // The new answer is cached in turn.
    expect(await sse(cached, cached.key, q, WINDOW_START_MS, NOW_MS)).toBe(after);
  }, 60_000);

  it('gives the new answer once an out-of-order sample of a known series lands inside a cached piece', async () => {
    const q = 'max(max_over_time(http_requests_total{instance="host0"}[1m]))';
    const before = await sse(cached, cached.key, q, WINDOW_START_MS, NOW_MS);
    expect(await sse(cached, cached.key, q, WINDOW_START_MS, NOW_MS)).toBe(before);
    const at = NOW_MS - 100 * 60_000 + 7_000;
    const labels = [
      { name: '__name__', value: 'http_requests_total' },
      { name: 'code', value: '200' },
      { name: 'instance', value: 'host0' },
      { name: 'job', value: 'job0' },
    ];
    const late = [{ labels, samples: [{ value: 1e9, timestamp: at }] }];
    await Promise.all([remoteWrite(cached, cached.key, late), remoteWrite(fresh, fresh.key, late)]);
    const after = await sse(cached, cached.key, q, WINDOW_START_MS, NOW_MS);
    expect(after).not.toBe(before);
    expect(after).toContain('"value":1000000000');
    expect(after).toBe(await sse(fresh, fresh.key, q, WINDOW_START_MS, NOW_MS));
  }, 60_000);

  it('caches LogQL metric queries the same way, and a late log line gives the new answer', async () => {
    await Promise.all([pushLogs(cached, cached.key, DATA_START_MS, NOW_MS), pushLogs(fresh, fresh.key, DATA_START_MS, NOW_MS)]);
    const queries = ['sum by (level) (count_over_time({service_name="api"}[5m]))', 'rate({service_name="api"} |= "took 3" [2m])', 'sum(bytes_over_time({service_name="api"}[10m]))'];
    const stepsBefore = await cacheMetric(cached, 'steps_total', '{source="cache"}');
    for (const q of queries) {
      const want = await logs(fresh, q, WINDOW_START_MS, NOW_MS);
      expect(await logs(cached, q, WINDOW_START_MS, NOW_MS), q).toBe(want);
      expect(await logs(cached, q, WINDOW_START_MS, NOW_MS), q).toBe(want);
    }
    expect(await cacheMetric(cached, 'steps_total', '{source="cache"}')).toBeGreaterThan(stepsBefore);
    const q = queries[0];
    const before = await logs(cached, q, WINDOW_START_MS, NOW_MS);
    const invalidatedBefore = await cacheMetric(cached, 'invalidations_total');
    const at = NOW_MS - 2 * 3_600_000 + 5_000;
    await Promise.all([pushLogs(cached, cached.key, at, at, 'late'), pushLogs(fresh, fresh.key, at, at, 'late')]);
    expect(await cacheMetric(cached, 'invalidations_total')).toBeGreaterThan(invalidatedBefore);
    const after = await logs(cached, q, WINDOW_START_MS, NOW_MS);
    expect(after).not.toBe(before);
    expect(after).toBe(await logs(fresh, q, WINDOW_START_MS, NOW_MS));
  }, 60_000);

  it('evaluates two identical queries running together once', async () => {
    const q = 'sum by (instance) (quantile_over_time(0.5, http_requests_total[20m]))';
    const evaluationsBefore = await cacheMetric(cached, 'evaluations_total');
    const sharedBefore = await cacheMetric(cached, 'shared_evaluations_total');
    const [a, b] = await Promise.all([
      sse(cached, cached.key, q, DATA_START_MS, NOW_MS, 15),
      sse(cached, cached.key, q, DATA_START_MS, NOW_MS, 15),
    ]);
    expect(b).toBe(a);
    expect(await cacheMetric(cached, 'evaluations_total')).toBe(evaluationsBefore + 1);
    expect(await cacheMetric(cached, 'shared_evaluations_total')).toBe(sharedBefore + 1);
    expect(a).toBe(await sse(fresh, fresh.key, q, DATA_START_MS, NOW_MS, 15));
  }, 60_000);

  it("never serves one org's pieces to another", async () => {
    await Promise.all([load(cached, otherKey, 10), load(fresh, otherFreshKey, 10)]);
    const q = PANELS[0];
    const mine = await sse(cached, cached.key, q, WINDOW_START_MS, NOW_MS);
    const missesBefore = await cacheMetric(cached, 'lookups_total', '{result="miss"}');
    const theirs = await sse(cached, otherKey, q, WINDOW_START_MS, NOW_MS);
    expect(theirs).not.toBe(mine);
    expect(await cacheMetric(cached, 'lookups_total', '{result="miss"}')).toBe(missesBefore + 1);
    expect(theirs).toBe(await sse(fresh, otherFreshKey, q, WINDOW_START_MS, NOW_MS));
    expect(await sse(cached, otherKey, q, WINDOW_START_MS, NOW_MS)).toBe(theirs);
  }, 60_000);
});

describe('results cache memory budget', () => {
  let srv: TestServer;
  const BUDGET = 64 * 1024;

  beforeAll(async () => {
    srv = await startTestServer({ SVC_QUERY_WORKERS: '1', SVC_RESULTS_CACHE_BYTES: '64KiB' });
    await write(srv, srv.key, DATA_START_MS, NOW_MS);
  }, 60_000);
  afterAll(async () => {
    await srv?.stop();
  });

  it('stays within SVC_RESULTS_CACHE_BYTES, evicting the least recently used pieces', async () => {
    for (const q of PANELS) {
      await sse(srv, srv.key, q, DATA_START_MS, NOW_MS);
      expect(await cacheMetric(srv, 'bytes')).toBeLessThanOrEqual(BUDGET);
    }
    expect(await cacheMetric(srv, 'evictions_total')).toBeGreaterThan(0);
    expect(await cacheMetric(srv, 'entries')).toBeGreaterThan(0);
  }, 60_000);
});
