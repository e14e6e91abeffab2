import path from 'node:path';
import { applyChange, type CatalogState } from './catalog.js';
import type { CatalogStore } from './catalogStore.js';
import type { EventSink } from './storageEvent.js';
import { Wal, type WalCorruption } from './wal.js';

/**
 * EmbeddedWal is the durable step of the embedded single-process storage: a write is appended
 * and synced before it is applied to the heads and acknowledged. A cut rotates the log between
 * two writes (`freeze`), so every record in a file below the cut's index is in a frozen head
 * and every later one in the fresh heads; once the segments are registered the covered files
 * are deleted.
 */
export class EmbeddedWal {
  /** gate, while set, holds new appends back so a cut can rotate the log between two writes. */
  private gate: Promise<void> | undefined;
  private inflight = 0;
  private drainWaiters: Array<() => void> = [];

  private constructor(private readonly wal: Wal) {}

  /**
   * open opens the log under `<dir>/wal` from the catalog's checkpoint: files below it are
   * covered by segments (a crash before they were deleted leaves them behind) and are deleted
   * now. It answers the state (its checkpoint moved if the log lost its newer files) and the
   * records replay must put back into the heads, read one file at a time as replay takes them.
   */
  static async open(
    options: { dir: string; walSegmentBytes?: number },
    loaded: CatalogState,
    catalogStore: CatalogStore,
    emit: EventSink,
  ): Promise<{ wal: EmbeddedWal; state: CatalogState; records: AsyncIterable<Uint8Array> }> {
    let state = loaded;
    const { wal, records } = await Wal.open(
      {
        dir: path.join(options.dir, 'wal'),
        segmentBytes: options.walSegmentBytes,
        onCorruption: (c: WalCorruption) => emit({ level: 'error', message: 'write-ahead log damaged; intact records kept, the rest dropped', fields: { ...c } }),
      },
      state.walCheckpoint,
    );
    try {
      await wal.removeBefore(state.walCheckpoint);
      if (wal.index < state.walCheckpoint) {
        // The log directory lost its newer files (restored or wiped): start the checkpoint at the
        // current file so new writes are not mistaken for covered ones on the next start.
        state = applyChange(state, { walCheckpoint: wal.index });
        await catalogStore.save(state);
      }
    } catch (err) {
      await wal.close();
      throw err;
    }
    return { wal: new EmbeddedWal(wal), state, records };
  }

  /** append stores a record durably, then runs `apply` before another cut may rotate the log. */
  async append(payload: Uint8Array, apply: () => void): Promise<void> {
    while (this.gate) await this.gate;
    this.inflight++;
    try {
      await this.wal.append(payload);
      apply();
    } finally {
      if (--this.inflight === 0) {
        const waiters = this.drainWaiters;
        this.drainWaiters = [];
        for (const w of waiters) w();
      }
    }
  }

  /**
   * freeze rotates the log and runs `swap` (which freezes the heads) while no append is in
   * flight, and answers the index of the first file after the rotation.
   */
  async freeze(swap: () => void): Promise<number> {
    let release!: () => void;
    this.gate = new Promise<void>((resolve) => (release = resolve));
    try {
      if (this.inflight > 0) await new Promise<void>((resolve) => this.drainWaiters.push(resolve));
      const cutIndex = await this.wal.rotate();
      swap();
      return cutIndex;
    } finally {
      this.gate = undefined;
      release();
    }
  }

  removeBefore(index: number): Promise<void> {
    return this.wal.removeBefore(index);
  }

  close(): Promise<void> {
    return this.wal.close();
  }
}
