/**
 * workerEntry is the file Piscina loads in each worker thread. Piscina tries `require()`
 * first; on Node versions where that can load ES modules synchronously, a worker terminated
 * while loading (the pool shutting down right after start) is a fatal V8 error that takes the
 * whole process with it. This CommonJS shim makes `require()` trivial and loads the real
 * worker with a dynamic import, which a termination interrupts safely.
 */
import type { QueryTask } from '../../engine/index.js';

type Run = (task: QueryTask) => unknown;

let handler: Promise<Run> | undefined;

async function run(task: QueryTask): Promise<unknown> {
  handler ??= import('./worker.js').then((m) => m.default);
  return (await handler)(task);
}

export = run;
