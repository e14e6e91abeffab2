import { promises as fs, rmSync } from 'node:fs';
import path from 'node:path';
import { crc32 } from 'node:zlib';
import { readShared, readSharedSync } from '../blobStore.js';
import { ByteLru } from '../byteLru.js';

/**
 * A cached file is the blob's bytes followed by a trailer `[u32 crc32 of the bytes][magic]`,
 * so a file damaged on disk (a torn write, a bad sector, a truncation) is caught on every read
 * from the cache and fetched again, just as a local segment file's checksum is checked.
 */
const TRAILER_MAGIC = 0x31434c53; // "SLC1"
export const CACHE_TRAILER_BYTES = 8;
const TEMP_SUFFIX = '.tmp';

/** cacheTrailer is the trailer a cached copy of `bytes` ends with. */
export function cacheTrailer(bytes: Uint8Array): Buffer {
  const trailer = Buffer.alloc(CACHE_TRAILER_BYTES);
  trailer.writeUInt32LE(crc32(bytes), 0);
  trailer.writeUInt32LE(TRAILER_MAGIC, 4);
  return trailer;
}

/**
 * writeCacheFile writes a cached copy of a blob through a temporary file and a rename, so a
 * reader never sees half a file. Nothing is fsynced: the cache is a copy, and a copy lost in a
 * crash is fetched again. Returns the file's size.
 */
export async function writeCacheFile(dir: string, name: string, bytes: Uint8Array): Promise<number> {
  const file = path.join(dir, name);
  const temp = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}${TEMP_SUFFIX}`;
  try {
    // The directory may have been wiped while the service runs.
    await fs.mkdir(dir, { recursive: true });
    await fs.writeFile(temp, bytes);
    await fs.appendFile(temp, cacheTrailer(bytes));
    await fs.rename(temp, file);
  } catch (err) {
    await fs.rm(temp, { force: true });
    throw err;
  }
  return bytes.length + CACHE_TRAILER_BYTES;
}

/** verified returns the blob inside a cached file's bytes, or undefined when the trailer does not match. */
function verified(file: Uint8Array): Uint8Array | undefined {
  if (file.length < CACHE_TRAILER_BYTES) return undefined;
  const body = file.subarray(0, file.length - CACHE_TRAILER_BYTES);
  const trailer = Buffer.from(file.buffer, file.byteOffset + body.length, CACHE_TRAILER_BYTES);
  if (trailer.readUInt32LE(4) !== TRAILER_MAGIC || trailer.readUInt32LE(0) !== crc32(body)) return undefined;
  return body;
}

interface CachedFile {
  readonly byteSize: number;
}

/**
 * SegmentFileCache keeps copies of blobs in a local directory, bounded in bytes: the least
 * recently read are deleted first. It starts from whatever the directory holds (oldest
 * modification first, since reads touch files), so a restart keeps a warm cache. Reads return
 * bytes in a SharedArrayBuffer, as local segment files are, so they can go to worker threads
 * without a copy. A file that vanished (the directory was wiped) or fails its checksum reads as
 * a miss, and the caller fetches the blob again.
 */
export class SegmentFileCache {
  private readonly files: ByteLru<string, CachedFile>;

  private constructor(
    readonly dir: string,
    readonly maxBytes: number,
  ) {
    this.files = new ByteLru(maxBytes, (name) => rmSync(this.pathOf(name), { force: true }));
  }

  static async open(dir: string, maxBytes: number): Promise<SegmentFileCache> {
    await fs.mkdir(dir, { recursive: true });
    const cache = new SegmentFileCache(dir, maxBytes);
    const found: Array<{ name: string; size: number; mtimeMs: number }> = [];
    for (const name of await fs.readdir(dir)) {
      const file = path.join(dir, name);
      if (name.endsWith(TEMP_SUFFIX)) {
        await fs.rm(file, { force: true });
        continue;
      }
      const stat = await fs.stat(file).catch(() => undefined);
      if (stat?.isFile()) found.push({ name, size: stat.size, mtimeMs: stat.mtimeMs });
    }
    found.sort((a, b) => a.mtimeMs - b.mtimeMs);
    for (const f of found) cache.files.set(f.name, { byteSize: f.size });
    return cache;
  }

  private pathOf(name: string): string {
    return path.join(this.dir, name);
  }

  get bytes(): number {
    return this.files.totalBytes;
  }

  get count(): number {
    return this.files.size;
  }

  has(name: string): boolean {
    return this.files.has(name);
  }

  /** readSync returns the cached blob, or undefined on a miss (absent, vanished or damaged). */
  readSync(name: string): Uint8Array | undefined {
    if (!this.files.get(name)) return undefined;
    let file: Uint8Array;
    try {
      file = readSharedSync(this.pathOf(name));
    } catch {
      this.files.delete(name);
      return undefined;
    }
    return this.accept(name, file);
  }

  /** read is readSync without blocking the thread on I/O. */
  async read(name: string): Promise<Uint8Array | undefined> {
    if (!this.files.get(name)) return undefined;
    let file: Uint8Array;
    try {
      file = await readShared(this.pathOf(name));
    } catch {
      this.files.delete(name);
      return undefined;
    }
    return this.accept(name, file);
  }

  /** accept checks a file read from the cache; a damaged one is deleted so the blob is fetched again. */
  private accept(name: string, file: Uint8Array): Uint8Array | undefined {
    const body = verified(file);
    if (body) {
      // Touching the file keeps the recency order for the next start; losing it costs nothing.
      const now = new Date();
      void fs.utimes(this.pathOf(name), now, now).catch(() => undefined);
      return body;
    }
    this.files.delete(name);
    rmSync(this.pathOf(name), { force: true });
    return undefined;
  }

  /** put stores a copy of a blob, evicting the least recently read copies beyond the budget. */
  async put(name: string, bytes: Uint8Array): Promise<void> {
    const size = await writeCacheFile(this.dir, name, bytes);
    this.files.set(name, { byteSize: size });
  }

  /** adopt registers a file another thread already wrote with writeCacheFile. */
  adopt(name: string, size: number): void {
    this.files.set(name, { byteSize: size });
  }

  async remove(name: string): Promise<void> {
    this.files.delete(name);
    await fs.rm(this.pathOf(name), { force: true });
  }
}
