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
 * slot. A query whose client is behind gives its slot up entirely while it waits for the
 * reader (`pause`): it has nothing to evaluate while nothing is read, so it must not keep a
 * query that could evaluate waiting. Once its client has caught up it takes a slot again,
 * ahead of its org's queries not yet admitted, before it dispatches more work (`resume`).
 */
export interface EvaluationSlot {
  /** done frees the slot for good; idempotent, and safe while paused. */
  done(): void;
  /** pause gives the slot up while the query waits for its client (a no-op unless it holds one). */
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

/** Candidate is a query waiting for a slot: new (not yet admitted) or paused and resuming. */
interface Candidate {
  readonly org: string;
  /** seq orders candidates by arrival; a resuming query keeps no place from its first admission. */
  readonly seq: number;
  readonly resuming: boolean;
  granted: boolean;
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
 * A freed slot goes to the waiting query of the org with the fewest queries evaluating (as
 * Mimir's query front end serves tenants' queues in turn, so one org's burst cannot hold the
 * others back); within an org, paused queries resuming come first, then new queries first
 * come first served. New queries are let in one each time a slot frees or a task ends while
 * the pool is below saturation. Only a full queue or a wait past the query's deadline answers
 * 429 RATE_LIMITED, with Retry-After.
 *
 * Paused queries hold no slot but are still in progress (their buffers, their next slices):
 * letting a new query in whenever one pauses let every query in on a loaded machine and none
 * finished. So an org with more than `maxEvaluating` queries paused gets no new query admitted
 * until one of them resumes or ends (its queries in progress stay within about three times the
 * cap); the bound is per org, so one org's stalled or slow readers hold
 * back only that org's new queries, never another org's.
 */
export class WorkerAdmission {
  private readonly waiters: Candidate[] = [];
  private readonly resumers: Candidate[] = [];
  private running = 0;
  private seq = 0;
  /** runningOf counts each org's queries holding a slot; pausedOf its queries paused while their client is behind. */
  private readonly runningOf = new Map<string, number>();
  private readonly pausedOf = new Map<string, number>();
  private pausedTotal = 0;

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

  /** lending is how many queries gave their slot up while their client is behind and have not taken one back. */
  get lending(): number {
    return this.pausedTotal;
  }

  /** evaluating is how many admitted queries hold an evaluation slot now. */
  get evaluating(): number {
    return this.running;
  }

  /** pausedBound is how many paused queries an org may have and still get new queries admitted. */
  private get pausedBound(): number {
    return this.limits.maxEvaluating;
  }

  /**
   * admit resolves to the query's evaluation slot once it may dispatch work: at once when a
   * slot is free, the pool has room and no query ranked before it waits, else when its turn
   * comes. It rejects with 429 when the queue is full or `waitMs` passes, and with the
   * signal's reason when the caller leaves first.
   */
  async admit(org: string, waitMs: number, signal?: AbortSignal): Promise<EvaluationSlot> {
    const startedMs = Date.now();
    try {
      const outcome = await this.queue(org, waitMs, signal);
      this.count(outcome, Date.now() - startedMs);
      return this.slot(org);
    } catch (err) {
      if (err instanceof ApiError && err.code === 'RATE_LIMITED') this.count('refused', Date.now() - startedMs);
      throw err;
    }
  }

  private get hasSlot(): boolean {
    return this.running < this.limits.maxEvaluating;
  }

  private queue(org: string, waitMs: number, signal?: AbortSignal): Promise<AdmissionOutcome> {
    const queueFull = this.waiters.length >= this.limits.maxWaiting;
    const { promise, candidate } = this.enqueue(this.waiters, org, false, signal, waitMs);
    this.admitNext();
    if (candidate.granted) return promise.then(() => 'immediate' as const);
    if (queueFull) {
      candidate.leave(
        new ApiError(
          'RATE_LIMITED',
          `${this.refusalCause(org)} and the wait queue is full (${this.waiters.length} waiting, limit ${this.limits.maxWaiting}: SVC_MAX_QUERIES_WAITING_FOR_WORKERS); retry shortly`,
          { headers: { 'retry-after': '2' } },
        ),
      );
    }
    return promise.then(() => 'queued' as const);
  }

  /** refusalCause says why a query of `org` could not be let in at once. */
  private refusalCause(org: string): string {
    if (!this.hasSlot) return `all ${this.limits.maxEvaluating} evaluation slots are busy (SVC_MAX_CONCURRENT_QUERIES)`;
    if (this.load.overloaded) return 'the query workers are saturated';
    if ((this.pausedOf.get(org) ?? 0) > this.pausedBound) return `more than ${this.pausedBound} of this org's queries wait for their clients to read`;
    return 'queries admitted earlier wait for a slot';
  }

