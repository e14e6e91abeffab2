import { encodeBounded, splitByPartition } from './logPartitions.js';
import type { WalEntry } from './walCodec.js';
import type { WriteLog } from './writeLog.js';

/** PublishedPart is where one part of a write was stored. */
export interface PublishedPart {
  partition: number;
  position: number;
}

/**
 * publishEntry is the ingest half of the write log path: it cuts a write by partition (see
 * logPartitions.ts), encodes each part into records the log takes, appends them all at once
 * and resolves once the log acknowledged every one. It needs nothing but the log, so a
 * process that only ingests can run it. If any part fails the promise rejects and the parts
 * already stored stay (a retry of the whole request may store them again).
 */
export async function publishEntry(log: WriteLog, entry: WalEntry, indexedTags: ReadonlySet<string>): Promise<PublishedPart[]> {
  const parts = splitByPartition(entry, log.partitions, indexedTags).flatMap(({ partition, entry: e }) =>
    encodeBounded(e, log.maxRecordBytes).map((record) => ({ partition, record })),
  );
  const positions = await Promise.all(parts.map(({ partition, record }) => log.append(partition, record)));
  return parts.map(({ partition }, i) => ({ partition, position: positions[i] }));
}
