/**
 * `sum by (level) (count_over_time({…}[1m]))` over 10 million generated lines, as an instant
 * query and as a range query over the whole span, with the time spent selecting from storage
 * reported separately from evaluation. Lines are generated and appended in chunks so the
 * generator never holds them twice.
 *
 * Run: npx tsc -p tsconfig.json && node --max-old-space-size=8192 dist/bench/logql/metric-query.bench.js
 * (LINES=1000000 in the environment for a quicker run)
 */
import { pathToFileURL } from 'node:url';
import { checkLogQL, parseLogQL } from '../../engine/logql/index.js';
import { evaluateLogQLInstant, evaluateLogQLRange } from '../../engine/logql/eval/index.js';
import { LogHead, type LogRecord } from '../../engine/storage/logHead.js';
import { LEVEL_NAMES, Random, fmtRate, textLine } from './data.js';

const TOTAL = Number(process.env.LINES ?? 10_000_000);
const CHUNK = 250_000;
const STREAMS = 20;
const BASE_MS = Date.UTC(2026, 0, 1);
/** SPAN_MS spreads the lines over an hour. */
const SPAN_MS = 3_600_000;

function seconds(start: bigint): number {
  return Number(process.hrtime.bigint() - start) / 1e9;
}

function build(): LogHead {
  const head = new LogHead(new Set(['app', 'pod']));
  const r = new Random(1);
  const stepNs = (BigInt(SPAN_MS) * 1_000_000n) / BigInt(TOTAL);
  const baseNs = BigInt(BASE_MS) * 1_000_000n;
  for (let done = 0; done < TOTAL; done += CHUNK) {
    const n = Math.min(CHUNK, TOTAL - done);
    const records: LogRecord[] = new Array(n);
    for (let k = 0; k < n; k++) {
      const i = done + k;
      records[k] = {
        timestampNs: baseNs + BigInt(i) * stepNs,
        message: textLine(r, i),
        level: LEVEL_NAMES[i % 4],
        tags: { app: 'shop', pod: `pod-${i % STREAMS}` },
      };
    }
    head.append(records);
  }
  return head;
}

/** main builds the data and times the query. */
export async function main(): Promise<void> {
  let start = process.hrtime.bigint();
  const head = build();
  console.log(`\nGenerated ${TOTAL} lines in ${seconds(start).toFixed(1)} s`);
  const query = 'sum by (level) (count_over_time({app="shop"}[1m]))';
  const expr = parseLogQL(query);
  checkLogQL(expr, query);

  start = process.hrtime.bigint();
  const selected = head.select([{ name: 'app', type: '=', value: 'shop' }], 0n, BigInt(BASE_MS + SPAN_MS) * 1_000_000n);
  const selectSeconds = seconds(start);
  const lines = selected.reduce((n, s) => n + s.messages.length, 0);

  start = process.hrtime.bigint();
  // A [2h] window ending at the last line covers every line.
  const instantResult = evaluateLogQLInstant(parseLogQL(query.replace('[1m]', '[2h]')), head, BASE_MS + SPAN_MS);
  const instantSeconds = seconds(start);
  const total = instantResult.resultType === 'vector' ? instantResult.series.reduce((n, s) => n + s.values[0], 0) : 0;
  if (total !== TOTAL) throw new Error(`counted ${total} lines, expected ${TOTAL}`);

  start = process.hrtime.bigint();
  const rangeResult = evaluateLogQLRange(expr, head, BASE_MS + 60_000, BASE_MS + SPAN_MS, 60_000);
  const rangeSeconds = seconds(start);

  console.log(`Query: ${query}`);
  console.log(`  storage select of ${lines} lines       ${selectSeconds.toFixed(2)} s`);
  console.log(`  instant query over [2h] (all lines)    ${instantSeconds.toFixed(2)} s  ${fmtRate(TOTAL / instantSeconds)} lines/s`);
  console.log(`  range query, 60 steps of [1m]          ${rangeSeconds.toFixed(2)} s  ${fmtRate(TOTAL / rangeSeconds)} lines/s`);
  console.log(`  evaluation alone (range minus select)  ${(rangeSeconds - selectSeconds).toFixed(2)} s  ${fmtRate(TOTAL / Math.max(rangeSeconds - selectSeconds, 1e-9))} lines/s`);
  console.log(`  result: ${rangeResult.series.length} series x ${rangeResult.series[0]?.values.length ?? 0} points`);
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((err: unknown) => {
    console.error(err);
    process.exitCode = 1;
  });
}