  /**
   * enqueue puts a candidate in `queue` until granted a slot (counted as running on grant),
   * the signal aborts, or `waitMs` passes (429). The caller runs `admitNext` to grant it.
   */
  private enqueue(
    queue: Candidate[],
    org: string,
    resuming: boolean,
    signal: AbortSignal | undefined,
    waitMs?: number,
  ): { promise: Promise<void>; candidate: Candidate & { leave(err: unknown): void } } {
    let candidate!: Candidate & { leave(err: unknown): void };
    const promise = new Promise<void>((resolve, reject) => {
      const leave = (err: unknown): void => {
        if (candidate.granted) return;
        const at = queue.indexOf(candidate);
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
      candidate = {
        org,
        seq: this.seq++,
        resuming,
        granted: false,
        leave,
        grant: () => {
          candidate.granted = true;
          clearTimeout(timer);
          signal?.removeEventListener('abort', onAbort);
          this.running++;
          this.runningOf.set(org, (this.runningOf.get(org) ?? 0) + 1);
          if (resuming) this.unpause(org);
          resolve();
        },
      };
      queue.push(candidate);
      if (signal?.aborted) onAbort();
      else signal?.addEventListener('abort', onAbort, { once: true });
    });
    return { promise, candidate };
  }

  /** free gives a running query's slot back and lets the next in. */
  private free(org: string): void {
    this.running--;
    const left = (this.runningOf.get(org) ?? 1) - 1;
    if (left <= 0) this.runningOf.delete(org);
    else this.runningOf.set(org, left);
    this.admitNext();
  }

  /** unpause counts a paused query of `org` as paused no more (resumed or ended). */
  private unpause(org: string): void {
    this.pausedTotal--;
    const left = (this.pausedOf.get(org) ?? 1) - 1;
    if (left <= 0) this.pausedOf.delete(org);
    else this.pausedOf.set(org, left);
  }

  /** slot is the handle of a query of `org` just counted as running. */
  private slot(org: string): EvaluationSlot {
    let state: 'held' | 'paused' | 'resuming' | 'done' = 'held';
    let leaveQueue: AbortController | undefined;
    return {
      done: () => {
        const was = state;
        state = 'done';
        if (was === 'held') this.free(org);
        else if (was === 'paused') {
          this.unpause(org);
          this.admitNext();
        } else if (was === 'resuming') leaveQueue?.abort(new Error('query ended'));
      },
      pause: () => {
        if (state !== 'held') return;
        state = 'paused';
        this.pausedTotal++;
        this.pausedOf.set(org, (this.pausedOf.get(org) ?? 0) + 1);
        this.free(org);
      },
      get paused() {
        return state === 'paused' || state === 'resuming';
      },
      resume: async (signal?: AbortSignal) => {
        if (state !== 'paused') return;
        state = 'resuming';
        const leave = new AbortController();
        leaveQueue = leave;
        const { promise } = this.enqueue(this.resumers, org, true, signal === undefined ? leave.signal : AbortSignal.any([signal, leave.signal]));
        this.admitNext();
        try {
          await promise;
        } catch (err) {
          // Not granted: the query is still paused, or has ended, which counts it paused no more.
          if ((state as string) === 'done') {
            this.unpause(org);
            this.admitNext();
          } else state = 'paused';
          throw err;
        } finally {
          leaveQueue = undefined;
        }
        // Ended while granted in the same turn: give the slot straight back.
        if ((state as string) === 'done') this.free(org);
        else state = 'held';
      },
    };
  }

  /**
   * admitNext hands free slots out while candidates wait: each to the best ranked (`pick`),
   * paused queries resuming at any time, new queries at most one per call while the pool is
   * below saturation (a new query adds its tasks only later, so letting more in on the same
   * news could overshoot the backlog). It runs whenever a task ends, a slot frees or a query
   * stops being paused; since every admitted query ends at some point, no waiter is left behind
   * an idle pool.
   */
  admitNext(): void {
    let newLetIn = false;
    while (this.hasSlot) {
      const next = this.pick(!newLetIn && !this.load.overloaded);
      if (next === undefined) return;
      const queue = next.resuming ? this.resumers : this.waiters;
      queue.splice(queue.indexOf(next), 1);
      if (!next.resuming) newLetIn = true;
      next.grant();
    }
  }

  /**
   * pick is the candidate the next free slot goes to: the one whose org has the fewest queries
   * evaluating, a resuming query before a new one of the same standing, then the earliest. A
   * new query of an org with more than `pausedBound` queries paused is passed over (`newAllowed` false:
   * every new query is).
   */
  private pick(newAllowed: boolean): Candidate | undefined {
    let best: Candidate | undefined;
    let bestRunning = Infinity;
    const consider = (c: Candidate): void => {
      const running = this.runningOf.get(c.org) ?? 0;
      if (
        best === undefined ||
        running < bestRunning ||
        (running === bestRunning && (c.resuming !== best.resuming ? c.resuming : c.seq < best.seq))
      ) {
        best = c;
        bestRunning = running;
      }
    };
    for (const c of this.resumers) consider(c);
    if (newAllowed) for (const c of this.waiters) if ((this.pausedOf.get(c.org) ?? 0) <= this.pausedBound) consider(c);
    return best;
  }
}
