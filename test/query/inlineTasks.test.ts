import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeRemoteWriteBody, type TimeSeriesInput } from '../../engine/ingest/encode/remoteWrite.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { metricValue, tasksCompleted } from '../support/metrics.js';
import { query, readSse } from '../support/sse.js';

/**
 * Small queries over the heads are evaluated on the answering thread
 * (SVC_QUERY_INLINE_MAX_SAMPLES for PromQL, instant and range; SVC_QUERY_INLINE_MAX_LINES for
 * LogQL instant queries): one server does that, a second one (both 0) sends every task to a
 * worker, and both hold the same data. Answers, their order and their errors must not tell the
 * two apart; subqueries, functions whose work grows with their window, queries cut into several time
 * slices, segments and costs over the bound stay on workers.
 */

const STEP_MS = 15_000;
const END_MS = Math.floor(Date.now() / STEP_MS) * STEP_MS - 60_000;
const START_MS = END_MS - 3_600_000;
/**
 * INLINE_MAX is the inline server's bound: its 20 counters' hour (4,820 samples) is past it, 40
 * minutes and the lookback (3,620, and one per series for the step) are not; a 10-minute range
 * query of a 5-minute rate over them at 15 s (1,620 samples with the lookback, plus 41 steps x
 * 20 series: 2,440) is not either, the same over an hour (5,620 + 241 x 20 = 10,440) is.
 */
const INLINE_MAX = 4_000;
/** INLINE_MAX_LINES is its bound for log lines: ten minutes of the three services' lines (60) are past it, five (30) are not. */
const INLINE_MAX_LINES = 45;

function body(): Uint8Array {
  const timeseries: TimeSeriesInput[] = [];
  for (let i = 0; i < 20; i++) {
    const labels = (name: string, extra: Array<{ name: string; value: string }> = []) => [
      { name: '__name__', value: name },
      { name: 'team', value: `t${i % 4}` },
      { name: 'worker', value: `w${i}` },
      ...extra,
    ];
    const samples = (value: (n: number) => number) => {
      const out = [];
      for (let t = START_MS, n = 0; t <= END_MS; t += STEP_MS, n++) out.push({ value: value(n), timestamp: t });
      return out;
    };
    timeseries.push({ labels: labels('jobs_total'), samples: samples((n) => n * ((i % 5) + 1) + (n > 120 && i % 7 === 0 ? -n : 0)) });
    timeseries.push({ labels: labels('queue_depth'), samples: samples((n) => Math.sin(n / 10 + i) * 100 + i / 3) });
    for (const [le, share] of [['0.1', 1], ['1', 3 + (i % 2)], ['+Inf', 5 + (i % 3)]] as const) {
      timeseries.push({ labels: labels('wait_seconds_bucket', [{ name: 'le', value: le }]), samples: samples((n) => n * share) });
    }
  }
  return encodeRemoteWriteBody({ timeseries });
}

/** logsBody is the same hour as JSON request logs of three services, a line every 30 s each. */
function logsBody(): string {
  const streams = ['api', 'auth', 'cart'].map((service, k) => ({
    stream: { service_name: service, env: 'test' },
    values: Array.from({ length: 120 }, (_, i): [string, string] => {
      const status = (i + k) % 7 === 0 ? 503 : 200;
      return [String(BigInt(END_MS - (119 - i) * 30_000 - k) * 1_000_000n), JSON.stringify({ route: `/r${i % 3}`, status, took_ms: (i * 13 + k) % 250 })];
    }),
  }));
  return JSON.stringify({ streams });
}

function inlineTasks(srv: TestServer): Promise<number> {
  return metricValue(srv.url, /^sluice_query_tasks_inline_total (\d+)$/m);
}

/** ask runs a query over the SSE API and gives its result events' data (the `done` event's stats aside) and its status. */
async function ask(srv: TestServer, q: string, window: { s: number; e: number; step?: number } = { s: END_MS, e: END_MS }, path = '/api/v1/metrics/query'): Promise<{ status: number; results: unknown[]; body?: unknown }> {
  const res = await readSse(await query(srv.url, path, srv.key, { q, s: String(window.s), e: String(window.e), ...(window.step ? { step: window.step } : {}) }));
  const done = res.events.find((e) => e.type === 'done');
  if (res.status === 200) expect(done?.data.status, `${q}: ${res.raw.slice(-300)}`).toBe('ok');
  return { status: res.status, results: res.events.filter((e) => e.type !== 'done').map((e) => e.data), body: res.body };
}

/**
 * SETTINGS of both servers: double_exponential_smoothing, an experimental function, may be
 * asked; no results cache, which would answer a range query in pieces (each piece a plan of its
 * own, the newest one small enough to go inline) and so blur which plan took which path.
 */
