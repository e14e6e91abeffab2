import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  UploadPartCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import { crc32 } from 'node:zlib';
import { checkName, isBlobName, type BlobStore, type StoredBlob } from '../blobStore.js';
import type { EventSink } from '../storageEvent.js';
import { BlockingFetch } from './blockingFetch.js';
import { Limiter } from './limiter.js';
import { CRC_METADATA, createS3Client, getObjectBytes, normalizePrefix, type S3Connection } from './s3Connection.js';
import { DEFAULT_RETRY_POLICY, withRetry, type RetryPolicy } from './retry.js';
import { SegmentFileCache } from './segmentFileCache.js';

/** S3 refuses parts below 5 MiB (except the last), so neither setting may go lower. */
export const MIN_PART_BYTES = 5 * 1024 * 1024;
export const DEFAULT_MULTIPART_THRESHOLD_BYTES = 64 * 1024 * 1024;
export const DEFAULT_PART_BYTES = 16 * 1024 * 1024;
export const DEFAULT_MAX_CONCURRENCY = 8;

export interface S3BlobStoreOptions extends Omit<S3Connection, 'prefix'> {
  prefix?: string;
  /** cacheDir holds the local copies of segment files. */
  cacheDir: string;
  /** cacheBytes bounds the local copies; the least recently read are deleted first. */
  cacheBytes: number;
  /** multipartThresholdBytes is the blob size from which uploads go in parts. */
  multipartThresholdBytes?: number;
  partBytes?: number;
  /** maxConcurrency bounds the requests in flight to the store. */
  maxConcurrency?: number;
  retry?: RetryPolicy;
  /** blockingReadTimeoutMs bounds a synchronous read that has to download its blob (30 s by default). */
  blockingReadTimeoutMs?: number;
  onEvent?: EventSink;
}

/** S3BlobStoreStats counts traffic to the store, for tests, benchmarks and operators. */
export interface S3BlobStoreStats {
  uploads: number;
  multipartUploads: number;
  downloads: number;
  blockingDownloads: number;
  cacheHits: number;
  retries: number;
  cacheFiles: number;
  cacheBytes: number;
}

/**
 * S3BlobStore keeps segment files in an S3-compatible object store, with a local disk cache
 * of them bounded in bytes. A write resolves only once the store acknowledged the whole
 * object (single PUT, or the completion of a multipart upload), which is what makes a cut
 * durable before the WAL it covers is deleted; the new file is then kept in the cache too.
 * Reads are served from the cache and fall back to a download, so they survive the cache
 * being wiped. Every request is retried with exponential backoff and jitter on throttling,
 * 5xx and network errors, and at most `maxConcurrency` run at once.
 */
export class S3BlobStore implements BlobStore {
  private readonly conn: S3Connection;
  private readonly client: S3Client;
  private readonly limiter: Limiter;
  private readonly retry: RetryPolicy;
  private readonly blocking: BlockingFetch;
  private readonly multipartThreshold: number;
  private readonly partBytes: number;
  private readonly emit: EventSink;
  /** downloading holds the downloads under way, so two readers of one blob share one request. */
  private readonly downloading = new Map<string, Promise<Uint8Array>>();
  private readonly counters = { uploads: 0, multipartUploads: 0, downloads: 0, blockingDownloads: 0, cacheHits: 0, retries: 0 };

  private constructor(
    options: S3BlobStoreOptions,
    private readonly cache: SegmentFileCache,
  ) {
    this.conn = {
      bucket: options.bucket,
      prefix: normalizePrefix(options.prefix ?? ''),
      endpoint: options.endpoint,
      region: options.region,
      forcePathStyle: options.forcePathStyle,
      credentials: options.credentials,
      requestTimeoutMs: options.requestTimeoutMs,
    };
    this.client = createS3Client(this.conn);
    this.limiter = new Limiter(options.maxConcurrency ?? DEFAULT_MAX_CONCURRENCY);
    this.retry = options.retry ?? DEFAULT_RETRY_POLICY;
    this.partBytes = Math.max(MIN_PART_BYTES, options.partBytes ?? DEFAULT_PART_BYTES);
    this.multipartThreshold = options.multipartThresholdBytes ?? DEFAULT_MULTIPART_THRESHOLD_BYTES;
    this.emit = options.onEvent ?? (() => {});
    // A blocking read holds the whole thread, so it tries less long than a background request:
    // the query that needed it reports the segment as skipped instead of freezing the service.
    const blockingRetry = { ...this.retry, attempts: Math.min(this.retry.attempts, 3) };
    this.blocking = new BlockingFetch({ conn: this.conn, retry: blockingRetry, cacheDir: cache.dir }, options.blockingReadTimeoutMs ?? 30_000);
  }

  /** open scans the cache directory (a restart keeps its warm copies); it does not contact the store. */
  static async open(options: S3BlobStoreOptions): Promise<S3BlobStore> {
    return new S3BlobStore(options, await SegmentFileCache.open(options.cacheDir, options.cacheBytes));
  }

  stats(): S3BlobStoreStats {
    return { ...this.counters, cacheFiles: this.cache.count, cacheBytes: this.cache.bytes };
  }

  /** request runs one request within the concurrency bound, retrying transient failures. */
  private request<T>(what: string, attempt: () => Promise<T>): Promise<T> {
    return withRetry(
      this.retry,
      () => this.limiter.run(attempt),
      (err, retry, delayMs) => {
        this.counters.retries++;
        // The first retries are routine (a throttled request, a dropped connection); say so once it persists.
        if (retry >= 2) {
          this.emit({ level: 'warn', message: 'object store request failing; retrying', fields: { request: what, retry: retry + 1, delayMs, error: errorText(err) } });
        }
      },
    );
  }

