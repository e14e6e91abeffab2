import { EngineError, mergeShards, unpackSeries, type QueryTask, type SeriesColumns, type SeriesShard, type ShardMerge, type ShardOutput } from '../../engine/index.js';
import { SeriesRenderer } from './events.js';
import type { QueryPool } from './pool.js';
import { runOrdered, type QueryStream } from './stream.js';
import { SummaryAccumulator } from './summary.js';

export interface SliceWindow {
  startMs: number;
  endMs: number;
}

/** SliceTasks is the work of one slice: one task, or one per series shard with how their answers merge. */
export interface SliceTasks {
  tasks: QueryTask[];
  merge?: ShardMerge;
}

/** ShardingPolicy is when a slice is split by series: the merge its query allows, if any, and how big a slice must be. */
export interface ShardingPolicy {
  merge: ShardMerge | undefined;
  minSize: number;
  shards: number;
}

/**
 * shardingPolicy decides once per query whether its slices may be split by series: only when
 * time slices leave workers idle (fewer slices than workers) and the query's shape merges
 * exactly (`mergeFor`); `minSize` 0 turns sharding off.
 */
export function shardingPolicy(sliceCount: number, workers: number, minSize: number, mergeFor: () => ShardMerge | undefined): ShardingPolicy {
  return { merge: sliceCount < workers && minSize > 0 ? mergeFor() : undefined, minSize, shards: workers };
}

/**
 * sliceTasks builds a slice's tasks: one over all its data, or, when the policy allows and the
 * slice holds at least `minSize` samples or lines, one per shard over that shard's data.
 */
export function sliceTasks<D>(
  policy: ShardingPolicy,
  size: number,
  dataFor: (shard?: { index: number; count: number }) => D,
  taskFor: (data: D, shard?: SeriesShard) => QueryTask,
): SliceTasks {
  const { merge, minSize, shards: count } = policy;
  if (merge === undefined || size < minSize) return { tasks: [taskFor(dataFor())] };
  const tasks = Array.from({ length: count }, (_, index) => taskFor(dataFor({ index, count }), { index, count, merge }));
  return { tasks, merge };
}

/**
 * streamSeriesSlices is the common path of every query that yields series (PromQL, and LogQL
 * metric queries): each slice becomes the tasks built by `tasksFor` (which gathers their
 * data), the pool evaluates slices (and shards of a slice) in parallel, and results are
 * streamed in slice order as points, or folded into per-series statistics when `summary` is set.
 */
export async function streamSeriesSlices(
  stream: QueryStream,
  pool: QueryPool,
  slices: readonly SliceWindow[],
  tasksFor: (slice: SliceWindow) => SliceTasks | Promise<SliceTasks>,
  summary: boolean,
): Promise<void> {
  const renderer = new SeriesRenderer();
  const stats = summary ? new SummaryAccumulator() : undefined;
  try {
    await runOrdered(
      slices.length,
      pool.threads,
      async (i, signal): Promise<SeriesColumns[]> => {
        const { tasks, merge } = await tasksFor(slices[i]);
        const outputs = await Promise.all(tasks.map((task) => runSeriesTask(pool, task, signal)));
        return merge === undefined ? outputs[0].series : mergeShards(merge, outputs);
      },
      async (_i, series) => {
        if (stats) stats.add(series);
        else await stream.emit(renderer.pointEvents(series));
      },
      stream.signal,
    );
    if (stats) await stream.emit(stats.events(renderer));
    stream.finish();
  } catch (err) {
    stream.fail(err);
  }
}

async function runSeriesTask(pool: QueryPool, task: QueryTask, signal: AbortSignal): Promise<ShardOutput> {
  const result = await pool.run(task, signal);
  if ('failed' in result) throw new EngineError(result.code, result.message);
  if (!('series' in result)) throw new Error('worker answered a series task with rows');
  return { series: unpackSeries(result.series), counts: result.counts && unpackSeries(result.counts) };
}
