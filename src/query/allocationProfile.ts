import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import path from 'node:path';
import { threadId } from 'node:worker_threads';

/** WRITE_EVERY_MS spaces the profile's rewrites: each serialises every sample taken so far. */
const WRITE_EVERY_MS = 5_000;

/**
 * AllocationProfile samples what one thread allocates, including objects already collected,
 * and keeps the profile in `dir/worker-<thread>.heapprofile`: what SVC_WORKER_ALLOCATION_PROFILE_DIR
 * turns on. Short-lived garbage is what makes a worker's collections (and their helper threads
 * compete with the other worker for the cores), and `node --heap-prof` reports only what is
 * alive at exit. The profile is rewritten after the first task and then at most every
 * WRITE_EVERY_MS, from inside a task's end, so a process stopped at any time leaves a profile
 * at most that old; it is written to a temporary name and renamed, so a reader never sees half.
 */
export class AllocationProfile {
  private readonly session = new Session();
  private readonly file: string;
  private writtenAt = -Infinity;

  constructor(dir: string) {
    mkdirSync(dir, { recursive: true });
    this.file = path.join(dir, `worker-${threadId}.heapprofile`);
    this.session.connect();
    // A session on the thread itself answers synchronously, before post returns.
    this.session.post('HeapProfiler.startSampling', { samplingInterval: 4096, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
  }

  /** taskDone rewrites the profile when the last write is WRITE_EVERY_MS old. */
  taskDone(): void {
    const now = performance.now();
    if (now - this.writtenAt < WRITE_EVERY_MS) return;
    this.writtenAt = now;
    this.session.post('HeapProfiler.getSamplingProfile', (err, result) => {
      if (err !== null) return;
      // The callback runs inside the task: a profile that cannot be written (the directory gone,
      // the disk full) is skipped, never the task's failure.
      const temporary = `${this.file}.tmp`;
      try {
        writeFileSync(temporary, JSON.stringify(result.profile));
        renameSync(temporary, this.file);
      } catch {
        return;
      }
    });
  }
}
