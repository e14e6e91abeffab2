import { ApiError } from '../errors.js';

/** WorkerLoad is what admission needs of the query pool: whether it is saturated, and word each time a task ends. */
export interface WorkerLoad {
  readonly overloaded: boolean;
  onTaskSettled(listener: () => void): void;
}

/** AdmissionOutcome is how a query got past admission: at once, or after waiting for a slot or the workers. */
export type AdmissionOutcome = 'immediate' | 'queued';

/**
 * AdmissionCount hears how each query fared at admission, for the service's metrics, with how
 * long it waited (0 when let in at once).
 */
export type AdmissionCount = (outcome: AdmissionOutcome | 'refused', waitedMs: number) => void;

/**
 * EvaluationSlot is an admitted query's place among the queries evaluating at once. A query
 * evaluates until its last slice is evaluated (`done`); what it streams after that costs no
 * slot. A query whose client is behind gives its slot up while it waits for the reader
 * (`pause`) and takes one again, ahead of queries not yet admitted, before it dispatches more
 * work (`resume`): a slow reader paces its own query without holding others back.
 */
export interface EvaluationSlot {
  /** done frees the slot for good; idempotent, and safe while paused. */
  done(): void;
  /**
   * pause lends the slot to the next waiting query while the query waits for its client; it
   * keeps the slot when as many slots as the cap are lent already.
   */
  pause(): void;
  /** paused tells whether the query must `resume` before dispatching more work. */
  readonly paused: boolean;
  /** resume takes a slot again; rejects with the signal's reason when the query ends first. */
  resume(signal?: AbortSignal): Promise<void>;
}

/**
 * evaluationCap is how many queries may evaluate at once: the setting, or when it is 0 twice
 * the workers, which keeps every worker fed (a query between slices leaves its worker idle
 * for a moment) while the main thread renders the answers of only a few queries at a time.
 */
export function evaluationCap(setting: number, workers: number): number {
  return setting > 0 ? setting : 2 * workers;
}

interface Waiter {
  grant(): void;
}

/** EvaluationLimits are admission's bounds: the queue of queries waiting and how many may evaluate at once. */
export interface EvaluationLimits {
  /** maxWaiting bounds the queue; 0 refuses at once when no slot is free. */
  maxWaiting: number;
  /** maxEvaluating is how many queries may evaluate at once, across orgs (Infinity: no cap). */
  maxEvaluating: number;
}

/**
 * WorkerAdmission bounds how many queries evaluate at once across orgs (`maxEvaluating`), and
 * holds new queries back while the query workers are saturated, as Prometheus' query gate
 * bounds concurrent evaluations and queues the rest. Without the bound, every admitted query
 * shares the CPU with all the others, so under overload every query is slow and none finishes
 * in time; with it, the queries evaluating finish at full speed and the newest wait.
 *
 * Waiting queries are let in first come first served across orgs, one each time a slot frees
 * or a task ends while the pool is below saturation. Only a full queue or a wait past the
 * query's deadline answers 429 RATE_LIMITED, with Retry-After. A query that arrives while
 * others wait queues behind them even if a slot just freed, so a steady stream of new queries
 * cannot overtake those already waiting; a paused query resuming goes before all of them.
 */
export class WorkerAdmission {
  private readonly waiters: Waiter[] = [];
  private readonly resumers: Waiter[] = [];
  private running = 0;
  /** lent counts queries that gave their slot up while their client is behind and have not taken one back. */
  private lent = 0;

  constructor(
    private readonly load: WorkerLoad,
    private readonly limits: EvaluationLimits,
    private readonly count: AdmissionCount = () => {},
  ) {
    load.onTaskSettled(() => this.admitNext());
  }

  /** waiting is how many queries wait for admission (paused queries waiting to resume included). */
  get waiting(): number {
    return this.waiters.length + this.resumers.length;
  }

  /** lending is how many queries lent their slot while their client is behind. */
  get lending(): number {
    return this.lent;
  }

  /** evaluating is how many admitted queries hold an evaluation slot now. */
  get evaluating(): number {
    return this.running;
  }

  /**
   * admit resolves to the query's evaluation slot once it may dispatch work: at once when a
   * slot is free, the pool has room and nobody waits, else when its turn comes. It rejects with
   * 429 when the queue is full or `waitMs` passes, and with the signal's reason when the caller
   * leaves first.
   */
  async admit(waitMs: number, signal?: AbortSignal): Promise<EvaluationSlot> {
    const startedMs = Date.now();
    try {
      const outcome = await this.queue(waitMs, signal);
      this.count(outcome, Date.now() - startedMs);
      return this.slot();
    } catch (err) {
      if (err instanceof ApiError && err.code === 'RATE_LIMITED') this.count('refused', Date.now() - startedMs);
      throw err;
    }
  }

