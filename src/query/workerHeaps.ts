import v8 from 'node:v8';

/** WorkerHeap is one query worker's V8 heap as it last posted it. */
export interface WorkerHeap {
  /** usedBytes is what live and not yet collected objects take. */
  usedBytes: number;
  /** totalBytes is the heap V8 has reserved for them: what the thread adds to the process's resident memory, roughly. */
  totalBytes: number;
  /** externalBytes is memory outside the heap that its objects hold (decoded columns, buffers). */
  externalBytes: number;
}

/** SLOTS bounds the threads the board follows at once: far more than a pool's workers, so replaced ones find room. */
const SLOTS = 64;
const FIGURES = 3;

/**
 * WorkerHeapBoard is where query workers post their heap figures for `/metrics`: a
 * SharedArrayBuffer every worker is handed with its setup, one slot per thread, which a worker
 * claims with its thread id and rewrites after every task. The process's resident memory says
 * nothing of how it divides between the answering thread and the workers, and each worker's
 * heap grows to what its largest tasks allocated and keeps it; the answering thread reads
 * the slots only when scraped, so a task pays one `v8.getHeapStatistics()` (about a
 * microsecond) and the service no message.
 */
export class WorkerHeapBoard {
  private readonly owners: Int32Array;
  private readonly figures: Float64Array;
  /** slot is the calling worker's claimed slot (-1 before its first post, or with every slot taken). */
  private slot = -1;

  constructor(readonly buffer: SharedArrayBuffer = new SharedArrayBuffer(SLOTS * 4 + SLOTS * FIGURES * 8)) {
    this.owners = new Int32Array(buffer, 0, SLOTS);
    this.figures = new Float64Array(buffer, SLOTS * 4, SLOTS * FIGURES);
  }

  /** post records the calling worker thread's heap under `threadId` (worker threads' ids are never 0). */
  post(threadId: number): void {
    if (this.slot < 0 || Atomics.load(this.owners, this.slot) !== threadId) this.slot = this.claim(threadId);
    if (this.slot < 0) return;
    const heap = v8.getHeapStatistics();
    const at = this.slot * FIGURES;
    this.figures[at] = heap.used_heap_size;
    this.figures[at + 1] = heap.total_heap_size;
    this.figures[at + 2] = heap.external_memory;
  }

  private claim(threadId: number): number {
    for (let i = 0; i < SLOTS; i++) {
      const owner = Atomics.compareExchange(this.owners, i, 0, threadId);
      if (owner === 0 || owner === threadId) return i;
    }
    return -1;
  }

  /**
   * read gives the heaps of the threads named, in their order (undefined for one that has not
   * finished a task yet), and frees the slots of threads no longer named: a worker that was
   * replaced leaves its slot to the next one.
   */
  read(threadIds: readonly number[]): (WorkerHeap | undefined)[] {
    const heaps: (WorkerHeap | undefined)[] = threadIds.map(() => undefined);
    for (let i = 0; i < SLOTS; i++) {
      const owner = Atomics.load(this.owners, i);
      if (owner === 0) continue;
      const k = threadIds.indexOf(owner);
      if (k < 0) {
        Atomics.compareExchange(this.owners, i, owner, 0);
        continue;
      }
      const at = i * FIGURES;
      heaps[k] = { usedBytes: this.figures[at], totalBytes: this.figures[at + 1], externalBytes: this.figures[at + 2] };
    }
    return heaps;
  }
}