const SETTINGS = { SVC_PROMQL_FEATURES: 'promql-experimental-functions', SVC_RESULTS_CACHE: 'false' };

describe('queries evaluated inline', () => {
  let inline: TestServer;
  let workers: TestServer;

  beforeAll(async () => {
    [inline, workers] = await Promise.all([
      startTestServer({ SVC_QUERY_INLINE_MAX_SAMPLES: String(INLINE_MAX), SVC_QUERY_INLINE_MAX_LINES: String(INLINE_MAX_LINES), ...SETTINGS }),
      startTestServer({ SVC_QUERY_INLINE_MAX_SAMPLES: '0', SVC_QUERY_INLINE_MAX_LINES: '0', ...SETTINGS }),
    ]);
    for (const srv of [inline, workers]) {
      const res = await fetch(`${srv.url}/api/v1/write`, { method: 'POST', body: body(), headers: { 'x-svc-api-key': srv.key, 'content-type': 'application/x-protobuf' } });
      expect(res.status).toBe(204);
      const push = await fetch(`${srv.url}/loki/api/v1/push`, { method: 'POST', body: logsBody(), headers: { 'x-svc-api-key': srv.key, 'content-type': 'application/json' } });
      expect(push.status).toBe(204);
    }
  });
  afterAll(async () => {
    await Promise.all([inline?.stop(), workers?.stop()]);
  });

  it('answers small instant queries over the heads on the answering thread, exactly as a worker does', async () => {
    const queries = [
      'vector(1)',
      'jobs_total',
      'rate(jobs_total[5m])',
      'sort_desc(sum by (team) (rate(jobs_total[5m])))',
      'topk(3, queue_depth)',
      'histogram_quantile(0.9, sum by (le, team) (rate(wait_seconds_bucket[5m])))',
      'sum by (team) (rate(jobs_total[5m])) / on (team) group_left sum by (team) (queue_depth)',
      'count_over_time(queue_depth[40m]) > 100',
      'label_replace(max_over_time(queue_depth[10m]), "who", "$1", "worker", "w(.*)")',
      'absent(nothing_here)',
    ];
    for (const q of queries) {
      const [inlineBefore, tasksBefore, workersInline] = [await inlineTasks(inline), await tasksCompleted(inline.url), await inlineTasks(workers)];
      const [here, there] = [await ask(inline, q), await ask(workers, q)];
      expect(here.status, q).toBe(200);
      expect(here.results.length, q).toBeGreaterThan(0);
      expect(here.results, q).toEqual(there.results);
      expect(await inlineTasks(inline), q).toBe(inlineBefore + 1);
      // Counted with the workers' tasks, so the task metrics keep their meaning.
      expect(await tasksCompleted(inline.url), q).toBe(tasksBefore + 1);
      expect(await inlineTasks(workers), q).toBe(workersInline);
    }
  });

  it('answers small range queries over the heads inline, exactly as a worker does', async () => {
    const tenMinutes = { s: END_MS - 600_000, e: END_MS, step: 15 };
    for (const [q, window] of [
      ['rate(jobs_total[5m])', tenMinutes],
      ['sum by (team) (increase(jobs_total[5m]))', tenMinutes],
      ['avg_over_time(queue_depth[5m]) > bool 10', tenMinutes],
      ['stddev_over_time(queue_depth[2m]) * on (worker) group_left deriv(jobs_total[5m])', { s: END_MS - 300_000, e: END_MS, step: 15 }],
      ['histogram_quantile(0.9, sum by (le) (rate(wait_seconds_bucket[1m])))', { s: END_MS - 300_000, e: END_MS, step: 30 }],
      // A step shorter than the scrape interval: each series is visited at every step.
      ['queue_depth', { s: END_MS - 300_000, e: END_MS, step: 5 }],
    ] as const) {
      const [inlineBefore, tasksBefore] = [await inlineTasks(inline), await tasksCompleted(inline.url)];
      const [here, there] = [await ask(inline, q, window), await ask(workers, q, window)];
      expect(here.status, q).toBe(200);
      expect(here.results.length, q).toBeGreaterThan(10);
      expect(here.results, q).toEqual(there.results);
      expect(await inlineTasks(inline), q).toBe(inlineBefore + 1);
      expect(await tasksCompleted(inline.url), q).toBe(tasksBefore + 1);
    }
  });

  it('answers small LogQL instant queries over the heads inline, exactly as a worker does', async () => {
    for (const q of [
      'sum by (service_name) (count_over_time({env="test"} [5m]))',
      'sum by (route) (rate({env="test"} | json | status >= 500 [5m]))',
      'topk(2, sum by (service_name) (avg_over_time({env="test"} | json | unwrap took_ms [5m])))',
      'count_over_time({service_name="api"} |= "503" [5m]) > 0',
    ]) {
      const before = await inlineTasks(inline);
      const [here, there] = [await ask(inline, q, undefined, '/api/v1/logs/query'), await ask(workers, q, undefined, '/api/v1/logs/query')];
      expect(here.status, q).toBe(200);
      expect(here.results.length, q).toBeGreaterThan(0);
      expect(here.results, q).toEqual(there.results);
      expect(await inlineTasks(inline), q).toBe(before + 1);
    }
    // Past the bound of lines, or over a range: the workers.
    for (const [q, window] of [
      ['sum(count_over_time({env="test"} [10m]))', { s: END_MS, e: END_MS }],
      ['sum(count_over_time({env="test"} [1m]))', { s: END_MS - 600_000, e: END_MS, step: 60 }],
    ] as const) {
      const before = await inlineTasks(inline);
      const [here, there] = [await ask(inline, q, window, '/api/v1/logs/query'), await ask(workers, q, window, '/api/v1/logs/query')];
      expect(here.results.length, q).toBeGreaterThan(0);
      expect(here.results, q).toEqual(there.results);
      expect(await inlineTasks(inline), q).toBe(before);
    }
  });

  it('renders the Prometheus API the same inline', async () => {
    for (const q of ['rate(jobs_total[5m])', 'sort(queue_depth)', 'histogram_quantile(0.5, sum by (le) (rate(wait_seconds_bucket[5m])))']) {
      const before = await inlineTasks(inline);
      const [here, there] = await Promise.all(
        [inline, workers].map(async (srv) => {
          const res = await fetch(`${srv.url}/prometheus/api/v1/query?query=${encodeURIComponent(q)}&time=${END_MS / 1000}`, { headers: { 'x-svc-api-key': srv.key } });
          expect(res.status, q).toBe(200);
          return res.text();
        }),
      );
      expect(JSON.parse(here).data.result.length, q).toBeGreaterThan(0);
      expect(here, q).toBe(there);
      expect(await inlineTasks(inline), q).toBe(before + 1);
    }
  });

  it('fails inline with the error a worker gives', async () => {
    const q = 'jobs_total + on (team) queue_depth';
    const before = await inlineTasks(inline);
    const [here, there] = [await ask(inline, q), await ask(workers, q)];
    expect(here.status).toBe(there.status);
    expect(here.status).toBeGreaterThanOrEqual(400);
    expect(here.body).toEqual(there.body);
    expect(JSON.stringify(here.body)).toMatch(/many-to-many/);
    expect(await inlineTasks(inline)).toBe(before + 1);
  });

  it('leaves subqueries, windows that cost more than their samples, several slices and costs past the bound to the workers', async () => {
    for (const [q, window] of [
      ['max_over_time(rate(jobs_total[5m])[10m:1m])', { s: END_MS, e: END_MS }],
      ['max_over_time(rate(jobs_total[5m])[2m:1m])', { s: END_MS - 300_000, e: END_MS, step: 15 }],
      ['double_exponential_smoothing(queue_depth[5m], 0.5, 0.5)', { s: END_MS - 300_000, e: END_MS, step: 15 }],
      ['quantile_over_time(0.9, queue_depth[5m])', { s: END_MS - 300_000, e: END_MS, step: 15 }],
      // 20 series x an hour at 15 s is past INLINE_MAX samples.
      ['count_over_time(jobs_total[1h])', { s: END_MS, e: END_MS }],
      ['rate(jobs_total[5m])', { s: START_MS, e: END_MS, step: 15 }],
      // Cheap, but 361 steps make two time slices, one per worker.
      ['vector(1)', { s: START_MS, e: END_MS, step: 10 }],
    ] as const) {
      const [inlineBefore, tasksBefore] = [await inlineTasks(inline), await tasksCompleted(inline.url)];
      const [here, there] = [await ask(inline, q, window), await ask(workers, q, window)];
      expect(here.results.length, q).toBeGreaterThan(0);
      expect(here.results, q).toEqual(there.results);
      expect(await inlineTasks(inline), q).toBe(inlineBefore);
      expect(await tasksCompleted(inline.url), q).toBeGreaterThan(tasksBefore);
    }
  });

  it('leaves queries over stored segments to the workers, whose caches keep what they decode', async () => {
    await inline.service.storage.cut();
    const before = await inlineTasks(inline);
    const { results } = await ask(inline, 'rate(jobs_total[5m])');
    expect(results).toEqual((await ask(workers, 'rate(jobs_total[5m])')).results);
    expect(await inlineTasks(inline)).toBe(before);
  });
});
