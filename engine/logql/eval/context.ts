/**
 * EvalContext is what one evaluation shares: the reader, the abort signal, the limits and
 * the count of samples held, so operators never share mutable state across queries.
 */
import { MemoryBudget, unboundedBudget } from '../../common/memoryBudget.js';
import { EngineError } from '../../errors.js';
import type { SampleExpr } from '../ast.js';
import type { LogReader } from '../../storage/logHead.js';
import type { SeriesColumns } from '../../storage/seriesColumns.js';
import { LabelCache } from './labelsBuilder.js';
import type { SharedExtractions } from './metric/sharedExtractions.js';
import { DEFAULT_MAX_SAMPLES, DEFAULT_MAX_SERIES, type EvalOptions } from './types.js';

/** TOO_MANY_SAMPLES is the message of a query over its sample budget. */
export const TOO_MANY_SAMPLES = 'query processing would load too many samples into memory in query execution';

/** evalError builds the error of a query that cannot be answered over the data it meets. */
export function evalError(message: string): EngineError {
  return new EngineError('COMPILE_ERROR', message);
}

/** checkSignal throws once `signal` has fired. */
export function checkSignal(signal: AbortSignal | undefined): void {
  if (signal === undefined || !signal.aborted) return;
  const reason: unknown = signal.reason;
  if (reason instanceof EngineError) throw reason;
  if (reason instanceof Error && reason.name === 'TimeoutError') {
    throw new EngineError('DEADLINE_EXCEEDED', 'query timed out in expression evaluation');
  }
  if (reason instanceof Error) throw reason;
  throw new EngineError('DEADLINE_EXCEEDED', 'query was canceled in expression evaluation');
}

/** EvalContext is one evaluation's shared state; see the module comment. */
export class EvalContext {
  readonly maxSeries: number;
  readonly maxSamples: number;
  readonly labelCache = new LabelCache();
  readonly memory: MemoryBudget;
  /**
   * answered, when set, holds subexpressions already evaluated elsewhere (a sharded query's
   * parts, merged): the evaluator takes their series, given at the grid's steps, instead of
   * evaluating them.
   */
  answered: ReadonlyMap<SampleExpr, readonly SeriesColumns[]> | undefined;
  private held = 0;

  constructor(
    readonly reader: LogReader,
    private readonly options: EvalOptions,
  ) {
    this.maxSeries = options.maxSeries ?? DEFAULT_MAX_SERIES;
    this.maxSamples = options.maxSamples ?? DEFAULT_MAX_SAMPLES;
    this.memory = options.memory ?? unboundedBudget();
  }

  /** sharedExtractions is EvalOptions.sharedExtractions. */
  get sharedExtractions(): SharedExtractions | undefined {
    return this.options.sharedExtractions;
  }

  checkAbort(): void {
    checkSignal(this.options.signal);
  }

  /** holdSamples accounts for `n` more samples, failing beyond the budget. */
  holdSamples(n: number): void {
    this.held += n;
    if (this.held > this.maxSamples) throw new EngineError('RESOURCE_EXHAUSTED', TOO_MANY_SAMPLES);
  }

  /** releaseSamples returns `n` samples to the budget. */
  releaseSamples(n: number): void {
    this.held -= n;
  }

  /** checkSeries fails when `count` series exceed the limit. */
  checkSeries(count: number): void {
    if (count > this.maxSeries) {
      throw new EngineError('RESOURCE_EXHAUSTED', `maximum number of series (${this.maxSeries}) reached for a single query`);
    }
  }
}
