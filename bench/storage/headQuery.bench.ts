import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { shareLogs } from '../../engine/query/taskData.js';
import { runTask, taskTransferables, type QueryTask } from '../../engine/query/tasks.js';
import type { LogEntry } from '../../engine/storage/logHead.js';
import { Storage } from '../../engine/storage/storage.js';
import { runWhenDirect } from '../runDirect.js';

/**
 * What a dashboard query over recent logs costs end to end, on one thread: preparing the
 * task's data from the head on the query front, posting it (a structured clone, as to a
 * worker) and evaluating it. Heads are all in memory, so this is the whole cost of the
 * query. Each query is timed three ways: the first over a fresh head, again over the
 * unchanged head, and after one more line was appended (the usual case while ingest runs).
 *
 * `node dist/bench/storage/headQuery.bench.js`; BENCH_LINES scales the head (default 200,000).
 */
const LINES = Number(process.env.BENCH_LINES ?? 200_000);
const BASE_MS = 1_700_000_000_000;
const RUNS = 7;

const QUERIES: Array<{ name: string; task: (endMs: number) => Omit<QueryTask, 'data'> & { data?: undefined }; ranges: (endMs: number) => Array<{ minNs: bigint; maxNs: bigint }> }> = [
  {
    name: 'lines by level (count_over_time, 1m steps)',
    task: (endMs) => ({ kind: 'logql-range', query: 'sum by (level) (count_over_time({app=~".+"}[1m]))', startMs: BASE_MS, endMs, stepMs: 60_000, maxSamples: 1e7, maxSeries: 1000 }),
    ranges: (endMs) => [{ minNs: BigInt(BASE_MS - 60_000) * 1_000_000n, maxNs: BigInt(endMs) * 1_000_000n }],
  },
  {
    name: 'newest 100 lines with "error"',
    task: (endMs) => ({ kind: 'logql-raw', query: '{app="app1"} |= "error"', startNs: BigInt(BASE_MS) * 1_000_000n, endNs: BigInt(endMs) * 1_000_000n, limit: 100, direction: 'backward' }),
    ranges: (endMs) => [{ minNs: BigInt(BASE_MS) * 1_000_000n, maxNs: BigInt(endMs) * 1_000_000n }],
  },
];

function records(from: number, n: number): LogEntry[] {
  const levels = ['info', 'info', 'info', 'debug', 'warn', 'error'];
  return Array.from({ length: n }, (_, k) => {
    const i = from + k;
    return {
      timestampNs: BigInt(BASE_MS + i * 10) * 1_000_000n,
      level: levels[i % levels.length],
      message: `request ${i} ${i % 17 === 0 ? 'error' : 'ok'} handled in ${i % 250} ms by worker ${i % 13}`,
      tags: { app: `app${i % 5}`, pod: `pod${i % 4}`, route: `/r${i % 6}` },
    };
  });
}

function median(xs: number[]): number {
  return [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
}

export async function main(): Promise<void> {
  const dir = await mkdtemp(path.join(tmpdir(), 'sluice-head-query-'));
  const storage = await Storage.open({ dir, maintenanceIntervalMs: 0, compactionIntervalMs: 0 });
  try {
    for (let i = 0; i < LINES; i += 10_000) await storage.appendLogs('bench', records(i, Math.min(10_000, LINES - i)));
    let appended = LINES;
    const endMs = BASE_MS + LINES * 10 + 60_000;
    const run = (q: (typeof QUERIES)[number]): number => {
      const started = performance.now();
      const task = { ...q.task(endMs), data: shareLogs(storage.logs('bench'), q.ranges(endMs).map((r) => ({ matchers: [], ...r }))) } as QueryTask;
      const { result } = runTask(structuredClone(task, { transfer: taskTransferables(task) }));
      if ('failed' in result) throw new Error(result.message);
      return performance.now() - started;
    };
    const rows: Record<string, Record<string, string>> = {};
    for (const q of QUERIES) {
      const first = run(q);
      const unchanged = Array.from({ length: RUNS }, () => run(q));
      const afterAppend: number[] = [];
      for (let r = 0; r < RUNS; r++) {
        await storage.appendLogs('bench', records(appended++, 1));
        afterAppend.push(run(q));
      }
      rows[q.name] = { first: `${first.toFixed(1)} ms`, 'unchanged head (median)': `${median(unchanged).toFixed(1)} ms`, 'after an append (median)': `${median(afterAppend).toFixed(1)} ms` };
    }
    console.log(`${LINES} lines in the head`);
    console.table(rows);
  } finally {
    await storage.close();
    await rm(dir, { recursive: true, force: true });
  }
}

runWhenDirect(import.meta.url, main);
