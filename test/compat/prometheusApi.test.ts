import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prometheusAvailable, type PrometheusPeer } from '../support/prometheusPeer.js';
import { END_MS, END_S, startBothWithDemoData } from '../support/prometheusData.js';
import type { TestServer } from '../support/server.js';

/**
 * Differential test of the Prometheus-compatible API: the same data is backfilled into a real
 * Prometheus and remote-written to Sluice, then the same requests go to both and their JSON is
 * compared: status, errorType, result type, series sets (order-insensitive where Prometheus
 * leaves order unspecified) and values within 1e-9 relative.
 */

interface DiffRequest {
  path: string;
  params: Array<[string, string]>;
  method?: 'GET' | 'POST';
}

const q = (query: string, time = String(END_S)): DiffRequest => ({ path: '/query', params: [['query', query], ['time', time]] });
const range = (query: string, startS: number, endS: number, step: string, method: 'GET' | 'POST' = 'GET'): DiffRequest => ({
  path: '/query_range',
  params: [['query', query], ['start', String(startS)], ['end', String(endS)], ['step', step]],
  method,
});

const REQUESTS: DiffRequest[] = [
  q('1+1'),
  q('vector(1)+vector(1)'),
  q('http_requests_total'),
  q('http_requests_total{job="api",code="500"}'),
  q('rate(http_requests_total[5m])'),
  q('sum by (job) (rate(http_requests_total[5m]))'),
  q('sum(increase(http_requests_total[10m]))'),
  q('histogram_quantile(0.9, sum by (le) (rate(latency_seconds_bucket[5m])))'),
  q('temperature'),
  q('temperature', String(END_S - 1000.5)),
  q('temperature', new Date(END_MS - 17 * 60_000).toISOString()),
  q('scalar(temperature{room="lab"})'),
  q('time()'),
  q('http_requests_total offset 10m'),
  q('topk(2, http_requests_total)'),
  q('count by (code) (http_requests_total)'),
  q('avg_over_time(temperature[10m])'),
  q('temperature[1m]'),
  q('deploys[1h]'),
  q('"hello"'),
  q('-temperature / 0'),
  q('absent(nonexistent_metric)'),
  q('label_replace(temperature, "where", "$1", "room", "(.*)")'),
  q('max_over_time(rate(http_requests_total[5m])[10m:1m])'),
  q('deploys'),
  q('changes(deploys[1h])'),
  q('sort_desc(sum by (instance) (http_requests_total))'),
  q('sort(temperature)'),
  q('bottomk(2, temperature)'),
  q('topk(3, sum by (job, code) (http_requests_total))'),
  q('1 / 3'),
  q('2^70'),
  q('0.000001234'),
  q('http_requests_total > 1000000'),
  q('quantile(0.5, temperature)'),
  // Errors: parse, type, execution, parameters.
  q('sum('),
  q('rate(http_requests_total)'),
  q('http_requests_total + on(job) http_requests_total'),
  q('up', 'yesterday'),
  { path: '/query', params: [['time', String(END_S)]] },
  range('sum by (job) (rate(http_requests_total[5m]))', END_S - 1800, END_S, '60'),
  range('sum by (job) (rate(http_requests_total[5m]))', END_S - 1800, END_S, '1m', 'POST'),
  range('temperature', END_S - 3600, END_S, '90'),
  range('deploys', END_S - 3600, END_S, '5m'),
  range('histogram_quantile(0.5, rate(latency_seconds_bucket[5m]))', END_S - 1200, END_S, '30s'),
  range('time()', END_S - 600, END_S, '120'),
  range('http_requests_total{instance="a"}', END_S - 900.5, END_S, '45.5'),
  range('temperature', END_S, END_S - 60, '15'),
  range('temperature', END_S - 600, END_S, '0'),
  range('temperature', END_S - 86400, END_S, '1'),
  range('temperature[5m]', END_S - 600, END_S, '60'),
  range('sum(', END_S - 600, END_S, '60'),
  { path: '/series', params: [['match[]', 'http_requests_total']] },
  { path: '/series', params: [['match[]', 'temperature'], ['match[]', '{__name__=~"deploys|latency.*"}']] },
  { path: '/series', params: [['match[]', '{job="api"}']], method: 'POST' },
  { path: '/series', params: [] },
  { path: '/series', params: [['match[]', 'sum(up)']] },
  { path: '/labels', params: [] },
  { path: '/labels', params: [['match[]', 'temperature']] },
  { path: '/labels', params: [['match[]', 'deploys']], method: 'POST' },
  { path: '/label/job/values', params: [] },
  { path: '/label/__name__/values', params: [] },
  { path: '/label/code/values', params: [['match[]', 'http_requests_total{instance="a"}']] },
  { path: '/label/room/values', params: [['match[]', 'nonexistent']] },
];

type Json = Record<string, unknown>;

interface Reply {
  status: number;
  body: Json;
}

