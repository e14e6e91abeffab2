import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeRemoteWriteBody } from '../../engine/ingest/encode/remoteWrite.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { query as sseQuery, readSse } from '../support/sse.js';

/**
 * promql-delayed-name-removal through SVC_PROMQL_FEATURES: off (the default, as in Prometheus 3)
 * a function such as rate() drops `__name__` at once; on, the name stays on intermediate
 * results for label_replace() and `by (__name__)` to read and is dropped only from the final
 * answer. Both servers hold the same data; the Prometheus API and the SSE endpoint are asked.
 */

const AT_MS = Math.floor(Date.now() / 60_000) * 60_000 - 60_000;

/** Two counters of one env, as Prometheus' name_label_dropping test loads them: 0 60 120 and 60 120 180 every 5 m. */
async function writeCounters(srv: TestServer): Promise<void> {
  const series = (name: string, first: number) => ({
    labels: [
      { name: '__name__', value: name },
      { name: 'env', value: '1' },
    ],
    samples: [0, 1, 2].map((i) => ({ value: first + 60 * i, timestamp: AT_MS - (2 - i) * 300_000 })),
  });
  const res = await fetch(`${srv.url}/api/v1/write`, {
    method: 'POST',
    headers: { 'x-svc-api-key': srv.key, 'content-type': 'application/x-protobuf' },
    body: encodeRemoteWriteBody({ timeseries: [series('metric_total', 0), series('another_metric_total', 60)] }),
  });
  expect(res.status).toBe(204);
}

interface Answer {
  status: number;
  error?: string;
  result: Array<{ metric: Record<string, string>; value: number }>;
}

async function viaPrometheus(srv: TestServer, q: string): Promise<Answer> {
  const res = await fetch(`${srv.url}/prometheus/api/v1/query?${new URLSearchParams({ query: q, time: String(AT_MS / 1000) })}`, { headers: { 'x-svc-api-key': srv.key } });
  const body = (await res.json()) as { error?: string; data?: { result: Array<{ metric: Record<string, string>; value: [number, string] }> } };
  const result = (body.data?.result ?? []).map((r) => ({ metric: r.metric, value: Number(r.value[1]) }));
  return { status: res.status, error: body.error, result: result.sort((a, b) => JSON.stringify(a.metric).localeCompare(JSON.stringify(b.metric))) };
}

/** viaSse asks the SSE endpoint at the same instant; a failure arrives as the error body or a final done/error event. */
async function viaSse(srv: TestServer, q: string): Promise<Answer> {
  const res = await readSse(await sseQuery(srv.url, '/api/v1/metrics/query', srv.key, { q, s: String(AT_MS), e: String(AT_MS) }));
  if (res.status !== 200) return { status: res.status, error: JSON.stringify(res.body), result: [] };
  const last = res.events.at(-1);
  const failed = last?.type === 'done' && (last.data as { status: string }).status === 'error';
  const result = res.events
    .filter((e) => e.type === 'result')
    .map((e) => {
      const data = e.data as { tags: Record<string, unknown>; value: number };
      return { metric: Object.fromEntries(Object.entries(data.tags).map(([k, v]) => [k, String(v)])), value: data.value };
    });
  return { status: failed ? 422 : 200, error: failed ? JSON.stringify(last?.data) : undefined, result: result.sort((a, b) => JSON.stringify(a.metric).localeCompare(JSON.stringify(b.metric))) };
}

describe('promql-delayed-name-removal', () => {
  let eager: TestServer;
  let delayed: TestServer;
  beforeAll(async () => {
    eager = await startTestServer();
    delayed = await startTestServer({ SVC_PROMQL_FEATURES: 'promql-experimental-functions,promql-duration-expr,promql-delayed-name-removal' });
    await Promise.all([writeCounters(eager), writeCounters(delayed)]);
  });
  afterAll(async () => {
    await Promise.all([eager?.stop(), delayed?.stop()]);
  });

  const RELABEL = 'label_replace(rate({env="1"}[10m]), "my_name", "rate_$1", "__name__", "(.+)")';
  const BY_ENV = 'sum by (env) (rate({env="1"}[10m]))';
  const KEEP = 'label_replace(sum by (__name__) (rate(metric_total[10m])), "__name__", "$1", "__name__", "(.+)")';

  it.each([
    ['Prometheus API', viaPrometheus],
    ['SSE', viaSse],
  ])('off by default: rate() drops the name at once (%s)', async (_path, ask) => {
    // Both rates are {env="1"} before label_replace runs: a duplicate label set.
    const relabel = await ask(eager, RELABEL);
    expect(relabel.status).toBe(422);
    expect(relabel.error).toContain('vector cannot contain metrics with the same labelset');
    // rate() itself already answers two {env="1"} series, so there is nothing to add up.
    const byEnv = await ask(eager, BY_ENV);
    expect(byEnv.status).toBe(422);
    expect(byEnv.error).toContain('vector cannot contain metrics with the same labelset');
    // There is no name left to copy back.
    expect(await ask(eager, KEEP)).toEqual({ status: 200, error: undefined, result: [{ metric: {}, value: 0.2 }] });
  });

  it.each([
    ['Prometheus API', viaPrometheus],
    ['SSE', viaSse],
  ])('on: the name stays until the final result (%s)', async (_path, ask) => {
    expect(await ask(delayed, RELABEL)).toEqual({
      status: 200,
      error: undefined,
      result: [
        { metric: { env: '1', my_name: 'rate_another_metric_total' }, value: 0.2 },
        { metric: { env: '1', my_name: 'rate_metric_total' }, value: 0.2 },
      ],
    });
    // The rates still differ by name when sum() adds them up.
    expect(await ask(delayed, BY_ENV)).toEqual({ status: 200, error: undefined, result: [{ metric: { env: '1' }, value: 0.4 }] });
    // Grouping by the names still there gives two groups whose names the end drops: one label set twice, as Prometheus fails.
    const byName = await ask(delayed, 'sum by (__name__) (rate({env="1"}[10m]))');
    expect(byName.status).toBe(422);
    expect(byName.error).toContain('vector cannot contain metrics with the same labelset');
    // label_replace copies the name back before the end, so it is kept.
    expect(await ask(delayed, KEEP)).toEqual({ status: 200, error: undefined, result: [{ metric: { __name__: 'metric_total' }, value: 0.2 }] });
  });

  it('keeps the name of a selector and of last_over_time() either way', async () => {
    for (const srv of [eager, delayed]) {
      const res = await viaPrometheus(srv, 'last_over_time(metric_total[10m])');
      expect(res.result).toEqual([{ metric: { __name__: 'metric_total', env: '1' }, value: 120 }]);
    }
  });
});
