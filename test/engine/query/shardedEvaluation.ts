/**
 * Runs a PromQL range query the way the query front does when it splits by series: one task per
 * shard through the worker's task runner (its data moved by structured clone, as between
 * threads), the answers merged, and compares that with one direct evaluation.
 */
import { expect } from 'vitest';
import type { RangeResult } from '../../../engine/promql/eval/index.js';
import { unpackSeries } from '../../../engine/query/packing.js';
import type { SeriesColumns } from '../../../engine/storage/seriesColumns.js';
import { mergeShards, type ShardMerge, type ShardOutput, type ShardPlan } from '../../../engine/query/shards.js';
import { finishShards } from '../../../engine/query/shardFinish.js';
import { parseAndCheckPromQL } from '../../../engine/promql/index.js';
import { metricTaskData, type MetricShare } from '../../../engine/query/taskData.js';
import { runTask, taskTransferables, type PromQLRangeTask } from '../../../engine/query/tasks.js';
import { formatLabels } from '../../../engine/storage/labels.js';

/** StepRange is a range query's steps. */
export interface StepRange {
  startMs: number;
  endMs: number;
  stepMs: number;
}

/**
 * evaluateInShards evaluates `query` as `count` shards of `share` and merges their answers
 * (`onMixed` as mergeShards takes it); `plan` is the merge, or the merge with the key placing series.
 */
export function evaluateInShards(share: MetricShare, query: string, steps: StepRange, count: number, plan: ShardMerge | ShardPlan, onMixed?: () => void): SeriesColumns[] {
  return evaluateAndFinish(share, query, steps, count, plan, onMixed).series;
}

/**
 * evaluateAndFinish is evaluateInShards with every annotation: the shards' and, for a plan that
 * finishes at the merge, the finishing function's (applied as the query front applies it).
 */
export function evaluateAndFinish(share: MetricShare, query: string, steps: StepRange & { instant?: boolean }, count: number, plan: ShardMerge | ShardPlan, onMixed?: () => void): { series: SeriesColumns[]; annotations: string[] } {
  const { merge, key } = typeof plan === 'string' || 'select' in plan ? { merge: plan, key: undefined } : plan;
  const outputs: ShardOutput[] = [];
  const annotations: string[] = [];
  for (let index = 0; index < count; index++) {
    const shard = key === undefined ? { index, count, merge } : { index, count, merge, key };
    const task: PromQLRangeTask = { kind: 'promql-range', query, ...steps, lookbackMs: 300_000, maxSamples: 1e8, data: metricTaskData(share), shard };
    const { result } = runTask(structuredClone(task, { transfer: taskTransferables(task) }));
    if (!('series' in result)) throw new Error(`${query}: ${JSON.stringify(result)}`);
    const output: ShardOutput = { series: unpackSeries(result.series), counts: result.counts && unpackSeries(result.counts), mixed: result.mixed && unpackSeries(result.mixed) };
    if (result.partEnds !== undefined) output.partEnds = result.partEnds;
    if (result.countPartEnds !== undefined) output.countPartEnds = result.countPartEnds;
    if (result.mixedPartEnds !== undefined) output.mixedPartEnds = result.mixedPartEnds;
    outputs.push(output);
    annotations.push(...result.annotations);
  }
  if (merge !== 'finish') return { series: mergeShards(merge, outputs, onMixed), annotations };
  const finished = finishShards(parseAndCheckPromQL(query), query, outputs, steps, { maxSamples: 1e8 }, onMixed);
  return { series: finished.series, annotations: [...annotations, ...finished.annotations] };
}

/** shardAnnotations evaluates `query` as `count` shards of `share` and lists every shard's annotations. */
export function shardAnnotations(share: MetricShare, query: string, steps: StepRange, count: number, merge: ShardMerge = 'avg'): string[] {
  const out: string[] = [];
  for (let index = 0; index < count; index++) {
    const task: PromQLRangeTask = { kind: 'promql-range', query, ...steps, lookbackMs: 300_000, maxSamples: 1e8, data: metricTaskData(share), shard: { index, count, merge } };
    const { result } = runTask(structuredClone(task, { transfer: taskTransferables(task) }));
    if (!('series' in result)) throw new Error(`${query}: ${JSON.stringify(result)}`);
    out.push(...result.annotations);
  }
  return out;
}

/** samplesByKey indexes every sample by its series' labels and its time. */
function samplesByKey(series: readonly SeriesColumns[] | RangeResult['series']): Map<string, number> {
  const out = new Map<string, number>();
  for (const s of series) s.timestampsMs.forEach((t, i) => out.set(`${formatLabels(s.labels)}@${t}`, s.values[i]));
  return out;
}

/**
 * expectSameSamples asserts that the merged shards hold exactly the direct answer's samples (NaN
 * matching NaN), each value within 10^-digits, or with `relative` within 10^-digits of its
 * magnitude (sums of large values merge in another order and round differently).
 */
export function expectSameSamples(merged: readonly SeriesColumns[], direct: RangeResult, context: string, digits: number, relative = false): void {
  const got = samplesByKey(merged);
  const want = samplesByKey(direct.series);
  expect(want.size, context).toBeGreaterThan(0);
  expect([...got.keys()].sort(), context).toEqual([...want.keys()].sort());
  for (const [k, v] of want) {
    if (Number.isNaN(v)) expect(got.get(k), `${context} ${k}`).toBeNaN();
    else if (!relative || !Number.isFinite(v)) expect(got.get(k), `${context} ${k}`).toBeCloseTo(v, digits);
    else expect(Math.abs((got.get(k) ?? NaN) - v), `${context} ${k}: ${got.get(k)} vs ${v}`).toBeLessThanOrEqual(10 ** -digits * Math.max(1, Math.abs(v)));
  }
}
