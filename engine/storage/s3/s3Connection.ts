import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { crc32 } from 'node:zlib';
import { BlobNotFoundError } from '../blobStore.js';
import { RetryableError } from './retry.js';

/**
 * S3Connection is where blobs live and how to reach them: plain data, so the same settings can
 * be posted to the thread that serves blocking reads. Credentials left out come from the
 * standard AWS sources (AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, AWS_PROFILE, a web
 * identity token, the instance role).
 */
export interface S3Connection {
  bucket: string;
  /** prefix is prepended to every blob name; empty or ending in `/`. */
  prefix: string;
  /** endpoint is the store's URL; absent means AWS itself, for `region`. */
  endpoint?: string;
  region: string;
  /** forcePathStyle addresses buckets as `endpoint/bucket/key`, which most non-AWS stores need. */
  forcePathStyle: boolean;
  credentials?: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
  /** requestTimeoutMs bounds one request with no progress, so a hung connection is retried. */
  requestTimeoutMs?: number;
}

/** CRC_METADATA is the object metadata that carries the blob's crc32, checked on every download. */
export const CRC_METADATA = 'sluice-crc32';

/** normalizePrefix turns `a/b`, `/a/b/` or `` into `a/b/` or ``. */
export function normalizePrefix(prefix: string): string {
  const trimmed = prefix.replace(/^\/+|\/+$/g, '');
  return trimmed === '' ? '' : `${trimmed}/`;
}

/**
 * createS3Client makes a client that tries each request once: retries belong to the caller,
 * which backs off with jitter and knows which operations are safe to repeat.
 */
export function createS3Client(conn: S3Connection): S3Client {
  return new S3Client({
    region: conn.region,
    endpoint: conn.endpoint,
    forcePathStyle: conn.forcePathStyle,
    credentials: conn.credentials,
    maxAttempts: 1,
    requestHandler: { connectionTimeout: 5000, requestTimeout: conn.requestTimeoutMs ?? 60_000 },
  });
}

/** isNotFound tells "no such object" apart from a failed request. */
export function isNotFound(err: unknown): boolean {
  const e = err as { name?: string; $metadata?: { httpStatusCode?: number } };
  return e?.name === 'NoSuchKey' || e?.name === 'NotFound' || e?.$metadata?.httpStatusCode === 404;
}

/**
 * getObjectBytes downloads one blob whole, checking its length and the crc32 it was uploaded
 * with; a short or damaged body is a RetryableError. Throws BlobNotFoundError when it is gone.
 */
export async function getObjectBytes(client: S3Client, conn: S3Connection, name: string): Promise<Uint8Array> {
  let out;
  try {
    out = await client.send(new GetObjectCommand({ Bucket: conn.bucket, Key: conn.prefix + name }));
  } catch (err) {
    if (isNotFound(err)) throw new BlobNotFoundError(name);
    throw err;
  }
  if (!out.Body) throw new RetryableError(`object ${name} came without a body`);
  const bytes = await out.Body.transformToByteArray();
  if (out.ContentLength !== undefined && bytes.length !== out.ContentLength) {
    throw new RetryableError(`object ${name} truncated: ${bytes.length} of ${out.ContentLength} bytes`);
  }
  const expected = out.Metadata?.[CRC_METADATA];
  if (expected !== undefined && Number(expected) !== crc32(bytes)) throw new RetryableError(`object ${name} failed its checksum`);
  return bytes;
}
