import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeRemoteWriteBody } from '../../engine/ingest/encode/remoteWrite.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { tasksCompleted } from '../support/metrics.js';
import { query, readSse, type SseEventParsed } from '../support/sse.js';

/**
 * Duration expressions in a range query that the query path cuts into time slices: `range()`
 * is the whole query's end minus start in every slice and `step()` the query's step, so the
 * sliced answer is the one a single evaluation gives.
 */

const SAMPLE_MS = 15_000;
const STEP_MS = 30_000;
const END_MS = Math.floor(Date.now() / 3_600_000) * 3_600_000 - 3_600_000;
const START_MS = END_MS - 4 * 3_600_000;
// Data from five hours before the query's start, so a window of the whole range is full at every step.
const DATA_START_MS = START_MS - 5 * 3_600_000;

/** pointsOf reads the streamed points of one query as timestamp to value, failing on a second series. */
function pointsOf(events: SseEventParsed[]): Map<number, number> {
  const results = events.filter((e) => e.type === 'result');
  expect(new Set(results.map((e) => e.data.label)).size).toBe(1);
  return new Map(results.map((e) => [e.data.timestamp as number, e.data.value as number]));
}

describe('duration expressions in a sliced range query', () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startTestServer({ SVC_QUERY_WORKERS: '2' });
    // One sample every 15 s whose value is its index.
    const samples = [];
    for (let t = DATA_START_MS, n = 0; t <= END_MS; t += SAMPLE_MS, n++) samples.push({ value: n, timestamp: t });
    const res = await fetch(`${srv.url}/api/v1/write`, {
      method: 'POST',
      body: encodeRemoteWriteBody({ timeseries: [{ labels: [{ name: '__name__', value: 'ticks' }, { name: 'job', value: 'a' }], samples }] }),
      headers: { 'x-svc-api-key': srv.key, 'content-type': 'application/x-protobuf' },
    });
    expect(res.status).toBe(204);
    await srv.service.storage.cut();
  });
  afterAll(async () => {
    await srv.stop();
  });

  async function run(q: string): Promise<{ points: Map<number, number>; tasks: number }> {
    const before = await tasksCompleted(srv.url);
    const res = await readSse(await query(srv.url, '/api/v1/metrics/query', srv.key, { q, s: String(START_MS), e: String(END_MS), step: STEP_MS / 1000 }));
    expect(res.status, q).toBe(200);
    expect(res.events.at(-1), q).toEqual({ type: 'done', data: { status: 'ok' } });
    return { points: pointsOf(res.events), tasks: (await tasksCompleted(srv.url)) - before };
  }

  /** expectEveryStep checks one value per query step against `want(t)`. */
  function expectEveryStep(q: string, points: Map<number, number>, want: (t: number) => number): void {
    const steps = (END_MS - START_MS) / STEP_MS + 1;
    expect(points.size, q).toBe(steps);
    for (let t = START_MS; t <= END_MS; t += STEP_MS) expect(points.get(t), `${q} at ${t}`).toBe(want(t));
  }

  it('reads range() as the whole query range in every slice', async () => {
    const q = 'count_over_time(ticks[range()])';
    const { points, tasks } = await run(q);
    // 481 steps in slices of at least 125 steps, one per worker: the query really was cut.
    expect(tasks).toBeGreaterThan(1);
    // Samples in (t - 4h, t]: 4h / 15 s of them at every step; one slice's range would give far fewer.
    expectEveryStep(q, points, () => (END_MS - START_MS) / SAMPLE_MS);
  });

  it('reads a subquery whose range and step are range() and step()', async () => {
    const q = 'count_over_time(ticks[range():step()])';
    const { points, tasks } = await run(q);
    expect(tasks).toBeGreaterThan(1);
    // Subquery steps at multiples of 30 s in (t - 4h, t].
    expectEveryStep(q, points, () => (END_MS - START_MS) / STEP_MS);
    const half = 'sum_over_time(ticks[range()/4:step()*2])';
    const summed = await run(half);
    // Subquery steps at multiples of 60 s in (t - 1h, t], each reading the sample index there.
    expectEveryStep(half, summed.points, (t) => {
      let sum = 0;
      const last = Math.floor(t / (2 * STEP_MS)) * 2 * STEP_MS;
      for (let s = last; s > t - (END_MS - START_MS) / 4; s -= 2 * STEP_MS) sum += (s - DATA_START_MS) / SAMPLE_MS;
      return sum;
    });
  });

  it('reads step() in offsets as the query step', async () => {
    const q = 'ticks offset step()';
    const { points } = await run(q);
    expectEveryStep(q, points, (t) => (t - STEP_MS - DATA_START_MS) / SAMPLE_MS);
  });
});
