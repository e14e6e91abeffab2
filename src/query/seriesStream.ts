import type { QueryTask, SeriesShard, ShardMerge, ShardPlan } from '../../engine/index.js';
import { CompactSeriesEncoder, type ResultFormat } from './compactEvents.js';
import { PointEventWriter, SeriesRenderer } from './events.js';
import type { SeriesSource } from './seriesSource.js';
import type { QueryStream } from './stream.js';
import type { QueryWindow } from './timeRange.js';
import { SummaryAccumulator } from './summary.js';

export interface SliceWindow {
  startMs: number;
  endMs: number;
}

/** SliceTasks is the work of one slice: one task, or one per series shard with how their answers merge. */
export interface SliceTasks {
  tasks: QueryTask[];
  merge?: ShardMerge;
  /** inline: the one task is small enough to evaluate on the answering thread (InlinePolicy). */
  inline?: boolean;
}

/**
 * InlinePolicy is when a slice's task is evaluated on the answering thread instead of a worker:
 * when `eligible` says its shape and data allow it (a cost its samples tell, nothing to decode)
 * and its `cost` (the slice's size unless given) is at most `maxSize`. A worker's task crosses
 * threads twice, and after an idle moment each crossing wakes a sleeping thread: an instant
 * query over a few hundred series cost more in that hand-over than in its evaluation.
 */
export interface InlinePolicy {
  maxSize: number;
  eligible: () => boolean;
  cost?: () => number;
}

/**
 * ShardingPolicy is when a slice is split by series: how its query's shards are made and merged,
 * if it can be, how big a slice must be, and whether the workers are free to take shards now.
 */
export interface ShardingPolicy {
  /** plan is the query's shard plan, or undefined when its slices are never split; worked out at the first slice big enough to ask. */
  plan: () => ShardPlan | undefined;
  workersFree: () => boolean;
  minSize: number;
  shards: number;
}

/**
 * shardingPolicy decides once per query whether its slices may be split by series: only when
 * time slices leave workers idle (fewer slices than workers) and the query's shape merges
 * exactly (`planFor`); `minSize` 0 turns sharding off. A slice is split only when `workersFree`
 * says so at the time its tasks are made. The shape is looked at only for a slice of at least
 * `minSize`: most queries have none, and walking the expression for a plan was a visible part of
 * a small instant query's planning.
 */
export function shardingPolicy(sliceCount: number, workers: number, minSize: number, planFor: () => ShardPlan | undefined, workersFree: () => boolean = () => true): ShardingPolicy {
  const splits = sliceCount < workers && minSize > 0;
  let plan: ShardPlan | undefined;
  let planned = false;
  const planOnce = (): ShardPlan | undefined => {
    if (!planned) {
      planned = true;
      plan = splits ? planFor() : undefined;
    }
    return plan;
  };
  // A query that cannot split never has its slices sized.
  return { plan: planOnce, minSize: splits ? minSize : Infinity, shards: workers, workersFree };
}

/**
 * sliceTasks builds a slice's tasks: one over all its data (to run inline when `inline` allows
 * and the slice reads at most its `maxSize`), or, when the policy allows and the slice holds at
 * least `minSize` samples or lines, one per shard over that shard's data. `size` is asked only
 * of a slice that could be split or run inline: counting what a slice reaches matches its
 * selectors against the heads' and segments' series.
 */
export function sliceTasks<D>(
  policy: ShardingPolicy,
  size: () => number,
  dataFor: (shard?: { index: number; count: number }) => D,
  taskFor: (data: D, shard?: SeriesShard) => QueryTask,
  inline?: InlinePolicy,
): SliceTasks {
  const { minSize, shards: count } = policy;
  const inlineMax = inline !== undefined && inline.maxSize > 0 && inline.eligible() ? inline.maxSize : -1;
  const inlineCost = inlineMax < 0 ? undefined : inline?.cost;
  if (inlineCost !== undefined && inlineCost() <= inlineMax) return { tasks: [taskFor(dataFor())], inline: true };
  const reached = minSize === Infinity && (inlineMax < 0 || inlineCost !== undefined) ? undefined : size();
  if (reached !== undefined && inlineCost === undefined && reached <= inlineMax) return { tasks: [taskFor(dataFor())], inline: true };
  const plan = reached === undefined || reached < minSize ? undefined : policy.plan();
  if (plan === undefined || !policy.workersFree()) return { tasks: [taskFor(dataFor())] };
  const tasks = Array.from({ length: count }, (_, index) => taskFor(dataFor({ index, count }), { index, count, ...plan }));
  return { tasks, merge: plan.merge };
}

/**
 * streamSeriesSlices is the common path of every query that yields series (PromQL, and LogQL
 * metric queries): the source's runs of steps (a plan's slices on the pool, or pieces from the
 * results cache) are streamed in time order as points (in the spec's events, or compact columns
 * when the client asked for them), or folded into per-series statistics when `summary` is set.
 * The window's steps are what the spec's events are written in blocks of (PointEventWriter).
 */
export async function streamSeriesSlices(stream: QueryStream, source: SeriesSource, window: QueryWindow, summary: boolean, format: ResultFormat = 'events'): Promise<void> {
  const renderer = new SeriesRenderer();
  const points = new PointEventWriter(window.instant ? undefined : { startMs: window.startMs, stepMs: window.stepMs }, stream.batchBytes);
  const stats = summary ? new SummaryAccumulator() : undefined;
  const compact = format === 'events' ? undefined : new CompactSeriesEncoder(format === 'compact-float64', stream.batchBytes);
  try {
    await source.run(stream.signal, async (series, bytes) => {
      if (stats) stats.add(series);
      else await stream.emit(compact ? compact.frames(series) : points.frames(series), bytes);
    });
    if (!stats && !compact) await stream.emit(points.rest(), 0);
    stream.evaluated();
    if (stats) await stream.emit(stats.events(renderer));
    stream.finish();
  } catch (err) {
    stream.fail(err);
  }
}
