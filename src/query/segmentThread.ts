import { existsSync } from 'node:fs';
import path from 'node:path';
import { Piscina } from 'piscina';
import type { EncodedLogSegment, EncodedMetricSegment, MergedSegment, SegmentEncoders, SegmentTask } from '../../engine/index.js';
import { packageRoot } from '../packageRoot.js';

/** SEGMENT_THREAD_IDLE_MS is how long the segment thread outlives its last task. */
const SEGMENT_THREAD_IDLE_MS = 5_000;

/**
 * SegmentThread is where a process's cuts encode heads into segments and its compaction merges
 * segments (see engine/query/segmentTasks.ts): a worker thread of its own, started when a cut
 * needs it and ended once idle for a few seconds, since encoding a million log lines grows a
 * thread's heap by hundreds of MiB that V8 keeps; ending the thread gives it back. Every
 * process that cuts or compacts has one (query processes, ingesters, the compactor), so none
 * stalls its requests for the second an encode takes. Its tasks are never refused or
 * aborted: the cut that asks waits for them, and encodes on its own thread if this one fails.
 */
export class SegmentThread {
  private readonly filename: string;
  private piscina: Piscina | undefined;

  constructor() {
    this.filename = path.join(packageRoot(), 'dist', 'src', 'query', 'workerEntry.cjs');
    if (!existsSync(this.filename)) throw new Error(`query worker not built: ${this.filename} is missing; run npm run build`);
  }

  /** encoders are what Storage.encodeSegmentsWith takes. */
  encoders(): SegmentEncoders {
    return {
      metrics: async (snapshot) => (await this.run({ kind: 'encode-metric-segment', snapshot })) as EncodedMetricSegment | undefined,
      // The columns are copies made for this task: moved, not copied again.
      logs: async (input, indexedTags) => {
        const columns = [input.timestampsNs, input.lineEnds, input.text, input.streamIds, input.levelIds, input.attributeIds];
        return (await this.run({ kind: 'encode-log-segment', input, indexedTags }, columns.map((c) => c.buffer as ArrayBuffer))) as EncodedLogSegment | undefined;
      },
      merge: async (signal, segments) => (await this.run({ kind: 'merge-segments', signal, segments })) as MergedSegment | undefined,
    };
  }

  private run(task: SegmentTask, transferList?: ArrayBuffer[]): Promise<unknown> {
    this.piscina ??= new Piscina({ filename: this.filename, minThreads: 0, maxThreads: 1, idleTimeout: SEGMENT_THREAD_IDLE_MS });
    return this.piscina.run(task, { transferList });
  }

  async close(): Promise<void> {
    await this.piscina?.destroy();
  }
}
