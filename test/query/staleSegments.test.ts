import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeMetricSegment, MetricSegmentReader } from '../../engine/storage/metricSegment.js';
import type { SeriesColumns } from '../../engine/storage/seriesColumns.js';
import { staleMarkerArray } from '../../engine/storage/staleness.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { query, readSse } from '../support/sse.js';

/**
 * Range selectors drop staleness markers. Series read from a segment say whether they hold
 * any, and whether any value falls below the one before it (a counter reset), both checked
 * once per series and remembered; the evaluator skips its scan for markers in the ones that
 * hold none, and rate its scan for resets in the ones that have none. Answers must not change,
 * whether the samples come from the head, from a segment read for the first time, or from a
 * segment reader kept from an earlier query. A drop on either side of a marker is no reset in
 * the stored values but is one once the marker is removed.
 */
const STEP_MS = 15_000;
const END_MS = Math.floor(Date.now() / STEP_MS) * STEP_MS;
const SAMPLES = 20;

/** series is a counter rising by 10 a scrape, restarting from zero at `resetAt` when given, with a marker at `staleAt`. */
function series(name: string, staleAt: number | undefined, resetAt?: number): SeriesColumns {
  const timestampsMs = new Float64Array(SAMPLES);
  const values = new Float64Array(SAMPLES);
  for (let j = 0; j < SAMPLES; j++) {
    timestampsMs[j] = END_MS - (SAMPLES - 1 - j) * STEP_MS;
    values[j] = resetAt !== undefined && j >= resetAt ? 10 * (j - resetAt) : 10 * j;
  }
  if (staleAt !== undefined) values.set(staleMarkerArray(), staleAt);
  return { labels: { __name__: 'stale_probe_total', probe: name }, timestampsMs, values };
}

async function answers(srv: TestServer, q: string): Promise<Map<string, number>> {
  const res = await readSse(await query(srv.url, '/api/v1/metrics/query', srv.key, { q, s: String(END_MS), e: String(END_MS), step: 15 }));
  expect(res.status, q).toBe(200);
  expect(res.events.at(-1), q).toEqual({ type: 'done', data: { status: 'ok' } });
  const got = new Map<string, number>();
  for (const e of res.events.filter((x) => x.type === 'result')) got.set(e.data.label as string, e.data.value as number);
  return got;
}

describe('segment readers remember which series hold staleness markers', () => {
  it('marks series per format version, whatever window is read', () => {
    const input = [series('clean', undefined), series('marked', 7), series('reset', undefined, 10), series('resetAcrossMarker', 12, 13)];
    for (const version of [1, 2] as const) {
      const enc = encodeMetricSegment(input, version)!;
      const reader = MetricSegmentReader.decode(enc.bytes, enc.crc);
      const all = reader.select([], [], -Infinity, Infinity);
      expect(all.map((s) => [s.labels.probe, s.staleFree, s.resetFree]), `v${version}`).toEqual([
        ['clean', true, true],
        ['marked', false, true],
        ['reset', true, false],
        ['resetAcrossMarker', false, true],
      ]);
      // A window without the marker or the reset still says false: the flags describe the series, never claim more.
      const early = reader.select([], [], -Infinity, END_MS - 15 * STEP_MS);
      expect(early.map((s) => [s.labels.probe, s.staleFree, s.resetFree, s.values.length]), `v${version}`).toEqual([
        ['clean', true, true, 5],
        ['marked', false, true, 5],
        ['reset', true, false, 5],
        ['resetAcrossMarker', false, true, 5],
      ]);
    }
  });
});

describe('range selectors over segment series with and without staleness markers', () => {
  let srv: TestServer;
  const queries = [
    'count_over_time(stale_probe_total[1h])',
    'sum_over_time(stale_probe_total[1h])',
    'increase(stale_probe_total[1h])',
    'rate(stale_probe_total[2m])',
    'last_over_time(stale_probe_total[1h])',
  ];
  let fromHead: Map<string, Map<string, number>>;

  beforeAll(async () => {
    srv = await startTestServer({ SVC_QUERY_WORKERS: '1', SVC_RESULTS_CACHE: 'false' });
    await srv.service.storage.appendMetrics(srv.orgId, [series('clean', undefined), series('marked', 12), series('reset', undefined, 10), series('resetAcrossMarker', 12, 13)], []);
    fromHead = new Map();
    for (const q of queries) fromHead.set(q, await answers(srv, q));
    await srv.service.storage.cut();
  });
  afterAll(async () => {
    await srv?.stop();
  });

  it('answers from the head leave the marker out', () => {
    const counts = fromHead.get('count_over_time(stale_probe_total[1h])')!;
    expect(counts.get('{probe="clean"}')).toBe(SAMPLES);
    expect(counts.get('{probe="marked"}')).toBe(SAMPLES - 1);
    const sums = fromHead.get('sum_over_time(stale_probe_total[1h])')!;
    const all = (10 * (SAMPLES - 1) * SAMPLES) / 2;
    expect(sums.get('{probe="clean"}')).toBe(all);
    expect(sums.get('{probe="marked"}')).toBe(all - 120);
    // Both counters rose by 10 a scrape but for the scrape that restarted them (from 90 to 0,
    // and from 110 to 0 across the marker); the samples span the whole range, so nothing is extrapolated.
    const increases = fromHead.get('increase(stale_probe_total[1h])')!;
    expect(increases.get('{probe="clean"}')).toBeCloseTo(10 * (SAMPLES - 1), 9);
    expect(increases.get('{probe="reset"}')).toBeCloseTo(10 * (SAMPLES - 2), 9);
    expect(increases.get('{probe="resetAcrossMarker"}')).toBeCloseTo(10 * (SAMPLES - 3), 9);
  });

  it('gives the same answers from a segment, read for the first time and again', async () => {
    for (let round = 0; round < 2; round++) {
      for (const q of queries) {
        const got = await answers(srv, q);
        const want = fromHead.get(q)!;
        expect(got.size, q).toBe(4);
        expect([...got.keys()].sort(), q).toEqual([...want.keys()].sort());
        for (const [k, v] of want) expect(got.get(k), `${q} ${k} round ${round}`).toBeCloseTo(v, 9);
      }
    }
  });
});
