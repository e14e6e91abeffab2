import { readFileSync } from 'node:fs';
import os from 'node:os';
import { parseSettingByteSize } from '../engine/common/byteSize.js';

/**
 * One memory budget for the caches that make repeated queries fast: segment files kept in
 * memory by the main thread, segments the query workers have decoded, and query results.
 *
 * Fixed sizes were wrong both ways: 256 MiB of segment files and 128 MiB of decoded segments
 * per worker held about six hours of a 12,000-series dataset, so a whole-day query read and
 * decoded every segment again (3.5× slower than with both caches large enough), while in a
 * 1 GiB container the same fixed sizes leave little for anything else. So the default budget is
 * a share of the memory the process may really use (the cgroup's limit when it has one, as in
 * a Kubernetes pod, else physical memory), split between the three; each cache's own setting
 * still overrides its share.
 */

/** DEFAULT_BUDGET_SHARE is the part of the memory limit the caches get unless told otherwise. */
export const DEFAULT_BUDGET_SHARE = 0.3;

/** CACHE_SHARES splits the budget: decoding is the costly step, so decoded segments get most. */
export const CACHE_SHARES = { segmentFiles: 0.25, decodedSegments: 0.6, results: 0.15 } as const;

/** MIN_CACHE_BYTES keeps each cache usable on a tiny machine: one segment file fits. */
const MIN_CACHE_BYTES = 32 * 1024 * 1024;

const CGROUP_LIMIT_FILES = [
  '/sys/fs/cgroup/memory.max', // cgroup v2
  '/sys/fs/cgroup/memory/memory.limit_in_bytes', // cgroup v1
];

/** cgroupMemoryLimit reads the container's memory limit, or undefined when there is none. */
export function cgroupMemoryLimit(files: readonly string[] = CGROUP_LIMIT_FILES): number | undefined {
  for (const file of files) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8').trim();
    } catch {
      continue;
    }
    // "max" (v2) or a huge number near 2^63 (v1) both mean no limit.
    const n = Number(text);
    if (text === 'max' || !Number.isFinite(n) || n <= 0 || n >= 2 ** 60) return undefined;
    return n;
  }
  return undefined;
}

/** memoryLimitBytes is what this process may use: the cgroup limit if lower than physical memory. */
export function memoryLimitBytes(): number {
  const physical = os.totalmem();
  const cgroup = cgroupMemoryLimit();
  return cgroup === undefined ? physical : Math.min(cgroup, physical);
}

/**
 * cacheBudgetBytes is SVC_CACHE_MEMORY_BYTES when it is a valid size, else the default share
 * of the memory limit. An invalid value is reported by the setting itself; the caches' shares
 * fall back to the default meanwhile so every problem is listed once.
 */
export function cacheBudgetBytes(env: NodeJS.ProcessEnv): number {
  const raw = env.SVC_CACHE_MEMORY_BYTES;
  const set = raw === undefined ? undefined : parseSettingByteSize(raw);
  return set ?? Math.floor(memoryLimitBytes() * DEFAULT_BUDGET_SHARE);
}

/** cacheShare is one cache's part of the budget, never below MIN_CACHE_BYTES. */
export function cacheShare(env: NodeJS.ProcessEnv, cache: keyof typeof CACHE_SHARES): number {
  return Math.max(MIN_CACHE_BYTES, Math.floor(cacheBudgetBytes(env) * CACHE_SHARES[cache]));
}
