/**
 * Count-only range aggregations over segments and a head, as a worker answers them: the
 * readers counting lines per step window (logCounts.ts) against the general path (select the
 * lines, merge the runs of each tag set across sources, extract one sample per line), which
 * the same view takes when its count method is hidden; counts with literal line filters too
 * (searched in the stored bytes against decoded lines filtered one by one). Both run in one
 * process, alternated by tinybench, so only the ratio matters.
 *
 * Data: BENCH_LINES lines (default 1,000,000) over 10 streams and 4 levels, cut into two
 * segments overlapping in time, and a head holding the newest tenth.
 *
 * Run: npx tsc -p tsconfig.json && node dist/bench/logql/countPath.bench.js
 */
import { Bench } from 'tinybench';
import { evaluateLogQLInstant, evaluateLogQLRange } from '../../engine/logql/eval/index.js';
import { parseLogQL } from '../../engine/logql/index.js';
import type { LogEntry, LogReader } from '../../engine/storage/logHead.js';
import { runWhenDirect } from '../runDirect.js';
import { twoSegmentsAndHead } from './twoSegmentsAndHead.js';
import { taskMedianMs } from '../taskResult.js';

const LINES = Number(process.env.BENCH_LINES ?? 1_000_000);
const BASE_MS = Date.UTC(2026, 0, 1);
const SPAN_MS = 6 * 3_600_000;
const LEVELS = ['info', 'warn', 'debug', 'error'];
const ORG = 'bench';

/** lines writes lines [from, to) of the data set: evenly spread, with a little jitter so segments overlap. */
function lines(from: number, to: number): LogEntry[] {
  const out: LogEntry[] = [];
  for (let i = from; i < to; i++) {
    const ms = BASE_MS + Math.floor((i / LINES) * SPAN_MS) + ((i * 7919) % 60_000);
    out.push({ timestampNs: BigInt(ms) * 1_000_000n + BigInt(i % 1000), message: `request ${i} done`, level: LEVELS[(i * 31) % 4], tags: { service_name: `svc${i % 10}`, env: 'bench' } });
  }
  return out;
}

/** main fills a store, checks both paths agree, and times them. */
export async function main(): Promise<void> {
  const store = await twoSegmentsAndHead(ORG, LINES, lines);
  try {
    const view = store.view;
    const general: LogReader = { select: (m, a, b, p) => view.select(m, a, b, p) };
    const endMs = BASE_MS + SPAN_MS + 60_000;
    const queries = [
      { name: 'sum(count_over_time), instant', run: (r: LogReader) => evaluateLogQLInstant(parseLogQL('sum(count_over_time({env="bench"}[7h]))'), r, endMs) },
      { name: 'sum by (level), instant', run: (r: LogReader) => evaluateLogQLInstant(parseLogQL('sum by (level) (count_over_time({env="bench"}[7h]))'), r, endMs) },
      { name: 'sum by (level), 360 steps [5m]', run: (r: LogReader) => evaluateLogQLRange(parseLogQL('sum by (level) (rate({env="bench"}[5m]))'), r, BASE_MS, endMs, 60_000) },
      // One line in ten holds "7 done": the filter is searched in the stored bytes.
      { name: '|= "7 done", instant', run: (r: LogReader) => evaluateLogQLInstant(parseLogQL('sum(count_over_time({env="bench"} |= "7 done" [7h]))'), r, endMs) },
      { name: '!= "7 done", instant', run: (r: LogReader) => evaluateLogQLInstant(parseLogQL('sum(count_over_time({env="bench"} != "7 done" [7h]))'), r, endMs) },
    ];
    for (const q of queries) {
      if (JSON.stringify(q.run(view), (_k, v: unknown) => (v instanceof Float64Array ? [...v] : v)) !== JSON.stringify(q.run(general), (_k, v: unknown) => (v instanceof Float64Array ? [...v] : v))) {
        throw new Error(`${q.name}: the paths answer differently`);
      }
    }
    const bench = new Bench({ time: 0, iterations: 7, warmup: true, warmupIterations: 2, warmupTime: 0 });
    for (const q of queries) {
      bench.add(`${q.name} | general`, () => void q.run(general));
      bench.add(`${q.name} | counting`, () => void q.run(view));
    }
    await bench.run();
    console.log(`${LINES} lines in two segments and a head (median ms; ratio counting / general)`);
    for (const q of queries) {
      const g = taskMedianMs(bench, `${q.name} | general`);
      const c = taskMedianMs(bench, `${q.name} | counting`);
      console.log(`  ${q.name.padEnd(34)}${g.toFixed(1).padStart(10)}${c.toFixed(1).padStart(10)}${`${(c / g).toFixed(2)}x`.padStart(9)}`);
    }
  } finally {
    await store.close();
  }
}

runWhenDirect(import.meta.url, main);
