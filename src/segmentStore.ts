import path from 'node:path';
import type { BlobStore } from '../engine/storage/blobStore.js';
import { S3BlobStore } from '../engine/storage/s3/s3BlobStore.js';
import type { EventSink } from '../engine/storage/storageEvent.js';
import type { Config } from './config.js';

/**
 * openSegmentStore opens the blob store SVC_BLOB_STORE names for segment files: undefined for
 * `local` (the storage keeps them under the data directory), an S3BlobStore for `s3`. The
 * object store is not contacted here; the storage's first listing at start-up is.
 */
export async function openSegmentStore(config: Config, onEvent: EventSink): Promise<(BlobStore & { close(): void }) | undefined> {
  if (config.blobStore !== 's3') return undefined;
  return S3BlobStore.open({
    bucket: config.s3Bucket!,
    prefix: config.s3Prefix,
    endpoint: config.s3Endpoint,
    region: config.s3Region,
    forcePathStyle: config.s3ForcePathStyle,
    cacheDir: config.s3CacheDir ?? path.join(config.dataDir, 'segment-cache'),
    cacheBytes: config.s3CacheBytes,
    multipartThresholdBytes: config.s3MultipartBytes,
    onEvent,
  });
}
