import type { EventSink } from '../../engine/storage/storageEvent.js';
import type { PartitionLeases } from './partitionLeases.js';

/** PartitionConsumer is what the lease loop drives: the storage reading partitions into its heads. */
export interface PartitionConsumer {
  takePartitions(partitions: readonly number[]): Promise<void>;
  releasePartitions(partitions: readonly number[]): Promise<void>;
  losePartitions(partitions: readonly number[]): Promise<void>;
  readingPartitions(): number[];
}

/**
 * IngesterLeases keeps an ingester's share of the write log partitions. Every tick (a third of
 * the lease period) it marks itself alive, renews its leases and notices those taken over
 * (their head data is dropped), then moves toward its fair share, ceil(partitions / live
 * ingesters): it takes free or expired leases when it has fewer, and when it has more (an
 * ingester joined) it cuts its heads and releases the extra ones, highest numbers first, so
 * the newcomer takes them without waiting for an expiry. A separate keep-alive renews the
 * leases on the same period while a tick waits for a long cut, so a slow upload does not cost
 * the leases.
 */
export class IngesterLeases {
  private readonly mine = new Set<number>();
  private tickTimer: NodeJS.Timeout | undefined;
  private keepAliveTimer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;

  constructor(
    private readonly leases: PartitionLeases,
    private readonly consumer: PartitionConsumer,
    private readonly onEvent: EventSink,
    /** onOwned reports how many partitions this ingester owns after each change (a gauge). */
    private readonly onOwned: (count: number) => void = () => {},
  ) {}

  /** start creates the lease rows if needed, runs a first tick (taking a share) and schedules the next ones. */
  async start(): Promise<void> {
    await this.leases.init();
    await this.tick();
    const every = Math.max(100, Math.floor(this.leases.settings.leaseMs / 3));
    this.tickTimer = setInterval(() => void this.tick(), every);
    this.keepAliveTimer = setInterval(() => void this.keepAlive(), every);
  }

  /** owned lists the partitions this ingester holds leases on. */
  owned(): number[] {
    return [...this.mine].sort((a, b) => a - b);
  }

  /** tick runs one round unless the previous one is still running. */
  tick(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    this.running ??= this.round()
      .catch((err: unknown) => this.report('warn', 'partition lease round failed; retrying', err))
      .finally(() => (this.running = undefined));
    return this.running;
  }

  private async round(): Promise<void> {
    const live = await this.leases.heartbeat();
    if (this.mine.size > 0) {
      const still = new Set(await this.leases.renew([...this.mine]));
      const lost = [...this.mine].filter((p) => !still.has(p));
      if (lost.length > 0) {
        for (const p of lost) this.mine.delete(p);
        this.onOwned(this.mine.size);
        this.onEvent({ level: 'warn', message: 'partition leases taken over by another ingester', fields: { partitions: lost } });
        await this.consumer.losePartitions(lost);
      }
    }
    const target = Math.ceil(this.leases.settings.partitions / live);
    if (this.mine.size > target) {
      const extra = this.owned().slice(target);
      await this.consumer.releasePartitions(extra);
      await this.leases.release(extra);
      for (const p of extra) this.mine.delete(p);
      this.onEvent({ level: 'info', message: 'released partition leases to another ingester', fields: { partitions: extra, live } });
    } else if (this.mine.size < target) {
      const got = await this.leases.take(target - this.mine.size);
      for (const p of got) this.mine.add(p);
      if (got.length > 0) this.onEvent({ level: 'info', message: 'took partition leases', fields: { partitions: got, live } });
    }
    this.onOwned(this.mine.size);
    // Partitions leased but not read (just taken, or a drop whose re-read failed) start here.
    const reading = new Set(this.consumer.readingPartitions());
    const idle = this.owned().filter((p) => !reading.has(p));
    if (idle.length > 0) await this.consumer.takePartitions(idle);
  }

  private async keepAlive(): Promise<void> {
    if (this.stopped || this.running === undefined) return;
    try {
      await this.leases.heartbeat();
      await this.leases.renew([...this.mine]);
    } catch (err) {
      this.report('warn', 'renewing partition leases failed', err);
    }
  }

  /**
   * stop hands the partitions over: the heads are cut (recording how far each partition is
   * covered), then the leases released and this ingester removed from the live ones, so the
   * others take its partitions at their next tick. If the cut fails the leases simply expire.
   */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.tickTimer);
    clearInterval(this.keepAliveTimer);
    await this.running;
    const owned = this.owned();
    try {
      if (owned.length > 0) {
        await this.consumer.releasePartitions(owned);
        await this.leases.release(owned);
      }
      await this.leases.leave();
    } catch (err) {
      this.report('warn', 'handing partitions over at stop failed; their leases expire instead', err);
    }
    this.mine.clear();
    this.onOwned(0);
  }

  private report(level: 'warn', message: string, err: unknown): void {
    this.onEvent({ level, message, fields: { error: err instanceof Error ? err.message : String(err) } });
  }
}
