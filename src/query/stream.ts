import { memoryBudgetExceeded } from '../../engine/index.js';
import { ApiError, toApiError } from '../errors.js';
import type { RequestContext } from '../http/router.js';
import { whileServing } from '../http/servingSignal.js';
import { SseStream, type SseEvent, type StreamItem } from '../http/sse.js';
import type { ServiceMetrics } from '../metrics.js';
import type { EvaluationSlot, WorkerAdmission } from './workerAdmission.js';
import { armDeadline } from './deadline.js';

/** GateLimit is how many queries an org may run at once, how many may wait, and the settings that say so. */
export interface GateLimit {
  maxConcurrentQueries: number;
  maxQueuedQueries: number;
  /** timeoutMs is the query deadline: the longest a query waits for a slot. */
  timeoutMs: number;
  originOf(field: 'maxConcurrentQueries' | 'maxQueuedQueries'): string;
}

/**
 * QuerySlot frees a query's org slot and evaluation slot when called (idempotent); its
 * `evaluation`, when admission bounds evaluations, lets the query give the evaluation slot up
 * earlier: once its last slice is evaluated, and while it waits for a slow client.
 */
export type QuerySlot = (() => void) & { evaluation?: EvaluationSlot };

/** Waiter is a query waiting for a slot of its org. */
interface Waiter {
  grant(): void;
}

/**
 * OrgGate bounds how many queries one org runs at once, so one org cannot starve the others.
 * A query over the bound waits, first come first served, in the org's queue (as Mimir's
 * query-frontend queues per tenant): a dashboard that sends more panels than the org has slots
 * is answered a little later instead of refused. With its slot, a query then passes the
 * workers' admission, which holds it back while the pool is saturated. A full queue or a wait
 * longer than the query's deadline answers 429. Bounds are the org's own, read by each
 * acquire, so a changed limit applies to the next query.
 */
export class OrgGate {
  private readonly running = new Map<string, number>();
  private readonly queues = new Map<string, Waiter[]>();

  constructor(private readonly workers?: WorkerAdmission) {}

  /**
   * acquire reserves a slot, waiting for one while the org's queue has room, then waits for the
   * workers' admission within what is left of the deadline, and resolves to the function that
   * frees both (idempotent). A caller that leaves while waiting aborts `signal`, which takes it
   * out of either queue.
   */
  async acquire(org: string, limit: GateLimit, signal?: AbortSignal): Promise<QuerySlot> {
    const startedMs = Date.now();
    if ((this.running.get(org) ?? 0) < limit.maxConcurrentQueries && !this.queues.has(org)) {
      this.running.set(org, (this.running.get(org) ?? 0) + 1);
    } else {
      await this.wait(org, limit, signal);
    }
    const release = this.releaser(org);
    if (this.workers === undefined) return release;
    let evaluation: EvaluationSlot;
    try {
      evaluation = await this.workers.admit(org, limit.timeoutMs - (Date.now() - startedMs), signal);
    } catch (err) {
      release();
      throw err;
    }
    return Object.assign(() => {
      evaluation.done();
      release();
    }, { evaluation });
  }

  /** queued is how many of the org's queries wait for a slot. */
  queued(org: string): number {
    return this.queues.get(org)?.length ?? 0;
  }

