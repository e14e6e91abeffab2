import { existsSync } from 'node:fs';
import path from 'node:path';
import { Piscina } from 'piscina';
import { taskTransferables, type QueryTask, type TaskResult } from '../../engine/index.js';
import type { ServiceMetrics } from '../metrics.js';
import { packageRoot } from '../packageRoot.js';

/**
 * QueryPool runs query tasks on worker threads (Piscina), one per core by default. Workers run
 * the compiled engine, so the service must be built first (npm start and npm test do it). An
 * aborted task that has not started is dropped from the queue; one that is running has its
 * worker replaced, so abandoned work stops using a core at once. Outcomes are counted in
 * `sluice_query_tasks_total`.
 */
export class QueryPool {
  private readonly piscina: Piscina;

  constructor(
    readonly threads: number,
    private readonly metrics: ServiceMetrics,
    onPoolError: (err: Error) => void = () => {},
  ) {
    const filename = path.join(packageRoot(), 'dist', 'src', 'query', 'workerEntry.cjs');
    if (!existsSync(filename)) throw new Error(`query worker not built: ${filename} is missing; run npm run build`);
    this.piscina = new Piscina({ filename, minThreads: threads, maxThreads: threads, idleTimeout: 60_000 });
    // The pool reports some events as 'error', notably the result of a task that was aborted
    // while its worker was already answering. Unheard, an 'error' event would be thrown as an
    // uncaught exception and stop the service; such results are simply dropped.
    this.piscina.on('error', (err: Error) => onPoolError(err));
  }

  async run(task: QueryTask, signal: AbortSignal): Promise<TaskResult> {
    try {
      const result = (await this.piscina.run(task, { signal, transferList: taskTransferables(task) })) as TaskResult;
      this.metrics.queryTasks.inc({ outcome: 'failed' in result ? 'failed' : 'completed' });
      return result;
    } catch (err) {
      this.metrics.queryTasks.inc({ outcome: signal.aborted ? 'aborted' : 'failed' });
      throw err;
    }
  }

  /** queued is how many tasks wait for a free worker, the signal of overload. */
  get queued(): number {
    return this.piscina.queueSize;
  }

  /**
   * overloaded tells the front to refuse new queries: past this many waiting tasks a new query
   * would only wait behind work that is already late, so answering 429 early is kinder.
   */
  get overloaded(): boolean {
    return this.piscina.queueSize >= this.threads * 64;
  }

  async close(): Promise<void> {
    await this.piscina.destroy();
  }
}