  read(name: string): Uint8Array {
    checkName(name);
    const cached = this.cache.readSync(name);
    if (cached) {
      this.counters.cacheHits++;
      return cached;
    }
    this.counters.blockingDownloads++;
    this.cache.adopt(name, this.blocking.fetch(name));
    const fetched = this.cache.readSync(name);
    if (!fetched) throw new Error(`segment file ${name} vanished from the cache right after its download`);
    return fetched;
  }

  async readAsync(name: string): Promise<Uint8Array> {
    checkName(name);
    const cached = await this.cache.read(name);
    if (cached) {
      this.counters.cacheHits++;
      return cached;
    }
    let pending = this.downloading.get(name);
    if (!pending) {
      pending = this.download(name).finally(() => this.downloading.delete(name));
      this.downloading.set(name, pending);
    }
    return pending;
  }

  private async download(name: string): Promise<Uint8Array> {
    this.counters.downloads++;
    const fetched = await this.request(`get ${name}`, () => getObjectBytes(this.client, this.conn, name));
    const bytes = new Uint8Array(new SharedArrayBuffer(fetched.length));
    bytes.set(fetched);
    await this.keepCopy(name, bytes);
    return bytes;
  }

  /** keepCopy puts a blob in the cache; a cache that cannot be written costs downloads, not correctness. */
  private async keepCopy(name: string, bytes: Uint8Array): Promise<void> {
    try {
      await this.cache.put(name, bytes);
    } catch (err) {
      this.emit({ level: 'warn', message: 'could not keep a segment file in the local cache', fields: { file: name, error: errorText(err) } });
    }
  }

  async write(name: string, bytes: Uint8Array): Promise<void> {
    checkName(name);
    const key = this.conn.prefix + name;
    const body = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const metadata = { [CRC_METADATA]: String(crc32(body)) };
    if (body.length >= this.multipartThreshold && body.length > this.partBytes) {
      await this.writeMultipart(key, body, metadata);
    } else {
      await this.request(`put ${name}`, () => this.client.send(new PutObjectCommand({ Bucket: this.conn.bucket, Key: key, Body: body, Metadata: metadata })));
    }
    this.counters.uploads++;
    await this.keepCopy(name, bytes);
  }

  /**
   * writeMultipart uploads a large blob in parts, several at once within the concurrency
   * bound, each retried on its own; a failed upload is aborted so the store frees its parts.
   */
  private async writeMultipart(key: string, body: Buffer, metadata: Record<string, string>): Promise<void> {
    const Bucket = this.conn.bucket;
    const created = await this.request(`create multipart ${key}`, () => this.client.send(new CreateMultipartUploadCommand({ Bucket, Key: key, Metadata: metadata })));
    const UploadId = created.UploadId;
    if (!UploadId) throw new Error(`object store returned no upload id for ${key}`);
    try {
      const starts: number[] = [];
      for (let at = 0; at < body.length; at += this.partBytes) starts.push(at);
      const parts = await Promise.all(
        starts.map(async (start, i) => {
          const PartNumber = i + 1;
          const Body = body.subarray(start, Math.min(body.length, start + this.partBytes));
          const out = await this.request(`upload part ${PartNumber} of ${key}`, () => this.client.send(new UploadPartCommand({ Bucket, Key: key, UploadId, PartNumber, Body })));
          return { PartNumber, ETag: out.ETag };
        }),
      );
      await this.request(`complete multipart ${key}`, () => this.client.send(new CompleteMultipartUploadCommand({ Bucket, Key: key, UploadId, MultipartUpload: { Parts: parts } })));
      this.counters.multipartUploads++;
    } catch (err) {
      await this.limiter.run(() => this.client.send(new AbortMultipartUploadCommand({ Bucket, Key: key, UploadId }))).catch(() => undefined);
      throw err;
    }
  }

  async remove(name: string): Promise<void> {
    checkName(name);
    await this.cache.remove(name);
    await this.request(`delete ${name}`, () => this.client.send(new DeleteObjectCommand({ Bucket: this.conn.bucket, Key: this.conn.prefix + name })));
  }

  /** list names the blobs under the prefix (not in deeper "folders"), as the local store lists its directory. */
  async list(): Promise<string[]> {
    return (await this.listStored()).map((b) => b.name);
  }

  /** listStored is `list` with each object's LastModified. */
  async listStored(): Promise<StoredBlob[]> {
    const out: StoredBlob[] = [];
    let token: string | undefined;
    do {
      const page = await this.request('list', () =>
        this.client.send(new ListObjectsV2Command({ Bucket: this.conn.bucket, Prefix: this.conn.prefix, ContinuationToken: token })),
      );
      for (const object of page.Contents ?? []) {
        const name = object.Key?.slice(this.conn.prefix.length);
        if (name !== undefined && isBlobName(name)) out.push({ name, modifiedMs: object.LastModified?.getTime() ?? Date.now() });
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  /** close stops the fetch thread and the client's connections; the cache stays for the next start. */
  close(): void {
    this.blocking.stop();
    this.client.destroy();
  }
}

function errorText(err: unknown): string {
  if (err instanceof Error) return err.message || err.name;
  return String(err);
}
