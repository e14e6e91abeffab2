import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeRemoteWriteBody } from '../../engine/ingest/encode/remoteWrite.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { query, readSse } from '../support/sse.js';
import { logqlExpression, promqlExpression } from './expressionGrammar.js';
import { fuzzParameters } from './parameters.js';

/**
 * Expression fuzzing against the real server: generated PromQL and LogQL (mostly well-formed,
 * some damaged) go to the validate endpoint and to the query endpoint. Whatever the input, the
 * answer is a success or a 4xx with the spec's error body, within the per-case deadline, and
 * the two endpoints agree: what validate accepts never ends in an internal error, and what it
 * rejects, the query endpoint rejects too.
 */
const NOW = Date.now();
const CASE_DEADLINE_MS = 10_000;
/** RSS_BOUND is what the whole process (server, its workers, the test) may hold after a suite. */
const RSS_BOUND = 2 * 1024 ** 3;

let srv: TestServer;

async function ingest(): Promise<void> {
  const timeseries = [];
  for (const job of ['api', 'db']) {
    for (const code of ['200', '500']) {
      timeseries.push({
        labels: [{ name: '__name__', value: 'http_requests_total' }, { name: 'job', value: job }, { name: 'code', value: code }],
        samples: Array.from({ length: 120 }, (_, i) => ({ value: i * (code === '200' ? 10 : 1), timestamp: NOW - (120 - i) * 15_000 })),
      });
    }
    for (const le of ['0.1', '0.5', '+Inf']) {
      timeseries.push({
        labels: [{ name: '__name__', value: 'latency_seconds_bucket' }, { name: 'job', value: job }, { name: 'le', value: le }],
        samples: Array.from({ length: 120 }, (_, i) => ({ value: i * Number(le === '+Inf' ? 3 : le === '0.5' ? 2 : 1), timestamp: NOW - (120 - i) * 15_000 })),
      });
    }
    timeseries.push({ labels: [{ name: '__name__', value: 'up' }, { name: 'job', value: job }], samples: [{ value: 1, timestamp: NOW - 60_000 }] });
  }
  const write = await fetch(`${srv.url}/api/v1/write`, {
    method: 'POST',
    body: encodeRemoteWriteBody({ timeseries }),
    headers: { 'x-svc-api-key': srv.key, 'content-type': 'application/x-protobuf' },
  });
  expect(write.status).toBe(204);
  const lines = (app: string, level: string): Array<[string, string]> =>
    Array.from({ length: 50 }, (_, i) => [
      String(BigInt(NOW - (50 - i) * 10_000) * 1_000_000n),
      i % 2 === 0
        ? JSON.stringify({ level, status: 200 + (i % 4) * 100, latency: `${i * 7}ms`, size: `${i}KB`, response: { status: i }, message: `GET /p/${i} aa` })
        : `level=${level} status=${i % 5 === 0 ? 500 : 200} latency=${i}ms size=${i * 100} msg="GET /x ${'a'.repeat(i % 7)}"`,
    ]);
  const push = await fetch(`${srv.url}/loki/api/v1/push`, {
    method: 'POST',
    body: JSON.stringify({
      streams: [
        { stream: { app: 'api', level: 'error' }, values: lines('api', 'error') },
        { stream: { app: 'api', level: 'info' }, values: lines('api', 'info') },
        { stream: { app: 'aa', level: 'debug' }, values: lines('aa', 'debug') },
      ],
    }),
    headers: { 'x-svc-api-key': srv.key, 'content-type': 'application/json' },
  });
  expect(push.status).toBe(204);
}

async function post(path: string, body: unknown): Promise<Response> {
  return fetch(`${srv.url}${path}`, { method: 'POST', body: JSON.stringify(body), headers: { 'x-svc-api-key': srv.key, 'content-type': 'application/json' }, signal: AbortSignal.timeout(CASE_DEADLINE_MS) });
}

