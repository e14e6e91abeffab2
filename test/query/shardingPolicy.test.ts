import { describe, expect, it } from 'vitest';
import type { QueryTask, SeriesShard } from '../../engine/index.js';
import { shardingPolicy, sliceTasks } from '../../src/query/seriesStream.js';

/** taskFor stands for the plan's task builder: it records the shard each task was made for. */
function taskFor(_data: unknown, shard?: SeriesShard): QueryTask {
  return { kind: 'promql-range', shard } as unknown as QueryTask;
}

describe('series sharding policy', () => {
  const plan = () => ({ merge: 'concat' as const, key: { only: ['route'] } });

  it('splits a big enough slice into one task per worker, each with the plan\'s key, while the workers are free', () => {
    const { tasks, merge } = sliceTasks(shardingPolicy(1, 2, 100, plan, () => true), () => 1_000, () => ({}), taskFor);
    expect(merge).toBe('concat');
    expect(tasks.map((t) => (t as { shard?: SeriesShard }).shard)).toEqual([
      { index: 0, count: 2, merge: 'concat', key: { only: ['route'] } },
      { index: 1, count: 2, merge: 'concat', key: { only: ['route'] } },
    ]);
  });

  it('keeps the slice whole while other queries keep the workers busy, asking at the time the tasks are made', () => {
    let free = false;
    const policy = shardingPolicy(1, 2, 100, plan, () => free);
    expect(sliceTasks(policy, () => 1_000, () => ({}), taskFor).tasks).toHaveLength(1);
    free = true;
    expect(sliceTasks(policy, () => 1_000, () => ({}), taskFor).tasks).toHaveLength(2);
  });

  it('keeps small slices, slices enough to spread by time, and shapes without a plan whole', () => {
    expect(sliceTasks(shardingPolicy(1, 2, 100, plan), () => 99, () => ({}), taskFor).tasks).toHaveLength(1);
    expect(sliceTasks(shardingPolicy(2, 2, 100, plan), () => 1_000, () => ({}), taskFor).tasks).toHaveLength(1);
    expect(sliceTasks(shardingPolicy(1, 2, 100, () => undefined), () => 1_000, () => ({}), taskFor).tasks).toHaveLength(1);
  });

  it('looks at the query\'s shape only for a slice big enough to split, and once', () => {
    let asked = 0;
    const counted = () => {
      asked++;
      return plan();
    };
    const policy = shardingPolicy(1, 2, 100, counted);
    expect(sliceTasks(policy, () => 99, () => ({}), taskFor).tasks).toHaveLength(1);
    expect(asked).toBe(0);
    expect(sliceTasks(policy, () => 1_000, () => ({}), taskFor).tasks).toHaveLength(2);
    expect(sliceTasks(policy, () => 2_000, () => ({}), taskFor).tasks).toHaveLength(2);
    expect(asked).toBe(1);
    sliceTasks(shardingPolicy(2, 2, 100, counted), () => 1_000, () => ({}), taskFor);
    sliceTasks(shardingPolicy(1, 2, 0, counted), () => 1_000, () => ({}), taskFor);
    expect(asked).toBe(1);
  });

  it('sizes a slice only when its query could be split', () => {
    let sized = 0;
    const size = () => {
      sized++;
      return 1_000;
    };
    sliceTasks(shardingPolicy(2, 2, 100, plan), size, () => ({}), taskFor);
    sliceTasks(shardingPolicy(1, 2, 0, plan), size, () => ({}), taskFor);
    expect(sized).toBe(0);
    expect(sliceTasks(shardingPolicy(1, 2, 100, plan), size, () => ({}), taskFor).tasks).toHaveLength(2);
    expect(sized).toBe(1);
  });

  it('runs a small enough slice inline when its shape and data allow, before any thought of shards', () => {
    const inline = (eligible: boolean) => ({ maxSize: 500, eligible: () => eligible });
    const small = sliceTasks(shardingPolicy(1, 2, 100, plan), () => 400, () => ({}), taskFor, inline(true));
    expect(small.inline).toBe(true);
    expect(small.tasks).toHaveLength(1);
    expect(small.merge).toBeUndefined();
    // Larger than the inline bound: split as before, on the workers.
    const large = sliceTasks(shardingPolicy(1, 2, 100, plan), () => 501, () => ({}), taskFor, inline(true));
    expect(large.inline).toBeUndefined();
    expect(large.tasks).toHaveLength(2);
    // Not eligible (a range query, a subquery, data in segments): on a worker however small.
    expect(sliceTasks(shardingPolicy(1, 2, 100, plan), () => 1, () => ({}), taskFor, inline(false)).inline).toBeUndefined();
    expect(sliceTasks(shardingPolicy(2, 2, 100, plan), () => 1, () => ({}), taskFor, { maxSize: 0, eligible: () => true }).inline).toBeUndefined();
  });

  it('sizes a slice that cannot be split only to decide whether it runs inline', () => {
    let sized = 0;
    const size = () => {
      sized++;
      return 10;
    };
    sliceTasks(shardingPolicy(2, 2, 100, plan), size, () => ({}), taskFor, { maxSize: 500, eligible: () => false });
    sliceTasks(shardingPolicy(2, 2, 100, plan), size, () => ({}), taskFor, { maxSize: 0, eligible: () => true });
    expect(sized).toBe(0);
    expect(sliceTasks(shardingPolicy(2, 2, 100, plan), size, () => ({}), taskFor, { maxSize: 500, eligible: () => true }).inline).toBe(true);
    expect(sized).toBe(1);
  });

  it('weighs a slice by its own cost for inline when the policy gives one, by its size for shards', () => {
    let sized = 0;
    const size = () => {
      sized++;
      return 400;
    };
    // A range query's cost (samples plus series x steps) past the bound: not inline, though its samples are under it.
    const costly = sliceTasks(shardingPolicy(1, 2, 100, plan), size, () => ({}), taskFor, { maxSize: 500, eligible: () => true, cost: () => 900 });
    expect(costly.inline).toBeUndefined();
    expect(costly.tasks).toHaveLength(2);
    expect(sized).toBe(1);
    // Within it: inline, and the slice is never sized.
    const cheap = sliceTasks(shardingPolicy(1, 2, 100, plan), size, () => ({}), taskFor, { maxSize: 500, eligible: () => true, cost: () => 450 });
    expect(cheap.inline).toBe(true);
    expect(sized).toBe(1);
    // Unsplittable and too costly: one task on a worker, unsized.
    expect(sliceTasks(shardingPolicy(2, 2, 100, plan), size, () => ({}), taskFor, { maxSize: 500, eligible: () => true, cost: () => 900 }).tasks).toHaveLength(1);
    expect(sized).toBe(1);
  });
});
