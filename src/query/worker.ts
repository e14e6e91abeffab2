import { threadId } from 'node:worker_threads';
import { Piscina } from 'piscina';
import { configureWorkerCaches, isSegmentTask, runSegmentTask, runTask, type QueryTask, type SegmentTask } from '../../engine/index.js';
import { AllocationProfile } from './allocationProfile.js';
import type { StartFlagged } from './pool.js';
import { WorkerHeapBoard } from './workerHeaps.js';

/** WorkerSetup is what the pool hands every worker thread it starts (Piscina's workerData). */
export interface WorkerSetup {
  segmentCacheBytes?: number;
  /** allocationProfileDir turns on allocation sampling (SVC_WORKER_ALLOCATION_PROFILE_DIR). */
  allocationProfileDir?: string;
  /** heapBoard is where the worker posts its heap after each task (WorkerHeapBoard), for `/metrics`. */
  heapBoard?: SharedArrayBuffer;
}

const setup = Piscina.workerData as WorkerSetup | undefined;
if (setup?.segmentCacheBytes !== undefined) configureWorkerCaches({ segmentCacheBytes: setup.segmentCacheBytes });
const allocations = setup?.allocationProfileDir === undefined ? undefined : new AllocationProfile(setup.allocationProfileDir);
const heaps = setup?.heapBoard === undefined ? undefined : new WorkerHeapBoard(setup.heapBoard);

/**
 * The Piscina worker entry: evaluate one task (a query's, or the encoding of a head being cut
 * into a segment) and move the result buffers back to the main thread (a transfer, not a
 * copy). Everything else about evaluation lives in the engine.
 */
class TransferredResult {
  constructor(
    private readonly value: unknown,
    private readonly buffers: ArrayBuffer[],
  ) {}
  get [Piscina.transferableSymbol](): ArrayBuffer[] {
    return this.buffers;
  }
  get [Piscina.valueSymbol](): unknown {
    return this.value;
  }
}

export default function run(task: StartFlagged<QueryTask> | SegmentTask): unknown {
  // Tells the pool the task is running: a query that leaves now lets it finish (QueryPool.run).
  if ('started' in task && task.started !== undefined) Atomics.store(new Int32Array(task.started), 0, 1);
  const { result, transfer } = isSegmentTask(task) ? runSegmentTask(task) : runTask(task);
  allocations?.taskDone();
  heaps?.post(threadId);
  return Piscina.move(new TransferredResult(result, transfer) as unknown as ArrayBuffer);
}
