import { describe, expect, it } from 'vitest';
import { ALL_FEATURES_ON, parseAndCheckPromQL } from '../../engine/promql/index.js';
import { dataReach, refersToQueryWindow, resultsCacheable } from '../../engine/query/promqlPlan.js';
import { planPieces } from '../../src/query/cache/cachePlan.js';
import { ResultsCache, type CachedPiece } from '../../src/query/cache/resultsCache.js';
import { joinSeries, sliceSeries } from '../../src/query/cache/seriesPieces.js';
import { FlightTable, type FlightOutcome, type FlightReader, type FlightRun } from '../../src/query/cache/singleFlight.js';

/** The results cache's parts on their own: which queries it takes, how a window splits, and its store's rules. */

const HOUR = 3_600_000;

function piece(fromMs: number, toMs: number, bytes: number, dataFromMs = fromMs - 300_000, dataToMs = toMs): CachedPiece {
  return { fromMs, toMs, series: [], bytes, dataFromMs, dataToMs };
}

describe('which queries the results cache takes', () => {
  it('takes step-invariant queries, time() and timestamp() included, and refuses @ and the window functions', () => {
    for (const q of ['sum(rate(x[5m]))', 'x offset 1h', 'time() - timestamp(x)', 'max_over_time(x[1h:1m])', 'hour(x)', 'step() * x']) {
      expect(resultsCacheable(parseAndCheckPromQL(q)), q).toBe(true);
    }
    for (const q of ['x @ 1700000000', 'x @ end()', 'rate(x[5m] @ start())', 'sum_over_time(x[10m:1m] @ 100)', 'start() + x', 'range()', 'end()']) {
      expect(resultsCacheable(parseAndCheckPromQL(q)), q).toBe(false);
    }
  });

  it('refuses ranges, steps and offsets written as duration expressions that read the query', () => {
    for (const q of ['rate(x[range()])', 'x[range():step()]', 'sum_over_time(x[step()*10])', 'x offset step()']) {
      expect(resultsCacheable(parseAndCheckPromQL(q, ALL_FEATURES_ON)), q).toBe(false);
    }
    // A duration expression made of literals is folded while parsing: nothing depends on the query.
    expect(resultsCacheable(parseAndCheckPromQL('rate(x[5m+30s])', ALL_FEATURES_ON))).toBe(true);
  });

  it('keeps queries that read the window whole rather than sliced', () => {
    expect(refersToQueryWindow(parseAndCheckPromQL('x - start()'))).toBe(true);
    expect(refersToQueryWindow(parseAndCheckPromQL('x - time()'))).toBe(false);
  });

  it('knows how far a query reads around each step', () => {
    expect(dataReach(parseAndCheckPromQL('rate(x[10m])'), 300_000, 60_000)).toEqual({ before: 900_000, after: 0, reads: true });
    expect(dataReach(parseAndCheckPromQL('x offset -5m'), 300_000, 60_000)).toEqual({ before: 0, after: 300_000, reads: true });
    expect(dataReach(parseAndCheckPromQL('vector(1)'), 300_000, 60_000).reads).toBe(false);
  });
});

describe('splitting a window between cache and evaluation', () => {
  const base = { stepMs: 60_000, splitMs: HOUR, firstCacheableMs: -Infinity };

  it('evaluates a cold window in one run, and only the uncached and fresh steps once pieces are held', () => {
    const cold = planPieces({ ...base, firstStepMs: 0, lastStepMs: 3 * HOUR, lastCacheableMs: 2.5 * HOUR, cached: () => undefined });
    expect(cold).toEqual([{ kind: 'evaluate', fromMs: 0, toMs: 3 * HOUR }]);
    const held = new Map([
      [0, { fromMs: 0, toMs: HOUR - 60_000 }],
      [1, { fromMs: HOUR, toMs: 2 * HOUR - 60_000 }],
      [2, { fromMs: 2 * HOUR, toMs: 2 * HOUR + 20 * 60_000 }],
    ]);
    const warm = planPieces({ ...base, firstStepMs: 0, lastStepMs: 3 * HOUR, lastCacheableMs: 2.5 * HOUR, cached: (c) => held.get(c) });
    expect(warm).toEqual([
      { kind: 'cached', fromMs: 0, toMs: HOUR - 60_000, cell: 0 },
      { kind: 'cached', fromMs: HOUR, toMs: 2 * HOUR - 60_000, cell: 1 },
      { kind: 'cached', fromMs: 2 * HOUR, toMs: 2 * HOUR + 20 * 60_000, cell: 2 },
      { kind: 'evaluate', fromMs: 2 * HOUR + 21 * 60_000, toMs: 3 * HOUR },
    ]);
  });

  it('keeps steps off the step grid out: a window with another phase has its own steps', () => {
    const pieces = planPieces({ ...base, firstStepMs: 30_000, lastStepMs: HOUR + 30_000, lastCacheableMs: Infinity, cached: () => undefined });
    expect(pieces).toEqual([{ kind: 'evaluate', fromMs: 30_000, toMs: HOUR + 30_000 }]);
    const held = planPieces({ ...base, firstStepMs: 30_000, lastStepMs: HOUR + 30_000, lastCacheableMs: Infinity, cached: (c) => (c === 0 ? { fromMs: 30_000, toMs: HOUR - 30_000 } : undefined) });
    expect(held).toEqual([
      { kind: 'cached', fromMs: 30_000, toMs: HOUR - 30_000, cell: 0 },
      { kind: 'evaluate', fromMs: HOUR + 30_000, toMs: HOUR + 30_000 },
    ]);
  });
});

