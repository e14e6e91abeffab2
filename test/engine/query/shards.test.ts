import { rm } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evaluateLogQLInstant, evaluateLogQLRange } from '../../../engine/logql/eval/index.js';
import { finishLogShards } from '../../../engine/query/shardFinish.js';
import { parseLogQL } from '../../../engine/logql/index.js';
import { evaluateInstant, evaluateRange, formatAnnotation } from '../../../engine/promql/eval/index.js';
import { parseAndCheckPromQL } from '../../../engine/promql/index.js';
import { unpackSeries } from '../../../engine/query/packing.js';
import type { SeriesColumns } from '../../../engine/storage/seriesColumns.js';
import type { LabelMatcher } from '../../../engine/storage/matchers.js';
import { finishedParts, logShardMergeFor, logShardPlanFor, mergeShards, shardKeyFor, shardMergeFor, shardOf, shardPlacement, shardPlanFor, type ShardOutput } from '../../../engine/query/shards.js';
import { logSelectionsFor } from '../../../engine/query/logqlPlan.js';
import { gatherLogShare, gatherMetricShare, logTaskData, logTimeParts, logViewOf, metricTaskData, reachedSamples } from '../../../engine/query/taskData.js';
import { countRows } from '../../../engine/storage/logCounts.js';
import { SharedSegmentReaders } from '../../../engine/storage/sharedSegments.js';
import { mixedAggregationWarning, runTask, taskTransferables, type LogQLRangeTask, type PromQLRangeTask } from '../../../engine/query/tasks.js';
import { formatLabels } from '../../../engine/storage/labels.js';
import type { MetricSeries } from '../../../engine/storage/metricHead.js';
import type { Storage } from '../../../engine/storage/storage.js';
import { ALL_NS, fill, openStorage, tempDir } from '../storage/segmentFixtures.js';
import { evaluateAndFinish, evaluateInShards, expectSameSamples, shardAnnotations } from './shardedEvaluation.js';
import { CUSTOM_BUCKETS_SCHEMA, emptyHistogram, type FloatHistogram } from '../../../engine/histogram/floatHistogram.js';

const ORG = 'org';
const START = 1_700_000_000_000;
const STEP = 15_000;

/** seriesBatch writes counters and gauges for many series, some of them NaN or only partly present. */
function seriesBatch(fromMs: number, toMs: number): MetricSeries[] {
  const out: MetricSeries[] = [];
  for (let i = 0; i < 120; i++) {
    const ts: number[] = [];
    const counter: number[] = [];
    const gauge: number[] = [];
    for (let t = fromMs; t < toMs; t += STEP) {
      if (i % 7 === 3 && t % 120_000 < 60_000) continue; // gaps
      ts.push(t);
      counter.push(((t - START) / 1000) * ((i % 5) + 1));
      gauge.push(i % 11 === 0 && t % 300_000 === 0 ? NaN : Math.sin(t / 60_000 + i) * 10 + i);
    }
    const labels = { job: `job${i % 4}`, instance: `i${i}`, zone: `z${i % 3}` };
    out.push({ labels: { __name__: 'requests_total', ...labels }, timestampsMs: Float64Array.from(ts), values: Float64Array.from(counter) });
    out.push({ labels: { __name__: 'temperature', ...labels }, timestampsMs: Float64Array.from(ts), values: Float64Array.from(gauge) });
    // A classic histogram for a third of the instances: cumulative buckets growing at their own rates.
    if (i % 3 === 0) {
      let below = 0;
      for (const [le, share] of [['0.1', 1], ['0.5', 3], ['1', 2], ['+Inf', 1]] as const) {
        below += share * ((i % 4) + 1);
        const perSecond = below;
        out.push({ labels: { __name__: 'latency_bucket', ...labels, le }, timestampsMs: Float64Array.from(ts), values: Float64Array.from(ts, (t) => ((t - START) / 1000) * perSecond) });
      }
    }
  }
  return out;
}

function keyed(series: readonly SeriesColumns[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const s of series) s.timestampsMs.forEach((t, i) => out.set(`${formatLabels(s.labels)}@${t}`, s.values[i]));
  return out;
}

