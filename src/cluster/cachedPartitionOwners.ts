import type { PartitionOwner, PartitionOwners } from './partitionOwners.js';

/**
 * CachedPartitionOwners keeps one read of the partition owners for `maxAgeMs`, so a query
 * process does not ask PostgreSQL for the lease table on every head fetch (a dashboard asks
 * for heads once per panel). Staleness is bounded twice: by `maxAgeMs`, and by the leases
 * themselves, since a read is kept only until the first of its leases runs out (and
 * PeerHeadClient counts no lease past its expiry). A head fetch that fails calls `refresh`, so the next read, or the
 * fetch's own second try, sees a takeover or a rebalance at once. Concurrent reads of an
 * expired entry share one query.
 */
export class CachedPartitionOwners implements PartitionOwners {
  private kept: { owners: PartitionOwner[]; readAtMs: number; firstExpiryMs: number } | undefined;
  private reading: Promise<PartitionOwner[]> | undefined;
  /** generation counts refreshes, so a read started before one is not kept after it. */
  private generation = 0;

  constructor(
    private readonly source: PartitionOwners,
    private readonly maxAgeMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  owners(): Promise<PartitionOwner[]> {
    const kept = this.kept;
    const now = this.now();
    // A kept read whose first lease has run out is read again rather than handed out: the owner
    // has most likely renewed it, and a fetch would otherwise count that partition as orphaned.
    if (kept !== undefined && now - kept.readAtMs < this.maxAgeMs && now < kept.firstExpiryMs) return Promise.resolve(kept.owners);
    return (this.reading ??= this.read());
  }

  /** refresh forgets the kept read: the next `owners` asks the source. */
  refresh(): void {
    this.kept = undefined;
    this.reading = undefined;
    this.generation++;
  }

  async close(): Promise<void> {
    await this.source.close();
  }

  private async read(): Promise<PartitionOwner[]> {
    const generation = this.generation;
    const readAtMs = this.now();
    try {
      const owners = await this.source.owners();
      if (generation === this.generation) this.kept = { owners, readAtMs, firstExpiryMs: Math.min(...owners.map((o) => o.leaseExpiresAtMs)) };
      return owners;
    } finally {
      if (generation === this.generation) this.reading = undefined;
    }
  }
}
