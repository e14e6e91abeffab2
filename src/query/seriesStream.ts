import { EngineError, unpackSeries, type QueryTask, type SeriesColumns } from '../../engine/index.js';
import { SeriesRenderer } from './events.js';
import type { QueryPool } from './pool.js';
import { runOrdered, type QueryStream } from './stream.js';
import { SummaryAccumulator } from './summary.js';

export interface SliceWindow {
  startMs: number;
  endMs: number;
}

/**
 * streamSeriesSlices is the common path of every query that yields series (PromQL, and LogQL
 * metric queries): each slice becomes a task built by `taskFor` (which gathers its data), the
 * pool evaluates slices in parallel, and results are streamed in slice order as points, or
 * folded into per-series statistics when `summary` is set.
 */
export async function streamSeriesSlices(
  stream: QueryStream,
  pool: QueryPool,
  slices: readonly SliceWindow[],
  taskFor: (slice: SliceWindow) => QueryTask,
  summary: boolean,
): Promise<void> {
  const renderer = new SeriesRenderer();
  const stats = summary ? new SummaryAccumulator() : undefined;
  try {
    await runOrdered(
      slices.length,
      pool.threads,
      async (i, signal): Promise<SeriesColumns[]> => {
        const result = await pool.run(taskFor(slices[i]), signal);
        if ('failed' in result) throw new EngineError(result.code, result.message);
        if (!('series' in result)) throw new Error('worker answered a series task with rows');
        return unpackSeries(result.series);
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
