import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import { BlobNotFoundError } from '../blobStore.js';
import { createS3Client, getObjectBytes, type S3Connection } from './s3Connection.js';
import { withRetry, type RetryPolicy } from './retry.js';
import { writeCacheFile } from './segmentFileCache.js';

/**
 * This thread serves the blob store's blocking reads (see blockingFetch.ts): it downloads a
 * blob into the cache directory while the calling thread waits on a shared flag, because a
 * thread blocked in Atomics.wait cannot run its own HTTP requests.
 */

export interface FetchWorkerData {
  conn: S3Connection;
  retry: RetryPolicy;
  cacheDir: string;
  replies: MessagePort;
}

export interface FetchRequest {
  id: number;
  name: string;
  /** done is set to 1 and notified once the reply is posted. */
  done: Int32Array;
}

export type FetchReply = { id: number; ok: true; size: number } | { id: number; ok: false; notFound: boolean; message: string };

const data = workerData as FetchWorkerData;
const client = createS3Client(data.conn);

parentPort!.on('message', (request: FetchRequest) => {
  void serve(request);
});

async function serve(request: FetchRequest): Promise<void> {
  let reply: FetchReply;
  try {
    const bytes = await withRetry(data.retry, () => getObjectBytes(client, data.conn, request.name));
    reply = { id: request.id, ok: true, size: await writeCacheFile(data.cacheDir, request.name, bytes) };
  } catch (err) {
    reply = { id: request.id, ok: false, notFound: err instanceof BlobNotFoundError, message: err instanceof Error ? err.message : String(err) };
  }
  data.replies.postMessage(reply);
  Atomics.store(request.done, 0, 1);
  Atomics.notify(request.done, 0);
}
