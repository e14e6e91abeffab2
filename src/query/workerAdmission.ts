import { ApiError } from '../errors.js';

/** WorkerLoad is what admission needs of the query pool: whether it is saturated, and word each time a task ends. */
export interface WorkerLoad {
  readonly overloaded: boolean;
  onTaskSettled(listener: () => void): void;
}

/** AdmissionOutcome is how a query got past admission: at once, or after waiting for the workers. */
export type AdmissionOutcome = 'immediate' | 'queued';

/** AdmissionCount hears how each query fared at admission, for the service's metrics. */
export type AdmissionCount = (outcome: AdmissionOutcome | 'refused') => void;

interface Waiter {
  grant(): void;
}

/**
 * WorkerAdmission holds new queries back while the query workers are saturated, instead of
 * refusing them: they wait, first come first served and across orgs, and are let in one at a
 * time as the pool works its backlog off (each task that ends, or each query that ends, lets
 * the next in while the pool is below saturation). Only a full queue or a wait past the query's
 * deadline answers 429 RATE_LIMITED, with Retry-After.
 *
 * A query that arrives while others wait queues behind them even if the pool just dipped below
 * saturation, so a steady stream of new queries cannot overtake those already waiting.
 */
export class WorkerAdmission {
  private readonly waiters: Waiter[] = [];

  constructor(
    private readonly load: WorkerLoad,
    /** maxWaiting bounds the queue; 0 refuses at once while the workers are saturated. */
    private readonly maxWaiting: number,
    private readonly count: AdmissionCount = () => {},
  ) {
    load.onTaskSettled(() => this.admitNext());
  }

  /** waiting is how many queries wait for the workers. */
  get waiting(): number {
    return this.waiters.length;
  }

  /**
   * admit resolves once the query may dispatch work: at once when the pool has room and nobody
   * waits, else when its turn comes. It rejects with 429 when the queue is full or `waitMs`
   * passes, and with the signal's reason when the caller leaves first.
   */
  async admit(waitMs: number, signal?: AbortSignal): Promise<AdmissionOutcome> {
    try {
      const outcome = await this.queue(waitMs, signal);
      this.count(outcome);
      return outcome;
    } catch (err) {
      if (err instanceof ApiError && err.code === 'RATE_LIMITED') this.count('refused');
      throw err;
    }
  }

  private queue(waitMs: number, signal?: AbortSignal): Promise<AdmissionOutcome> {
    if (!this.load.overloaded && this.waiters.length === 0) return Promise.resolve('immediate');
    if (this.waiters.length >= this.maxWaiting) {
      return Promise.reject(
        new ApiError('RATE_LIMITED', `the query workers are saturated and their wait queue is full (${this.waiters.length} waiting, limit ${this.maxWaiting}: SVC_MAX_QUERIES_WAITING_FOR_WORKERS); retry shortly`, { headers: { 'retry-after': '2' } }),
      );
    }
    return new Promise<AdmissionOutcome>((resolve, reject) => {
      const leave = (err: unknown): void => {
        const at = this.waiters.indexOf(waiter);
        if (at >= 0) this.waiters.splice(at, 1);
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        reject(err);
      };
      const onAbort = (): void => leave(signal?.reason);
      const timer = setTimeout(
        () => leave(new ApiError('RATE_LIMITED', `waited ${waitMs} ms for the saturated query workers; retry shortly`, { headers: { 'retry-after': '2' } })),
        Math.max(0, waitMs),
      );
      const waiter: Waiter = {
        grant: () => {
          clearTimeout(timer);
          signal?.removeEventListener('abort', onAbort);
          resolve('queued');
        },
      };
      this.waiters.push(waiter);
      if (signal?.aborted) onAbort();
      else signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  /**
   * admitNext lets the first waiter in when the pool has room. It runs whenever a task or an
   * admitted query ends; since every admitted query ends at some point, a waiter is never left
   * behind a pool that went idle.
   */
  admitNext(): void {
    if (this.waiters.length === 0 || this.load.overloaded) return;
    this.waiters.shift()!.grant();
  }
}
