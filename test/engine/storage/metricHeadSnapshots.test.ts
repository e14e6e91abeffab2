import { rm } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evaluateRange } from '../../../engine/promql/eval/index.js';
import { parseAndCheckPromQL } from '../../../engine/promql/index.js';
import { unpackSeries } from '../../../engine/query/packing.js';
import { shardOf } from '../../../engine/query/shards.js';
import { SnapshotMetricReader } from '../../../engine/query/snapshotMetricReader.js';
import { shareMetrics } from '../../../engine/query/taskData.js';
import { runTask, taskTransferables, type PromQLRangeTask } from '../../../engine/query/tasks.js';
import type { LabelMatcher } from '../../../engine/storage/matchers.js';
import { MetricHead, type MetricSeries } from '../../../engine/storage/metricHead.js';
import type { SeriesColumns } from '../../../engine/storage/seriesColumns.js';
import { STALE_HI, STALE_LO } from '../../../engine/storage/staleness.js';
import type { Storage } from '../../../engine/storage/storage.js';
import { SeededRandom } from '../../support/seededRandom.js';
import { openStorage, tempDir } from './segmentFixtures.js';

const BASE_MS = 1_700_000_000_000;
const STEP_MS = 15_000;

/** scrape is one sample of each of `series` series at scrape `round`, some stale, some late or repeated when `disorder`. */
function scrape(random: SeededRandom, round: number, series: number, disorder = false): MetricSeries[] {
  return Array.from({ length: series }, (_, i) => {
    const late = disorder && random.chance(0.2) ? random.int(1, 3) : 0;
    const stale = random.chance(0.05);
    return {
      labels: { __name__: i % 3 === 0 ? 'up' : 'requests_total', job: `job${i % 4}`, instance: `i${i}` },
      timestampsMs: Float64Array.of(BASE_MS + (round - late) * STEP_MS),
      values: Float64Array.of(random.int(0, 1000) / 7),
      ...(stale ? { stale: Uint8Array.of(1) } : {}),
    };
  });
}

/** exact renders series with the bits of their values, so staleness markers and NaNs compare exactly. */
function exact(series: readonly SeriesColumns[]): unknown[] {
  return series.map((s) => ({ labels: s.labels, ts: [...s.timestampsMs], bits: [...new Uint32Array(s.values.buffer, s.values.byteOffset, s.values.length * 2)] }));
}

const MATCHERS: LabelMatcher[][] = [
  [],
  [{ name: '__name__', type: '=', value: 'up' }],
  [{ name: '__name__', type: '=', value: 'requests_total' }, { name: 'job', type: '!=', value: 'job1' }],
  [{ name: 'instance', type: '=~', value: 'i(1|2)\\d*' }],
];

