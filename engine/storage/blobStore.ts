import { closeSync, fstatSync, openSync, promises as fs, readSync } from 'node:fs';
import path from 'node:path';

/**
 * BlobStore keeps immutable named byte blobs (segment files). The embedded back end uses a
 * local directory; object storage can take its place when the service scales out, since
 * segments are only ever written whole, read whole, listed and deleted.
 *
 * `read` is synchronous on purpose: queries read segments inside the synchronous
 * `MetricQuerier.select` contract. A remote implementation serves reads from a local cache it
 * fills when blobs are written or listed.
 */
export interface BlobStore {
  /** read returns the blob's bytes; throws BlobNotFoundError when it does not exist. */
  read(name: string): Uint8Array;
  /**
   * readAsync is `read` without blocking the calling thread on I/O, for callers that can
   * wait (a query warming the segments it is about to need).
   */
  readAsync(name: string): Promise<Uint8Array>;
  /** write stores the blob durably before it resolves (a later crash cannot lose it). */
  write(name: string, bytes: Uint8Array): Promise<void>;
  /** remove deletes the blob; a missing blob is not an error. */
  remove(name: string): Promise<void>;
  /** list names every stored blob. */
  list(): Promise<string[]>;
  /** listStored is `list` with when each blob was last written, for sweeps that must spare fresh ones. */
  listStored(): Promise<StoredBlob[]>;
}

/** StoredBlob is a blob's name and when it was last written (milliseconds since the epoch). */
export interface StoredBlob {
  name: string;
  modifiedMs: number;
}

/** BlobNotFoundError tells a missing blob apart from one that cannot be read. */
export class BlobNotFoundError extends Error {
  constructor(readonly blobName: string) {
    super(`blob ${blobName} does not exist`);
    this.name = 'BlobNotFoundError';
  }
}

/** BLOB_NAME keeps names to one path component, so a name can never escape the directory. */
const BLOB_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
const TEMP_SUFFIX = '.tmp';

/** isBlobName says whether a name is one a blob store accepts. */
export function isBlobName(name: string): boolean {
  return BLOB_NAME.test(name) && !name.endsWith(TEMP_SUFFIX);
}

/** checkName throws for a name no blob store accepts. */
export function checkName(name: string): void {
  if (!isBlobName(name)) throw new Error(`invalid blob name ${JSON.stringify(name)}`);
}

/**
 * LocalBlobStore keeps blobs as files in one directory. Writes go to a temporary file that is
 * fsynced and then renamed, so a reader never sees half a blob; reads fill a SharedArrayBuffer,
 * so views into a segment can be handed to worker threads without copying.
 */
export class LocalBlobStore implements BlobStore {
  private ready: Promise<void> | undefined;

  constructor(readonly dir: string) {}

  private ensureDir(): Promise<void> {
    return (this.ready ??= fs.mkdir(this.dir, { recursive: true }).then(() => undefined));
  }

  read(name: string): Uint8Array {
    checkName(name);
    try {
      return readSharedSync(path.join(this.dir, name));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw new BlobNotFoundError(name);
      throw err;
    }
  }

  async readAsync(name: string): Promise<Uint8Array> {
    checkName(name);
    try {
      return await readShared(path.join(this.dir, name));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw new BlobNotFoundError(name);
      throw err;
    }
  }

  async write(name: string, bytes: Uint8Array): Promise<void> {
    checkName(name);
    await this.ensureDir();
    const file = path.join(this.dir, name);
    const temp = file + TEMP_SUFFIX;
    const handle = await fs.open(temp, 'w');
    try {
      let at = 0;
      while (at < bytes.length) at += (await handle.write(bytes, at)).bytesWritten;
      await handle.sync();
    } finally {
      await handle.close();
    }
    await fs.rename(temp, file);
    await syncDirectory(this.dir);
  }

  async remove(name: string): Promise<void> {
    checkName(name);
    await fs.rm(path.join(this.dir, name), { force: true });
  }

  /** list also clears temporary files left by a crash mid-write: nothing refers to them. */
  async list(): Promise<string[]> {
    await this.ensureDir();
    const names: string[] = [];
    for (const name of await fs.readdir(this.dir)) {
      if (name.endsWith(TEMP_SUFFIX)) await fs.rm(path.join(this.dir, name), { force: true });
      else if (BLOB_NAME.test(name)) names.push(name);
    }
    return names.sort();
  }

  async listStored(): Promise<StoredBlob[]> {
    const out: StoredBlob[] = [];
    for (const name of await this.list()) {
      try {
        out.push({ name, modifiedMs: (await fs.stat(path.join(this.dir, name))).mtimeMs });
      } catch (err) {
        // Deleted since it was listed: nothing to sweep.
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      }
    }
    return out;
  }
}

/**
 * readSharedSync reads a whole file into a SharedArrayBuffer, so views into it can be handed to
 * worker threads without copying. Errors (ENOENT included) are the file system's.
 */
export function readSharedSync(file: string): Uint8Array {
  const fd = openSync(file, 'r');
  try {
    const size = fstatSync(fd).size;
    const bytes = new Uint8Array(new SharedArrayBuffer(size));
    let at = 0;
    while (at < size) {
      const n = readSync(fd, bytes, at, size - at, at);
      if (n === 0) break;
      at += n;
    }
    return at === size ? bytes : bytes.subarray(0, at);
  } finally {
    closeSync(fd);
  }
}

/** readShared is readSharedSync without blocking the thread on I/O. */
export async function readShared(file: string): Promise<Uint8Array> {
  const handle = await fs.open(file, 'r');
  try {
    const size = (await handle.stat()).size;
    const bytes = new Uint8Array(new SharedArrayBuffer(size));
    let at = 0;
    while (at < size) {
      const { bytesRead } = await handle.read(bytes, at, size - at, at);
      if (bytesRead === 0) break;
      at += bytesRead;
    }
    return at === size ? bytes : bytes.subarray(0, at);
  } finally {
    await handle.close();
  }
}

/** syncDirectory makes a rename or create in `dir` durable. */
export async function syncDirectory(dir: string): Promise<void> {
  const handle = await fs.open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
