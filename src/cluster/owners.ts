import type { Config } from '../config.js';
import type { PartitionOwners } from './partitionOwners.js';
import { StaticPartitionOwners } from './staticPartitionOwners.js';

/**
 * openPartitionOwners picks how a query process learns who holds each partition's heads: the
 * fixed layout of SVC_INGESTER_URLS when set, else none (the process reads segments only).
 */
export function openPartitionOwners(config: Config): PartitionOwners | undefined {
  if (config.ingesterUrls.length > 0) return new StaticPartitionOwners(config.ingesterUrls, config.writeLogPartitions);
  return undefined;
}
