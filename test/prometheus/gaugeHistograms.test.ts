import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { snappyCompress } from '../../engine/ingest/index.js';
import { pbEncode, WriteRequestV2 } from '../engine/ingest/protoTypes.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { query as sseQuery, readSse } from '../support/sse.js';

/**
 * Gauge histograms under counter functions, as Prometheus 3 answers them: rate(), increase()
 * and resets() warn that the metric is not a counter but still see a drop as a counter reset
 * (its DetectReset compares gauge histograms like those of unknown hint), while delta() takes
 * the plain difference without a warning. A float series of the same counts, a real counter,
 * gives the figures to compare with.
 */

const V2_TYPE = 'application/x-protobuf;proto=io.prometheus.write.v2.Request';
const AT_MS = Math.floor(Date.now() / 60_000) * 60_000 - 60_000;
/** COUNTS are the observation counts 60, 45, 30, 15 and 0 s before AT_MS: a drop at 30 s. */
const COUNTS = [5, 6, 3, 5, 7];
const RESET_HINT_GAUGE = 3;

async function writeSeries(srv: TestServer): Promise<void> {
  const times = COUNTS.map((_, i) => AT_MS - (COUNTS.length - 1 - i) * 15_000);
  const histograms = COUNTS.map((count, i) => ({
    countFloat: count,
    sum: count,
    schema: 0,
    zeroThreshold: 1e-128,
    positiveSpans: [{ offset: 0, length: 1 }],
    positiveCounts: [count],
    resetHint: RESET_HINT_GAUGE,
    timestamp: String(times[i]),
  }));
  const body = pbEncode(WriteRequestV2, {
    symbols: ['', '__name__', 'queue_hist', 'queue_count'],
    timeseries: [
      { labelsRefs: [1, 2], histograms },
      { labelsRefs: [1, 3], samples: COUNTS.map((value, i) => ({ value, timestamp: String(times[i]) })) },
    ],
  });
  const res = await fetch(`${srv.url}/api/v1/write`, {
    method: 'POST',
    body: snappyCompress(body),
    headers: { 'x-svc-api-key': srv.key, 'content-type': V2_TYPE, 'content-encoding': 'snappy' },
  });
  expect(res.status).toBe(204);
  expect(res.headers.get('x-prometheus-remote-write-histograms-written')).toBe(String(COUNTS.length));
}

async function promQuery(srv: TestServer, q: string): Promise<{ values: number[]; warnings: string[] }> {
  const res = await fetch(`${srv.url}/prometheus/api/v1/query?${new URLSearchParams({ query: q, time: String(AT_MS / 1000) })}`, { headers: { 'x-svc-api-key': srv.key } });
  const body = (await res.json()) as { status: string; warnings?: string[]; data: { result: Array<{ value: [number, string] }> } };
  expect(body.status, JSON.stringify(body)).toBe('success');
  return { values: body.data.result.map((r) => Number(r.value[1])), warnings: body.warnings ?? [] };
}

describe('gauge histograms under counter functions', () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startTestServer();
    await writeSeries(srv);
  });
  afterAll(async () => {
    await srv?.stop();
  });

  const NOT_COUNTER = 'PromQL warning: this native histogram metric is not a counter: "queue_hist"';

  it('increase() and rate() see the drop as a reset, and warn', async () => {
    const counter = await promQuery(srv, 'increase(queue_count[1m])');
    // 6, 3, 5, 7 in the window: 7 - 6 + 6 across the reset, extrapolated over 60 s of 45.
    expect(counter.values[0]).toBeCloseTo((7 * 60) / 45, 9);
    const increase = await promQuery(srv, 'histogram_count(increase(queue_hist[1m]))');
    expect(increase.values).toHaveLength(1);
    expect(increase.values[0]).toBeCloseTo(counter.values[0], 9);
    expect(increase.warnings.some((w) => w.startsWith(NOT_COUNTER))).toBe(true);
    const rate = await promQuery(srv, 'histogram_sum(rate(queue_hist[1m]))');
    expect(rate.values[0]).toBeCloseTo((await promQuery(srv, 'rate(queue_count[1m])')).values[0], 9);
    expect(rate.warnings.some((w) => w.startsWith(NOT_COUNTER))).toBe(true);
  });

  it('resets() counts the drop; delta() takes the plain difference, without a warning', async () => {
    expect((await promQuery(srv, 'resets(queue_hist[1m])')).values).toEqual([1]);
    expect((await promQuery(srv, 'resets(queue_count[1m])')).values).toEqual([1]);
    const delta = await promQuery(srv, 'histogram_count(delta(queue_hist[1m]))');
    expect(delta.values[0]).toBeCloseTo(((7 - 6) * 60) / 45, 9);
    expect(delta.warnings).toEqual([]);
  });

  it('answers the same through SSE', async () => {
    const res = await readSse(await sseQuery(srv.url, '/api/v1/metrics/query', srv.key, { q: 'histogram_count(increase(queue_hist[1m]))', s: String(AT_MS), e: String(AT_MS) }));
    expect(res.status).toBe(200);
    const values = res.events.filter((e) => e.type === 'result').map((e) => (e.data as { value: number }).value);
    expect(values).toHaveLength(1);
    expect(values[0]).toBeCloseTo((7 * 60) / 45, 9);
  });
});
