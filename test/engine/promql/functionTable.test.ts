/**
 * The function table's rows against the engine that reads them: every function the parser
 * knows has a kernel of the shape its signature asks for, every kernel runs, and every row that
 * lets series sharding split it really merges to the unsharded answer over generated data.
 */
import { rm } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evaluateRange } from '../../../engine/promql/eval/index.js';
import { functionKernel, type FunctionDef } from '../../../engine/promql/functions.js';
import { FUNCTIONS, parseAndCheckPromQL } from '../../../engine/promql/index.js';
import { shardMergeFor } from '../../../engine/query/shards.js';
import { gatherMetricShare, type MetricShare } from '../../../engine/query/taskData.js';
import type { MetricSeries } from '../../../engine/storage/metricHead.js';
import type { OrgMetricView } from '../../../engine/storage/orgViews.js';
import type { Storage } from '../../../engine/storage/storage.js';
import { SeededRandom } from '../../support/seededRandom.js';
import { evaluateInShards, expectSameSamples, type StepRange } from '../query/shardedEvaluation.js';
import { openStorage, tempDir } from '../storage/segmentFixtures.js';

const ORG = 'org';
const START = 1_700_000_000_000;
const SCRAPE_MS = 15_000;
const SPAN_MS = 40 * 60_000;
const SEED = 1313;

/** STEP_RANGES are a range query over the data and an instant-style query at its end. */
const STEP_RANGES: readonly StepRange[] = [
  { startMs: START + 10 * 60_000, endMs: START + SPAN_MS, stepMs: 60_000 },
  { startMs: START + SPAN_MS, endMs: START + SPAN_MS, stepMs: SCRAPE_MS },
];

/**
 * EMPTY_OVER_FLOATS answer nothing over present float series without buckets (info() with a
 * data matcher no info series satisfies, start_timestamp() over series without start times).
 */
const EMPTY_OVER_FLOATS = new Set([
  'absent',
  'absent_over_time',
  'histogram_avg',
  'histogram_count',
  'histogram_fraction',
  'histogram_quantile',
  'histogram_quantiles',
  'histogram_stddev',
  'histogram_stdvar',
  'histogram_sum',
  'info',
  'start_timestamp',
]);

/** SCALAR_ARGUMENTS fill a call's scalar parameters in order: inside (0, 1) for quantiles and smoothing factors. */
const SCALAR_ARGUMENTS = ['0.3', '0.7', '0.9'];

/**
 * readings generates gauges that rise, fall, reset, skip scrapes and hold NaN now and then,
 * so counter-style kernels meet resets and every kernel meets gaps.
 */
function readings(random: SeededRandom): MetricSeries[] {
  const out: MetricSeries[] = [];
  for (let i = 0; i < 40; i++) {
    const ts: number[] = [];
    const values: number[] = [];
    let v = random.int(-20, 20);
    for (let t = START; t <= START + SPAN_MS; t += SCRAPE_MS) {
      if (random.chance(0.1)) continue;
      v = random.chance(0.05) ? 0 : v + random.int(-3, 8) / 2;
      ts.push(t);
      values.push(random.chance(0.02) ? NaN : v);
    }
    out.push({ labels: { __name__: 'reading', job: `job${i % 4}`, instance: `i${i}` }, timestampsMs: Float64Array.from(ts), values: Float64Array.from(values) });
  }
  return out;
}

/**
 * callOf writes a call of `def` with every declared argument: `reading` for the data, fixed
 * scalars and strings, and a label-only selector for a second vector (info()'s argument).
 */
function callOf(def: FunctionDef): string {
  let scalars = 0;
  let vectors = 0;
  const args = def.argTypes.map((type) => {
    switch (type) {
      case 'vector':
        return vectors++ === 0 ? 'reading' : '{job="job0"}';
      case 'matrix':
        return 'reading[3m]';
      case 'scalar':
        return SCALAR_ARGUMENTS[scalars++];
      case 'string':
        return '"job"';
    }
  });
  return `${def.name}(${args.join(', ')})`;
}

