import type { PartitionOwner, PartitionOwners } from './partitionOwners.js';

/**
 * StaticPartitionOwners is a fixed layout of head holders, from SVC_INGESTER_URLS: partition p
 * is served by the (p mod n)-th of the n URLs, the order of a StatefulSet's pods. It never
 * changes and its leases never expire, so it suits tests and small fixed installations; a
 * layout whose owners move needs the leases kept in PostgreSQL instead.
 */
export class StaticPartitionOwners implements PartitionOwners {
  private readonly list: PartitionOwner[];

  constructor(baseUrls: readonly string[], partitions: number) {
    if (baseUrls.length === 0) throw new Error('StaticPartitionOwners needs at least one URL');
    this.list = [];
    for (let p = 0; p < partitions; p++) {
      const baseUrl = baseUrls[p % baseUrls.length].replace(/\/+$/, '');
      this.list.push({ partition: p, ownerId: baseUrl, baseUrl, leaseExpiresAtMs: Number.MAX_SAFE_INTEGER });
    }
  }

  async owners(): Promise<PartitionOwner[]> {
    return this.list.map((o) => ({ ...o }));
  }

  async close(): Promise<void> {}
}
