import { promises as fs } from 'node:fs';
import path from 'node:path';
import { isProcessAlive } from '../processAlive.js';

/**
 * writeFileAtomic replaces `file` so that a reader, or the file after a crash, holds either
 * the old content or the new, never a mix: write a temporary file, fsync it, rename it over
 * the target, then fsync the directory so the rename itself is durable.
 */
export async function writeFileAtomic(file: string, data: string | Uint8Array): Promise<void> {
  const dir = path.dirname(file);
  const tmp = path.join(dir, `.${path.basename(file)}.${process.pid}.${Date.now()}.tmp`);
  const handle = await fs.open(tmp, 'w', 0o600);
  try {
    await handle.writeFile(data);
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await fs.rename(tmp, file);
  } catch (err) {
    await fs.rm(tmp, { force: true });
    throw err;
  }
  const dirHandle = await fs.open(dir, 'r');
  try {
    await dirHandle.sync();
  } finally {
    await dirHandle.close();
  }
}


/**
 * withFileLock runs `fn` while holding an exclusive lock file, so the CLI and a running
 * server never interleave read-modify-write cycles on the same metadata. A lock left by a
 * process that died is taken over.
 */
export async function withFileLock<T>(lockFile: string, fn: () => Promise<T>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (let attempt = 0; ; attempt++) {
    try {
      const handle = await fs.open(lockFile, 'wx', 0o600);
      await handle.writeFile(String(process.pid));
      await handle.close();
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const owner = Number(await fs.readFile(lockFile, 'utf8').catch(() => ''));
      if (Number.isInteger(owner) && owner > 0 && !isProcessAlive(owner)) {
        await fs.rm(lockFile, { force: true });
        continue;
      }
      if (Date.now() > deadline) throw new Error(`timed out waiting for lock ${lockFile} held by pid ${owner}`);
      await new Promise((r) => setTimeout(r, Math.min(5 + attempt * 5, 50)));
    }
  }
  try {
    return await fn();
  } finally {
    await fs.rm(lockFile, { force: true });
  }
}
