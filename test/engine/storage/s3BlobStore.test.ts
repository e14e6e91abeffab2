import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { BlobNotFoundError } from '../../../engine/storage/blobStore.js';
import { S3BlobStore, type S3BlobStoreOptions } from '../../../engine/storage/s3/s3BlobStore.js';
import { startTestS3, type TestS3 } from '../../support/s3Server.js';

/** blob makes `size` bytes that differ from any other blob's, seeded by `seed`. */
function blob(size: number, seed: number): Uint8Array {
  const bytes = new Uint8Array(size);
  let x = seed * 2654435761;
  for (let i = 0; i < size; i++) {
    x = (x * 1103515245 + 12345) >>> 0;
    bytes[i] = x >>> 24;
  }
  return bytes;
}

/** bytesOf turns bytes into a Buffer for comparison: deep equality over millions of elements is too slow. */
function bytesOf(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

const QUICK_RETRY = { attempts: 3, baseDelayMs: 20, maxDelayMs: 50 };

describe('S3BlobStore against s3rver', () => {
  let s3: TestS3;
  let dir: string;
  let prefixCount = 0;
  const stores: S3BlobStore[] = [];

  beforeAll(async () => {
    s3 = await startTestS3();
  });
  afterAll(async () => {
    await s3.close();
  });
  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'sluice-s3store-'));
    prefixCount++;
  });
  afterEach(async () => {
    for (const store of stores.splice(0)) store.close();
    await rm(dir, { recursive: true, force: true });
  });

  /** open makes a store under this test's own prefix, with its own cache directory by default. */
  async function open(options: Partial<S3BlobStoreOptions> = {}): Promise<S3BlobStore> {
    const store = await S3BlobStore.open({
      ...s3.connection(`t${prefixCount}/segments`),
      cacheDir: path.join(dir, 'cache'),
      cacheBytes: 64 * 1024 * 1024,
      retry: QUICK_RETRY,
      ...options,
    });
    stores.push(store);
    return store;
  }

  it('writes, lists, reads (shared bytes, sync and async) and deletes blobs', async () => {
    const store = await open();
    const a = blob(3000, 1);
    const b = blob(10, 2);
    await store.write('000000000001.metrics.seg', a);
    await store.write('000000000002.logs.seg', b);
    expect(await store.list()).toEqual(['000000000001.metrics.seg', '000000000002.logs.seg']);

    const other = await open({ cacheDir: path.join(dir, 'other-cache') });
    const readBack = await other.readAsync('000000000001.metrics.seg');
    expect(readBack).toEqual(a);
    expect(readBack.buffer).toBeInstanceOf(SharedArrayBuffer);
    expect(other.stats().downloads).toBe(1);
    expect(other.read('000000000002.logs.seg')).toEqual(b);
    expect(other.stats().blockingDownloads).toBe(1);
    // Both are cached now: further reads do not go to the store.
    expect(other.read('000000000001.metrics.seg')).toEqual(a);
    expect(await other.readAsync('000000000002.logs.seg')).toEqual(b);
    expect(other.stats()).toMatchObject({ downloads: 1, blockingDownloads: 1, cacheHits: 2 });

    await store.remove('000000000001.metrics.seg');
    await store.remove('000000000009.logs.seg'); // missing: not an error
    expect(await store.list()).toEqual(['000000000002.logs.seg']);
    const fresh = await open({ cacheDir: path.join(dir, 'fresh-cache') });
    await expect(fresh.readAsync('000000000001.metrics.seg')).rejects.toBeInstanceOf(BlobNotFoundError);
    expect(() => fresh.read('000000000001.metrics.seg')).toThrow(BlobNotFoundError);
    expect(() => fresh.read('../escape')).toThrow(/invalid blob name/);
  });

  it('keeps prefixes apart', async () => {
    const one = await open();
    const two = await open({ prefix: `t${prefixCount}/elsewhere/`, cacheDir: path.join(dir, 'two') });
    await one.write('a.seg', blob(5, 3));
    await two.write('b.seg', blob(5, 4));
    expect(await one.list()).toEqual(['a.seg']);
    expect(await two.list()).toEqual(['b.seg']);
  });

  it('uploads large blobs in parts and reads them back whole', async () => {
    const store = await open({ multipartThresholdBytes: 1024 * 1024, partBytes: 5 * 1024 * 1024 });
    const big = blob(12 * 1024 * 1024 + 7, 5);
    await store.write('big.seg', big);
    expect(store.stats()).toMatchObject({ uploads: 1, multipartUploads: 1 });
    const reader = await open({ cacheDir: path.join(dir, 'reader') });
    expect(bytesOf(await reader.readAsync('big.seg')).equals(bytesOf(big))).toBe(true);
  });

  it('bounds the cache in bytes, evicting the least recently read, and keeps it across a restart', async () => {
    const size = 10_000;
    const cacheDir = path.join(dir, 'cache');
    // Room for three cached files (each carries an 8-byte trailer).
    const store = await open({ cacheBytes: 3 * (size + 8) });
    for (let i = 1; i <= 3; i++) await store.write(`b${i}.seg`, blob(size, 10 + i));
    expect(store.read('b1.seg')).toEqual(blob(size, 11)); // b1 is now the most recent
    await store.write('b4.seg', blob(size, 14)); // evicts b2, the least recently read
    expect((await readdir(cacheDir)).sort()).toEqual(['b1.seg', 'b3.seg', 'b4.seg']);
    expect(store.stats()).toMatchObject({ cacheFiles: 3, cacheBytes: 3 * (size + 8) });

    expect(await store.readAsync('b2.seg')).toEqual(blob(size, 12)); // downloaded again, evicting b3
    expect((await readdir(cacheDir)).sort()).toEqual(['b1.seg', 'b2.seg', 'b4.seg']);
    store.close();

    const restarted = await open({ cacheBytes: 3 * (size + 8) });
    expect(restarted.stats()).toMatchObject({ cacheFiles: 3 });
    expect(await restarted.readAsync('b4.seg')).toEqual(blob(size, 14));
    expect(restarted.read('b1.seg')).toEqual(blob(size, 11));
    expect(restarted.stats()).toMatchObject({ downloads: 0, blockingDownloads: 0, cacheHits: 2 });
  });

  it('reads through a wiped cache and replaces a damaged cached file', async () => {
    const cacheDir = path.join(dir, 'cache');
    const store = await open();
    const a = blob(4000, 21);
    await store.write('a.seg', a);
    await store.write('b.seg', blob(10, 22));

    await rm(cacheDir, { recursive: true, force: true });
    expect(store.read('a.seg')).toEqual(a); // blocking download recreates what it needs
    await rm(cacheDir, { recursive: true, force: true });
    expect(await store.readAsync('a.seg')).toEqual(a);
    expect(store.stats()).toMatchObject({ downloads: 1, blockingDownloads: 1 });

    const file = path.join(cacheDir, 'a.seg');
    const damaged = await readFile(file);
    damaged[100] ^= 0xff;
    await writeFile(file, damaged);
    expect(store.read('a.seg')).toEqual(a);
    expect(store.stats().blockingDownloads).toBe(2);
    await writeFile(file, damaged.subarray(0, 50)); // truncated
    expect(await store.readAsync('a.seg')).toEqual(a);
    expect(store.stats().downloads).toBe(2);
    expect(existsSync(file)).toBe(true);
  });

  it('retries while the store is down and completes once it is back', async () => {
    // Patient enough to outlast the server's restart on a busy machine.
    const store = await open({ retry: { attempts: 1000, baseDelayMs: 50, maxDelayMs: 200 } });
    await store.write('before.seg', blob(100, 31));
    await s3.stop();
    let settled = false;
    const writing = store.write('during.seg', blob(100, 32)).then(
      () => ((settled = true), undefined),
      (err: unknown) => ((settled = true), err),
    );
    const listing = store.list().catch((err: unknown) => err);
    // Down long enough for several failed attempts; the writes must still be pending, not failed.
    await new Promise((r) => setTimeout(r, 800));
    expect(settled).toBe(false);
    await s3.start();
    expect(await writing).toBeUndefined();
    expect(await listing).toContain('before.seg'); // the listing may have run before or after the write
    expect(await store.list()).toEqual(['before.seg', 'during.seg']);
    expect(store.stats().retries).toBeGreaterThan(1);
    const reader = await open({ cacheDir: path.join(dir, 'reader') });
    expect(await reader.readAsync('during.seg')).toEqual(blob(100, 32));
  });

  it('gives up after its attempts when the store stays down, and a read of a cached blob still works', async () => {
    const store = await open();
    await store.write('kept.seg', blob(100, 41));
    await s3.stop();
    try {
      await expect(store.write('lost.seg', blob(100, 42))).rejects.toThrow();
      await expect(store.readAsync('never.seg')).rejects.toThrow();
      expect(() => store.read('never.seg')).toThrow(/object store/);
      expect(store.read('kept.seg')).toEqual(blob(100, 41));
    } finally {
      await s3.start();
    }
    expect(await store.list()).toEqual(['kept.seg']);
  });
});
