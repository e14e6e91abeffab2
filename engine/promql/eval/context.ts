/**
 * EvalContext is the state one query evaluation shares across operators: the storage to read,
 * the settings, the annotations collected so far, the sample budget and the abort signal.
 * Operators receive it explicitly so that evaluations never share mutable state.
 */
import { EngineError } from '../../errors.js';
import type { MetricQuerier } from '../../storage/metricHead.js';
import type { VectorSelector } from '../ast.js';
import { Annotations } from './annotations.js';
import { HistogramNotes } from './histogramNotes.js';
import {
  DEFAULT_LOOKBACK_DELTA_MS,
  DEFAULT_MAX_SAMPLES,
  DEFAULT_NO_STEP_SUBQUERY_INTERVAL_MS,
  type EvalOptions,
} from './types.js';

/** TOO_MANY_SAMPLES is Prometheus' wording for a query over its sample budget. */
export const TOO_MANY_SAMPLES = 'query processing would load too many samples into memory in query execution';

/**
 * evalError builds the error for a query that cannot be evaluated over the data it meets
 * (conflicting series, bad parameters). Prometheus answers these with 422, as we do for
 * COMPILE_ERROR, and like Prometheus the message carries no position.
 */
export function evalError(message: string): EngineError {
  return new EngineError('COMPILE_ERROR', message);
}

/** EvalContext holds one evaluation's settings and running state; see the module comment. */
export class EvalContext {
  readonly querier: MetricQuerier;
  readonly lookbackDeltaMs: number;
  readonly maxSamples: number;
  readonly noStepSubqueryIntervalMs: number;
  readonly delayedNameRemoval: boolean;
  readonly annotations = new Annotations();
  /** histogramNotes raises the native histogram annotations on `annotations`. */
  readonly histogramNotes = new HistogramNotes(this.annotations);
  /** queryStartMs and queryEndMs resolve `@ start()` and `@ end()`, also inside subqueries. */
  readonly queryStartMs: number;
  readonly queryEndMs: number;
  /** queryStepMs is the outer query's step (0 for an instant query), for step(). */
  readonly queryStepMs: number;
  /** statsOnlySelectors read histograms for count and sum only (see histogramStatsSelectors.ts). */
  statsOnlySelectors: ReadonlySet<VectorSelector> = new Set();
  private readonly signal: AbortSignal | undefined;
  /** currentSamples approximates the samples held right now, as Prometheus counts them. */
  private currentSamples = 0;
  /** peakSamples is the most ever held, for statistics and tests. */
  peakSamples = 0;

  constructor(querier: MetricQuerier, options: EvalOptions, queryStartMs: number, queryEndMs: number, queryStepMs: number) {
    this.querier = querier;
    this.lookbackDeltaMs = options.lookbackDeltaMs !== undefined && options.lookbackDeltaMs > 0 ? options.lookbackDeltaMs : DEFAULT_LOOKBACK_DELTA_MS;
    this.maxSamples = options.maxSamples ?? DEFAULT_MAX_SAMPLES;
    this.noStepSubqueryIntervalMs = options.noStepSubqueryIntervalMs ?? DEFAULT_NO_STEP_SUBQUERY_INTERVAL_MS;
    this.delayedNameRemoval = options.delayedNameRemoval ?? false;
    this.signal = options.signal;
    this.queryStartMs = queryStartMs;
    this.queryEndMs = queryEndMs;
    this.queryStepMs = queryStepMs;
  }

  /**
   * checkAbort throws once the caller has given up: DEADLINE_EXCEEDED for a timeout, the
   * signal's own reason (an AbortError) for a cancellation.
   */
  checkAbort(): void {
    const signal = this.signal;
    if (signal === undefined || !signal.aborted) return;
    const reason: unknown = signal.reason;
    if (reason instanceof Error && reason.name === 'TimeoutError') {
      throw new EngineError('DEADLINE_EXCEEDED', 'query timed out in expression evaluation');
    }
    if (reason instanceof Error) throw reason;
    throw new EngineError('DEADLINE_EXCEEDED', 'query was canceled in expression evaluation');
  }

  /** holdSamples accounts for `n` more samples held, failing the query beyond the budget. */
  holdSamples(n: number): void {
    this.currentSamples += n;
    if (this.currentSamples > this.peakSamples) this.peakSamples = this.currentSamples;
    if (this.currentSamples > this.maxSamples) throw new EngineError('RESOURCE_EXHAUSTED', TOO_MANY_SAMPLES);
  }

  /** checkTransient fails the query if `n` samples held briefly on top of the current ones exceed the budget. */
  checkTransient(n: number): void {
    const total = this.currentSamples + n;
    if (total > this.peakSamples) this.peakSamples = total;
    if (total > this.maxSamples) throw new EngineError('RESOURCE_EXHAUSTED', TOO_MANY_SAMPLES);
  }

  /** releaseSamples accounts for `n` samples no longer held. */
  releaseSamples(n: number): void {
    this.currentSamples = Math.max(0, this.currentSamples - n);
  }
}
