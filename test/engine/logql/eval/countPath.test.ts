import { rm } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evaluateLogQLInstant, evaluateLogQLRange } from '../../../../engine/logql/eval/index.js';
import { parseLogQL } from '../../../../engine/logql/index.js';
import { gatherLogShare, logTimeParts, logViewOf, shareLogs } from '../../../../engine/query/taskData.js';
import { logSelectionsFor } from '../../../../engine/query/logqlPlan.js';
import { mergeShards } from '../../../../engine/query/shards.js';
import type { TimePart } from '../../../../engine/storage/partition.js';
import { countRows, type LogCountReader } from '../../../../engine/storage/logCounts.js';
import type { LogEntry, LogReader } from '../../../../engine/storage/logHead.js';
import type { OrgLogView } from '../../../../engine/storage/orgViews.js';
import { SharedSegmentReaders } from '../../../../engine/storage/sharedSegments.js';
import type { Storage } from '../../../../engine/storage/storage.js';
import type { SeriesColumns } from '../../../../engine/storage/seriesColumns.js';
import { SeededRandom } from '../../../support/seededRandom.js';
import { ALL_NS, openStorage, tempDir } from '../../storage/segmentFixtures.js';

/**
 * Count-only range aggregations are answered by the readers counting lines per step window
 * (logCounts.ts) instead of selecting them. These tests hold that path to the general one,
 * line by line, over two segments and a head whose times overlap, with lines on the exact
 * edges of windows and steps.
 */

const ORG = 'org-count';
/** WIDE is an org whose lines each carry their own attribute set. */
const WIDE = 'org-wide';
const T0_MS = 1_700_000_000_000;
const STEP_MS = 30_000;
const NS_PER_MS = 1_000_000n;

/** batch writes lines over [fromMs, toMs): random times, plus lines exactly on every step edge and 1 ns either side. */
function batch(random: SeededRandom, fromMs: number, toMs: number, lines: number): LogEntry[] {
  const out: LogEntry[] = [];
  const entry = (timestampNs: bigint): LogEntry => {
    const service = random.pick(['checkout', 'cart', 'search']);
    const tags: Record<string, string> = { service_name: service, k8s_pod_name: `${service}-${random.int(0, 1)}`, route: `/r${random.int(0, 3)}` };
    if (random.chance(0.1)) tags.user = 'bob';
    return { timestampNs, message: `line ${out.length}`, level: random.pick(['info', 'error', 'warn', '']), tags };
  };
  for (let i = 0; i < lines; i++) out.push(entry(BigInt(fromMs + Math.floor(random.next() * (toMs - fromMs))) * NS_PER_MS + BigInt(random.int(0, 999_999))));
  for (let t = Math.ceil(fromMs / STEP_MS) * STEP_MS; t < toMs; t += STEP_MS) {
    const ns = BigInt(t) * NS_PER_MS;
    out.push(entry(ns), entry(ns), entry(ns - 1n), entry(ns + 1n));
  }
  return out;
}

/** oneAttributeSetPerLine is `batch` with a distinct attribute set on every line: more groups than a segment's dense table of slots takes. */
function oneAttributeSetPerLine(random: SeededRandom, fromMs: number, toMs: number, lines: number): LogEntry[] {
  return batch(random, fromMs, toMs, lines).map((e, i) => ({ ...e, tags: { ...e.tags, request: `q${i}` } }));
}

/** generalOnly hides a reader's count method, so the evaluator selects lines and runs its general extraction. */
function generalOnly(view: LogReader): LogReader {
  return { select: (matchers, minNs, maxNs, projection) => view.select(matchers, minNs, maxNs, projection) };
}

/** counting wraps a view and counts how often each read method is used. */
function counting(view: OrgLogView): { reader: LogReader & LogCountReader; calls: { select: number; countLines: number } } {
  const calls = { select: 0, countLines: 0 };
  const reader: LogReader & LogCountReader = {
    select: (...args) => {
      calls.select++;
      return view.select(...args);
    },
    countLines: (...args) => {
      calls.countLines++;
      view.countLines(...args);
    },
  };
  return { reader, calls };
}

const plain = (series: readonly SeriesColumns[]) => series.map((s) => ({ labels: JSON.stringify(s.labels), t: [...s.timestampsMs], v: [...s.values] }));