/** checkCase runs one expression through validate and query and fails on anything a client should never see. */
async function checkCase(language: 'promql' | 'logql', q: string): Promise<void> {
  const validation = await post(`/api/v1/${language}/validate`, { q });
  const answer = (await validation.json()) as { valid?: boolean; code?: string };
  // A request validate cannot take at all (an empty q) is a 400 of its own; the query must refuse it alike.
  expect([200, 400], `validate ${JSON.stringify(q)} answered ${validation.status} ${JSON.stringify(answer)}`).toContain(validation.status);
  const verdict = validation.status === 200 ? answer : { valid: false, error: answer };
  const path = language === 'promql' ? '/api/v1/metrics/query' : '/api/v1/logs/query';
  const res = await readSse(await query(srv.url, path, srv.key, { q, s: 'now-30m', step: 60 }, {}).then((r) => r));
  const context = `${language} ${JSON.stringify(q)} (validate said ${JSON.stringify(verdict)}) answered ${res.status} ${JSON.stringify(res.body ?? res.events.at(-1))}`;
  expect(res.status, context).toBeLessThan(500);
  if (res.status !== 200) {
    expect(res.body, context).toMatchObject({ status: res.status, code: expect.any(String), message: expect.any(String) });
    expect(String(res.body?.message), context).not.toMatch(/TypeError|RangeError|undefined is not|Cannot read prop|stack/);
  }
  if (!verdict.valid) {
    expect(res.status, `${context}: validate rejected it, so must the query`).toBeGreaterThanOrEqual(400);
    return;
  }
  if (res.status === 200) {
    const done = res.events.at(-1);
    expect(done?.type, context).toBe('done');
    if (done?.data.status === 'error') expect(done.data.code, context).not.toBe('INTERNAL_ERROR');
  }
}

/** A request parameter as a client might send it: right type or wrong, sane or absurd. */
const parameter = fc.oneof(
  fc.constantFrom('now', 'now-1h', 'now-30d', 'now+1h', '2024-01-01T00:00:00Z', 'yesterday', '', '1e308', '-1', 'now-1e9h'),
  fc.constantFrom(0, -1, 1, 15, 1e-9, 1e308, -1e308, Number.MAX_SAFE_INTEGER, 8.64e15, 1.5),
  fc.double(),
  fc.integer(),
  fc.constantFrom(null, true, [], {}, [1], { a: 1 }),
);
const queryBody = fc.record(
  { s: parameter, e: parameter, step: parameter, maxDataPoints: parameter, limit: parameter, reverse: parameter, fields: parameter, summary: parameter },
  { requiredKeys: [] },
);

describe('expression fuzzing against the real server', () => {
  beforeAll(async () => {
    srv = await startTestServer({ SVC_QUERY_TIMEOUT_MS: String(CASE_DEADLINE_MS - 2000), SVC_MAX_QUERIES_PER_ORG: '64' });
    await ingest();
  }, 60_000);
  afterAll(async () => {
    await srv?.stop();
  });

  it('PromQL: no 5xx, no hang, validate and query agree', async () => {
    await fc.assert(
      fc.asyncProperty(promqlExpression, (q) => checkCase('promql', q)),
      fuzzParameters('promql'),
    );
    const health = await fetch(`${srv.url}/healthz`);
    expect(health.status).toBe(200);
    expect(process.memoryUsage().rss).toBeLessThan(RSS_BOUND);
  }, 600_000);

  it('query parameters of any type and size: a result or a 4xx, never a 5xx or a hang', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('/api/v1/metrics/query', '/api/v1/logs/query'), queryBody, async (path, body) => {
        const q = path.includes('metrics') ? 'sum by (job) (rate(http_requests_total[5m]))' : '{app="api"} |= "GET"';
        const res = await readSse(await query(srv.url, path, srv.key, { q, ...body }));
        const context = `${path} ${JSON.stringify(body)} answered ${res.status} ${JSON.stringify(res.body ?? res.events.at(-1))}`;
        expect(res.status, context).toBeLessThan(500);
        if (res.status === 200) expect(res.events.at(-1)?.data.code, context).not.toBe('INTERNAL_ERROR');
        else expect(res.body, context).toMatchObject({ status: res.status, code: expect.any(String) });
      }),
      fuzzParameters('query-parameters'),
    );
  }, 600_000);

  it('LogQL: no 5xx, no hang, validate and query agree', async () => {
    await fc.assert(
      fc.asyncProperty(logqlExpression, (q) => checkCase('logql', q)),
      fuzzParameters('logql'),
    );
    const health = await fetch(`${srv.url}/healthz`);
    expect(health.status).toBe(200);
    expect(process.memoryUsage().rss).toBeLessThan(RSS_BOUND);
  }, 600_000);
});
