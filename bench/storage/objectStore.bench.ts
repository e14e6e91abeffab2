/**
 * Object store benchmark: a cold read of one segment file through the S3 blob store (download
 * from s3rver on loopback, checksum, write to the disk cache) against a read of the same file
 * from the local blob store, and a read from the S3 store's warm disk cache against the same
 * local read. Printed as ratios to the local read measured in the same run.
 *
 * What limits the cold read here is s3rver itself (a Node server that stores objects as files
 * and streams them through Koa), the SDK's response handling, the crc32 over the body and the
 * extra copy into the cache file; against a real object store, network latency and bandwidth
 * take its place. The local read comes from the page cache, so it is the floor, not a disk read.
 *
 * Run: npx tsc -p tsconfig.json && node dist/bench/storage/objectStore.bench.js
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { LocalBlobStore } from '../../engine/storage/blobStore.js';
import { S3BlobStore } from '../../engine/storage/s3/s3BlobStore.js';
import { startTestS3 } from '../cluster/s3Server.js';
import { runWhenDirect } from '../runDirect.js';

const SIZES = [256 * 1024, 4 * 1024 * 1024, 32 * 1024 * 1024];
const ROUNDS = 5;

function filler(size: number): Uint8Array {
  const bytes = new Uint8Array(size);
  for (let i = 0; i < size; i++) bytes[i] = (i * 2654435761) >>> 24;
  return bytes;
}

/** medianMs times `task` ROUNDS times (after `prepare` each time, untimed) and returns the median. */
async function medianMs(task: () => Promise<unknown>, prepare: () => Promise<unknown> = async () => undefined): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    await prepare();
    const start = process.hrtime.bigint();
    await task();
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)];
}

export async function main(): Promise<void> {
  const dir = await mkdtemp(path.join(tmpdir(), 'sluice-objstore-bench-'));
  const s3 = await startTestS3();
  const cacheDir = path.join(dir, 'cache');
  const local = new LocalBlobStore(path.join(dir, 'local'));
  const remote = await S3BlobStore.open({ ...s3.connection('bench/'), cacheDir, cacheBytes: 1024 ** 3 });
  try {
    console.log('size      local ms  s3 cold ms  cold/local  s3 cached ms  cached/local');
    for (const size of SIZES) {
      const name = `${String(size).padStart(12, '0')}.metrics.seg`;
      const bytes = filler(size);
      await local.write(name, bytes);
      await remote.write(name, bytes);
      const localMs = await medianMs(() => local.readAsync(name));
      const coldMs = await medianMs(
        () => remote.readAsync(name),
        () => rm(cacheDir, { recursive: true, force: true }),
      );
      const cachedMs = await medianMs(() => remote.readAsync(name));
      console.log(
        `${(size / 1024 / 1024).toFixed(2).padStart(6)} MiB ${localMs.toFixed(2).padStart(9)} ${coldMs.toFixed(2).padStart(11)} ${(coldMs / localMs).toFixed(1).padStart(10)}x ${cachedMs.toFixed(2).padStart(13)} ${(cachedMs / localMs).toFixed(2).padStart(12)}x`,
      );
    }
  } finally {
    remote.close();
    await s3.close();
    await rm(dir, { recursive: true, force: true });
  }
}

runWhenDirect(import.meta.url, main);
