/**
 * Range functions over series held in parts (two segments and the head) evaluate each window
 * in the part that holds it instead of joining the parts, and instant selectors pick each
 * step's sample from the part that holds it: every range function and selector must answer as
 * it does over the same samples held whole, for windows inside one part, across two or three
 * parts, between parts and past the data, with staleness markers and gaps.
 */
import { rm } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evaluateRange } from '../../../engine/promql/eval/index.js';
import { derivKernel, predictLinearKernel } from '../../../engine/promql/eval/kernels/overTime.js';
import { rateKernel } from '../../../engine/promql/eval/kernels/rate.js';
import type { RangeKernel } from '../../../engine/promql/eval/kernels/types.js';
import { RunWindows } from '../../../engine/promql/eval/runWindows.js';
import { FUNCTIONS, parseAndCheckPromQL } from '../../../engine/promql/index.js';
import type { MetricSeries } from '../../../engine/storage/metricHead.js';
import type { OrgMetricView } from '../../../engine/storage/orgViews.js';
import { staleMarkerArray } from '../../../engine/storage/staleness.js';
import type { Storage } from '../../../engine/storage/storage.js';
import { SeededRandom } from '../../support/seededRandom.js';
import { expectSameSamples, type StepRange } from '../query/shardedEvaluation.js';
import { openStorage, tempDir } from '../storage/segmentFixtures.js';

const ORG = 'org';
const START = 1_700_000_000_000;
const SCRAPE_MS = 15_000;
const PART_MS = 12 * 60_000;
const SEED = 4242;
const STALE = staleMarkerArray()[0];

/** readings are 30 series over three parts of 12 minutes, with gaps, resets, NaN and staleness markers. */
function readings(random: SeededRandom): MetricSeries[] {
  const out: MetricSeries[] = [];
  for (let i = 0; i < 30; i++) {
    const ts: number[] = [];
    const values: number[] = [];
    let v = random.int(0, 50);
    for (let t = START; t < START + 3 * PART_MS; t += SCRAPE_MS) {
      // Series 0 leaves the middle part empty, so windows fall between its runs.
      if (random.chance(0.1) || (i === 0 && t >= START + PART_MS && t < START + 2 * PART_MS)) continue;
      v = random.chance(0.04) ? 0 : v + random.int(-2, 9) / 4;
      ts.push(t);
      values.push(random.chance(0.02) ? STALE : random.chance(0.01) ? NaN : v);
    }
    out.push({ labels: { __name__: 'reading', job: `job${i % 3}`, instance: `i${i}` }, timestampsMs: Float64Array.from(ts), values: Float64Array.from(values) });
  }
  return out;
}

/** partOf keeps the samples of `series` in `[fromMs, toMs)`, copied with `slice`, which keeps a staleness marker's bits. */
function partOf(series: readonly MetricSeries[], fromMs: number, toMs: number): MetricSeries[] {
  return series.map((s) => {
    const from = s.timestampsMs.findIndex((t) => t >= fromMs);
    const to = s.timestampsMs.findIndex((t) => t >= toMs);
    const [a, b] = [from < 0 ? s.timestampsMs.length : from, to < 0 ? s.timestampsMs.length : to];
    return { labels: s.labels, timestampsMs: s.timestampsMs.slice(a, b), values: s.values.slice(a, b) };
  });
}

/** PartedAndWhole is the same series in two stores: as two segments and a head, and whole in a head. */
interface PartedAndWhole {
  parted: OrgMetricView;
  whole: OrgMetricView;
  close(): Promise<void>;
}

async function partedAndWhole(data: MetricSeries[]): Promise<PartedAndWhole> {
  const dirs = [await tempDir(), await tempDir()];
  const [a, b] = await Promise.all(dirs.map((dir) => openStorage(dir)));
  const stores: Storage[] = [a.storage, b.storage];
  // Two segments and the head hold one part each; the other store holds everything in its head.
  for (let part = 0; part < 3; part++) {
    await a.storage.appendMetrics(ORG, partOf(data, START + part * PART_MS, START + (part + 1) * PART_MS), []);
    if (part < 2) await a.storage.cut();
  }
  await b.storage.appendMetrics(ORG, data, []);
  return {
    parted: a.storage.metrics(ORG),
    whole: b.storage.metrics(ORG),
    async close() {
      await Promise.all(stores.map((s) => s.close()));
      await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
    },
  };
}

/** STEP_RANGES: steps on the scrape grid, off it, starting before the data, ending past it, and one instant. */
const STEP_RANGES: readonly StepRange[] = [
  { startMs: START, endMs: START + 3 * PART_MS, stepMs: 60_000 },
  { startMs: START - 5 * 60_000, endMs: START + 3 * PART_MS + 20 * 60_000, stepMs: 7_000 },
  { startMs: START + PART_MS + 1, endMs: START + 2 * PART_MS + 1, stepMs: 15_000 },
  { startMs: START + 2 * PART_MS, endMs: START + 2 * PART_MS, stepMs: 15_000 },
];