async function send(baseUrl: string, req: DiffRequest, headers: Record<string, string>): Promise<Reply> {
  const params = new URLSearchParams(req.params);
  const res =
    req.method === 'POST'
      ? await fetch(`${baseUrl}${req.path}`, { method: 'POST', body: params.toString(), headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' } })
      : await fetch(`${baseUrl}${req.path}?${params.toString()}`, { headers });
  return { status: res.status, body: (await res.json()) as Json };
}

function close(a: string, b: string): boolean {
  if (a === b) return true;
  const x = Number(a);
  const y = Number(b);
  if (Number.isNaN(x) || Number.isNaN(y)) return false;
  return Math.abs(x - y) <= 1e-9 * Math.max(Math.abs(x), Math.abs(y));
}

const canonical = (labels: unknown): string => JSON.stringify(Object.entries(labels as Json).sort(([a], [b]) => (a < b ? -1 : 1)));

/** sampleList turns `[t, "v"]` pairs into checked pairs of timestamps and value strings. */
function expectSamplesEqual(ours: Array<[number, string]>, theirs: Array<[number, string]>, where: string): void {
  expect(ours.map((p) => p[0]), `${where}: timestamps`).toEqual(theirs.map((p) => p[0]));
  for (let i = 0; i < theirs.length; i++) {
    expect(close(ours[i][1], theirs[i][1]), `${where}: value at ${theirs[i][0]}: ${ours[i][1]} vs ${theirs[i][1]}`).toBe(true);
  }
}

/** ORDERED_QUERY matches instant queries whose result order Prometheus specifies: sort*(), topk() and bottomk() at the top. */
const ORDERED_QUERY = /^(sort|sort_desc|topk|bottomk)\(/;

function expectSameAnswer(ours: Reply, theirs: Reply, where: string, ordered: boolean): void {
  expect({ status: ours.status, state: ours.body.status, errorType: ours.body.errorType }, where).toEqual({
    status: theirs.status,
    state: theirs.body.status,
    errorType: theirs.body.errorType,
  });
  if (theirs.body.status !== 'success') {
    expect(typeof ours.body.error, where).toBe('string');
    return;
  }
  const a = ours.body.data as Json | unknown[];
  const b = theirs.body.data as Json | unknown[];
  if (Array.isArray(b)) {
    expect(Array.isArray(a), where).toBe(true);
    const key = (x: unknown): string => (typeof x === 'string' ? x : canonical(x));
    // Series listings come back sorted by both; label listings are sorted by definition.
    expect((a as unknown[]).map(key), where).toEqual(b.map(key));
    return;
  }
  const ad = a as Json;
  expect(ad.resultType, where).toBe(b.resultType);
  if (b.resultType === 'scalar' || b.resultType === 'string') {
    const [ta, va] = ad.result as [number, string];
    const [tb, vb] = b.result as [number, string];
    expect(ta, where).toBe(tb);
    expect(close(va, vb), `${where}: ${va} vs ${vb}`).toBe(true);
    return;
  }
  const index = (result: unknown): Map<string, Json> => new Map((result as Json[]).map((s) => [canonical(s.metric), s]));
  const ours2 = index(ad.result);
  const theirs2 = index(b.result);
  expect([...ours2.keys()].sort(), where).toEqual([...theirs2.keys()].sort());
  for (const [metric, s] of theirs2) {
    const mine = ours2.get(metric)!;
    if (b.resultType === 'vector') expectSamplesEqual([mine.value as [number, string]], [s.value as [number, string]], `${where} ${metric}`);
    else expectSamplesEqual(mine.values as Array<[number, string]>, s.values as Array<[number, string]>, `${where} ${metric}`);
  }
  // Range results are sorted by labels in both; an instant vector keeps the order sort() or topk() gave it.
  if (b.resultType === 'matrix' || (b.resultType === 'vector' && ordered)) expect([...ours2.keys()], where).toEqual([...theirs2.keys()]);
}

const suite = prometheusAvailable('the Prometheus API differential test') ? describe : describe.skip;

suite('Prometheus API: same answers as Prometheus 2.42', () => {
  let srv: TestServer;
  let prom: PrometheusPeer;

  beforeAll(async () => {
    ({ srv, prom } = await startBothWithDemoData());
  }, 90_000);

  afterAll(async () => {
    await Promise.all([srv?.stop(), prom?.stop()]);
  });

  it(`answers ${REQUESTS.length} requests as Prometheus does`, async () => {
    expect(REQUESTS.length).toBeGreaterThanOrEqual(40);
    const failures: string[] = [];
    for (const req of REQUESTS) {
      const where = `${req.method ?? 'GET'} ${req.path} ${JSON.stringify(req.params)}`;
      const [ours, theirs] = await Promise.all([
        send(`${srv.url}/prometheus/api/v1`, req, { 'x-svc-api-key': srv.key }),
        send(`${prom.url}/api/v1`, req, {}),
      ]);
      try {
        const query = req.path === '/query' ? (req.params.find(([name]) => name === 'query')?.[1] ?? '') : '';
        expectSameAnswer(ours, theirs, where, ORDERED_QUERY.test(query));
      } catch (err) {
        failures.push(`${(err as Error).message}\n  ours:   ${JSON.stringify(ours.body).slice(0, 600)}\n  theirs: ${JSON.stringify(theirs.body).slice(0, 600)}`);
      }
    }
    expect(failures, failures.join('\n\n')).toEqual([]);
  }, 120_000);
});
