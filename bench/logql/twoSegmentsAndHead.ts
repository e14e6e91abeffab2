import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { logViewOf, shareLogs } from '../../engine/query/taskData.js';
import type { LogEntry } from '../../engine/storage/logHead.js';
import type { OrgLogView } from '../../engine/storage/orgViews.js';
import { SharedSegmentReaders } from '../../engine/storage/sharedSegments.js';
import { Storage } from '../../engine/storage/storage.js';

/** LogStore is a store filled for a benchmark, the view a worker reads it through, and how to remove it. */
export interface LogStore {
  storage: Storage;
  view: OrgLogView;
  close(): Promise<void>;
}

/**
 * twoSegmentsAndHead writes lines [0, total) of a data set (`lines(from, to)`) into a fresh store
 * for `org`: the first 60% and the next 30% as two segments, the newest tenth left in the head,
 * as the LogQL benchmarks over stored lines read them. The view is a worker's: the store's
 * segments and head snapshots shared, as a query's task gets them.
 */
export async function twoSegmentsAndHead(org: string, total: number, lines: (from: number, to: number) => LogEntry[]): Promise<LogStore> {
  const dir = await mkdtemp(path.join(tmpdir(), 'sluice-logql-bench-'));
  const storage = await Storage.open({ dir, maintenanceIntervalMs: 0, compactionIntervalMs: 0 });
  const close = async (): Promise<void> => {
    await storage.close();
    await rm(dir, { recursive: true, force: true });
  };
  try {
    const cuts = [Math.floor(total * 0.6), Math.floor(total * 0.9), total];
    let from = 0;
    for (const [i, to] of cuts.entries()) {
      for (let at = from; at < to; at += 100_000) await storage.appendLogs(org, lines(at, Math.min(to, at + 100_000)));
      if (i < cuts.length - 1) await storage.cut();
      from = to;
    }
    const view = logViewOf(shareLogs(storage.logs(org), [{ matchers: [], minNs: -(2n ** 63n), maxNs: 2n ** 63n - 1n }]), new SharedSegmentReaders());
    return { storage, view, close };
  } catch (err) {
    await close();
    throw err;
  }
}