/** WINDOWS are inside one part, across two, across three, and with an offset and an `@`. */
const WINDOWS = ['[1m]', '[5m]', '[30m]', '[2m] offset 3m', `[4m] @ ${(START + PART_MS + 60_000) / 1000}`];

/** SCALARS fill a range function's scalar parameters: inside (0, 1) for quantiles and smoothing factors. */
const SCALARS = ['0.3', '0.7'];

/** rangeCalls writes every range function the parser knows over each window. */
function rangeCalls(): string[] {
  const calls: string[] = [];
  for (const def of FUNCTIONS.values()) {
    if (!def.argTypes.includes('matrix') || def.name === 'absent_over_time') continue;
    for (const window of WINDOWS) {
      let scalars = 0;
      const args = def.argTypes.map((type) => (type === 'matrix' ? `reading${window}` : type === 'scalar' ? SCALARS[scalars++] : '"job"'));
      calls.push(`${def.name}(${args.join(', ')})`);
    }
  }
  return calls;
}

/** concat joins arrays with bulk copies, which keep a staleness marker's bits. */
function concat(parts: readonly Float64Array[]): Float64Array {
  const out = new Float64Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

function bytesOf(values: Float64Array): Uint8Array {
  return new Uint8Array(values.buffer, values.byteOffset, values.byteLength);
}

function evaluate(view: OrgMetricView, query: string, steps: StepRange) {
  return evaluateRange(parseAndCheckPromQL(query), view, steps.startMs, steps.endMs, steps.stepMs, { lookbackDeltaMs: 300_000, maxSamples: 1e8 });
}

/**
 * EXACT functions read window ends, counts or extremes only: the same samples must give the
 * same numbers (compared as values: which NaN an addition of two NaNs keeps depends on how V8
 * compiled it, so NaN payloads are not compared).
 */
const EXACT = new Set(['rate', 'increase', 'delta', 'irate', 'idelta', 'changes', 'resets', 'count_over_time', 'last_over_time', 'first_over_time', 'max_over_time', 'min_over_time', 'present_over_time']);

describe('selectors and range functions over series held in parts', () => {
  let stores: PartedAndWhole;
  let parted: OrgMetricView;
  let whole: OrgMetricView;
  beforeAll(async () => {
    stores = await partedAndWhole(readings(new SeededRandom(SEED)));
    ({ parted, whole } = stores);
  });
  afterAll(() => stores.close());

  it('keeps the parts of a series apart where they follow each other in time', () => {
    const series = parted.selectRuns([{ name: '__name__', type: '=', value: 'reading' }], -Infinity, Infinity);
    expect(series).toHaveLength(30);
    expect(series.filter((s) => s.runs.length === 3)).toHaveLength(29);
    // Series 0 has nothing in the middle part: its runs are the first segment's and the head's.
    expect(series.find((s) => s.labels.instance === 'i0')?.runs).toHaveLength(2);
    const joined = parted.select([{ name: '__name__', type: '=', value: 'reading' }], -Infinity, Infinity);
    for (const s of series) {
      const one = joined.find((j) => j.labels.instance === s.labels.instance)!;
      expect(concat(s.runs.map((r) => r.timestampsMs))).toEqual(one.timestampsMs);
      expect(bytesOf(concat(s.runs.map((r) => r.values)))).toEqual(bytesOf(one.values));
    }
  });

  const calls = rangeCalls();
  it('covers every range function', () => {
    expect(calls.length).toBeGreaterThanOrEqual(25 * WINDOWS.length);
  });

  /** INSTANT_QUERIES read instant selectors: values, timestamps, offsets, `@`, and operators over them. */
  const INSTANT_QUERIES = [
    'reading',
    'timestamp(reading)',
    'reading offset 4m',
    `reading @ ${(START + PART_MS + 30_000) / 1000}`,
    'sum by (job) (reading)',
    'reading * on (instance) group_left reading offset 12m',
    'max_over_time(reading[20m:1m])',
  ];
  for (const query of INSTANT_QUERIES) {
    it(`answers ${query} as over the series held whole`, () => {
      for (const steps of STEP_RANGES) {
        const want = evaluate(whole, query, steps);
        const got = evaluate(parted, query, steps);
        const context = `${query} from ${steps.startMs} step ${steps.stepMs} seed ${SEED}`;
        expect(want.series.length, context).toBeGreaterThan(0);
        expect(got.series.map((s) => s.labels), context).toEqual(want.series.map((s) => s.labels));
        for (let i = 0; i < want.series.length; i++) {
          expect(got.series[i].timestampsMs, context).toEqual(want.series[i].timestampsMs);
          expect([...got.series[i].values], context).toEqual([...want.series[i].values]);
        }
      }
    });
  }

  for (const call of calls) {
    const name = call.slice(0, call.indexOf('('));
    it(`answers ${call} as over the series held whole`, () => {
      for (const steps of STEP_RANGES) {
        const want = evaluate(whole, call, steps);
        const got = evaluate(parted, call, steps);
        const context = `${call} from ${steps.startMs} step ${steps.stepMs} seed ${SEED}`;
        expect(got.series.length, context).toBe(want.series.length);
        if (want.series.length === 0) continue;
        if (EXACT.has(name)) {
          for (let i = 0; i < want.series.length; i++) {
            expect(got.series[i].labels, context).toEqual(want.series[i].labels);
            expect(got.series[i].timestampsMs, context).toEqual(want.series[i].timestampsMs);
            expect([...got.series[i].values], context).toEqual([...want.series[i].values]);
          }
        } else {
          // Sums slide their windows: where a part starts they start afresh, within rounding of the whole series' slide.
          expectSameSamples(got.series, want, context, 11, true);
        }
      }
    });
  }
});

/**
 * scrapedTogether are 24 series of one job: most share every scrape time (their segments hold
 * one timestamp column for all of them), every third misses scrapes of its own, and the last
 * starts in the middle part. Their windows are found once per shared timestamp column; a
 * series with timestamps of its own, or runs split at other steps, must never read the
 * windows another series left behind.
 */
function scrapedTogether(random: SeededRandom): MetricSeries[] {
  const out: MetricSeries[] = [];
  for (let i = 0; i < 24; i++) {
    const ts: number[] = [];
    const values: number[] = [];
    let v = random.int(0, 50);
    for (let t = START; t < START + 3 * PART_MS; t += SCRAPE_MS) {
      if (i % 3 === 1 && random.chance(0.2)) continue;
      if (i === 23 && t < START + PART_MS + 5 * 60_000) continue;
      v = random.chance(0.03) ? 0 : v + random.int(0, 9) / 4;
      ts.push(t);
      values.push(v);
    }
    out.push({ labels: { __name__: 'shared', instance: `i${String(i).padStart(2, '0')}` }, timestampsMs: Float64Array.from(ts), values: Float64Array.from(values) });
  }
  return out;
}

describe('range functions over series that share timestamp columns', () => {
  let stores: PartedAndWhole;
  let parted: OrgMetricView;
  let whole: OrgMetricView;
  beforeAll(async () => {
    stores = await partedAndWhole(scrapedTogether(new SeededRandom(SEED + 1)));
    ({ parted, whole } = stores);
  });
  afterAll(() => stores.close());

  it('shares one timestamp array among the series scraped together', () => {
    const series = parted.selectRuns([{ name: '__name__', type: '=', value: 'shared' }], -Infinity, Infinity);
    const first = series.find((s) => s.labels.instance === 'i00')!;
    const sharing = series.filter((s) => s.runs[0].timestampsMs === first.runs[0].timestampsMs);
    // i00, i02, i03, i05, ...: every series but the ones with scrapes of their own and the late one.
    expect(sharing.length).toBe(15);
  });

  for (const call of ['rate(shared[5m])', 'count_over_time(shared[3m])', 'max_over_time(shared[7m])', 'resets(shared[10m])', 'last_over_time(shared[1m])']) {
    it(`answers ${call} as over the series held whole`, () => {
      for (const steps of STEP_RANGES) {
        const want = evaluate(whole, call, steps);
        const got = evaluate(parted, call, steps);
        const context = `${call} from ${steps.startMs} step ${steps.stepMs} seed ${SEED + 1}`;
        expect(want.series.length, context).toBeGreaterThan(0);
        expect(got.series.map((s) => s.labels), context).toEqual(want.series.map((s) => s.labels));
        for (let i = 0; i < want.series.length; i++) {
          expect(got.series[i].timestampsMs, context).toEqual(want.series[i].timestampsMs);
          expect([...got.series[i].values], context).toEqual([...want.series[i].values]);
        }
      }
    });
  }
});

describe('windows shared by the series that read them', () => {
  const refs = Float64Array.from({ length: 20 }, (_, i) => START + 300_000 + i * 30_000);
  const scrapes = (offsetMs: number): Float64Array => Float64Array.from({ length: 60 }, (_, i) => START + offsetMs + i * SCRAPE_MS);
  const fresh = (): RunWindows => new RunWindows(refs, 300_000, refs, [], new Int32Array(refs.length), new Int32Array(refs.length));

  it('tells a kernel when a series reads the windows found for the one before, and forgets what it derived when they change', () => {
    const windows = fresh();
    const whole = windows.stepViews(0, refs.length);
    const [a, b] = [scrapes(0), scrapes(5_000)];
    windows.windowsOver(whole, a);
    expect(whole.reused).toBe(false);
    windows.windowsOver(whole, a);
    expect(whole.reused).toBe(true);
    const derived = {};
    whole.derived = derived;
    windows.windowsOver(whole, a);
    expect(whole.derived).toBe(derived);
    // Other timestamps: the windows are found anew, and nothing derived from the old ones is left.
    windows.windowsOver(whole, b);
    expect(whole.reused).toBe(false);
    expect(whole.derived).toBeUndefined();
    windows.windowsOver(whole, b);
    expect(whole.reused).toBe(true);
    expect(whole.derived).toBeUndefined();
  });

  it('forgets what was derived for a stretch whose steps another stretch overwrote', () => {
    const windows = fresh();
    const early = windows.stepViews(0, 10);
    const overlapping = windows.stepViews(5, 15);
    const a = scrapes(0);
    windows.windowsOver(early, a);
    windows.windowsOver(early, a);
    early.derived = {};
    windows.windowsOver(overlapping, scrapes(5_000));
    expect(early.reused).toBe(false);
    expect(early.derived).toBeUndefined();
  });

  it('answers rate over series of two scrape offsets, in runs of each, as each series alone', () => {
    const [a, b] = [scrapes(0), scrapes(5_000)];
    const counter = (seed: number): Float64Array => Float64Array.from({ length: 60 }, (_, i) => (seed + 1) * i * i + (i > 40 ? 0 : seed));
    const order = [a, a, a, b, b, b, a, a, b, b];
    const shared = fresh();
    const whole = shared.stepViews(0, refs.length);
    order.forEach((ts, series) => {
      const vals = counter(series);
      const read = (windows: RunWindows): Float64Array => {
        const views = windows.stepViews(0, refs.length);
        windows.windowsOver(views, ts);
        const out = { values: new Float64Array(refs.length), present: new Uint8Array(refs.length) };
        rateKernel({ ts, vals, lo: views.lo, hi: views.hi, refs, rangeMs: 300_000, stepTimes: refs, params: [], windows: views }, out);
        return out.values;
      };
      expect([...read(shared)], `series ${series}`).toEqual([...read(fresh())]);
    });
    expect(whole.reused).toBe(true);
  });

  for (const [name, kernel, params] of [
    ['deriv', derivKernel, []],
    ['predict_linear', predictLinearKernel, [new Float64Array(refs.length).fill(3_600)]],
  ] as [string, RangeKernel, Float64Array[]][]) {
    it(`answers ${name} over series of two scrape offsets and a longer series, read in turn, as each series alone`, () => {
      // Scrapes a little late now and then: each array's times from its first differ from the others'.
      const jittered = (offsetMs: number, length: number, every: number): Float64Array => Float64Array.from({ length }, (_, i) => START + offsetMs + i * SCRAPE_MS + (i % every) * 700);
      const longer = jittered(-450_000, 90, 4);
      const [a, b] = [scrapes(0), jittered(5_000, 60, 3)];
      // A gauge that moves every way, so the fits differ from series to series and step to step.
      const gauge = (seed: number, length: number): Float64Array => Float64Array.from({ length }, (_, i) => Math.sin(seed + i / 7) * 1e3 + seed * i - (i % 5) * 0.25);
      const order = [a, a, a, b, b, longer, longer, a, a, b, b, longer, longer];
      const windowsOf = (): RunWindows => new RunWindows(refs, 300_000, refs, params, new Int32Array(refs.length), new Int32Array(refs.length));
      const shared = windowsOf();
      order.forEach((ts, series) => {
        const vals = gauge(series, ts.length);
        const read = (windows: RunWindows): number[] => {
          const views = windows.stepViews(0, refs.length);
          windows.windowsOver(views, ts);
          const out = { values: new Float64Array(refs.length), present: new Uint8Array(refs.length) };
          kernel({ ts, vals, lo: views.lo, hi: views.hi, refs, rangeMs: 300_000, stepTimes: refs, params, windows: views }, out);
          return [...out.values].map((v, i) => (out.present[i] === 1 ? v : NaN));
        };
        const alone = read(windowsOf());
        expect(alone.filter((v) => Number.isFinite(v)).length, `series ${series}`).toBeGreaterThan(10);
        expect(read(shared), `series ${series}`).toEqual(alone);
      });
      expect(shared.stepViews(0, refs.length).reused).toBe(true);
    });
  }
});