  private wait(org: string, limit: GateLimit, signal: AbortSignal | undefined): Promise<void> {
    const queue = this.queues.get(org) ?? [];
    if (queue.length >= limit.maxQueuedQueries) {
      throw new ApiError(
        'RATE_LIMITED',
        `too many concurrent queries for this org (limit ${limit.maxConcurrentQueries}: ${limit.originOf('maxConcurrentQueries')}; ` +
          `${queue.length} waiting, limit ${limit.maxQueuedQueries}: ${limit.originOf('maxQueuedQueries')}); retry shortly`,
        { headers: { 'retry-after': '1' } },
      );
    }
    this.queues.set(org, queue);
    return new Promise<void>((resolve, reject) => {
      const leave = (err: unknown): void => {
        const at = queue.indexOf(waiter);
        if (at >= 0) queue.splice(at, 1);
        if (queue.length === 0 && this.queues.get(org) === queue) this.queues.delete(org);
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        reject(err);
      };
      const onAbort = (): void => leave(signal?.reason);
      const timer = setTimeout(
        () => leave(new ApiError('RATE_LIMITED', `waited ${limit.timeoutMs} ms for one of this org's ${limit.maxConcurrentQueries} concurrent query slots; retry shortly`, { headers: { 'retry-after': '1' } })),
        limit.timeoutMs,
      );
      const waiter: Waiter = {
        grant: () => {
          clearTimeout(timer);
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
      };
      queue.push(waiter);
      if (signal?.aborted) onAbort();
      else signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** releaser frees the slot once: to the org's first waiter when there is one, which keeps it. */
  private releaser(org: string): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const queue = this.queues.get(org);
      const next = queue?.shift();
      if (queue !== undefined && queue.length === 0) this.queues.delete(org);
      if (next !== undefined) {
        next.grant();
        return;
      }
      const left = (this.running.get(org) ?? 1) - 1;
      if (left <= 0) this.running.delete(org);
      else this.running.set(org, left);
    };
  }
}

/**
 * waitForSlot takes a query slot of the org's gate, giving its place in the queue up when the
 * client of the request leaves or the server stops.
 */
export function waitForSlot(ctx: RequestContext, gate: OrgGate, org: string, limits: GateLimit): Promise<QuerySlot> {
  return whileServing(
    ctx,
    () => new ApiError('CLIENT_CLOSED', 'the client closed the request while it waited for a query slot'),
    (signal) => gate.acquire(org, limits, signal),
  );
}

/**
 * LEND_SLOT_AFTER_MS is how long a query's client must stay behind before the query lends its
 * evaluation slot. A client that reads at speed is behind for moments at a time (its socket
 * buffer fills between reads); lending at each of those would let a new query in every time
 * and, on a busy machine where every client lags a little, lift the cap altogether. A client
 * behind for a second is a slow reader.
 */
export const LEND_SLOT_AFTER_MS = 1000;

/** shuttingDown is how a query the server could not finish before stopping ends. */
function shuttingDown(): ApiError {
  return new ApiError('SERVICE_UNAVAILABLE', 'the server is shutting down; retry the query', { headers: { 'retry-after': '5' } });
}

export interface QueryStreamOptions {
  endpoint: string;
  heartbeatMs: number;
  timeoutMs: number;
  /** timeoutOrigin names the setting behind timeoutMs, for the deadline's message. */
  timeoutOrigin?: string;
  /** stallTimeoutMs: a client that takes none of the waiting data for this long gets its query cancelled. */
  stallTimeoutMs: number;
  /** memoryBytes is the query's memory budget; a single result held for the client may not pass it. */
  memoryBytes: number;
  metrics: ServiceMetrics;
  /** release frees the org's concurrency slot (and the evaluation slot) when the stream ends. */
  release: () => void;
  /**
   * evaluation is the query's evaluation slot: given up while the client is behind (taken
   * again before the next slice is dispatched) and for good once `evaluated` is called.
   */
  evaluation?: EvaluationSlot;
  /** terminalErrorEvent: the summary path reports mid-stream failures with an `error` event. */
  terminalErrorEvent?: boolean;
  /**
   * failedSegments reports how many stored segments the query had to skip because they could
   * not be read; any makes the result partial, which the stream's end says.
   */
  failedSegments?: () => number;
}

/**
 * QUERY_COMPLETE and QUERY_ENDED are the abort reasons of a query that stopped on its own (its
 * limit reached) or ended: nothing reports them, and an Error made per query (its stack
 * captured) was a visible part of a small query's cost on the answering thread.
 */
const QUERY_COMPLETE = new Error('query complete');
const QUERY_ENDED = new Error('query ended');

/**
 * QueryStream is one query's response. It opens the event stream lazily, on the first event
 * or when a heartbeat falls due, so failures that happen early (a deadline, an evaluation
 * error in the first slice) still get a proper JSON error with its status. Afterwards they end
 * the stream with `done` status error (or `error` on the summary path). Its `signal` aborts on
 * client disconnect and on deadline, which cancels every task still running for the query.
 */
export class QueryStream {
  private readonly controller = new AbortController();
  private readonly sse: SseStream;
  private opened = false;
  private ended = false;
  private readonly openTimer: NodeJS.Timeout;
  private readonly deadline: NodeJS.Timeout;
  private abortReason: 'client' | 'stalled' | 'deadline' | 'shutdown' | undefined;
  private readonly onShutdown = (): void => {
    this.abortReason ??= 'shutdown';
    this.controller.abort(shuttingDown());
  };
  private outcomeRecorded = false;
  /** lendTimer lends the evaluation slot once the client has stayed behind for LEND_SLOT_AFTER_MS. */
  private lendTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly ctx: RequestContext,
    private readonly options: QueryStreamOptions,
  ) {
    // Before the event stream's own handler, which ends the query: a disconnect is known as such
    // (and its reason carried) by the time the clean-up runs.
    ctx.res.onAbort(() => {
      this.abortReason ??= 'client';
      this.controller.abort(new ApiError('CLIENT_CLOSED', 'client closed the connection'));
    });
    this.sse = new SseStream(ctx.res, {
      heartbeatMs: options.heartbeatMs,
      onClose: () => this.cleanUp(),
      stallTimeoutMs: options.stallTimeoutMs,
      onStall: () => {
        this.abortReason ??= 'stalled';
        ctx.log.warn({ stallTimeoutMs: options.stallTimeoutMs, bufferedBytes: this.sse.bufferedBytes }, 'query cancelled: its client stopped reading');
      },
      onBehind: () => {
        clearTimeout(this.lendTimer);
        if (options.evaluation !== undefined) this.lendTimer = setTimeout(() => options.evaluation?.pause(), LEND_SLOT_AFTER_MS);
      },
      onCaughtUp: () => clearTimeout(this.lendTimer),
    });
    this.openTimer = setTimeout(() => {
      this.ensureOpen();
      this.sse.send({ type: 'heartbeat', data: { status: 'waiting' } });
    }, options.heartbeatMs);
    this.deadline = armDeadline(options.timeoutMs, () => {
      this.abortReason ??= 'deadline';
      this.controller.abort(new ApiError('DEADLINE_EXCEEDED', this.deadlineMessage()));
    });
    options.metrics.openStreams.inc();
    options.metrics.sseBuffers.add(this.sse);
    if (ctx.shutdown.aborted) this.onShutdown();
    else ctx.shutdown.addEventListener('abort', this.onShutdown, { once: true });
  }

  private deadlineMessage(): string {
    const origin = this.options.timeoutOrigin === undefined ? '' : ` (${this.options.timeoutOrigin})`;
    return `query exceeded the deadline of ${this.options.timeoutMs} ms${origin}`;
  }

  /** batchBytes is how much text producers of this stream's events should batch (SseStream.batchBytes). */
  get batchBytes(): number {
    return this.sse.batchBytes;
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** stop aborts outstanding work without an error (for example once `limit` rows are out). */
  stop(): void {
    this.controller.abort(QUERY_COMPLETE);
  }

  private ensureOpen(): void {
    if (this.opened || this.ended) return;
    this.opened = true;
    clearTimeout(this.openTimer);
    this.sse.open();
  }

  /**
   * emit sends events and waits while the client is behind, so producers pause with it (and,
   * since the next worker task is dispatched only once emit returns, so do the workers). A
   * client that stays behind until the deadline (or leaves, or stalls) ends the wait: emit then
   * throws the abort's reason, so the producer fails the stream rather than finishing it short.
   *
   * `heldBytes` is the size of the worker result the events come from; it counts as buffered
   * for this stream until written, and a result larger than the query's memory budget fails
   * the query instead of being held.
   */
  async emit(events: Iterable<StreamItem>, heldBytes = 0): Promise<void> {
    if (this.ended || this.sse.closed) return;
    if (heldBytes > this.options.memoryBytes) throw memoryBudgetExceeded(this.options.memoryBytes, 'results waiting for the client');
    this.ensureOpen();
    this.sse.hold(heldBytes);
    try {
      await this.sse.sendAll(events, this.controller.signal);
    } finally {
      this.sse.hold(-heldBytes);
    }
    if (this.controller.signal.aborted) throw this.controller.signal.reason;
    // The producer dispatches its next slice once emit returns: a query that lent its slot
    // while its client was behind takes one again first.
    const slot = this.options.evaluation;
    if (slot?.paused) await slot.resume(this.controller.signal);
  }

  /**
   * evaluated says the query's last slice is evaluated: what is left is writing, which holds
   * the org's slot until the stream ends but no evaluation slot.
   */
  evaluated(): void {
    this.options.evaluation?.done();
  }

  /**
   * finish ends the stream: `done` status ok, or, when segments could not be read, the path's
   * error ending (results sent so far stay valid, but some data is missing).
   */
  finish(): void {
    if (this.ended) return;
    const failed = this.options.failedSegments?.() ?? 0;
    if (failed > 0) {
      this.ctx.log.warn({ failedSegments: failed }, 'query answered without unreadable segments');
      this.fail(new ApiError('SERVICE_UNAVAILABLE', `${failed} stored segment(s) or holder(s) of recent data could not be read; the results are partial, retry or narrow the range`));
      return;
    }
    this.ensureOpen();
    this.recordOutcome('ok');
    this.sse.end({ type: 'done', data: { status: 'ok' } });
  }

  /**
   * fail ends the query after an error: a JSON error response when nothing was sent yet, else
   * the terminal event the spec gives for this path. A client that left gets nothing (499 is
   * already recorded).
   */
  fail(err: unknown): void {
    if (this.ended) return;
    const apiError =
      this.abortReason === 'deadline'
        ? new ApiError('DEADLINE_EXCEEDED', this.deadlineMessage())
        : this.abortReason === 'shutdown'
          ? shuttingDown()
          : toApiError(err, this.ctx.queryId);
    const outcome = this.abortReason === 'client' ? 'client_closed' : this.abortReason === 'stalled' ? 'client_stalled' : this.abortReason === 'deadline' ? 'deadline' : 'error';
    this.recordOutcome(outcome);
    if (apiError.status >= 500 && apiError.code !== 'DEADLINE_EXCEEDED' && this.abortReason !== 'shutdown') {
      this.ctx.log.error({ err, code: apiError.code }, 'query failed');
    }
    this.ctx.res.errorCode ??= apiError.code;
    if (this.ctx.res.aborted) {
      this.cleanUp();
      return;
    }
    if (!this.opened) {
      this.ended = true;
      this.ctx.res.error(apiError);
      this.cleanUp();
      return;
    }
    const terminal: SseEvent = this.options.terminalErrorEvent
      ? { type: 'error', data: { message: apiError.message, code: apiError.code } }
      : { type: 'done', data: { status: 'error', message: apiError.message, code: apiError.code } };
    this.sse.end(terminal);
  }

  /** recordOutcome counts the query in `sluice_queries_total` once, whichever way it ends first. */
  private recordOutcome(outcome: 'ok' | 'error' | 'client_closed' | 'client_stalled' | 'deadline'): void {
    if (this.outcomeRecorded) return;
    this.outcomeRecorded = true;
    this.options.metrics.queries.inc({ endpoint: this.options.endpoint, outcome });
  }

  private cleaned = false;

  private cleanUp(): void {
    if (this.cleaned) return;
    this.cleaned = true;
    // A client that leaves mid-stream ends the stream before the producer notices and fails it.
    if (this.abortReason === 'client') this.recordOutcome('client_closed');
    if (this.abortReason === 'stalled') this.recordOutcome('client_stalled');
    this.ended = true;
    clearTimeout(this.openTimer);
    clearTimeout(this.deadline);
    clearTimeout(this.lendTimer);
    this.ctx.shutdown.removeEventListener('abort', this.onShutdown);
    this.options.metrics.openStreams.dec();
    this.options.metrics.sseBuffers.delete(this.sse);
    this.options.release();
    if (!this.controller.signal.aborted) this.controller.abort(QUERY_ENDED);
  }
}

/**
 * runOrdered runs `count` slices with up to `concurrency` in flight and hands results to
 * `consume` strictly in slice order, so the stream is ordered however the workers finish.
 * A new slice starts only after `consume` of an earlier one returned, which is where the
 * client's backpressure is felt: a slow reader stops dispatch for its own query only.
 */
export async function runOrdered<T>(
  count: number,
  concurrency: number,
  start: (index: number, signal: AbortSignal) => Promise<T>,
  consume: (index: number, result: T) => Promise<boolean | void>,
  signal: AbortSignal,
): Promise<void> {
  const inFlight = new Map<number, Promise<T>>();
  let next = 0;
  const launch = (): void => {
    while (next < count && inFlight.size < concurrency && !signal.aborted) {
      const promise = start(next, signal);
      promise.catch(() => {});
      inFlight.set(next, promise);
      next++;
    }
  };
  launch();
  for (let i = 0; i < count; i++) {
    if (signal.aborted) throw signal.reason;
    const result = await inFlight.get(i)!;
    inFlight.delete(i);
    if ((await consume(i, result)) === false) return;
    launch();
  }
}