describe('metric head snapshots', () => {
  it('answer every selection exactly as the live head, across sealed chunks, the tail and late samples', () => {
    for (const seed of [1, 2, 3]) {
      const random = new SeededRandom(seed);
      const head = new MetricHead(500);
      let round = 0;
      for (; round < 30; round++) {
        // Now and then a series takes a sample twice: the later one wins.
        if (round % 10 === 5) head.append(scrape(random, round, 40)[0]);
        for (const s of scrape(random, round, 40, seed !== 1 && round % 7 === 6)) head.append(s);
        if (round % 4 === 0) head.snapshot();
      }
      const reader = new SnapshotMetricReader(head.snapshot());
      expect(head.snapshot().chunks.length, `seed ${seed}`).toBeGreaterThan(1);
      expect(reader.seriesCount).toBe(head.seriesCount);
      const windows: Array<[number, number]> = [
        [-Infinity, Infinity],
        [BASE_MS + 5 * STEP_MS, BASE_MS + 17 * STEP_MS],
        [BASE_MS + 9 * STEP_MS, BASE_MS + 9 * STEP_MS],
        [BASE_MS + 100 * STEP_MS, Infinity],
      ];
      for (const matchers of MATCHERS) {
        for (const [minMs, maxMs] of windows) {
          const label = `seed ${seed} ${JSON.stringify(matchers)} ${minMs}..${maxMs}`;
          expect(exact(reader.select(matchers, minMs, maxMs)), label).toEqual(exact(head.select(matchers, minMs, maxMs)));
          expect(reader.labelValues('instance', matchers, minMs, maxMs), label).toEqual(head.labelValues('instance', matchers, minMs, maxMs));
          const labelSets = (r: Pick<MetricHead, 'forEachLabelSet'>): unknown[] => {
            const out: unknown[] = [];
            r.forEachLabelSet(matchers, minMs, maxMs, (labels) => void out.push(labels));
            return out;
          };
          expect(labelSets(reader), label).toEqual(labelSets(head));
        }
      }
      const selections = [
        { matchers: MATCHERS[1], minMs: BASE_MS, maxMs: BASE_MS + 10 * STEP_MS },
        { matchers: [], minMs: BASE_MS + 5 * STEP_MS, maxMs: BASE_MS + 20 * STEP_MS },
      ];
      expect(reader.countSamples(selections)).toBe(head.countSamples(selections));
      expect(reader.countReach(selections)).toEqual(head.countReach(selections));
      // One shard of the series reads exactly those series.
      const shard = new SnapshotMetricReader(head.snapshot(), { of: shardOf, index: 1, count: 3 });
      expect(exact(shard.select([], -Infinity, Infinity))).toEqual(exact(head.select([], -Infinity, Infinity).filter((s) => shardOf(s.labels, 3) === 1)));
    }
  });

  it('answers series scraped together with one timestamp array, and a series with other times with its own', () => {
    const head = new MetricHead(100);
    for (let round = 0; round < 40; round++) {
      for (let i = 0; i < 6; i++) {
        // Series 3 misses every fifth scrape, so its times differ from the others' from then on.
        if (i === 3 && round % 5 === 4) continue;
        head.append({ labels: { __name__: 'requests_total', instance: 'a', route: `/r${i}` }, timestampsMs: Float64Array.of(BASE_MS + round * STEP_MS), values: Float64Array.of(round * (i + 1)) });
      }
      if (round % 10 === 9) head.snapshot();
    }
    const reader = new SnapshotMetricReader(head.snapshot());
    expect(head.snapshot().chunks.length).toBeGreaterThan(1);
    for (const [minMs, maxMs] of [[-Infinity, Infinity], [BASE_MS + 3 * STEP_MS, BASE_MS + 8 * STEP_MS], [BASE_MS + 30 * STEP_MS, Infinity]] as const) {
      const got = reader.select([], minMs, maxMs);
      expect(exact(got)).toEqual(exact(head.select([], minMs, maxMs)));
      const byRoute = new Map(got.map((s) => [s.labels.route, s.timestampsMs]));
      expect(byRoute.get('/r1')).toBe(byRoute.get('/r0'));
      expect(byRoute.get('/r2')).toBe(byRoute.get('/r0'));
      expect(byRoute.get('/r3')).not.toBe(byRoute.get('/r2'));
      // The one after a series with other times shares no array with it, but its equal neighbours share one again.
      expect(byRoute.get('/r5')).toBe(byRoute.get('/r4'));
    }
  });

  it('counts the samples selections reach once, however the selections overlap', () => {
    const head = new MetricHead();
    for (let round = 0; round < 10; round++) for (const s of scrape(new SeededRandom(round), round, 6)) head.append(s);
    const up = [{ name: '__name__', type: '=', value: 'up' }] as LabelMatcher[];
    const first = { matchers: up, minMs: BASE_MS, maxMs: BASE_MS + 4 * STEP_MS };
    const overlapping = { matchers: up, minMs: BASE_MS + 2 * STEP_MS, maxMs: BASE_MS + 6 * STEP_MS };
    // Two series named up, 5 and 7 scrapes in the windows, 7 in their union.
    expect(head.countSamples([first])).toBe(2 * 5);
    expect(head.countSamples([first, overlapping])).toBe(2 * 7);
    expect(head.countSamples([{ matchers: [], minMs: -Infinity, maxMs: Infinity }])).toBe(6 * 10);
    // The series they are in: a series matched but without a sample in the windows is not one.
    expect(head.countReach([first, overlapping])).toEqual({ samples: 2 * 7, series: 2 });
    expect(head.countReach([{ matchers: [], minMs: -Infinity, maxMs: Infinity }])).toEqual({ samples: 6 * 10, series: 6 });
    expect(head.countReach([{ matchers: up, minMs: BASE_MS + 100 * STEP_MS, maxMs: Infinity }])).toEqual({ samples: 0, series: 0 });
  });

  it('packs samples once: an unchanged head reuses its snapshot and an append repacks only the open tail', () => {
    const random = new SeededRandom(7);
    const head = new MetricHead(100);
    // 10 series: a scrape is 10 samples, so the 10th scrape seals a chunk of 100.
    for (let round = 0; round < 13; round++) for (const s of scrape(random, round, 10)) head.append(s);
    const first = head.snapshot();
    expect(first.chunks.map((c) => c.samples)).toEqual([130]);
    expect(head.snapshotStats.chunksPacked).toBe(1);
    for (const c of first.chunks) expect(c.values.buffer).toBeInstanceOf(SharedArrayBuffer);
    expect(head.snapshot()).toBe(first);
    expect(head.snapshotStats.chunksPacked).toBe(1);

    for (const s of scrape(random, 13, 10)) head.append(s);
    const second = head.snapshot();
    expect(second).not.toBe(first);
    expect(second.chunks[0]).toBe(first.chunks[0]);
    expect(second.chunks.map((c) => c.samples)).toEqual([130, 10]);
    expect(head.snapshotStats.chunksPacked).toBe(2);

    // Past the limit, the tail is sealed; the next append starts a new tail after it.
    for (let round = 14; round < 24; round++) for (const s of scrape(random, round, 10)) head.append(s);
    expect(head.snapshot().chunks.map((c) => c.samples)).toEqual([130, 110]);
    for (const s of scrape(random, 24, 10)) head.append(s);
    const third = head.snapshot();
    expect(third.chunks.map((c) => c.samples)).toEqual([130, 110, 10]);
    expect(third.chunks[1]).toBe(head.snapshot().chunks[1]);
    expect(head.snapshotStats.chunksPacked).toBe(4);

    // A sample older than its series' newest rewrites that series: the head is packed afresh, and still reads right.
    head.append({ labels: { __name__: 'up', job: 'job0', instance: 'i0' }, timestampsMs: Float64Array.of(BASE_MS + STEP_MS), values: Float64Array.of(42) });
    const rewritten = head.snapshot();
    expect(rewritten.chunks.map((c) => c.samples)).toEqual([250]);
    expect(rewritten.chunks[0]).not.toBe(third.chunks[0]);
    expect(exact(new SnapshotMetricReader(rewritten).select([], -Infinity, Infinity))).toEqual(exact(head.select([], -Infinity, Infinity)));
  });

  it('says which series hold no staleness marker and no counter reset, never claiming more than the samples read show', () => {
    const random = new SeededRandom(7);
    const head = new MetricHead(50);
    const values = new Float64Array(12);
    for (let round = 0; round < 120; round++) {
      for (let i = 0; i < values.length; i++) {
        // Series 0-3 never reset or go stale; the rest now and then restart from zero or are marked stale.
        values[i] = i >= 4 && random.chance(0.02) ? 0 : values[i] + random.int(0, 5);
        const stale = i >= 4 && random.chance(0.01);
        head.append({ labels: { __name__: 'requests_total', instance: `i${i}` }, timestampsMs: Float64Array.of(BASE_MS + round * STEP_MS), values: Float64Array.of(values[i]), ...(stale ? { stale: Uint8Array.of(1) } : {}) });
      }
      if (round % 7 === 6) head.snapshot();
    }
    const reader = new SnapshotMetricReader(head.snapshot());
    expect(head.snapshot().chunks.length).toBeGreaterThan(3);
    const markerIn = (v: Float64Array) => [...v.keys()].some((k) => new Uint32Array(v.buffer, v.byteOffset + 8 * k, 2)[1] === STALE_HI);
    const resetIn = (v: Float64Array) => [...v.keys()].some((k) => k > 0 && v[k] < v[k - 1]);
    let flaggedBoth = 0;
    let flaggedNeither = 0;
    for (let repeat = 0; repeat < 2; repeat++) {
      for (const [minMs, maxMs] of [[-Infinity, Infinity], [BASE_MS + 20 * STEP_MS, BASE_MS + 60 * STEP_MS], [BASE_MS + 100 * STEP_MS, Infinity]] as const) {
        for (const series of reader.select([], minMs, maxMs)) {
          const where = `${series.labels.instance} ${minMs}..${maxMs}`;
          expect(typeof series.staleFree, where).toBe('boolean');
          if (series.staleFree) expect(markerIn(series.values), where).toBe(false);
          if (series.resetFree) expect(resetIn(series.values), where).toBe(false);
          // Read whole, each chunk's part of a series is all of it: the flags are then exact.
          if (minMs === -Infinity && maxMs === Infinity) {
            expect(series.staleFree, where).toBe(!markerIn(series.values));
            expect(series.resetFree, where).toBe(!resetIn(series.values));
          }
          if (series.staleFree && series.resetFree) flaggedBoth++;
          if (!series.staleFree && !series.resetFree) flaggedNeither++;
        }
      }
    }
    expect(flaggedBoth).toBeGreaterThan(0);
    expect(flaggedNeither).toBeGreaterThan(0);
  });

  it('keeps staleness markers bit for bit', () => {
    const head = new MetricHead(4);
    head.append({ labels: { __name__: 'up' }, timestampsMs: Float64Array.of(1, 2, 3, 4, 5), values: Float64Array.of(1, 0, 1, 0, 1), stale: Uint8Array.of(0, 1, 0, 0, 1) });
    const [series] = new SnapshotMetricReader(head.snapshot()).select([], -Infinity, Infinity);
    const bits = new Uint32Array(series.values.buffer, series.values.byteOffset, 10);
    expect([bits[2], bits[3], bits[8], bits[9]]).toEqual([STALE_LO, STALE_HI, STALE_LO, STALE_HI]);
  });
});