const QUERIES = [
  'count_over_time({service_name=~".+"}[1m])',
  'sum(count_over_time({service_name=~".+"}[1m]))',
  'sum by (level) (count_over_time({service_name=~".+"}[90s]))',
  'sum by (route) (rate({service_name="checkout"}[30s]))',
  'rate({service_name=~"cart|search", level="error"}[45s] offset 30s)',
  'count_over_time({service_name="cart", route="/r1"}[2m] offset 1m)',
  'sum without (k8s_pod_name) (count_over_time({user="bob"}[1m]))',
  'absent_over_time({service_name="search", level="warn", route="/r3"}[30s])',
  'count_over_time({service_name="nope"}[1m])',
  // Literal line filters are searched in the stored bytes (lineMatch.ts).
  'sum by (level) (count_over_time({service_name=~".+"} |= "line 1" [1m]))',
  'rate({service_name="checkout"} != "7" [30s])',
  'count_over_time({service_name=~".+"} |= "line" != "3" |= "" [90s])',
  // Alternatives: any of them for `|=`, none for `!=`.
  'count_over_time({service_name=~".+"} |= "line 1" or "line 2" [1m])',
  'sum(count_over_time({service_name=~".+"} != "1" or "2" |= "line" or "" [1m]))',
];

describe('counting lines per window', () => {
  let dir: string;
  let storage: Storage;
  beforeAll(async () => {
    dir = await tempDir();
    ({ storage } = await openStorage(dir));
    const random = new SeededRandom(15);
    // Two segments and a head, each overlapping the next in time.
    await storage.appendLogs(ORG, batch(random, T0_MS, T0_MS + 10 * 60_000, 1500));
    await storage.cut();
    await storage.appendLogs(ORG, batch(random, T0_MS + 5 * 60_000, T0_MS + 15 * 60_000, 1500));
    await storage.appendLogs(WIDE, oneAttributeSetPerLine(random, T0_MS, T0_MS + 10 * 60_000, 12_000));
    await storage.cut();
    await storage.appendLogs(ORG, batch(random, T0_MS + 12 * 60_000, T0_MS + 20 * 60_000, 1500));
    await storage.appendLogs(WIDE, oneAttributeSetPerLine(random, T0_MS + 5 * 60_000, T0_MS + 15 * 60_000, 500));
  });
  afterAll(async () => {
    await storage.close();
    await rm(dir, { recursive: true, force: true });
  });

  const workerView = (shard?: { timePart: TimePart }): OrgLogView => logViewOf(shareLogs(storage.logs(ORG), [{ matchers: [], minNs: ALL_NS[0], maxNs: ALL_NS[1] }]), new SharedSegmentReaders(), shard);

  it('has data in segments and in the head', () => {
    const data = shareLogs(storage.logs(ORG), [{ matchers: [], minNs: ALL_NS[0], maxNs: ALL_NS[1] }]);
    expect(data.segments).toHaveLength(2);
    expect(data.heads.reduce((n, h) => n + h.chunks.reduce((m, c) => m + c.rows, 0), 0)).toBeGreaterThan(1500);
  });

  it('answers range queries as the general path does, in the store and on a worker', () => {
    for (const view of [storage.logs(ORG), workerView()]) {
      for (const q of QUERIES) {
        const expr = parseLogQL(q);
        // Steps on and between the lines' step edges, over the whole data and past it.
        for (const [startMs, endMs, stepMs] of [
          [T0_MS, T0_MS + 21 * 60_000, STEP_MS],
          [T0_MS + 7_500, T0_MS + 20 * 60_000, 45_000],
          [T0_MS + 60_000, T0_MS + 60_000, 1_000],
        ]) {
          const { reader, calls } = counting(view);
          const fast = evaluateLogQLRange(expr, reader, startMs, endMs, stepMs);
          const general = evaluateLogQLRange(expr, generalOnly(view), startMs, endMs, stepMs);
          expect(plain(fast.series), `${q} ${startMs}`).toEqual(plain(general.series));
          expect(calls, q).toEqual({ select: 0, countLines: 1 });
        }
      }
      expect(plain(evaluateLogQLRange(parseLogQL(QUERIES[1]), view, T0_MS, T0_MS + 21 * 60_000, STEP_MS).series)[0].v.some((v) => v > 0)).toBe(true);
    }
  });

  it('answers instant queries at step edges as the general path does', () => {
    for (const view of [storage.logs(ORG), workerView()]) {
      for (const q of QUERIES) {
        const expr = parseLogQL(q);
        for (const atMs of [T0_MS + 5 * 60_000, T0_MS + 12 * 60_000 + STEP_MS, T0_MS + 19 * 60_000 + 1, T0_MS + 30 * 60_000]) {
          const fast = evaluateLogQLInstant(expr, view, atMs);
          const general = evaluateLogQLInstant(expr, generalOnly(view), atMs);
          expect(fast, `${q} at ${atMs}`).toEqual(general);
        }
      }
    }
  });

  it('counts every line once across segments and the head', () => {
    const total = storage.logs(ORG).select([], ...ALL_NS).reduce((n, s) => n + s.timestampsNs.length, 0);
    const at = T0_MS + 20 * 60_000;
    const result = evaluateLogQLInstant(parseLogQL('sum(count_over_time({service_name=~".+"}[30m]))'), workerView(), at);
    if (result.resultType !== 'vector') throw new Error('expected a vector');
    expect([...result.series[0].values]).toEqual([total]);
    expect(countRows(storage.logs(ORG), [], ...ALL_NS)).toBe(total);
    const cart = [{ name: 'service_name', type: '=' as const, value: 'cart' }];
    const window = [BigInt(T0_MS + 60_000) * NS_PER_MS, BigInt(T0_MS + 13 * 60_000) * NS_PER_MS] as const;
    const selected = storage.logs(ORG).select(cart, ...window).reduce((n, s) => n + s.timestampsNs.length, 0);
    expect(selected).toBeGreaterThan(100);
    expect(countRows(storage.logs(ORG), cart, ...window)).toBe(selected);
    expect(countRows(workerView(), cart, ...window)).toBe(selected);
  });

  it('leaves filters it cannot search as bytes to the general path', () => {
    const view = workerView();
    for (const q of ['count_over_time({service_name=~".+"} |~ "line 1[0-9]" [1m])', 'count_over_time({service_name=~".+"} |= "line 1" or ip("10.0.0.0/8") [1m])']) {
      const { reader, calls } = counting(view);
      const answer = evaluateLogQLRange(parseLogQL(q), reader, T0_MS, T0_MS + 21 * 60_000, STEP_MS);
      expect(calls, q).toEqual({ select: 1, countLines: 0 });
      expect(answer.series.length, q).toBeGreaterThan(3);
    }
  });

  it('matches a no-op line filter, which counts as no filter', () => {
    const view = workerView();
    const expr = parseLogQL('sum by (service_name, level) (count_over_time({service_name=~".+"}[1m]))');
    const filtered = parseLogQL('sum by (service_name, level) (count_over_time({service_name=~".+"} != "never in a line" [1m]))');
    const fast = evaluateLogQLRange(expr, view, T0_MS, T0_MS + 21 * 60_000, STEP_MS);
    expect(fast.series.length).toBeGreaterThan(6);
    expect(plain(fast.series)).toEqual(plain(evaluateLogQLRange(filtered, view, T0_MS, T0_MS + 21 * 60_000, STEP_MS).series));
  });

  it('finds groups through a map when a segment has too many for a table', () => {
    const view = logViewOf(shareLogs(storage.logs(WIDE), [{ matchers: [], minNs: ALL_NS[0], maxNs: ALL_NS[1] }]), new SharedSegmentReaders());
    for (const q of ['sum by (level) (count_over_time({service_name=~".+"}[1m]))', 'count_over_time({service_name="cart", route="/r2"}[2m])']) {
      const expr = parseLogQL(q);
      const fast = evaluateLogQLRange(expr, view, T0_MS, T0_MS + 16 * 60_000, STEP_MS);
      expect(fast.series.length, q).toBeGreaterThan(3);
      expect(plain(fast.series), q).toEqual(plain(evaluateLogQLRange(expr, generalOnly(view), T0_MS, T0_MS + 16 * 60_000, STEP_MS).series));
    }
  });

  it('splits counts by shards of time that add up exactly to the whole', () => {
    const expr = parseLogQL('count_over_time({service_name=~".+"}[1m])');
    const whole = evaluateLogQLRange(expr, workerView(), T0_MS, T0_MS + 21 * 60_000, STEP_MS).series;
    const selections = logSelectionsFor(expr, T0_MS, T0_MS + 21 * 60_000);
    const share = gatherLogShare(storage.logs(ORG), selections);
    const timeParts = logTimeParts(share, selections, 3);
    // Each part holds lines of its own; together they are every line once.
    const counted = timeParts.map((timePart) => countRows(workerView({ timePart }), [], ...ALL_NS));
    for (const n of counted) expect(n).toBeGreaterThan(0);
    expect(counted.reduce((a, b) => a + b, 0)).toBe(countRows(workerView(), [], ...ALL_NS));
    const outputs = timeParts.map((timePart) => ({ series: evaluateLogQLRange(expr, workerView({ timePart }), T0_MS, T0_MS + 21 * 60_000, STEP_MS).series }));
    const byLabels = (a: { labels: string }, b: { labels: string }): number => (a.labels < b.labels ? -1 : 1);
    expect(plain(mergeShards('sum', outputs)).sort(byLabels)).toEqual(plain(whole).sort(byLabels));
  });
});
