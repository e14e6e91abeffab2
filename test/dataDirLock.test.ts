import { existsSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DataDirLockedError, LOCK_FILE, lockDataDir } from '../src/dataDirLock.js';

describe('data directory lock', () => {
  let dir = '';
  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'sluice-lock-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });
  const lockFile = (): string => path.join(dir, LOCK_FILE);

  it('refuses a second lock in the same process and frees the directory on release', () => {
    const release = lockDataDir(dir);
    expect(() => lockDataDir(dir)).toThrow(DataDirLockedError);
    release();
    expect(existsSync(lockFile())).toBe(false);
    lockDataDir(dir)();
  });

  it('takes over a lock with this process id that this process does not hold (a restarted container)', () => {
    writeFileSync(lockFile(), JSON.stringify({ pid: process.pid, host: hostname(), startTime: '1' }));
    const release = lockDataDir(dir);
    expect(JSON.parse(readFileSync(lockFile(), 'utf8')).pid).toBe(process.pid);
    release();
  });

  it('keeps a fresh lock from another host and takes over one untouched for a minute', () => {
    writeFileSync(lockFile(), JSON.stringify({ pid: 1, host: 'elsewhere' }));
    expect(() => lockDataDir(dir)).toThrow(/in use by process 1 on elsewhere/);
    const old = new Date(Date.now() - 61_000);
    utimesSync(lockFile(), old, old);
    const release = lockDataDir(dir);
    expect(JSON.parse(readFileSync(lockFile(), 'utf8')).host).toBe(hostname());
    release();
  });

  it('keeps a lock whose owner is alive on this host', () => {
    // The parent process (the test runner's) is alive and not this process.
    writeFileSync(lockFile(), JSON.stringify({ pid: process.ppid, host: hostname() }));
    expect(() => lockDataDir(dir)).toThrow(`in use by process ${process.ppid}`);
  });
});