describe('metric head snapshots shared by query tasks', () => {
  let dir: string;
  let storage: Storage;
  const org = 'org-metric-shared';
  const query = 'sum by (job) (rate(requests_total[1m]))';
  beforeAll(async () => {
    dir = await tempDir();
    ({ storage } = await openStorage(dir));
    const random = new SeededRandom(11);
    for (let round = 0; round < 60; round++) await storage.appendMetrics(org, scrape(random, round, 30));
  });
  afterAll(async () => {
    await storage.close();
    await rm(dir, { recursive: true, force: true });
  });

  const task = (startMs: number, endMs: number): PromQLRangeTask => ({
    kind: 'promql-range',
    query,
    startMs,
    endMs,
    stepMs: STEP_MS,
    lookbackMs: 300_000,
    maxSamples: 1e7,
    data: shareMetrics(storage.metrics(org), [{ matchers: [{ name: '__name__', type: '=', value: 'requests_total' }], minMs: startMs - 60_000, maxMs: endMs }]),
  });

  it('gives the tasks of a query, and a later query over the unchanged head, the same shared memory', () => {
    const middle = BASE_MS + 30 * STEP_MS;
    const older = task(BASE_MS, middle);
    const newer = task(middle + STEP_MS, BASE_MS + 59 * STEP_MS);
    const bytesOf = (t: PromQLRangeTask): SharedArrayBuffer[] => t.data.heads.flatMap((h) => h.chunks.map((c) => c.values.buffer as SharedArrayBuffer));
    expect(bytesOf(older).length).toBeGreaterThan(0);
    bytesOf(newer).forEach((b, i) => expect(b).toBe(bytesOf(older)[i]));
    // Nothing is moved or copied to post a task: the clone still points at shared memory.
    expect(taskTransferables(older)).toEqual([]);
    for (const b of bytesOf(structuredClone(older))) expect(b).toBeInstanceOf(SharedArrayBuffer);
    expect(task(BASE_MS, BASE_MS + 59 * STEP_MS).data.heads[0]).toBe(older.data.heads[0]);

    // Each slice, evaluated over the shared snapshot, answers as a direct evaluation over the store.
    for (const t of [older, newer]) {
      const { result } = runTask(structuredClone(t));
      if (!('series' in result)) throw new Error(JSON.stringify(result));
      const direct = evaluateRange(parseAndCheckPromQL(query), storage.metrics(org), t.startMs, t.endMs, t.stepMs, { lookbackDeltaMs: t.lookbackMs, maxSamples: t.maxSamples });
      expect(direct.series.length).toBe(4);
      const sorted = (xs: readonly SeriesColumns[]) => exact([...xs].sort((a, b) => (a.labels.job < b.labels.job ? -1 : 1)));
      expect(sorted(unpackSeries(result.series))).toEqual(sorted(direct.series));
    }
  });

  it('takes a new snapshot once the head changes, reusing its sealed chunks, and reports what it packed', async () => {
    const before = task(BASE_MS, BASE_MS + 59 * STEP_MS).data.heads[0];
    const packed = storage.stats();
    expect(packed.metricChunksPacked).toBeGreaterThan(0);
    expect(packed.metricSnapshotBytes).toBeGreaterThan(60 * 30 * 16);
    await storage.appendMetrics(org, scrape(new SeededRandom(12), 60, 30));
    const after = task(BASE_MS, BASE_MS + 60 * STEP_MS).data.heads[0];
    expect(after).not.toBe(before);
    expect(after.chunks.reduce((n, c) => n + c.samples, 0)).toBe(61 * 30);
    expect(storage.stats().metricChunksPacked).toBe(packed.metricChunksPacked + 1);
  });
});