function evaluate(view: OrgMetricView, query: string, steps: StepRange) {
  return evaluateRange(parseAndCheckPromQL(query), view, steps.startMs, steps.endMs, steps.stepMs, { lookbackDeltaMs: 300_000, maxSamples: 1e8 });
}

describe('function table', () => {
  it('gives every function the parser knows a kernel of the shape its signature asks for', () => {
    expect(FUNCTIONS.size).toBeGreaterThan(80);
    for (const def of FUNCTIONS.values()) {
      const kernel = functionKernel(def.name);
      expect(kernel, def.name).toBeDefined();
      // Range functions run a window kernel per series, except absent_over_time, which looks across series.
      const perWindow = def.argTypes.includes('matrix') && def.name !== 'absent_over_time';
      expect(kernel?.kind, def.name).toBe(perWindow ? 'window' : 'call');
      if (def.shard === 'constant') expect([def.argTypes.length, def.returnType], def.name).toEqual([0, 'scalar']);
      if (def.shard === 'perSeries') {
        expect(def.returnType, def.name).toBe('vector');
        expect(def.argTypes.filter((t) => t === 'vector' || t === 'matrix'), def.name).toHaveLength(1);
      }
    }
    expect(functionKernel('holt_winters')).toBeUndefined();
  });
});

describe('function table over stored series', () => {
  let dir: string;
  let storage: Storage;
  let view: OrgMetricView;
  let share: MetricShare;
  beforeAll(async () => {
    dir = await tempDir();
    ({ storage } = await openStorage(dir));
    const random = new SeededRandom(SEED);
    await storage.appendMetrics(ORG, readings(random), []);
    await storage.cut();
    view = storage.metrics(ORG);
    share = gatherMetricShare(view, [{ matchers: [], minMs: START - 3_600_000, maxMs: START + 2 * SPAN_MS }]);
  });
  afterAll(async () => {
    await storage.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('runs every kernel', () => {
    for (const def of FUNCTIONS.values()) {
      const query = callOf(def);
      const result = evaluate(view, query, STEP_RANGES[0]);
      if (EMPTY_OVER_FLOATS.has(def.name)) expect(result.series, query).toHaveLength(0);
      else expect(result.series.length, query).toBeGreaterThan(0);
    }
  });

  const seriesLocal = [...FUNCTIONS.values()].filter((def) => def.shard === 'perSeries');
  it('flags the per-series functions as series-local', () => {
    expect(seriesLocal.length).toBeGreaterThan(40);
  });
  for (const def of seriesLocal) {
    it(`merges the shards of ${def.name} (and of a sum over it) into the unsharded answer`, () => {
      const call = callOf(def);
      for (const [query, merge] of [
        [call, 'concat'],
        [`sum by (job) (${call})`, 'sum'],
      ] as const) {
        expect(shardMergeFor(parseAndCheckPromQL(query)), query).toBe(merge);
        for (const steps of STEP_RANGES) {
          const direct = evaluate(view, query, steps);
          for (const count of [2, 3]) {
            expectSameSamples(evaluateInShards(share, query, steps, count, merge), direct, `${query} over ${count} shards from ${steps.startMs} seed ${SEED}`, 9, true);
          }
        }
      }
    });
  }

  it('merges the shards of series-local expressions that use a constant function', () => {
    const constants = [...FUNCTIONS.values()].filter((def) => def.shard === 'constant');
    expect(constants.map((def) => def.name).sort()).toEqual(['pi', 'time']);
    for (const def of constants) {
      const query = `reading - ${def.name}()`;
      expect(shardMergeFor(parseAndCheckPromQL(query)), query).toBe('concat');
      for (const steps of STEP_RANGES) {
        expectSameSamples(evaluateInShards(share, query, steps, 2, 'concat'), evaluate(view, query, steps), `${query} from ${steps.startMs}`, 9, true);
      }
    }
  });
});
