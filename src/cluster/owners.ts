import type { Config } from '../config.js';
import type { PostgresDatabase } from '../postgres/database.js';
import type { PartitionOwners } from './partitionOwners.js';
import { CachedPartitionOwners } from './cachedPartitionOwners.js';
import { PostgresPartitionOwners } from './postgresPartitionOwners.js';
import { StaticPartitionOwners } from './staticPartitionOwners.js';

/**
 * openPartitionOwners picks how a query process learns who holds each partition's heads: the
 * fixed layout of SVC_INGESTER_URLS when set; else, with the metadata in PostgreSQL, the
 * ingesters' partition leases of this catalog (owners move as ingesters come and go), kept for
 * SVC_PARTITION_OWNERS_CACHE_MS between reads; else none
 * (the process reads segments only). The database is the process's own, closed by its owner.
 */
export function openPartitionOwners(config: Config, database: PostgresDatabase | undefined): PartitionOwners | undefined {
  if (config.ingesterUrls.length > 0) return new StaticPartitionOwners(config.ingesterUrls, config.writeLogPartitions);
  if (config.metaStore === 'postgres' && database !== undefined) {
    const leases = new PostgresPartitionOwners(database, config.catalogName);
    return config.partitionOwnersCacheMs > 0 ? new CachedPartitionOwners(leases, config.partitionOwnersCacheMs) : leases;
  }
  return undefined;
}
