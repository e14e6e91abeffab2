import { mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CACHE_SHARES, DEFAULT_BUDGET_SHARE, cacheBudgetBytes, cacheShare, cgroupMemoryLimit, memoryLimitBytes } from '../src/cacheBudget.js';
import { loadConfig } from '../src/config.js';

const GIB = 1024 ** 3;
const MIB = 1024 ** 2;

describe('the cache memory budget', () => {
  it('reads a cgroup v2 or v1 limit, and "max" or a v1 huge number as no limit', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'sluice-cgroup-'));
    const file = async (name: string, text: string): Promise<string> => {
      const p = path.join(dir, name);
      await writeFile(p, text);
      return p;
    };
    expect(cgroupMemoryLimit([await file('v2', '2147483648\n')])).toBe(2 * GIB);
    expect(cgroupMemoryLimit([await file('v2max', 'max\n')])).toBeUndefined();
    expect(cgroupMemoryLimit([await file('v1', '9223372036854771712\n')])).toBeUndefined();
    // The first file that exists decides; a missing one is skipped.
    expect(cgroupMemoryLimit([path.join(dir, 'missing'), await file('v1small', '536870912')])).toBe(512 * MIB);
    expect(cgroupMemoryLimit([path.join(dir, 'missing')])).toBeUndefined();
  });

  it('defaults to a share of the memory limit, never above physical memory', () => {
    expect(memoryLimitBytes()).toBeLessThanOrEqual(os.totalmem());
    expect(cacheBudgetBytes({})).toBe(Math.floor(memoryLimitBytes() * DEFAULT_BUDGET_SHARE));
  });

  it('splits SVC_CACHE_MEMORY_BYTES between segment files, decoded segments and results', () => {
    const env = { SVC_CACHE_MEMORY_BYTES: '4GiB' };
    const config = loadConfig(env);
    expect(config.cacheMemoryBytes).toBe(4 * GIB);
    expect(config.segmentCacheBytes).toBe(Math.floor(4 * GIB * CACHE_SHARES.segmentFiles));
    expect(config.workerSegmentCacheBytes).toBe(Math.floor(4 * GIB * CACHE_SHARES.decodedSegments));
    expect(config.resultsCacheBytes).toBe(Math.floor(4 * GIB * CACHE_SHARES.results));
    expect(CACHE_SHARES.segmentFiles + CACHE_SHARES.decodedSegments + CACHE_SHARES.results).toBeCloseTo(1, 10);
  });

  it('lets each cache setting override its share, and keeps every cache usable on a tiny budget', () => {
    const config = loadConfig({ SVC_CACHE_MEMORY_BYTES: '64MiB', SVC_RESULTS_CACHE_BYTES: '300MiB' });
    expect(config.resultsCacheBytes).toBe(300 * MIB);
    expect(config.segmentCacheBytes).toBe(32 * MIB);
    expect(cacheShare({ SVC_CACHE_MEMORY_BYTES: '64MiB' }, 'decodedSegments')).toBe(Math.floor(64 * MIB * 0.6));
  });

  it('reports a bad budget once, by its name', () => {
    expect(() => loadConfig({ SVC_CACHE_MEMORY_BYTES: 'lots' })).toThrow(/SVC_CACHE_MEMORY_BYTES must be a byte size/);
    expect(() => loadConfig({ SVC_CACHE_MEMORY_BYTES: 'lots' })).not.toThrow(/SVC_SEGMENT_CACHE_BYTES|SVC_RESULTS_CACHE_BYTES/);
  });
});
