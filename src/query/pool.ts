import { existsSync } from 'node:fs';
import path from 'node:path';
import { Piscina } from 'piscina';
import { runTask, taskTransferables, type QueryTask, type TaskResult } from '../../engine/index.js';
import type { ServiceMetrics } from '../metrics.js';
import { packageRoot } from '../packageRoot.js';
import type { WorkerSetup } from './worker.js';
import { WorkerHeapBoard, type WorkerHeap } from './workerHeaps.js';

/**
 * ABANDONED_TASK_GRACE_MS is how long a task its query no longer wants may go on running before
 * its worker is replaced. Ending a running task means terminating its thread, and the thread
 * that takes its place starts cold: it loads the engine again and runs unoptimised code for
 * seconds. Clients cancel often (a dashboard refreshed or closed mid-answer), and a slice task
 * mostly ends within milliseconds, so letting it finish costs less than a new thread; one that
 * runs on past the grace (a slice over far more data) is stopped as before.
 */
export const ABANDONED_TASK_GRACE_MS = 1_000;

/** StartFlagged is a task with the shared flag its worker sets when it begins it (QueryPool.run reads it on abort). */
export type StartFlagged<T> = T & { started?: SharedArrayBuffer };

/**
 * QueryPool runs query tasks on worker threads (Piscina), one per core by default. Workers run
 * the compiled engine, so the service must be built first (npm start and npm test do it). An
 * aborted task that has not started is dropped from the queue; one that is running is left to
 * finish for ABANDONED_TASK_GRACE_MS (its answer dropped), then has its worker replaced, so
 * abandoned work stops using a core soon without a thread start per cancelled query. The caller
 * is answered at once either way. Outcomes are counted in `sluice_query_tasks_total`.
 */
export class QueryPool {
  private readonly piscina: Piscina;
  /**
   * Raw log tasks are built only when one of `threads * 2` places on the pool is free (one
   * running and one queued per worker): a task holds the head's snapshot it was given (shared
   * with every other task while the head is unchanged, but kept alive by the task after the
   * head moves on) and then its answer, and queries that cannot run yet (many clients at once,
   * or clients that stopped reading) hold neither while they wait.
   */
  private rawPlacesFree: number;
  private readonly rawWaiters: Array<() => void> = [];
  private readonly settledListeners: Array<() => void> = [];
  /** inFlight counts tasks handed to the pool and not yet settled, queued ones included (an abandoned task counts until it ends). */
  private inFlight = 0;
  /** heaps is where the workers post their heap figures (WorkerHeapBoard). */
  private readonly heaps = new WorkerHeapBoard();

  constructor(
    readonly threads: number,
    private readonly metrics: ServiceMetrics,
    onPoolError: (err: Error) => void = () => {},
    /** backlogPerWorker is how many waiting tasks per worker count as saturated (see `overloaded`). */
    private readonly backlogPerWorker = 64,
    /** setup goes to every worker thread (its part of the decoded-segment cache). */
    setup: WorkerSetup = {},
  ) {
    const filename = path.join(packageRoot(), 'dist', 'src', 'query', 'workerEntry.cjs');
    if (!existsSync(filename)) throw new Error(`query worker not built: ${filename} is missing; run npm run build`);
    this.piscina = new Piscina({ filename, minThreads: threads, maxThreads: threads, idleTimeout: 60_000, workerData: { ...setup, heapBoard: this.heaps.buffer } });
    // The pool reports some events as 'error', notably the result of a task that was aborted
    // while its worker was already answering. Unheard, an 'error' event would be thrown as an
    // uncaught exception and stop the service; such results are simply dropped.
    this.piscina.on('error', (err: Error) => onPoolError(err));
    this.rawPlacesFree = threads * 2;
  }

  /** workerHeaps gives each running worker's heap as it last posted it, in the pool's order of threads. */
  workerHeaps(): (WorkerHeap | undefined)[] {
    return this.heaps.read(this.piscina.threads.map((worker) => worker.threadId));
  }

  /**
   * runRaw builds a raw log task once a place on the pool is free and runs it; the place is
   * held until the task answers or is abandoned.
   */
  async runRaw(build: () => Promise<QueryTask & { kind: 'logql-raw' }>, signal: AbortSignal): Promise<TaskResult> {
    await this.rawPlace(signal);
    try {
      return await this.runCooperative(await build(), signal);
    } finally {
      this.rawPlacesFree++;
      this.rawWaiters.shift()?.();
    }
  }

