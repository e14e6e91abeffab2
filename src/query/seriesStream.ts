import { EngineError, mergeShards, unpackSeries, type QueryTask, type SeriesColumns, type ShardMerge, type ShardOutput } from '../../engine/index.js';
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
