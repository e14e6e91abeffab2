/** PartitionOwners tells a query replica which ingester serves the un-cut (head) data of each write-log partition. */
export interface PartitionOwner { partition: number; ownerId: string; baseUrl: string; leaseExpiresAtMs: number }
export interface PartitionOwners {
  owners(): Promise<PartitionOwner[]>;
  /** refresh, where owners are kept between reads, makes the next read ask afresh (after a failed head fetch). */
  refresh?(): void;
  close(): Promise<void>;
}
