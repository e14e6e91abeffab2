import type { SeriesColumns } from '../../engine/index.js';
import type { QueryPool } from './pool.js';
import { runSeriesPlan, type SeriesPlan } from './plans.js';

/** SeriesConsumer takes a query's series a run of steps at a time, in time order, with the bytes they hold and the evaluator's annotations. */
export type SeriesConsumer = (series: SeriesColumns[], bytes: number, annotations: string[]) => Promise<void> | void;

/**
 * SeriesSource is where a series query's answer comes from: a plan evaluated on the pool, or the
 * results cache (pieces it holds plus evaluations of the rest). The SSE endpoints stream it and
 * the collected APIs gather it the same way whichever it is.
 */
export interface SeriesSource {
  /** run hands the answer to `consume` in time order; a slow `consume` holds the evaluation back. */
  run(signal: AbortSignal, consume: SeriesConsumer): Promise<void>;
  /** failedSegments counts stored segments skipped as unreadable so far; any makes the answer partial. */
  failedSegments(): number;
}

/** planSource evaluates `plan` on `pool`, nothing cached. */
export function planSource(pool: QueryPool, plan: SeriesPlan): SeriesSource {
  return {
    run: (signal, consume) => runSeriesPlan(pool, plan, signal, consume),
    failedSegments: () => plan.failedSegments(),
  };
}
