import { closeSync, mkdirSync, openSync, readFileSync, statSync, unlinkSync, utimesSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import path from 'node:path';
import { StartupError } from './startupError.js';
import { isProcessAlive } from './processAlive.js';

/**
 * DataDirLock keeps a second server off a data directory in use: two processes appending to the
 * same WAL and cutting the same segments would corrupt both. The lock is a file created
 * exclusively (O_EXCL) holding the owner's pid, host and process start time.
 *
 * A lock left by a process that is gone is taken over: its pid no longer exists, or the pid now
 * belongs to another process (its start time differs), or it is this very process's pid while
 * this process holds no lock (a container restarted on the same volume runs as the same pid 1).
 * The CLI's admin commands do not take the lock: they change metadata through the store's own
 * atomic writes, which a running server picks up.
 */

export const LOCK_FILE = 'sluice.lock';
export const LOCK_REFRESH_MS = 10_000;
export const LOCK_STALE_MS = 60_000;

interface LockOwner {
  pid: number;
  host: string;
  /** startTime is the owner's start time in clock ticks since boot (Linux), to detect pid reuse. */
  startTime?: string;
}

export class DataDirLockedError extends StartupError {
  constructor(message: string) {
    super(message);
    this.name = 'DataDirLockedError';
  }
}

/** held lists the lock files this process holds, so it can tell its own lock from a stale one. */
const held = new Set<string>();

/** processStartTime reads field 22 of /proc/<pid>/stat; undefined where /proc is not available. */
function processStartTime(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces and parentheses; fields after it follow the last ')'.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}


function lockAgeMs(file: string): number {
  try {
    return Date.now() - statSync(file).mtimeMs;
  } catch {
    return Infinity;
  }
}

function readOwner(file: string): LockOwner | undefined {
  try {
    const owner = JSON.parse(readFileSync(file, 'utf8')) as Partial<LockOwner>;
    return typeof owner.pid === 'number' ? (owner as LockOwner) : undefined;
  } catch {
    return undefined;
  }
}

/** ownerIsGone decides whether a lock found on disk was left by a process that no longer runs. */
function ownerIsGone(file: string, owner: LockOwner | undefined): boolean {
  if (owner === undefined) return true; // unreadable or half-written: no live owner wrote it whole
  if (owner.host !== hostname()) return lockAgeMs(file) > LOCK_STALE_MS;
  if (owner.pid === process.pid) return !held.has(file);
  if (!isProcessAlive(owner.pid)) return true;
  const now = processStartTime(owner.pid);
  return owner.startTime !== undefined && now !== undefined && now !== owner.startTime;
}

/**
 * lockDataDir takes the lock on `dataDir` (creating the directory) and returns the function
 * that releases it. Throws DataDirLockedError naming the owner when another server holds it.
 */
export function lockDataDir(dataDir: string): () => void {
  mkdirSync(dataDir, { recursive: true });
  const file = path.join(dataDir, LOCK_FILE);
  const owner: LockOwner = { pid: process.pid, host: hostname(), startTime: processStartTime(process.pid) };
  const content = JSON.stringify(owner) + '\n';
  for (let attempt = 0; ; attempt++) {
    try {
      const fd = openSync(file, 'wx', 0o644);
      try {
        writeSync(fd, content);
      } finally {
        closeSync(fd);
      }
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const existing = readOwner(file);
      if (attempt > 0 || !ownerIsGone(file, existing)) {
        const who = existing ? `process ${existing.pid} on ${existing.host}` : 'another process';
        throw new DataDirLockedError(
          `data directory ${dataDir} is in use by ${who} (lock file ${file}); stop that server first, or use another SVC_DATA_DIR. ` +
            'If no server uses it, delete the lock file.',
        );
      }
      // Stale: remove it and try once more; should another server win that race, it holds the lock.
      try {
        unlinkSync(file);
      } catch {
        // Removed by a server starting at the same moment; the exclusive create decides.
      }
    }
  }
  held.add(file);
  const refresh = setInterval(() => {
    try {
      const now = new Date();
      utimesSync(file, now, now);
    } catch {
      // The file was removed by hand; the next start will not find it either way.
    }
  }, LOCK_REFRESH_MS);
  refresh.unref();
  let released = false;
  return () => {
    if (released) return;
    released = true;
    clearInterval(refresh);
    held.delete(file);
    // Remove the file only while it is still ours.
    if (readOwner(file)?.pid === process.pid) {
      try {
        unlinkSync(file);
      } catch {
        // Already gone: nothing to release.
      }
    }
  };
}
