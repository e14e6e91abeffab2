import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeRemoteWriteBody } from '../../engine/ingest/encode/remoteWrite.js';
import { evaluateRange } from '../../engine/promql/eval/index.js';
import { parseAndCheckPromQL } from '../../engine/promql/index.js';
import { formatLabels } from '../../engine/storage/labels.js';
import { tasksCompleted } from '../support/metrics.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { query, readSse } from '../support/sse.js';

const SERIES = 200;
const STEP_MS = 15_000;
const END_MS = Math.floor(Date.now() / STEP_MS) * STEP_MS;
const START_MS = END_MS - 3_600_000;

/** A dashboard's panels over the last hour, all reading the head. */
const PANELS = [
  'sum by (job) (rate(http_requests_total[5m]))',
  'sum(rate(http_requests_total[1m]))',
  'max by (job) (http_requests_total)',
  'avg by (code) (rate(http_requests_total[5m]))',
  'count(http_requests_total)',
  'topk(3, rate(http_requests_total[5m]))',
  'sum by (instance) (increase(http_requests_total{job="job1"}[10m]))',
  'min_over_time(http_requests_total[15m])',
  'http_requests_total{code="500"} - http_requests_total{code="500"} offset 10m',
  'quantile(0.9, rate(http_requests_total[5m]))',
];

/** writeHour writes an hour of counters for SERIES series at 15 s through remote write, in parts as scrapes arrive. */
async function writeHour(srv: TestServer): Promise<void> {
  for (let from = START_MS; from <= END_MS; from += 20 * STEP_MS) {
    const timeseries = Array.from({ length: SERIES }, (_, i) => {
      const samples = [];
      for (let t = from; t < from + 20 * STEP_MS && t <= END_MS; t += STEP_MS) samples.push({ value: ((t - START_MS) / STEP_MS) * (1 + (i % 5)), timestamp: t });
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
    const res = await fetch(`${srv.url}/api/v1/write`, {
      method: 'POST',
      body: encodeRemoteWriteBody({ timeseries }),
      headers: { 'x-svc-api-key': srv.key, 'content-type': 'application/x-protobuf' },
    });
    expect(res.status).toBe(204);
  }
}

describe('metric queries over an unchanged head', () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startTestServer({ SVC_QUERY_WORKERS: '2', SVC_HEAD_MAX_BYTES: '1GiB' });
    await writeHour(srv);
  }, 60_000);
  afterAll(async () => {
    await srv?.stop();
  });

  const panel = async (q: string): Promise<Map<string, number>> => {
    const res = await readSse(await query(srv.url, '/api/v1/metrics/query', srv.key, { q, s: String(START_MS), e: String(END_MS), step: 15 }));
    expect(res.events.at(-1), q).toEqual({ type: 'done', data: { status: 'ok' } });
    const got = new Map<string, number>();
    for (const e of res.events.filter((x) => x.type === 'result')) got.set(`${e.data.label as string}@${e.data.timestamp as number}`, e.data.value as number);
    return got;
  };

  it('share one packed snapshot of the head across every task of a dashboard refresh, with the answers of one evaluation', async () => {
    const first = await panel(PANELS[0]);
    const packed = srv.service.storage.stats();
    expect(packed.metricChunksPacked).toBeGreaterThan(0);
    // 200 series x 241 samples, 16 bytes each, and their labels.
    expect(packed.metricSnapshotBytes).toBeGreaterThan(SERIES * 241 * 16);
    expect(packed.metricSnapshotBytes).toBeLessThan(SERIES * 241 * 16 * 1.2);

    const completedBefore = await tasksCompleted(srv.url);
    const answers = await Promise.all(PANELS.map(panel));
    expect((await tasksCompleted(srv.url)) - completedBefore).toBeGreaterThanOrEqual(PANELS.length);
    // Not one more chunk was packed for the refresh, and the head's shared memory did not grow.
    const after = srv.service.storage.stats();
    expect(after.metricChunksPacked).toBe(packed.metricChunksPacked);
    expect(after.metricSnapshotBytes).toBe(packed.metricSnapshotBytes);

    expect(answers[0]).toEqual(first);
    PANELS.forEach((q, i) => {
      const direct = evaluateRange(parseAndCheckPromQL(q), srv.service.storage.metrics(srv.orgId), START_MS, END_MS, STEP_MS);
      const want = new Map<string, number>();
      for (const s of direct.series) s.timestampsMs.forEach((t, k) => Number.isFinite(s.values[k]) && want.set(`${formatLabels(s.labels)}@${t}`, s.values[k]));
      expect(want.size, q).toBeGreaterThan(0);
      expect(answers[i].size, q).toBe(want.size);
      for (const [k, v] of want) expect(answers[i].get(k), `${q} ${k}`).toBeCloseTo(v, 9);
    });
  }, 120_000);
});