describe('the results cache store', () => {
  it('evicts from the org holding the most, least recently used first, and stays within its budget', () => {
    let evicted = 0;
    const cache = new ResultsCache(4000, { evicted: (n) => (evicted += n), invalidated: () => {} });
    cache.put('small', 'a', piece(0, 1, 500), 0);
    for (let i = 0; i < 10; i++) cache.put('big', `k${i}`, piece(0, 1, 900), 0);
    expect(cache.bytes).toBeLessThanOrEqual(4000);
    expect(cache.get('small', 'a')).toBeDefined();
    expect(cache.get('big', 'k0')).toBeUndefined();
    expect(cache.get('big', 'k9')).toBeDefined();
    expect(evicted).toBeGreaterThan(0);
    expect(cache.put('big', 'huge', piece(0, 1, 1001), 0)).toBe(false);
  });

  it('drops the pieces a late write falls in, and refuses pieces evaluated across one', () => {
    let invalidated = 0;
    const cache = new ResultsCache(1 << 20, { evicted: () => {}, invalidated: (n) => (invalidated += n) });
    cache.put('o', 'first', piece(0, HOUR, 10), 0);
    cache.put('o', 'second', piece(HOUR, 2 * HOUR, 10), 0);
    const epoch = cache.epoch('o');
    expect(cache.lateWrite('o', HOUR + 1000, HOUR + 1000)).toBe(1);
    expect(invalidated).toBe(1);
    expect(cache.get('o', 'first')).toBeDefined();
    expect(cache.get('o', 'second')).toBeUndefined();
    expect(cache.put('o', 'second', piece(HOUR, 2 * HOUR, 10), epoch)).toBe(false);
    expect(cache.put('o', 'second', piece(HOUR, 2 * HOUR, 10), cache.epoch('o'))).toBe(true);
    expect(cache.get('other', 'first')).toBeUndefined();
  });

  it('cuts and joins series as one evaluation returns them', () => {
    const s = (labels: Record<string, string>, ts: number[]) => ({ labels, timestampsMs: Float64Array.from(ts), values: Float64Array.from(ts, (t) => t / 10) });
    const whole = [s({ job: 'a' }, [10, 20, 30, 40]), s({ job: 'b' }, [30, 40])];
    const early = sliceSeries(whole, 10, 20);
    expect(early.map((x) => x.labels.job)).toEqual(['a']);
    const joined = joinSeries([early, sliceSeries(whole, 30, 40)]);
    expect(joined.map((x) => [x.labels.job, [...x.timestampsMs], [...x.values]])).toEqual([
      ['a', [10, 20, 30, 40], [1, 2, 3, 4]],
      ['b', [30, 40], [3, 4]],
    ]);
  });
});

describe('single flight', () => {
  const slice = (bytes: number) => ({ series: [], bytes, annotations: [] });

  it('lets a second reader join and read every slice, and keeps the answer for the cache', async () => {
    const table = new FlightTable(1000);
    let outcome: FlightOutcome | undefined;
    let release = (): void => {};
    const gate = new Promise<void>((r) => (release = r));
    const run: FlightRun = async (_signal, publish) => {
      await publish(slice(10));
      await gate;
      await publish(slice(20));
      return 0;
    };
    const first = table.join('k', new AbortController().signal, run, (o) => (outcome = o));
    const second = table.join('k', new AbortController().signal, run, () => {});
    expect([first.shared, second.shared]).toEqual([false, true]);
    const read = async (reader: FlightReader): Promise<number[]> => {
      const got: number[] = [];
      for (let s = await reader.next(); s !== undefined; s = await reader.next()) {
        got.push(s.bytes);
        reader.taken();
      }
      return got;
    };
    const both = Promise.all([read(first.reader), read(second.reader)]);
    release();
    expect(await both).toEqual([
      [10, 20],
      [10, 20],
    ]);
    expect(outcome?.results.map((r) => r.bytes)).toEqual([10, 20]);
    expect(table.kept.bytes).toBe(0);
  });

  it('stops keeping slices, and taking new readers, past the shared allowance', async () => {
    const table = new FlightTable(50);
    let outcome: FlightOutcome | undefined = { results: [], failedSegments: 0 };
    const run: FlightRun = async (_signal, publish) => {
      for (let i = 0; i < 3; i++) await publish(slice(30));
      return 0;
    };
    const { reader } = table.join('k', new AbortController().signal, run, (o) => (outcome = o));
    expect((await reader.next())?.bytes).toBe(30);
    reader.taken();
    expect((await reader.next())?.bytes).toBe(30);
    // 60 bytes are past the allowance: a second identical query starts its own evaluation.
    expect(table.join('k', AbortSignal.abort(), run, () => {}).shared).toBe(false);
    reader.taken();
    expect((await reader.next())?.bytes).toBe(30);
    reader.taken();
    expect(await reader.next()).toBeUndefined();
    expect(outcome).toBeUndefined();
    expect(table.kept.bytes).toBe(0);
  });

  it('stops the evaluation when its last reader leaves', async () => {
    const table = new FlightTable(1000);
    let stopped = false;
    const run: FlightRun = async (signal, publish) => {
      signal.addEventListener('abort', () => (stopped = true));
      await publish(slice(1));
      return 0;
    };
    const left = new AbortController();
    const { reader } = table.join('k', left.signal, run, () => {});
    await reader.next();
    left.abort(new Error('client left'));
    await expect(reader.next()).rejects.toThrow('client left');
    await new Promise((r) => setTimeout(r, 10));
    expect(stopped).toBe(true);
  });
});
