/**
 * Metric queries whose pipeline reads every line, over segments and a head as a worker answers
 * them: lines taken in the store's order (LogLineScanner: each segment's rows as they lie,
 * across streams) against the same view read stream by stream from a select, which the
 * evaluator does when the scan is hidden. A segment keeps its rows in time order across
 * streams, so one stream's lines are scattered over every message block: read stream by
 * stream, each line is a cache miss. Both run in one process, alternated by tinybench, so
 * only the ratio matters.
 *
 * Data: BENCH_LINES JSON lines (default 1,000,000) over 40 streams and 4 levels, cut into two
 * segments overlapping in time, and a head holding the newest tenth.
 *
 * Run: npx tsc -p tsconfig.json && node dist/bench/logql/scanPath.bench.js
 */
import { Bench } from 'tinybench';
import { evaluateLogQLInstant } from '../../engine/logql/eval/index.js';
import { parseLogQL } from '../../engine/logql/index.js';
import type { LogEntry, LogReader } from '../../engine/storage/logHead.js';
import { runWhenDirect } from '../runDirect.js';
import { twoSegmentsAndHead } from './twoSegmentsAndHead.js';
import { taskMedianMs } from '../taskResult.js';
import { BASE_MS, LINES, ORG, SPAN_MS, requestLines } from './requestLines.js';

/** main fills a store, checks both ways of reading agree, and times them. */
export async function main(): Promise<void> {
  const store = await twoSegmentsAndHead(ORG, LINES, requestLines);
  try {
    const view = store.view;
    const streamByStream: LogReader = { select: (m, a, b, p) => view.select(m, a, b, p) };
    const endMs = BASE_MS + SPAN_MS + 60_000;
    const queries = [
      { name: '| json | status >= 500 by route', q: 'sum by (route) (count_over_time({env="bench"} | json | status >= 500 [7h]))' },
      { name: '|~ regex, by level', q: 'sum by (level) (count_over_time({env="bench"} |~ "cart|5[0-9]{2}" [7h]))' },
      { name: '| json | unwrap, by route', q: 'sum by (route) (sum_over_time({env="bench"} | json | unwrap duration_ms [7h]))' },
    ].map((d) => ({ ...d, run: (r: LogReader) => evaluateLogQLInstant(parseLogQL(d.q), r, endMs) }));
    const plain = (v: unknown): string => JSON.stringify(v, (_k, x: unknown) => (x instanceof Float64Array ? [...x] : x));
    for (const q of queries) {
      if (plain(q.run(view)) !== plain(q.run(streamByStream))) throw new Error(`${q.name}: the two ways of reading answer differently`);
    }
    const bench = new Bench({ time: 0, iterations: 7, warmup: true, warmupIterations: 2, warmupTime: 0 });
    for (const q of queries) {
      bench.add(`${q.name} | stream by stream`, () => void q.run(streamByStream));
      bench.add(`${q.name} | scanned`, () => void q.run(view));
    }
    await bench.run();
    console.log(`${LINES} lines in two segments and a head (median ms; ratio scanned / stream by stream)`);
    for (const q of queries) {
      const s = taskMedianMs(bench, `${q.name} | stream by stream`);
      const c = taskMedianMs(bench, `${q.name} | scanned`);
      console.log(`  ${q.name.padEnd(34)}${s.toFixed(1).padStart(10)}${c.toFixed(1).padStart(10)}${`${(c / s).toFixed(2)}x`.padStart(9)}`);
    }
  } finally {
    await store.close();
  }
}

runWhenDirect(import.meta.url, main);
