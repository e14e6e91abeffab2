/**
 * `sum by (level) (count_over_time({…}[1m]))` over 10 million generated lines: a range query
 * (60 steps of [1m] over an hour) and an instant query over all lines. Evaluation is timed
 * over data already selected from storage (so the engine is measured, not the head's select),
 * and once end to end through LogHead.select for reference. Lines are generated and appended
 * in chunks so the generator never holds them twice.
 *
 * Run: npx tsc -p tsconfig.json && node dist/bench/logql/metricQuery.bench.js (it re-runs
 * itself with a larger heap when needed; LINES=1000000 in the environment for a quicker run)
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { getHeapStatistics } from 'node:v8';
import { Bench } from 'tinybench';
import { checkLogQL, parseLogQL } from '../../engine/logql/index.js';
import { evaluateLogQLInstant, evaluateLogQLRange } from '../../engine/logql/eval/index.js';
import type { LogReader, LogStreamData } from '../../engine/storage/logHead.js';
import { LogHead, type LogEntry } from '../../engine/storage/logHead.js';
import { LEVEL_NAMES, Random, fmtRate, textLine } from './data.js';
import { runWhenDirect } from '../runDirect.js';
import { taskMeanMs } from '../taskResult.js';

const TOTAL = Number(process.env.LINES ?? 10_000_000);
const CHUNK = 250_000;
const STREAMS = 20;
const BASE_MS = Date.UTC(2026, 0, 1);
/** SPAN_MS spreads the lines over an hour. */
const SPAN_MS = 3_600_000;
const QUERY = 'sum by (level) (count_over_time({app="shop"}[1m]))';
/** INSTANT_QUERY's [2h] window ending at the last line covers every line. */
const INSTANT_QUERY = 'sum by (level) (count_over_time({app="shop"}[2h]))';
/** FILTER_QUERY adds a substring filter to the range query. */
const FILTER_QUERY = 'sum by (level) (count_over_time({app="shop"} |= "status=500" [1m]))';

function seconds(start: bigint): number {
  return Number(process.hrtime.bigint() - start) / 1e9;
}

/** POOL distinct lines are cycled through, so the heap holds them once and GC stays out of the timings. */
const POOL = 1 << 16;

function build(): LogHead {
  const head = new LogHead(new Set(['app', 'pod']));
  const r = new Random(1);
  const pool = Array.from({ length: POOL }, (_, i) => textLine(r, i));
  const tags = Array.from({ length: STREAMS }, (_, s) => ({ app: 'shop', pod: `pod-${s}` }));
  const stepNs = (BigInt(SPAN_MS) * 1_000_000n) / BigInt(TOTAL);
  const baseNs = BigInt(BASE_MS) * 1_000_000n;
  for (let done = 0; done < TOTAL; done += CHUNK) {
    const n = Math.min(CHUNK, TOTAL - done);
    const records: LogEntry[] = new Array(n);
    for (let k = 0; k < n; k++) {
      const i = done + k;
      records[k] = {
        timestampNs: baseNs + BigInt(i + 1) * stepNs,
        message: pool[i % POOL],
        level: LEVEL_NAMES[i % 4],
        tags: tags[i % STREAMS],
      };
    }
    head.append(records);
  }
  return head;
}

/** HEAP_NEEDED is the old-space size 10M lines need; smaller heaps re-run the bench in a child. */
const HEAP_NEEDED_MB = Math.ceil((TOTAL / 10_000_000) * 10_000);

/** relaunch re-runs this file with a large enough heap, returning false when not needed. */
function relaunch(): boolean {
  const limitMb = getHeapStatistics().heap_size_limit / 2 ** 20;
  if (limitMb >= HEAP_NEEDED_MB || process.env.SLUICE_BENCH_CHILD === '1') return false;
  const self = fileURLToPath(import.meta.url);
  const child = spawnSync(process.execPath, [`--max-old-space-size=${HEAP_NEEDED_MB + 2048}`, self], {
    stdio: 'inherit',
    env: { ...process.env, SLUICE_BENCH_CHILD: '1' },
  });
  if (child.status !== 0) throw new Error(`benchmark child exited with ${child.status}`);
  return true;
}

/** PreselectedReader answers every select with streams read once from storage. */
class PreselectedReader implements LogReader {
  constructor(private readonly streams: LogStreamData[]) {}

  select(): LogStreamData[] {
    return this.streams;
  }
}

function parsed(query: string): ReturnType<typeof parseLogQL> {
  const expr = parseLogQL(query);
  checkLogQL(expr, query);
  return expr;
}

/** main builds the data and times the queries. */
export async function main(): Promise<void> {
  if (relaunch()) return;
  let start = process.hrtime.bigint();
  const head = build();
  console.log(`\nGenerated ${TOTAL} lines in ${seconds(start).toFixed(1)} s`);

  start = process.hrtime.bigint();
  const streams = head.select([{ name: 'app', type: '=', value: 'shop' }], 0n, BigInt(BASE_MS + SPAN_MS) * 1_000_000n);
  const selectSeconds = seconds(start);
  const reader = new PreselectedReader(streams);
  const rangeExpr = parsed(QUERY);
  const instantExpr = parsed(INSTANT_QUERY);
  const filterExpr = parsed(FILTER_QUERY);
  const endMs = BASE_MS + SPAN_MS;

  const check = evaluateLogQLInstant(instantExpr, reader, endMs);
  const total = check.resultType === 'vector' ? check.series.reduce((n, s) => n + s.values[0], 0) : 0;
  if (total !== TOTAL) throw new Error(`counted ${total} lines, expected ${TOTAL}`);

  const bench = new Bench({ time: 0, iterations: 5, warmupTime: 0, warmupIterations: 1 });
  bench
    .add('range query, 60 steps', () => void evaluateLogQLRange(rangeExpr, reader, BASE_MS + 60_000, endMs, 60_000))
    .add('instant query, all lines', () => void evaluateLogQLInstant(instantExpr, reader, endMs))
    .add('range query with |= filter', () => void evaluateLogQLRange(filterExpr, reader, BASE_MS + 60_000, endMs, 60_000));
  await bench.run();

  start = process.hrtime.bigint();
  evaluateLogQLRange(rangeExpr, head, BASE_MS + 60_000, endMs, 60_000);
  const endToEnd = seconds(start);

  const rate = (name: string): string => {
    const s = taskMeanMs(bench, name) / 1000;
    return `${s.toFixed(3)} s  ${fmtRate(TOTAL / s).padStart(7)} lines/s`;
  };
  console.log(`Query: ${QUERY}`);
  console.log(`  range query, 60 steps of [1m]            ${rate('range query, 60 steps')}`);
  console.log(`  instant query over [2h] (all lines)      ${rate('instant query, all lines')}`);
  console.log(`  range query with |= "status=500"         ${rate('range query with |= filter')}`);
  console.log(`  storage select of ${TOTAL} lines (LogHead)  ${selectSeconds.toFixed(3)} s`);
  console.log(`  range query end to end (select included) ${endToEnd.toFixed(3)} s  ${fmtRate(TOTAL / endToEnd).padStart(7)} lines/s`);
  console.log('');
  console.table(bench.table());
}

runWhenDirect(import.meta.url, main);
