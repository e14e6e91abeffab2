import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeRemoteWriteBody } from '../../engine/ingest/encode/remoteWrite.js';
import { evaluateLogQLRange } from '../../engine/logql/eval/index.js';
import { parseLogQL } from '../../engine/logql/index.js';
import { evaluateInstant, evaluateRange, formatAnnotation } from '../../engine/promql/eval/index.js';
import { parseAndCheckPromQL } from '../../engine/promql/index.js';
import { formatLabels } from '../../engine/storage/labels.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { tasksCompleted } from '../support/metrics.js';
import { query, readSse } from '../support/sse.js';

const STEP_MS = 15_000;
const END_MS = Math.floor(Date.now() / STEP_MS) * STEP_MS;
const START_MS = END_MS - 1_800_000;

describe('queries split by series shard', () => {
  let srv: TestServer;
  beforeAll(async () => {
    // Every slice is "big enough" here, so each query with one step and an exact shape is split.
    srv = await startTestServer({ SVC_QUERY_WORKERS: '2', SVC_QUERY_SHARD_MIN_SAMPLES: '1' });
    const timeseries = [];
    for (let i = 0; i < 60; i++) {
      const samples = [];
      for (let t = START_MS, n = 0; t <= END_MS; t += STEP_MS, n++) samples.push({ value: n * ((i % 4) + 1) + (i % 3 === 0 ? Math.sin(n) : 0), timestamp: t });
      timeseries.push({ labels: [{ name: '__name__', value: 'jobs_done_total' }, { name: 'team', value: `t${i % 5}` }, { name: 'worker', value: `w${i}` }], samples });
      // Each worker's job durations as a classic histogram: cumulative buckets growing at their own rates.
      for (const [le, share] of [['0.1', 1], ['0.5', 2 + (i % 3)], ['+Inf', 4 + (i % 5)]] as const) {
        const buckets = samples.map(({ timestamp }, n) => ({ value: n * share * ((i % 4) + 1), timestamp }));
        timeseries.push({ labels: [{ name: '__name__', value: 'jobs_seconds_bucket' }, { name: 'le', value: le }, { name: 'team', value: `t${i % 5}` }, { name: 'worker', value: `w${i}` }], samples: buckets });
      }
    }
    const res = await fetch(`${srv.url}/api/v1/write`, {
      method: 'POST',
      body: encodeRemoteWriteBody({ timeseries }),
      headers: { 'x-svc-api-key': srv.key, 'content-type': 'application/x-protobuf' },
    });
    expect(res.status).toBe(204);
    const streams = ['a', 'b', 'c', 'd'].map((app, k) => ({
      stream: { service_name: 'shop', app },
      values: Array.from({ length: 40 }, (_, i) => [String(BigInt(START_MS + i * 30_000 + k) * 1_000_000n), `app ${app} ${i % 3 === 0 ? 'error' : 'ok'} ${i}`]),
    }));
    const push = await fetch(`${srv.url}/loki/api/v1/push`, { method: 'POST', body: JSON.stringify({ streams }), headers: { 'x-svc-api-key': srv.key, 'content-type': 'application/json' } });
    expect(push.status).toBe(204);
    await srv.service.storage.cut();
  });
  afterAll(async () => {
    await srv.stop();
  });

  it('runs one task per shard and streams what one evaluation gives', async () => {
    for (const [q, tasks] of [
      ['sum by (team) (rate(jobs_done_total[5m]))', 2],
      ['avg(increase(jobs_done_total[10m]))', 2],
      ['max by (team) (jobs_done_total)', 2],
      ['rate(jobs_done_total[5m])', 2],
      // Shards placed by team: each team's series are whole in one shard.
      ['sum by (team) (topk by (team) (2, rate(jobs_done_total[5m])))', 2],
      ['sum by (team) (rate(jobs_done_total[5m])) / sum by (team) (jobs_done_total)', 2],
      ['topk(3, jobs_done_total)', 1],
      // Shards sum their buckets; the merge adds the sums and takes the quantile.
      ['histogram_quantile(0.9, sum by (le) (rate(jobs_seconds_bucket[5m])))', 2],
      ['histogram_fraction(0, 0.3, sum(rate(jobs_seconds_bucket[5m])) by (le))', 2],
      // Shards evaluate both sums; the merge adds each and divides.
      ['sum(rate(jobs_done_total{team="t1"}[5m])) / sum(rate(jobs_done_total[5m]))', 2],
      // An average travels as sums and counts, merged before the rest is evaluated.
      ['100 * (1 - avg(rate(jobs_done_total[5m])) / max(rate(jobs_done_total[5m])))', 2],
    ] as const) {
      const before = await tasksCompleted(srv.url);
      const res = await readSse(await query(srv.url, '/api/v1/metrics/query', srv.key, { q, s: String(END_MS), e: String(END_MS), step: 15 }));
      expect(res.status, q).toBe(200);
      expect(res.events.at(-1), q).toEqual({ type: 'done', data: { status: 'ok' } });
      expect((await tasksCompleted(srv.url)) - before, q).toBe(tasks);
      const got = new Map<string, number>();
      for (const e of res.events.filter((x) => x.type === 'result')) got.set(e.data.label as string, e.data.value as number);
      const direct = evaluateRange(parseAndCheckPromQL(q), srv.service.storage.metrics(srv.orgId), END_MS, END_MS, STEP_MS);
      const want = new Map<string, number>();
      for (const s of direct.series) if (s.values.length > 0) want.set(formatLabels(s.labels), s.values[0]);
      expect(want.size, q).toBeGreaterThan(0);
      expect([...got.keys()].sort(), q).toEqual([...want.keys()].sort());
      for (const [k, v] of want) expect(got.get(k), `${q} ${k}`).toBeCloseTo(v, 9);
    }
  });

  it('keeps the order of an instant answer finished at the merge', async () => {
    const q = 'sort_desc(label_replace(sum(jobs_done_total), "k", "a", "", "") or label_replace(max(jobs_done_total), "k", "b", "", "") or label_replace(count(jobs_done_total) * 1000, "k", "c", "", ""))';
    const before = await tasksCompleted(srv.url);
    const res = await readSse(await query(srv.url, '/api/v1/metrics/query', srv.key, { q, s: String(END_MS), e: String(END_MS) }));
    expect(res.events.at(-1)).toEqual({ type: 'done', data: { status: 'ok' } });
    expect((await tasksCompleted(srv.url)) - before).toBe(2);
    const direct = evaluateInstant(parseAndCheckPromQL(q), srv.service.storage.metrics(srv.orgId), END_MS);
    if (direct.value.type !== 'vector') throw new Error('not a vector');
    const want = direct.value.samples.map((s) => formatLabels(s.labels));
    // Not the order of the labels: the sort's.
    expect(want).not.toEqual([...want].sort());
    expect(res.events.filter((e) => e.type === 'result').map((e) => e.data.label)).toEqual(want);
  });

  it('gives the warnings and infos of one evaluation through the Prometheus API, once each', async () => {
    // A quantile out of range, warned by the function at the merge; rate over a name that is not a counter's, noted by every shard.
    const q = 'histogram_quantile(1.5, sum by (le) (rate(jobs_seconds_bucket[5m]))) + on () group_left sum(rate(jobs_done_total[5m])) * 0';
    const before = await tasksCompleted(srv.url);
    const res = await fetch(`${srv.url}/prometheus/api/v1/query?${new URLSearchParams({ query: q, time: String(END_MS / 1000) })}`, { headers: { 'x-svc-api-key': srv.key } });
    const body = (await res.json()) as { status: string; warnings?: string[]; infos?: string[]; data: { result: Array<{ value: [number, string] }> } };
    expect(body.status, JSON.stringify(body)).toBe('success');
    expect((await tasksCompleted(srv.url)) - before).toBe(2);
    const direct = evaluateInstant(parseAndCheckPromQL(q), srv.service.storage.metrics(srv.orgId), END_MS);
    const want = direct.annotations.map((a) => formatAnnotation(a, q));
    expect(want.length).toBeGreaterThan(0);
    expect([...(body.warnings ?? []), ...(body.infos ?? [])].sort()).toEqual([...want].sort());
    expect(body.data.result.map((r) => r.value[1])).toEqual(['+Inf']);
  });

  it('splits LogQL sums of additive range aggregations, and queries built on them, the same way', async () => {
    for (const [q, tasks] of [
      ['sum by (app) (count_over_time({service_name="shop"} |= "error" [30m]))', 2],
      ['sum(bytes_over_time({service_name="shop"}[30m]))', 2],
      // Built on additive parts: the shards count, the merge adds and evaluates the rest.
      ['max(count_over_time({service_name="shop"}[30m]))', 2],
      ['sum(rate({service_name="shop"} |= "error" [30m])) / sum(rate({service_name="shop"}[30m]))', 2],
      // A selection settles ties by its input's order: left whole.
      ['topk(1, sum by (app) (count_over_time({service_name="shop"}[30m])))', 1],
    ] as const) {
      const before = await tasksCompleted(srv.url);
      const res = await readSse(await query(srv.url, '/api/v1/logs/query', srv.key, { q, s: String(END_MS), e: String(END_MS), step: 15 }));
      expect(res.events.at(-1), q).toEqual({ type: 'done', data: { status: 'ok' } });
      expect((await tasksCompleted(srv.url)) - before, q).toBe(tasks);
      const got = new Map<string, number>();
      for (const e of res.events.filter((x) => x.type === 'result')) got.set(e.data.label as string, e.data.value as number);
      const direct = evaluateLogQLRange(parseLogQL(q), srv.service.storage.logs(srv.orgId), END_MS, END_MS, STEP_MS, { maxSamples: 1e6, maxSeries: 1000 });
      const want = new Map<string, number>();
      for (const s of direct.series) if (s.values.length > 0) want.set(formatLabels(s.labels), s.values[0]);
      expect(want.size, q).toBeGreaterThan(0);
      expect(got, q).toEqual(want);
    }
  });

  it('keeps time slices, not shards, when there are enough steps to spread', async () => {
    const before = await tasksCompleted(srv.url);
    const res = await readSse(await query(srv.url, '/api/v1/metrics/query', srv.key, { q: 'sum(rate(jobs_done_total[5m]))', s: String(START_MS), e: String(END_MS), step: 5 }));
    expect(res.events.at(-1)).toEqual({ type: 'done', data: { status: 'ok' } });
    // 361 steps in slices of at least 125, one per worker: two tasks (sharding them would make four).
    expect((await tasksCompleted(srv.url)) - before).toBe(2);
  });
});