  private rawPlace(signal: AbortSignal): Promise<void> {
    if (signal.aborted) return Promise.reject(signal.reason as Error);
    if (this.rawPlacesFree > 0) {
      this.rawPlacesFree--;
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const granted = (): void => {
        signal.removeEventListener('abort', onAbort);
        this.rawPlacesFree--;
        resolve();
      };
      const onAbort = (): void => {
        const at = this.rawWaiters.indexOf(granted);
        if (at >= 0) this.rawWaiters.splice(at, 1);
        reject(signal.reason as Error);
      };
      this.rawWaiters.push(granted);
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  async run(task: QueryTask, signal: AbortSignal): Promise<TaskResult> {
    if (task.kind === 'logql-raw') return this.runCooperative(task, signal);
    const started = new SharedArrayBuffer(4);
    const stop = new AbortController();
    const flagged: StartFlagged<QueryTask> = { ...task, started };
    return this.answerUnlessAbandoned(
      signal,
      () => this.piscina.run(flagged, { signal: stop.signal, transferList: taskTransferables(task) }) as Promise<TaskResult>,
      (running) => {
        if (Atomics.load(new Int32Array(started), 0) === 0) {
          // Still queued: dropped from the queue, no thread is touched.
          stop.abort(signal.reason);
          return;
        }
        let stopped = false;
        const grace = setTimeout(() => {
          stopped = true;
          this.metrics.abandonedTasks.inc({ ending: 'stopped' });
          stop.abort(signal.reason);
        }, ABANDONED_TASK_GRACE_MS);
        const ended = (): void => {
          clearTimeout(grace);
          if (!stopped) this.metrics.abandonedTasks.inc({ ending: 'finished' });
          // The worker is free again; admission may let a query in.
          this.settled();
        };
        void running.then(ended, ended);
      },
    );
  }

  /**
   * runInline evaluates a task on this thread, at once, for tasks too small to be worth a
   * worker (InlinePolicy in seriesStream.ts): the planner admits only those whose work is about
   * the samples or lines they read (SVC_QUERY_INLINE_MAX_SAMPLES, SVC_QUERY_INLINE_MAX_LINES),
   * all in the heads' shared snapshots, so no segment is decoded here and the thread is held
   * for about as long as a hand-over to a worker and back takes. Outcomes are counted with the
   * workers' tasks.
   */
  runInline(task: QueryTask, signal: AbortSignal): TaskResult {
    if (signal.aborted) {
      this.metrics.queryTasks.inc({ outcome: 'aborted' });
      throw signal.reason;
    }
    const { result } = runTask(task);
    this.metrics.inlineTasks.inc();
    this.metrics.queryTasks.inc({ outcome: 'failed' in result ? 'failed' : 'completed' });
    return result;
  }

  /**
   * answerUnlessAbandoned starts a task and answers with its result, or, as soon as `signal`
   * aborts, with the signal's reason after handing the running task to `abandon`, which decides
   * what becomes of it (its answer is never wanted, and its failure is caught). Outcomes are
   * counted in `sluice_query_tasks_total`, and the settled listeners hear when the caller stops
   * waiting.
   */
  private async answerUnlessAbandoned(signal: AbortSignal, start: () => Promise<TaskResult>, abandon: (running: Promise<TaskResult>) => void): Promise<TaskResult> {
    if (signal.aborted) {
      this.metrics.queryTasks.inc({ outcome: 'aborted' });
      throw signal.reason;
    }
    const running = start();
    this.inFlight++;
    const ended = (): void => {
      this.inFlight--;
    };
    running.then(ended, ended);
    let onAbort: (() => void) | undefined;
    const abandoned = new Promise<never>((_, reject) => {
      onAbort = () => {
        abandon(running);
        reject(signal.reason);
      };
      signal.addEventListener('abort', onAbort, { once: true });
    });
    try {
      const result = await Promise.race([running, abandoned]);
      this.metrics.queryTasks.inc({ outcome: 'failed' in result ? 'failed' : 'completed' });
      return result;
    } catch (err) {
      this.metrics.queryTasks.inc({ outcome: signal.aborted ? 'aborted' : 'failed' });
      throw err;
    } finally {
      signal.removeEventListener('abort', onAbort!);
      this.settled();
    }
  }

  /** onTaskSettled registers a listener told each time a task ends, however it ends. */
  onTaskSettled(listener: () => void): void {
    this.settledListeners.push(listener);
  }

  private settled(): void {
    for (const listener of this.settledListeners) listener();
  }

  /**
   * runCooperative runs a raw log task that stops itself: on abort it sets the task's shared
   * cancel flag, which the task reads between batches, and the caller is answered at once. A
   * raw query that reaches its limit aborts its look-ahead slices, and ending them through
   * Piscina would replace their worker threads, a thread start per query.
   */
  private runCooperative(task: QueryTask & { kind: 'logql-raw' }, signal: AbortSignal): Promise<TaskResult> {
    const cancel = new SharedArrayBuffer(4);
    return this.answerUnlessAbandoned(
      signal,
      () => this.piscina.run({ ...task, cancel }, { transferList: taskTransferables(task) }) as Promise<TaskResult>,
      () => Atomics.store(new Int32Array(cancel), 0, 1),
    );
  }

  /**
   * idle tells whether every worker is free: a query is split into series shards only then, since
   * shards cut one query's latency by using workers that would otherwise wait, but where other
   * queries keep the workers busy they only add each shard's fixed cost (under dashboard load the
   * difference measured was within the noise).
   */
  get idle(): boolean {
    return this.inFlight === 0;
  }

  /** queued is how many tasks wait for a free worker, the signal of overload. */
  get queued(): number {
    return this.piscina.queueSize + this.rawWaiters.length;
  }

  /**
   * overloaded tells the front to hold new queries back: past this many waiting tasks a new
   * query would only add to work that is already late, so it waits for admission instead.
   */
  get overloaded(): boolean {
    return this.queued >= this.threads * this.backlogPerWorker;
  }

  async close(): Promise<void> {
    await this.piscina.destroy();
  }
}