  private get hasSlot(): boolean {
    return this.running < this.limits.maxEvaluating;
  }

  private queue(waitMs: number, signal?: AbortSignal): Promise<AdmissionOutcome> {
    if (this.hasSlot && !this.load.overloaded && this.waiting === 0) {
      this.running++;
      return Promise.resolve('immediate');
    }
    if (this.waiters.length >= this.limits.maxWaiting) {
      return Promise.reject(
        new ApiError(
          'RATE_LIMITED',
          `${this.hasSlot ? 'the query workers are saturated' : `all ${this.limits.maxEvaluating} evaluation slots are busy (SVC_MAX_CONCURRENT_QUERIES)`} and the wait queue is full (${this.waiters.length} waiting, limit ${this.limits.maxWaiting}: SVC_MAX_QUERIES_WAITING_FOR_WORKERS); retry shortly`,
          { headers: { 'retry-after': '2' } },
        ),
      );
    }
    return this.enqueue(this.waiters, signal, waitMs).then(() => 'queued' as const);
  }

  /**
   * enqueue waits in `queue` until granted a slot (counted as running on grant), the signal
   * aborts, or `waitMs` passes (429).
   */
  private enqueue(queue: Waiter[], signal: AbortSignal | undefined, waitMs?: number): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const leave = (err: unknown): void => {
        const at = queue.indexOf(waiter);
        if (at >= 0) queue.splice(at, 1);
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        reject(err);
      };
      const onAbort = (): void => leave(signal?.reason);
      const timer =
        waitMs === undefined
          ? undefined
          : setTimeout(
              () => leave(new ApiError('RATE_LIMITED', `waited ${waitMs} ms for a query evaluation slot (SVC_MAX_CONCURRENT_QUERIES) or the saturated query workers; retry shortly`, { headers: { 'retry-after': '2' } })),
              Math.max(0, waitMs),
            );
      const waiter: Waiter = {
        grant: () => {
          clearTimeout(timer);
          signal?.removeEventListener('abort', onAbort);
          this.running++;
          resolve();
        },
      };
      queue.push(waiter);
      if (signal?.aborted) onAbort();
      else signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** slot is the handle of a query just counted as running. */
  private slot(): EvaluationSlot {
    let state: 'held' | 'paused' | 'resuming' | 'done' = 'held';
    let resuming: { leave: AbortController } | undefined;
    const free = (): void => {
      this.running--;
      this.admitNext();
    };
    return {
      done: () => {
        if (state === 'held') free();
        else if (state === 'paused' || state === 'resuming') this.lent--;
        if (state === 'resuming') resuming?.leave.abort(new Error('query ended'));
        state = 'done';
      },
      pause: () => {
        // At most as many slots are lent as there are: past that, a slow client holds its slot,
        // so queries in progress stay within twice the cap even when every client lags.
        if (state !== 'held' || this.lent >= this.limits.maxEvaluating) return;
        state = 'paused';
        this.lent++;
        free();
      },
      get paused() {
        return state === 'paused' || state === 'resuming';
      },
      resume: async (signal?: AbortSignal) => {
        if (state !== 'paused') return;
        if (this.hasSlot && this.resumers.length === 0) {
          this.running++;
          this.lent--;
          state = 'held';
          return;
        }
        state = 'resuming';
        const leave = new AbortController();
        resuming = { leave };
        try {
          await this.enqueue(this.resumers, signal === undefined ? leave.signal : AbortSignal.any([signal, leave.signal]));
          // Ended while granted in the same turn: give the slot straight back.
          if ((state as string) === 'done') free();
          else {
            this.lent--;
            state = 'held';
          }
        } catch (err) {
          if (state === 'resuming') state = 'paused';
          throw err;
        } finally {
          resuming = undefined;
        }
      },
    };
  }

  /**
   * admitNext lets waiting queries in while slots are free: paused queries first, then at most
   * one new query while the pool is below saturation (it adds its tasks only later, so letting
   * more in on the same news could overshoot the backlog). It runs whenever a task ends or a
   * slot frees; since every admitted query ends at some point, no waiter is left behind an idle
   * pool.
   */
  admitNext(): void {
    while (this.hasSlot && this.resumers.length > 0) this.resumers.shift()!.grant();
    if (this.waiters.length === 0 || !this.hasSlot || this.load.overloaded) return;
    this.waiters.shift()!.grant();
  }
}