describe('series shards', () => {
  let dir: string;
  let storage: Storage;
  beforeAll(async () => {
    dir = await tempDir();
    ({ storage } = await openStorage(dir));
    await storage.appendMetrics(ORG, seriesBatch(START, START + 1_800_000), []);
    await storage.cut();
    await storage.appendMetrics(ORG, seriesBatch(START + 1_800_000, START + 3_600_000), []);
  });
  afterAll(async () => {
    await storage.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('splits only the query shapes whose parts merge exactly', () => {
    const mergeOf = (q: string) => shardMergeFor(parseAndCheckPromQL(q));
    expect(mergeOf('rate(requests_total[5m])')).toBe('concat');
    expect(mergeOf('(2 * abs(temperature - 3))')).toBe('concat');
    expect(mergeOf('clamp_max(temperature, 10)')).toBe('concat');
    expect(mergeOf('max_over_time(rate(requests_total[5m])[30m:1m])')).toBe('concat');
    expect(mergeOf('sum by (job) (rate(requests_total[5m]))')).toBe('sum');
    expect(mergeOf('count without (instance) (temperature > 5)')).toBe('sum');
    expect(mergeOf('avg(temperature)')).toBe('avg');
    expect(mergeOf('min by (zone) (temperature)')).toBe('min');
    expect(mergeOf('max(temperature)')).toBe('max');
    expect(mergeOf('group by (job) (temperature)')).toBe('group');
    for (const q of [
      'temperature / on (instance) requests_total',
      'topk(3, temperature)',
      'quantile(0.9, temperature)',
      'stddev(temperature)',
      'sum(sum by (job) (temperature))',
      'histogram_quantile(0.9, rate(requests_total[5m]))',
      'label_replace(temperature, "x", "$1", "job", "(.*)")',
      'absent(temperature)',
      'vector(1)',
      'year()',
      'scalar(temperature)',
      'temperature * scalar(temperature)',
      'sort(temperature)',
    ]) {
      expect(mergeOf(q), q).toBeUndefined();
    }
  });

  it('places series by the labels every group keeps together where no partial answers merge', () => {
    const keyOf = (q: string) => shardKeyFor(parseAndCheckPromQL(q));
    expect(keyOf('histogram_quantile(0.99, sum by (le, job) (rate(latency_bucket[5m])))')).toEqual({ only: ['job'] });
    expect(keyOf('histogram_quantile(0.9, rate(latency_bucket[5m]))')).toEqual({ allBut: ['__name__', 'le'] });
    expect(keyOf('sum by (job) (rate(requests_total{zone="z1"}[5m])) / sum by (job) (rate(requests_total[5m]))')).toEqual({ only: ['job'] });
    expect(keyOf('sum by (job, zone) (temperature) / on (job) group_left sum by (job) (temperature)')).toEqual({ only: ['job'] });
    expect(keyOf('sum by (zone) (topk by (zone) (2, temperature))')).toEqual({ only: ['zone'] });
    expect(keyOf('quantile by (job) (0.9, temperature) > 3')).toEqual({ only: ['job'] });
    expect(keyOf('count_values by (zone) ("value", round(temperature))')).toEqual({ only: ['zone'] });
    expect(keyOf('stddev without (instance) (temperature)')).toEqual({ allBut: ['__name__', 'instance'] });
    expect(keyOf('max_over_time(sum by (job) (rate(requests_total[5m]))[30m:1m])')).toEqual({ only: ['job'] });
    for (const q of [
      'topk(3, sum by (job) (temperature))',
      // The order of topk's instant answer is its own; merged shards are ordered by labels.
      'topk by (zone) (2, temperature)',
      'bottomk by (job) (1, rate(requests_total[5m]))',
      'sum by (job) (temperature) / on (zone) group_left sum by (zone) (temperature)',
      'sum by (__name__) (temperature)',
      'label_replace(sum by (job) (temperature), "x", "$1", "job", "(.*)")',
      'sum by (job) (temperature) / scalar(sum(temperature))',
      'sort(sum by (job) (temperature))',
      'absent(sum by (job) (temperature))',
      'topk by (job) (scalar(temperature), temperature)',
      'histogram_quantile(scalar(temperature), sum by (le, job) (rate(latency_bucket[5m])))',
      'histogram_quantile(0.9, sum by (le) (rate(latency_bucket[5m])))',
      'vector(1)',
    ]) {
      expect(keyOf(q), q).toBeUndefined();
    }
    // A merge of partial answers comes first; a key only where there is none.
    expect(shardPlanFor(parseAndCheckPromQL('sum by (job) (temperature)'))).toEqual({ merge: 'sum' });
    expect(shardPlanFor(parseAndCheckPromQL('quantile by (zone) (0.5, temperature)'))).toEqual({ merge: 'concat', key: { only: ['zone'] } });
    // Series that share the key's labels share a shard, and the shards take a fair part each.
    const place = shardPlacement({ only: ['job'] });
    expect(shardPlacement({ only: ['job'] })).toBe(place);
    expect(place({ __name__: 'a', job: 'x', le: '1' }, 4)).toBe(place({ job: 'x', instance: '7' }, 4));
    const counts = new Array(4).fill(0);
    for (let i = 0; i < 1000; i++) counts[shardPlacement({ allBut: ['__name__', 'le'] })({ instance: `i${i}`, le: String(i % 5) }, 4)]++;
    for (const c of counts) expect(c).toBeGreaterThan(150);
  });

  it('places series by their labels without the name, in every shard', () => {
    const a = { __name__: 'a', job: 'x', instance: '1' };
    expect(shardOf(a, 4)).toBe(shardOf({ __name__: 'b', instance: '1', job: 'x' }, 4));
    const counts = new Array(4).fill(0);
    for (let i = 0; i < 1000; i++) counts[shardOf({ instance: `i${i}` }, 4)]++;
    for (const c of counts) expect(c).toBeGreaterThan(150);
  });

  /**
   * expectShardsLikeDirect evaluates `q` in 2 and 3 shards as its plan says, at one instant and
   * over a range (at `rangeStepMs`), against one evaluation, to `digits` (relative to each
   * value's size with `relative`).
   */
  const expectShardsLikeDirect = (q: string, { rangeStepMs = 1_200_000, digits = 6, relative = false } = {}): void => {
    const view = storage.metrics(ORG);
    const expr = parseAndCheckPromQL(q);
    const plan = shardPlanFor(expr);
    expect(plan, q).toBeDefined();
    for (const [startMs, endMs, stepMs] of [
      [START + 3_600_000, START + 3_600_000, STEP],
      [START + 600_000, START + 3_000_000, rangeStepMs],
    ]) {
      const direct = evaluateRange(expr, view, startMs, endMs, stepMs, { lookbackDeltaMs: 300_000, maxSamples: 1e8 });
      expect(direct.series.length, q).toBeGreaterThan(0);
      const share = gatherMetricShare(view, [{ matchers: [], minMs: START - 3_600_000, maxMs: START + 7_200_000 }]);
      for (const count of [2, 3]) {
        const merged = evaluateInShards(share, q, { startMs, endMs, stepMs }, count, plan!);
        expectSameSamples(merged, direct, `${q} over ${count} shards [${startMs}, ${endMs}] step ${stepMs}`, digits, relative);
      }
    }
  };

  it('shards placed by a key answer like one evaluation over all series', () => {
    for (const q of [
      'histogram_quantile(0.9, sum by (le, job) (rate(latency_bucket[5m])))',
      'histogram_quantile(0.5, rate(latency_bucket[5m]))',
      'sum by (job) (rate(requests_total{zone="z1"}[5m])) / sum by (job) (rate(requests_total[5m]))',
      'sum by (job, zone) (temperature) / on (job) group_left sum by (job) (temperature)',
      'sum by (zone) (topk by (zone) (2, temperature))',
      'quantile by (job) (0.9, temperature) > 3',
      'count_values by (zone) ("value", round(temperature / 10))',
      'stddev without (instance) (temperature)',
    ]) {
      expect(shardPlanFor(parseAndCheckPromQL(q))?.key, q).toBeDefined();
      expectShardsLikeDirect(q);
    }
  });

  it('splits a range query ending in topk or bottomk with a number for k, and no instant query', () => {
    const planOf = (q: string, instant = false) => shardPlanFor(parseAndCheckPromQL(q), instant);
    expect(planOf('topk(5, sum by (instance) (rate(requests_total[5m])))')).toEqual({ merge: { select: 'topk', k: 5, grouping: [], without: false }, key: { only: ['instance'] } });
    expect(planOf('(bottomk by (zone) ((2), temperature))')).toEqual({ merge: { select: 'bottomk', k: 2, grouping: ['zone'], without: false }, key: { allBut: ['__name__'] } });
    expect(planOf('topk(5, sum by (instance) (rate(requests_total[5m])))', true)).toBeUndefined();
    for (const q of ['topk(scalar(vector(2)), temperature)', 'topk by (__name__) (1, temperature)', 'limitk(2, temperature)', 'topk(1, topk(2, temperature))']) {
      expect(planOf(q), q).toBeUndefined();
    }
    // Over an aggregation of all series the front selects, after merging the aggregation's shards.
    expect(planOf('topk(1, sum(temperature))')).toEqual({ merge: 'finish' });
  });

  it('merged selections of topk and bottomk answer like one evaluation, ties included', () => {
    for (const q of [
      'topk(3, sum by (instance) (rate(requests_total[5m])))',
      'bottomk(4, temperature)',
      'topk by (zone) (2, rate(requests_total[5m]))',
      'bottomk without (instance) (1, temperature)',
      // Many equal values, so the k-th place is mostly a tie.
      'topk(5, round(temperature / 10))',
      'bottomk(7, temperature * 0)',
      'topk(2, requests_total - requests_total + 1)',
      'topk(500, temperature)',
    ]) {
      expect(shardPlanFor(parseAndCheckPromQL(q))?.merge, q).toHaveProperty('select');
      expectShardsLikeDirect(q, { rangeStepMs: 60_000, digits: 12 });
    }
  });

  it('aggregations over expressions placed by labels merge like one evaluation', () => {
    const planOf = (q: string) => shardPlanFor(parseAndCheckPromQL(q));
    expect(planOf('sum(rate(requests_total[5m]) / rate(requests_total[10m]))')).toEqual({ merge: 'sum', key: { allBut: ['__name__'] } });
    expect(planOf('max(histogram_quantile(0.5, rate(latency_bucket[5m])))')).toEqual({ merge: 'max', key: { allBut: ['__name__', 'le'] } });
    expect(planOf('sum(sum by (job) (temperature))')).toEqual({ merge: 'sum', key: { only: ['job'] } });
    expect(planOf('quantile(0.5, temperature / requests_total)')).toBeUndefined();
    expect(planOf('sum(temperature / on () group_left sum(temperature))')).toBeUndefined();
    for (const q of [
      'sum(rate(requests_total[5m]) / rate(requests_total[10m]))',
      'avg(temperature - ignoring (zone) temperature)',
      'count(temperature < on (instance, job, zone) requests_total)',
      'min(histogram_quantile(0.5, rate(latency_bucket[5m])))',
      'group(temperature * on (instance) group_left (job) requests_total)',
    ]) {
      expect(shardPlanFor(parseAndCheckPromQL(q))?.key, q).toBeDefined();
      expectShardsLikeDirect(q, { rangeStepMs: 60_000, digits: 9, relative: true });
    }
  });

  it('finish at the merge the queries built on aggregations over all series that no key places', () => {
    const planOf = (q: string, instant = false) => shardPlanFor(parseAndCheckPromQL(q), instant);
    for (const q of [
      'histogram_quantile(0.9, sum by (le) (rate(latency_bucket[5m])))',
      '(histogram_fraction(0, 0.5, (sum(increase(latency_bucket[10m])) by (le))))',
      'sum(rate(requests_total{zone="z1"}[5m])) / sum(rate(requests_total[5m]))',
      '1 - count(temperature > 5) / count(temperature)',
      'sum(rate(requests_total[5m])) * 60',
      'max(temperature) - min(temperature)',
      'scalar(sum(temperature)) + vector(1)',
      '100 * (1 - avg(rate(requests_total[5m])) / max(rate(requests_total[5m])))',
    ]) {
      expect(planOf(q), q).toEqual({ merge: 'finish' });
      expect(planOf(q, true), q).toEqual({ merge: 'finish' });
    }
    // An instant selection settles ties by its input's order, which the merged parts, read back
    // in label order, do not keep; a range selection goes by value and then labels.
    expect(planOf('topk(1, sum(temperature) or max(temperature))')).toEqual({ merge: 'finish' });
    expect(planOf('topk(1, sum(temperature) or max(temperature))', true)).toBeUndefined();
    // Parts whose input needs placing keep that placement, when every part needs the same one.
    expect(planOf('histogram_quantile(0.9, sum by (le) (rate(latency_bucket[5m]) / rate(latency_bucket[10m])))')).toEqual({ merge: 'finish', key: { allBut: ['__name__'] } });
    // Where a key places series the query stays whole in each shard; a lone aggregation merges.
    expect(planOf('histogram_quantile(0.99, sum by (le, job) (rate(latency_bucket[5m])))')).toEqual({ merge: 'concat', key: { only: ['job'] } });
    expect(planOf('sum(rate(requests_total[5m]))')).toEqual({ merge: 'sum' });
    for (const q of [
      'histogram_quantile(scalar(temperature), sum by (le) (rate(latency_bucket[5m])))',
      'histogram_quantile(0.9, sum by (le) (topk(2, latency_bucket)))',
      'sum(temperature) / temperature',
      'sum by (instance) (temperature) / on () group_left sum(temperature)',
      'max_over_time(sum(temperature)[10m:1m])',
      'absent(sum(temperature))',
      'sum(temperature) / sum(rate(requests_total[5m]) / on (instance) group_left rate(requests_total[10m]))',
    ]) {
      expect(planOf(q), q).toBeUndefined();
    }
    for (const q of [
      'histogram_quantile(0.9, sum by (le) (rate(latency_bucket[5m])))',
      'histogram_fraction(0, 0.5, sum by (le) (rate(latency_bucket[5m])))',
      'histogram_quantile(0.5, sum(increase(latency_bucket[10m])) by (le))',
      'histogram_quantile(0.9, sum by (le) (rate(latency_bucket[5m]) / rate(latency_bucket[10m])))',
      'histogram_quantile(1.5, sum by (le) (rate(latency_bucket[5m])))',
      'sum(rate(requests_total{zone="z1"}[5m])) / sum(rate(requests_total[5m]))',
      '1 - count(temperature > 5) / count(temperature)',
      'max(temperature) - min(temperature) + group(requests_total)',
      'scalar(sum(temperature)) * sum(requests_total)',
      'sum(temperature) > 400',
      '100 * (1 - avg(rate(requests_total[5m])) / max(rate(requests_total[5m])))',
      'avg by (le) (rate(latency_bucket[5m])) / ignoring (le) group_left sum(rate(latency_bucket[5m]))',
    ]) {
      expect(shardPlanFor(parseAndCheckPromQL(q))?.merge, q).toBe('finish');
      expectShardsLikeDirect(q, { rangeStepMs: 60_000, digits: 9, relative: true });
    }
  });

  it('finished at the merge as instant queries, answer in the order one instant evaluation gives', () => {
    const view = storage.metrics(ORG);
    const share = gatherMetricShare(view, [{ matchers: [], minMs: START - 3_600_000, maxMs: START + 7_200_000 }]);
    const t = START + 3_000_000;
    for (const q of [
      'histogram_quantile(0.9, sum by (le) (rate(latency_bucket[5m])))',
      // Three series whose order is the sort's, not their labels'.
      'sort_desc(label_replace(sum(temperature), "k", "a", "", "") or label_replace(max(requests_total), "k", "b", "", "") or label_replace(count(temperature), "k", "c", "", ""))',
      'sort(label_replace(sum(temperature), "k", "a", "", "") or label_replace(max(requests_total), "k", "b", "", "") or label_replace(count(temperature), "k", "c", "", ""))',
      'sum(rate(requests_total{zone="z1"}[5m])) / sum(rate(requests_total[5m]))',
    ]) {
      const expr = parseAndCheckPromQL(q);
      expect(shardPlanFor(expr, true)?.merge, q).toBe('finish');
      const direct = evaluateInstant(expr, view, t, { lookbackDeltaMs: 300_000, maxSamples: 1e8 });
      if (direct.value.type !== 'vector') throw new Error(`${q}: not a vector`);
      const want = direct.value.samples;
      expect(want.length, q).toBeGreaterThan(0);
      if (q.startsWith('sort')) expect(new Set(want.map((w) => w.value)).size, q).toBe(3);
      for (const count of [2, 3]) {
        const got = evaluateAndFinish(share, q, { startMs: t, endMs: t, stepMs: STEP, instant: true }, count, shardPlanFor(expr, true)!).series;
        expect(got.map((s) => formatLabels(s.labels)), `${q} over ${count} shards`).toEqual(want.map((s) => formatLabels(s.labels)));
        got.forEach((s, i) => expect(s.values[0], `${q} ${formatLabels(s.labels)}`).toBeCloseTo(want[i].value, 6));
      }
    }
  });

  it('finished at the merge, warn and inform as one evaluation does, at the same places in the query', () => {
    const view = storage.metrics(ORG);
    const share = gatherMetricShare(view, [{ matchers: [], minMs: START - 3_600_000, maxMs: START + 7_200_000 }]);
    const steps = { startMs: START + 600_000, endMs: START + 3_000_000, stepMs: 60_000 };
    for (const q of [
      // A quantile out of range (a warning placed at φ).
      'histogram_quantile(1.5, sum by (le) (rate(latency_bucket[5m])))',
      // Buckets that fall as le rises (an info: the counts were made monotonic).
      'histogram_quantile(0.9, sum by (le) (-rate(latency_bucket[5m])))',
      // An info from inside the sum, raised by the shards (rate over what is not named as a
      // counter), and a warning from the function at the merge (series without `le`).
      'histogram_quantile(0.9, sum by (le) (rate(temperature[5m])))',
    ]) {
      const expr = parseAndCheckPromQL(q);
      const direct = evaluateRange(expr, view, steps.startMs, steps.endMs, steps.stepMs, { lookbackDeltaMs: 300_000, maxSamples: 1e8 });
      const want = new Set(direct.annotations.map((a) => formatAnnotation(a, q)));
      expect(want.size, q).toBeGreaterThan(0);
      for (const count of [2, 3]) {
        const sharded = evaluateAndFinish(share, q, steps, count, shardPlanFor(expr)!);
        expect(new Set(sharded.annotations), `${q} over ${count} shards`).toEqual(want);
        if (direct.series.length === 0) expect(sharded.series, q).toEqual([]);
        else expectSameSamples(sharded.series, direct, `${q} over ${count} shards`, 9, true);
      }
    }
  });

  it('merged shards answer like one evaluation over all series', () => {
    for (const q of [
      'rate(requests_total[5m])',
      'sum by (job) (rate(requests_total[5m]))',
      'sum(temperature)',
      'count by (zone) (temperature > 5)',
      'avg by (job) (temperature)',
      'avg(rate(requests_total[2m]))',
      'min by (zone) (temperature)',
      'max without (instance) (temperature)',
      'group by (job) (temperature)',
      '-temperature * 2',
      'max_over_time(temperature[10m])',
    ]) {
      expect(shardPlanFor(parseAndCheckPromQL(q))?.key, q).toBeUndefined();
      expectShardsLikeDirect(q);
    }
  });
});

/**
 * latencyBatch writes native histogram counters: most series at schema 2, some at schema 1 and
 * some with a wider zero bucket (so sums reduce schemas and widen zero buckets), custom-bucket
 * ones under another name, and a `mixed` metric that is a float for some series.
 */
function latencyBatch(fromMs: number, toMs: number): MetricSeries[] {
  const out: MetricSeries[] = [];
  for (let i = 0; i < 60; i++) {
    const ts: number[] = [];
    const exp: FloatHistogram[] = [];
    const nhcb: FloatHistogram[] = [];
    for (let t = fromMs; t < toMs; t += STEP) {
      if (i % 9 === 4 && t % 180_000 < 60_000) continue; // gaps
      const k = (t - START) / STEP + 1;
      ts.push(t);
      const counts = [1 + (i % 3), 2, 3 + (i % 5), 1].map((c) => c * k);
      const count = counts.reduce((a, b) => a + b, 0) + k;
      exp.push({
        ...emptyHistogram(),
        schema: i % 4 === 1 ? 1 : 2,
        zeroThreshold: i % 6 === 5 ? 0.5 : 0.001,
        zeroCount: k,
        posIndex: Int32Array.of(-2, -1, 1, 3 + (i % 2)),
        posCount: Float64Array.from(counts),
        count,
        sum: count * (0.2 + (i % 7) / 10),
      });
      nhcb.push({ ...emptyHistogram(), schema: CUSTOM_BUCKETS_SCHEMA, customValues: Float64Array.of(0.1, 0.5, 1), posIndex: Int32Array.of(0, 1, 2, 3), posCount: Float64Array.from(counts), count: count - k, sum: count });
    }
    const labels = { job: `job${i % 4}`, instance: `i${i}`, zone: `z${i % 3}` };
    const zeros = new Float64Array(ts.length);
    out.push({ labels: { __name__: 'latency', ...labels }, timestampsMs: Float64Array.from(ts), values: zeros, histograms: exp });
    out.push({ labels: { __name__: 'latency_nhcb', ...labels }, timestampsMs: Float64Array.from(ts), values: zeros, histograms: nhcb });
    // In zone z0 one series in four is a float: those groups mix kinds and have no average.
    const float = i % 4 === 0 && i % 3 === 0;
    out.push({ labels: { __name__: 'mixed', ...labels }, timestampsMs: Float64Array.from(ts), values: float ? Float64Array.from(ts, (t) => t / 1e9) : zeros, histograms: float ? undefined : exp });
    // Pairs of one float and one histogram series, which shards often split: no pair has a sum.
    const pair = { pair: `p${i >> 1}`, side: i % 2 === 0 ? 'float' : 'histogram' };
    out.push({ labels: { __name__: 'paired', ...pair }, timestampsMs: Float64Array.from(ts), values: i % 2 === 0 ? Float64Array.from(ts, (t) => t / 1e9) : zeros, histograms: i % 2 === 0 ? undefined : exp });
  }
  return out;
}

/** histogramsByKey indexes every histogram sample by its series' labels and its time. */
function histogramsByKey(series: readonly { labels: Record<string, string>; timestampsMs: Float64Array; histograms?: readonly (FloatHistogram | undefined)[] }[]): Map<string, FloatHistogram | undefined> {
  const out = new Map<string, FloatHistogram | undefined>();
  for (const s of series) s.timestampsMs.forEach((t, i) => out.set(`${formatLabels(s.labels)}@${t}`, s.histograms?.[i]));
  return out;
}

/** expectSameHistograms asserts both answers hold the same samples, histograms equal to 1e-9 of their magnitude. */
function expectSameHistograms(merged: readonly SeriesColumns[], direct: { series: readonly SeriesColumns[] }, context: string): number {
  const got = histogramsByKey(merged);
  const want = histogramsByKey(direct.series);
  expect([...got.keys()].sort(), context).toEqual([...want.keys()].sort());
  const close = (a: number, b: number, what: string) => expect(Math.abs(a - b), `${context} ${what}: ${a} vs ${b}`).toBeLessThanOrEqual(1e-9 * Math.max(1, Math.abs(b)));
  let histograms = 0;
  for (const [k, w] of want) {
    const g = got.get(k);
    expect(g === undefined, `${context} ${k} kind`).toBe(w === undefined);
    if (w === undefined || g === undefined) continue;
    histograms++;
    expect(g.schema, `${context} ${k} schema`).toBe(w.schema);
    expect(g.zeroThreshold, `${context} ${k} zero threshold`).toBe(w.zeroThreshold);
    expect(Array.from(g.posIndex), `${context} ${k} buckets`).toEqual(Array.from(w.posIndex));
    close(g.count, w.count, `${k} count`);
    close(g.sum, w.sum, `${k} sum`);
    close(g.zeroCount, w.zeroCount, `${k} zero count`);
    g.posCount.forEach((c, j) => close(c, w.posCount[j], `${k} bucket ${j}`));
  }
  return histograms;
}

describe('series shards over native histograms', () => {
  let dir: string;
  let storage: Storage;
  beforeAll(async () => {
    dir = await tempDir();
    ({ storage } = await openStorage(dir));
    await storage.appendMetrics(ORG, latencyBatch(START, START + 1_800_000), []);
    await storage.cut();
    await storage.appendMetrics(ORG, latencyBatch(START + 1_800_000, START + 3_600_000), []);
  });
  afterAll(async () => {
    await storage.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('merge sums and averages of histograms into what one evaluation gives', () => {
    const queries = [
      'avg(latency)',
      'avg by (job) (rate(latency[5m]))',
      'avg without (instance) (latency_nhcb)',
      'sum by (zone) (latency)',
      'avg by (zone) (mixed)',
      'sum by (zone) (mixed)',
      'sum(mixed)',
      'sum by (pair) (paired)',
      'avg by (pair) (paired)',
      'avg(rate(latency_nhcb[5m]))',
    ];
    const view = storage.metrics(ORG);
    const share = gatherMetricShare(view, [{ matchers: [], minMs: START - 3_600_000, maxMs: START + 7_200_000 }]);
    for (const q of queries) {
      for (const [startMs, endMs, stepMs] of [
        [START + 3_600_000, START + 3_600_000, STEP],
        [START + 600_000, START + 3_000_000, 300_000],
      ]) {
        const expr = parseAndCheckPromQL(q);
        const merge = shardMergeFor(expr)!;
        expect(merge, q).toBe(q.startsWith('sum') ? 'sum' : 'avg');
        const direct = evaluateRange(expr, view, startMs, endMs, stepMs, { lookbackDeltaMs: 300_000, maxSamples: 1e8 });
        for (const count of [2, 3]) {
          const context = `${q} over ${count} shards [${startMs}, ${endMs}] step ${stepMs}`;
          const merged = evaluateInShards(share, q, { startMs, endMs, stepMs }, count, merge);
          const histograms = expectSameHistograms(merged, direct, context);
          if (q.includes('paired') || q === 'sum(mixed)') expect(direct.series, context).toHaveLength(0);
          else expect(histograms, context).toBeGreaterThan(0);
        }
      }
    }
  });

  it('finish histogram functions over summed native histograms, and leave out what mixes kinds with the unsharded warning', () => {
    const view = storage.metrics(ORG);
    const share = gatherMetricShare(view, [{ matchers: [], minMs: START - 3_600_000, maxMs: START + 7_200_000 }]);
    const steps = { startMs: START + 600_000, endMs: START + 3_000_000, stepMs: 300_000 };
    for (const q of [
      'histogram_quantile(0.9, sum(rate(latency[5m])))',
      'histogram_fraction(0, 0.2, sum(rate(latency_nhcb[5m])))',
      'histogram_count(sum(latency)) / histogram_count(sum(latency_nhcb))',
      'histogram_sum(avg(rate(latency[5m]))) * 1000',
      // Every group of `mixed` meets floats and histograms somewhere: one evaluation warns and leaves those steps out.
      'sum(mixed) * 2',
      'avg(mixed) - 1',
    ]) {
      const expr = parseAndCheckPromQL(q);
      expect(shardPlanFor(expr)?.merge, q).toBe('finish');
      const direct = evaluateRange(expr, view, steps.startMs, steps.endMs, steps.stepMs, { lookbackDeltaMs: 300_000, maxSamples: 1e8 });
      const want = new Set(direct.annotations.map((a) => formatAnnotation(a, q)));
      for (const count of [2, 3]) {
        const context = `${q} over ${count} shards`;
        // The query front adds the part's warning where the merge met the mix (plans.ts); the shards that saw it warn themselves.
        let mixedAtMerge = false;
        const sharded = evaluateAndFinish(share, q, steps, count, shardPlanFor(expr)!, () => (mixedAtMerge = true));
        const warnings = new Set(sharded.annotations);
        if (mixedAtMerge) for (const w of mixedAggregationWarning(q, finishedParts(expr)![0])) warnings.add(w);
        expect(warnings, context).toEqual(want);
        if (q.includes('mixed')) {
          expect(direct.series, context).toEqual([]);
          expect(sharded.series, context).toEqual([]);
          expect(want.size, context).toBe(1);
        } else {
          expectSameSamples(sharded.series, direct, context, 9, true);
        }
      }
    }
  });

  it('estimate the samples a slice reads from the part of each segment its ranges reach, for the series they select', () => {
    const view = storage.metrics(ORG);
    const sharedOver = (minMs: number, maxMs: number, matchers: LabelMatcher[] = []) => gatherMetricShare(view, [{ matchers, minMs, maxMs }]);
    // An estimate: samples are taken as spread evenly over each series' span, gaps and window edges aside.
    const near = (got: number, want: number): void => expect(Math.abs(got - want)).toBeLessThanOrEqual(Math.max(2, want * 0.1));
    // The first half hour is a segment, the second the head.
    const whole = sharedOver(START, START + 3_600_000);
    const [{ meta }] = whole.segments;
    expect(meta.rows).toBeGreaterThan(0);
    expect(reachedSamples(whole)).toBe(meta.rows + whole.headSamples());
    // Five minutes of a half-hour segment: a sixth of its rows, not all of them.
    const fiveMinutes = sharedOver(START + 600_000, START + 900_000);
    expect(fiveMinutes.segments).toHaveLength(1);
    expect(fiveMinutes.headSamples()).toBe(0);
    const expected = Math.ceil((meta.rows * 300_001) / (meta.maxMs - meta.minMs + 1));
    near(reachedSamples(fiveMinutes), expected);
    expect(expected).toBeLessThan(meta.rows / 5);
    // Ranges of one slice count once, from the earliest start to the latest end.
    const twoRanges = [
      { matchers: [], minMs: START + 600_000, maxMs: START + 700_000 },
      { matchers: [], minMs: START + 800_000, maxMs: START + 900_000 },
    ];
    near(reachedSamples(gatherMetricShare(view, twoRanges)), expected);
    // A selector counts only the series it matches: about what reading them finds.
    const matchers: LabelMatcher[] = [{ type: '=', name: '__name__', value: 'paired' }];
    const read = view.select(matchers, START + 600_000, START + 900_000).reduce((n, s) => n + s.timestampsMs.length, 0);
    expect(read).toBeGreaterThan(0);
    near(reachedSamples(sharedOver(START + 600_000, START + 900_000, matchers)), read);
    expect(read).toBeLessThan(expected / 2);
    // Asked again, the same selector gives the same answer (its series are remembered).
    near(reachedSamples(sharedOver(START + 600_000, START + 900_000, matchers)), read);
    // Past the segment's end only the head's samples count.
    const headOnly = sharedOver(START + 2_400_000, START + 3_000_000);
    expect(reachedSamples(headOnly)).toBe(headOnly.headSamples());
    expect(headOnly.headSamples()).toBeGreaterThan(0);
  });

  it('leave out a group where floats and histograms meet, with the unsharded warning', () => {
    const view = storage.metrics(ORG);
    const share = gatherMetricShare(view, [{ matchers: [], minMs: START - 3_600_000, maxMs: START + 7_200_000 }]);
    const q = 'avg by (zone) (mixed)';
    const t = START + 3_600_000;
    const direct = evaluateRange(parseAndCheckPromQL(q), view, t, t, STEP, { lookbackDeltaMs: 300_000, maxSamples: 1e8 });
    expect(direct.series.map((s) => s.labels.zone).sort()).toEqual(['z1', 'z2']);
    const merged = evaluateInShards(share, q, { startMs: t, endMs: t, stepMs: STEP }, 3, 'avg');
    expect(merged.map((s) => s.labels.zone).sort()).toEqual(['z1', 'z2']);
    // The shard holding floats and histograms of z0 says so, as the unsharded evaluation does.
    const warnings = shardAnnotations(share, q, { startMs: t, endMs: t, stepMs: STEP }, 3);
    expect(warnings, JSON.stringify(warnings)).toContain('PromQL warning: encountered a mix of histograms and floats for aggregation (1:16)');
    expect(direct.annotations.map((a) => a.message)).toContain('PromQL warning: encountered a mix of histograms and floats for aggregation');
  });
});

/**
 * splitBatch writes a `split` metric whose series are placed by hand (shardOf of their labels)
 * so that, over both 2 and 3 shards, the group zone="zm" mixes floats and histograms inside
 * shard 0 early on (s2 histograms, s6 floats) while another shard holds only floats (s1), and
 * late on meets histograms of s7 (in shard 1 of 2 beside s1's floats, alone in shard 2 of 3).
 * Zones zf (floats only) and zh (histograms only) are spread over the shards.
 */
function splitBatch(fromMs: number, toMs: number): MetricSeries[] {
  const out: MetricSeries[] = [];
  const histogram = (k: number): FloatHistogram => ({ ...emptyHistogram(), schema: 2, zeroCount: k, posIndex: Int32Array.of(-1, 0, 2), posCount: Float64Array.of(k, 2 * k, 3 * k), count: 7 * k, sum: 2.5 * k });
  const write = (labels: Record<string, string>, kind: 'float' | 'histogram', keep: (t: number) => boolean) => {
    const ts: number[] = [];
    for (let t = fromMs; t < toMs; t += STEP) if (keep(t)) ts.push(t);
    if (ts.length === 0) return;
    const k = (t: number) => (t - START) / STEP + 1;
    out.push({
      labels: { __name__: 'split', job: 'j', ...labels },
      timestampsMs: Float64Array.from(ts),
      values: kind === 'float' ? Float64Array.from(ts, (t) => k(t) * 0.5 + labels.instance.length) : new Float64Array(ts.length),
      histograms: kind === 'histogram' ? ts.map((t) => histogram(k(t))) : undefined,
    });
  };
  const always = () => true;
  write({ zone: 'zm', instance: 's2' }, 'histogram', (t) => t < START + 600_000);
  write({ zone: 'zm', instance: 's6' }, 'float', always);
  write({ zone: 'zm', instance: 's1' }, 'float', always);
  write({ zone: 'zm', instance: 's7' }, 'histogram', (t) => t >= START + 2_400_000);
  for (let i = 0; i < 4; i++) {
    write({ zone: 'zf', instance: `f${i}` }, 'float', always);
    write({ zone: 'zh', instance: `h${i}` }, 'histogram', always);
  }
  return out;
}

/** expectSameMixedAnswer asserts both answers hold the same samples of the same kinds, floats and histogram counts close. */
function expectSameMixedAnswer(merged: readonly SeriesColumns[], direct: { series: readonly SeriesColumns[] }, context: string): void {
  const index = (series: readonly SeriesColumns[]) => {
    const out = new Map<string, { value: number; histogram?: FloatHistogram }>();
    for (const s of series) s.timestampsMs.forEach((t, i) => out.set(`${formatLabels(s.labels)}@${t}`, { value: s.values[i], histogram: s.histograms?.[i] }));
    return out;
  };
  const got = index(merged);
  const want = index(direct.series);
  expect([...got.keys()].sort(), context).toEqual([...want.keys()].sort());
  for (const [k, w] of want) {
    const g = got.get(k)!;
    expect(g.histogram === undefined, `${context} ${k} kind`).toBe(w.histogram === undefined);
    if (w.histogram !== undefined) expect(g.histogram!.count, `${context} ${k}`).toBeCloseTo(w.histogram.count, 6);
    else expect(g.value, `${context} ${k}`).toBeCloseTo(w.value, 6);
  }
}

describe('series shards where one shard mixes floats and histograms in a group', () => {
  let dir: string;
  let storage: Storage;
  beforeAll(async () => {
    dir = await tempDir();
    ({ storage } = await openStorage(dir));
    await storage.appendMetrics(ORG, splitBatch(START, START + 1_800_000), []);
    await storage.cut();
    await storage.appendMetrics(ORG, splitBatch(START + 1_800_000, START + 3_600_000), []);
  });
  afterAll(async () => {
    await storage.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('places the series as the test means to', () => {
    const at = (instance: string, count: number) => shardOf({ job: 'j', zone: 'zm', instance }, count);
    expect([at('s2', 2), at('s6', 2), at('s1', 2), at('s7', 2)]).toEqual([0, 0, 1, 1]);
    expect([at('s2', 3), at('s6', 3), at('s1', 3), at('s7', 3)]).toEqual([0, 0, 1, 2]);
  });

  it('leave the group out at the steps it mixes, whatever the other shards hold', () => {
    const view = storage.metrics(ORG);
    const share = gatherMetricShare(view, [{ matchers: [], minMs: START - 3_600_000, maxMs: START + 7_200_000 }]);
    const queries = [
      'sum(split{zone!="zh"})',
      'sum by (zone) (split)',
      'sum without (instance) (split)',
      'sum by (job, zone) (split)',
      'sum by (zone) (rate(split[5m]))',
      '(sum by (zone) (split * 2))',
      'count by (zone) (split)',
      'min by (zone) (split)',
      'max without (instance) (split)',
      'avg by (zone) (split)',
      'group by (zone) (split)',
    ];
    for (const q of queries) {
      for (const [startMs, endMs, stepMs] of [
        [START + 300_000, START + 300_000, STEP],
        [START + 3_000_000, START + 3_000_000, STEP],
        [START + 300_000, START + 3_300_000, 300_000],
      ]) {
        const expr = parseAndCheckPromQL(q);
        const merge = shardMergeFor(expr)!;
        expect(merge, q).toBeDefined();
        const direct = evaluateRange(expr, view, startMs, endMs, stepMs, { lookbackDeltaMs: 300_000, maxSamples: 1e8 });
        if (startMs !== endMs) expect(direct.series.length, q).toBeGreaterThan(0);
        for (const count of [2, 3]) {
          const context = `${q} over ${count} shards [${startMs}, ${endMs}] step ${stepMs}`;
          expectSameMixedAnswer(evaluateInShards(share, q, { startMs, endMs, stepMs }, count, merge), direct, context);
        }
      }
    }
    // The unsharded answer the shards must match: zm has no sum while its kinds mix, a sum between.
    const zm = (t: number) => {
      const direct = evaluateRange(parseAndCheckPromQL('sum by (zone) (split)'), view, t, t, STEP, { lookbackDeltaMs: 300_000, maxSamples: 1e8 });
      return direct.series.map((s) => s.labels.zone).sort();
    };
    expect(zm(START + 300_000)).toEqual(['zf', 'zh']);
    expect(zm(START + 1_800_000)).toEqual(['zf', 'zh', 'zm']);
    expect(zm(START + 3_000_000)).toEqual(['zf', 'zh']);
  });

  it('warn as the unsharded sum does, from the shard that saw the mix, and send marks only then', () => {
    const view = storage.metrics(ORG);
    const share = gatherMetricShare(view, [{ matchers: [], minMs: START - 3_600_000, maxMs: START + 7_200_000 }]);
    const q = 'sum by (zone) (split)';
    const steps = { startMs: START + 300_000, endMs: START + 300_000, stepMs: STEP };
    const warnings = shardAnnotations(share, q, steps, 2, 'sum');
    expect(warnings).toEqual(['PromQL warning: encountered a mix of histograms and floats for aggregation (1:16)']);
    const marks = (query: string, index: number) => {
      const task: PromQLRangeTask = { kind: 'promql-range', query, ...steps, lookbackMs: 300_000, maxSamples: 1e8, data: metricTaskData(share), shard: { index, count: 2, merge: 'sum' } };
      const { result } = runTask(task);
      if (!('series' in result)) throw new Error(JSON.stringify(result));
      return result.mixed === undefined ? undefined : unpackSeries(result.mixed).map((s) => [s.labels, Array.from(s.timestampsMs)]);
    };
    expect(marks(q, 0)).toEqual([[{ zone: 'zm' }, [START + 300_000]]]);
    // Late on, 3 shards split zm's floats (shards 0, 1) from its histograms (shard 2): no shard
    // saw the mix, the merge does and says so; over 2 shards, shard 1 saw it and warned.
    const late = { startMs: START + 3_000_000, endMs: START + 3_000_000, stepMs: STEP };
    for (const query of [q, 'avg by (zone) (split)']) {
      const mergedMixes = (count: number) => {
        let calls = 0;
        evaluateInShards(share, query, late, count, query.startsWith('sum') ? 'sum' : 'avg', () => calls++);
        return calls;
      };
      expect(mergedMixes(3), query).toBeGreaterThan(0);
      expect(shardAnnotations(share, query, late, 3, query.startsWith('sum') ? 'sum' : 'avg'), query).toEqual([]);
      expect(mergedMixes(2), query).toBe(0);
      expect(shardAnnotations(share, query, late, 2, query.startsWith('sum') ? 'sum' : 'avg'), query).toHaveLength(1);
    }
    expect(marks(q, 1)).toBeUndefined();
    expect(marks('sum by (zone) (split{zone="zf"})', 0)).toBeUndefined();
  });
});

describe('log series shards', () => {
  let dir: string;
  let storage: Storage;
  beforeAll(async () => {
    dir = await tempDir();
    ({ storage } = await openStorage(dir));
    await fill(storage, [ORG], 0, 3);
    await storage.cut();
    await fill(storage, [ORG], 3, 6);
  });
  afterAll(async () => {
    await storage.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('splits only sums of additive range aggregations and extremes of max_over_time and min_over_time', () => {
    const mergeOf = (q: string) => logShardMergeFor(parseLogQL(q));
    expect(mergeOf('count_over_time({service_name="cart"}[5m])')).toBe('sum');
    expect(mergeOf('sum by (level) (rate({service_name=~".+"} |= "x" [1m]))')).toBe('sum');
    expect(mergeOf('sum(bytes_over_time({service_name="cart"}[5m]))')).toBe('sum');
    expect(mergeOf('max_over_time({service_name="cart"} | unwrap latency [5m]) by (level)')).toBe('max');
    expect(mergeOf('max by (service_name) (max_over_time({service_name="cart"} | unwrap latency [5m]))')).toBe('max');
    expect(mergeOf('min_over_time({service_name="cart"} | unwrap latency [5m])')).toBe('min');
    for (const q of [
      'count by (level) (count_over_time({service_name="cart"}[5m]))',
      'max(count_over_time({service_name="cart"}[5m]))',
      'min(max_over_time({service_name="cart"} | unwrap latency [5m]))',
      'sum(max_over_time({service_name="cart"} | unwrap latency [5m]))',
      'avg_over_time({service_name="cart"} | unwrap latency [5m])',
      'topk(2, sum by (level) (count_over_time({service_name="cart"}[5m])))',
      'sum(count_over_time({service_name="cart"}[5m])) / 2',
      'absent_over_time({service_name="cart"}[5m])',
    ]) {
      expect(mergeOf(q), q).toBeUndefined();
    }
  });

  it('finish at the merge the queries built on additive parts, and answer like one evaluation', () => {
    const planOf = (q: string) => logShardPlanFor(parseLogQL(q));
    expect(planOf('sum by (level) (count_over_time({service_name=~".+"}[2m]))')).toEqual({ merge: 'sum' });
    const finished = [
      'sum(rate({service_name=~".+"} |= "line 1" [2m])) / sum(rate({service_name=~".+"}[2m]))',
      'max(count_over_time({service_name=~".+"}[3m]))',
      'count by (level) (count_over_time({service_name=~".+"}[2m]))',
      'label_replace(sum by (level) (bytes_over_time({service_name=~".+"}[5m])), "kind", "$1", "level", "(.*)") * 2',
      'vector(1) + sum(count_over_time({service_name="cart"}[2m]))',
      'sort_desc(sum by (service_name) (count_over_time({service_name=~".+"}[4m])))',
      // Averages split into the sum of their samples over their count (logShardForm).
      'avg_over_time({service_name=~".+"} | regexp "line (?P<n>[0-9]+)" | unwrap n [3m]) by (level)',
      'avg_over_time({service_name=~".+"} | regexp "line (?P<n>[0-9]+)" | unwrap n [2m])',
      'sum by (level) (avg_over_time({service_name=~".+"} | regexp "line (?P<n>[0-9]+)" | unwrap n | n > 3 [4m]) by (level, service_name)) * 2',
      // Extremes merged by their largest or smallest, here under an expression finished at the merge.
      'max_over_time({service_name=~".+"} | regexp "line (?P<n>[0-9]+)" | unwrap n [3m]) by (level) - min_over_time({service_name=~".+"} | regexp "line (?P<n>[0-9]+)" | unwrap n [3m]) by (level)',
      'sum(count_over_time({service_name="cart"}[2m])) / max(max_over_time({service_name=~".+"} | regexp "line (?P<n>[0-9]+)" | unwrap n [5m]) by (service_name, level))',
    ];
    for (const q of finished) expect(planOf(q), q).toEqual({ merge: 'finish' });
    // A selection settles ties by its input's order, which merged parts do not keep.
    for (const q of ['topk(2, sum by (service_name) (count_over_time({service_name=~".+"}[2m])))', 'topk(2, max_over_time({service_name="cart"} | unwrap latency [5m]))', 'quantile_over_time(0.5, {service_name="cart"} | unwrap latency [5m])']) {
      expect(planOf(q), q).toBeUndefined();
    }
    const view = storage.logs(ORG);
    for (const q of finished) {
      for (const [startMs, endMs, instant] of [
        [1_000_000 + 6 * 60_000, 1_000_000 + 6 * 60_000, true],
        [1_000_000, 1_000_000 + 6 * 60_000, false],
      ] as const) {
        const expr = parseLogQL(q);
        const direct = instant ? evaluateLogQLInstant(expr, view, startMs, { maxSamples: 1e6, maxSeries: 1000 }) : evaluateLogQLRange(expr, view, startMs, endMs, 60_000, { maxSamples: 1e6, maxSeries: 1000 });
        const want = direct.resultType === 'scalar' ? [] : direct.series;
        expect(want.length, q).toBeGreaterThan(0);
        const selections = logSelectionsFor(expr, startMs, endMs);
        const share = gatherLogShare(view, selections);
        for (const count of [2, 3]) {
          const timeParts = logTimeParts(share, selections, count);
          const outputs: ShardOutput[] = timeParts.map((timePart, index) => {
            const task: LogQLRangeTask = { kind: 'logql-range', query: q, startMs, endMs, stepMs: 60_000, maxSamples: 1e6, maxSeries: 1000, data: logTaskData(share), shard: { index, count, merge: 'finish', timePart }, instant };
            const { result } = runTask(structuredClone(task, { transfer: taskTransferables(task) }));
            if (!('series' in result)) throw new Error(`${q}: ${JSON.stringify(result)}`);
            return { series: unpackSeries(result.series), partEnds: result.partEnds };
          });
          const got = finishLogShards(expr, outputs, { startMs, endMs, stepMs: 60_000, instant }, { maxSamples: 1e6, maxSeries: 1000 });
          const context = `${q} over ${count} shards${instant ? ', instant' : ''}`;
          // In the order one evaluation gives (a sort's, for an instant query).
          expect(got.map((s) => formatLabels(s.labels)), context).toEqual(want.map((s) => formatLabels(s.labels)));
          const wanted = keyed(want);
          for (const [k, v] of keyed(got)) expect(v, `${context} ${k}`).toBeCloseTo(wanted.get(k)!, 9);
        }
      }
    }
  });

  it('split the lines of one stream between shards by time, in parts of about as many lines, each line in one part', () => {
    const view = storage.logs(ORG);
    // One stream: a split by tag set would have left all its lines to one shard.
    const expr = parseLogQL('count_over_time({service_name="cart", k8s_pod_name="cart-1"}[10m])');
    const selections = logSelectionsFor(expr, 1_000_000 + 6 * 60_000, 1_000_000 + 6 * 60_000);
    const share = gatherLogShare(view, selections);
    const matchers = selections[0].matchers;
    const total = countRows(view, matchers, ...ALL_NS);
    expect(total).toBeGreaterThan(8);
    for (const count of [2, 3]) {
      const parts = logTimeParts(share, selections, count);
      expect(parts[0].fromNs).toBe(-(2n ** 63n));
      expect(parts[count - 1].toNs).toBe(2n ** 63n - 1n);
      for (let k = 1; k < count; k++) expect(parts[k].fromNs).toBe(parts[k - 1].toNs + 1n);
      const counts = parts.map((timePart) => countRows(logViewOf(logTaskData(share), new SharedSegmentReaders(), { timePart }), matchers, ...ALL_NS));
      expect(counts.reduce((a, b) => a + b, 0), `${count} parts`).toBe(total);
      for (const n of counts) expect(n, `${count} parts: ${counts.join(', ')}`).toBeGreaterThanOrEqual(Math.floor(total / count / 2));
    }
  });

  it('merged shards answer like one evaluation, also where lines of several tag sets form one series', () => {
    const view = storage.logs(ORG);
    const queries = [
      'sum by (service_name) (count_over_time({service_name=~".+"}[2m]))',
      'count_over_time({service_name=~".+"} | drop route, k8s_pod_name [3m])',
      'sum(rate({service_name=~".+"} |= "line" [2m]))',
      'sum by (level) (bytes_over_time({service_name=~".+"}[5m]))',
      'max_over_time({service_name=~".+"} | regexp "line (?P<n>[0-9]+)" | unwrap n [3m]) by (level)',
      'min by (service_name) (min_over_time({service_name=~".+"} | regexp "line (?P<n>[0-9]+)" | unwrap n [2m]))',
    ];
    const startMs = 1_000_000;
    const endMs = 1_000_000 + 6 * 60_000;
    for (const q of queries) {
      const merge = logShardMergeFor(parseLogQL(q))!;
      const direct = evaluateLogQLRange(parseLogQL(q), view, startMs, endMs, 60_000, { maxSamples: 1e6, maxSeries: 1000 });
      const selections = logSelectionsFor(parseLogQL(q), startMs, endMs);
      const share = gatherLogShare(view, selections);
      for (const count of [2, 3]) {
        const outputs: ShardOutput[] = [];
        const timeParts = logTimeParts(share, selections, count);
        for (let index = 0; index < count; index++) {
          const shard = { index, count, merge, timePart: timeParts[index] };
          const task: LogQLRangeTask = { kind: 'logql-range', query: q, startMs, endMs, stepMs: 60_000, maxSamples: 1e6, maxSeries: 1000, data: logTaskData(share), shard };
          const { result } = runTask(structuredClone(task, { transfer: taskTransferables(task) }));
          if (!('series' in result)) throw new Error(`${q}: ${JSON.stringify(result)}`);
          outputs.push({ series: unpackSeries(result.series) });
        }
        const got = keyed(mergeShards(merge, outputs));
        const want = keyed(direct.series);
        const context = `${q} over ${count} shards`;
        expect(want.size, context).toBeGreaterThan(0);
        expect([...got.keys()].sort(), context).toEqual([...want.keys()].sort());
        for (const [k, v] of want) expect(got.get(k), `${context} ${k}`).toBeCloseTo(v, 9);
      }
    }
  });
});
