import type { SharedCatalogStore } from './catalogStore.js';
import type { LogFeed } from './logFeed.js';
import type { OrgHeads } from './orgHeads.js';
import type { EventSink } from './storageEvent.js';

/**
 * RELEASE_CATCH_UP_MS bounds how long a release waits for its partitions' readers to apply what
 * the log already holds: usually milliseconds behind, and the next owner reads whatever is left.
 */
const RELEASE_CATCH_UP_MS = 5_000;

/** PartitionHost is what partition changes need from the storage that reads them. */
export interface PartitionHost {
  /** cover records, as the catalog this process reads, what the segments cover of some partitions. */
  cover(positions: Record<string, number>): void;
  /** cut writes the heads to segments now (already inside the storage's exclusive section). */
  cut(): Promise<unknown>;
}

/**
 * IngesterPartitions moves write log partitions into and out of an ingester's heads as its
 * leases come and go: a partition is read from the position the shared catalog records for
 * it, so what segments hold is not applied again, and handed over only after a cut recorded
 * how far its segments cover it. The storage calls it inside its exclusive section.
 */
export class IngesterPartitions {
  constructor(
    private readonly feed: LogFeed,
    private readonly shared: SharedCatalogStore,
    private readonly heads: OrgHeads,
    private readonly host: PartitionHost,
    private readonly emit: EventSink,
  ) {}

  async take(partitions: readonly number[]): Promise<void> {
    const reading = new Set(this.feed.readingPartitions());
    const wanted = partitions.filter((p) => !reading.has(p));
    if (wanted.length === 0) return;
    const positions = await this.shared.logPositions(wanted);
    // The head export reports these as covered: a query process whose catalog records less
    // (read before the previous owner's last cut) then reads it again (see catalogBehind).
    this.host.cover(positions);
    this.feed.startPartitions(positions);
    this.emit({ level: 'info', message: 'reading write log partitions', fields: { partitions: wanted, after: positions } });
  }

  /**
   * release reads the partitions up to where the log ends now (at most RELEASE_CATCH_UP_MS),
   * stops reading and cuts; if the cut fails, reading resumes and the error is thrown (the
   * caller keeps the leases).
   */
  async release(partitions: readonly number[]): Promise<void> {
    await this.feed.catchUp(partitions, RELEASE_CATCH_UP_MS);
    await this.feed.stopPartitions(partitions);
    try {
      await this.host.cut();
    } catch (err) {
      this.feed.resumePartitions(partitions);
      throw err;
    }
    this.feed.forget(partitions);
  }

  /**
   * drop forgets partitions another process took over. Heads hold an org's records of every
   * partition together, so the lost partitions' records cannot be picked out: every head is
   * dropped, and the partitions still held are read again from the positions the catalog
   * records for them. Losing a lease without releasing it is rare (a stalled process), so the
   * re-read is an acceptable price for heads that are not split by partition.
   */
  async drop(lost: readonly number[]): Promise<void> {
    const held = this.feed.heldPartitions();
    if (!lost.some((p) => held.includes(p))) return;
    const keep = held.filter((p) => !lost.includes(p));
    await this.feed.stopPartitions(held);
    this.feed.forget(held);
    this.heads.dropAll();
    this.emit({ level: 'warn', message: 'write log partitions taken over by another process; heads dropped and the rest read again', fields: { lost, keep } });
    if (keep.length > 0) this.feed.startPartitions(await this.shared.logPositions(keep));
  }
}
