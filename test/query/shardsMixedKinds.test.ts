/**
 * A sharded `sum` over a group that mixes floats and native histograms, through the real
 * server with series sharding forced on (two workers, so two shards). The series are placed
 * (by their labels, see engine/query/shards.ts shardOf) so that shard 0 holds a float and a
 * histogram series of zone "zm" and shard 1 only a float one: unsharded, zm has no sum.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { snappyCompress } from '../../engine/ingest/index.js';
import { evaluateRange } from '../../engine/promql/eval/index.js';
import { parseAndCheckPromQL } from '../../engine/promql/index.js';
import { shardOf } from '../../engine/query/shards.js';
import { pbEncode, WriteRequest } from '../engine/ingest/protoTypes.js';
import { tasksCompleted } from '../support/metrics.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { query, readSse } from '../support/sse.js';

const STEP_MS = 15_000;
const END_MS = Math.floor(Date.now() / STEP_MS) * STEP_MS;
const START_MS = END_MS - 600_000;
const MIXED_WARNING = 'PromQL warning: encountered a mix of histograms and floats for aggregation (1:16)';

function writeBody(): Uint8Array {
  const times: number[] = [];
  for (let t = START_MS; t <= END_MS; t += STEP_MS) times.push(t);
  const labels = (zone: string, instance: string, name = 'split') => [
    { name: '__name__', value: name },
    { name: 'instance', value: instance },
    { name: 'job', value: 'j' },
    { name: 'zone', value: zone },
  ];
  const floats = (zone: string, instance: string, base: number) => ({ labels: labels(zone, instance), samples: times.map((t, k) => ({ value: base + k, timestamp: String(t) })) });
  const histograms = times.map((t, k) => ({ countFloat: 3 * (k + 1), sum: k + 1, schema: 0, zeroThreshold: 0.001, zeroCountFloat: k + 1, positiveSpans: [{ offset: 0, length: 2 }], positiveCounts: [k + 1, k + 1], timestamp: String(t) }));
  const timeseries = [
    floats('zm', 's6', 10),
    floats('zm', 's1', 20),
    { labels: labels('zm', 's2'), histograms },
    ...[0, 1, 2, 3].map((i) => floats('zf', `f${i}`, i)),
    // `apart`: zone zx's float series in shard 0, its histogram series in shard 1.
    { labels: labels('zx', 'x0', 'apart'), samples: times.map((t, k) => ({ value: k, timestamp: String(t) })) },
    { labels: labels('zx', 'x1', 'apart'), histograms },
  ];
  return snappyCompress(pbEncode(WriteRequest, { timeseries }));
}

describe('a sharded sum where one shard mixes floats and histograms', () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startTestServer({ SVC_QUERY_WORKERS: '2', SVC_QUERY_SHARD_MIN_SAMPLES: '1' });
    const res = await fetch(`${srv.url}/api/v1/write`, {
      method: 'POST',
      headers: { 'x-svc-api-key': srv.key, 'content-type': 'application/x-protobuf', 'content-encoding': 'snappy' },
      body: writeBody(),
    });
    expect(res.status).toBe(204);
    await srv.service.storage.cut();
  });
  afterAll(async () => {
    await srv?.stop();
  });

  it('places the series as the test means to', () => {
    const at = (instance: string) => shardOf({ instance, job: 'j', zone: 'zm' }, 2);
    expect([at('s2'), at('s6'), at('s1')]).toEqual([0, 0, 1]);
    expect([shardOf({ instance: 'x0', job: 'j', zone: 'zx' }, 2), shardOf({ instance: 'x1', job: 'j', zone: 'zx' }, 2)]).toEqual([0, 1]);
  });

  it('streams no sum for the mixed group over SSE, as one evaluation gives', async () => {
    for (const q of ['sum by (zone) (split)', 'sum without (instance) (split)']) {
      const before = await tasksCompleted(srv.url);
      const res = await readSse(await query(srv.url, '/api/v1/metrics/query', srv.key, { q, s: String(END_MS), e: String(END_MS), step: 15 }));
      expect(res.status, q).toBe(200);
      expect(res.events.at(-1), q).toEqual({ type: 'done', data: { status: 'ok' } });
      expect((await tasksCompleted(srv.url)) - before, `${q}: one task per shard`).toBe(2);
      const got = new Map<string, number>();
      for (const e of res.events.filter((x) => x.type === 'result')) got.set(e.data.label as string, e.data.value as number);
      const direct = evaluateRange(parseAndCheckPromQL(q), srv.service.storage.metrics(srv.orgId), END_MS, END_MS, STEP_MS);
      expect(direct.series.map((s) => s.labels.zone), q).toEqual(['zf']);
      expect(got.size, q).toBe(1);
      const [label, value] = [...got][0];
      expect(label, q).toContain('zf');
      expect(value, q).toBeCloseTo(direct.series[0].values[0], 9);
    }
  });

  // The SSE events carry no warnings (the Streaming Query API has no such event); the
  // Prometheus API of the same server, planned and sharded the same way, does.
  it('answers the Prometheus API with the steps absent and the warning once, whichever shard saw the mix', async () => {
    for (const [q, zones] of [
      ['sum by (zone) (split)', [['zf', 3]]],
      ['sum by (zone) (apart)', []],
      ['avg by (zone) (apart)', []],
    ] as const) {
      const before = await tasksCompleted(srv.url);
      const res = await fetch(`${srv.url}/prometheus/api/v1/query_range?${new URLSearchParams({ query: q, start: String(END_MS / 1000 - 30), end: String(END_MS / 1000), step: '15s' })}`, {
        headers: { 'x-svc-api-key': srv.key },
      });
      expect(res.status, q).toBe(200);
      expect((await tasksCompleted(srv.url)) - before, q).toBe(2);
      const body = (await res.json()) as { data: { result: { metric: Record<string, string>; values: unknown[] }[] }; warnings?: string[] };
      expect(body.data.result.map((r) => [r.metric.zone, r.values.length]), q).toEqual(zones);
      expect(body.warnings, q).toEqual([MIXED_WARNING]);
    }
  });
});
