/**
 * `|= "needle"` scan rate in MB/s on one core, next to `grep -F -c` over the same bytes
 * written to a temporary file in the same run, so the ratio is comparable across machines.
 * Also times the substring filter end to end as a metric query (storage select included).
 *
 * Run: npx tsc -p tsconfig.json && node dist/bench/logql/lineFilter.bench.js
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Bench } from 'tinybench';
import { checkLogQL, parseLogQL } from '../../engine/logql/index.js';
import type { LogSelectorExpr } from '../../engine/logql/index.js';
import { CompiledPipeline, evaluateLogQLInstant } from '../../engine/logql/eval/index.js';
import { LogHead } from '../../engine/storage/logHead.js';
import { Random, textLine } from './data.js';
import { runWhenDirect } from '../runDirect.js';
import { completedResult } from '../taskResult.js';

const LINES = 400_000;
const NEEDLE = 'needle';
const BASE_NS = 1_767_225_600_000_000_000n;

function utf8Bytes(lines: readonly string[]): number {
  let n = 0;
  for (const l of lines) n += Buffer.byteLength(l, 'utf8');
  return n;
}

/** grepSeconds returns the best wall time of `grep -F -c` over the file (and its count). */
function grepSeconds(file: string, runs: number): { seconds: number; count: number } {
  let best = Infinity;
  let count = -1;
  for (let i = 0; i < runs; i++) {
    const start = process.hrtime.bigint();
    const out = spawnSync('grep', ['-F', '-c', NEEDLE, file], { encoding: 'utf8', env: { ...process.env, LC_ALL: 'C' } });
    const seconds = Number(process.hrtime.bigint() - start) / 1e9;
    if (out.status !== 0 && out.status !== 1) throw new Error(`grep failed: ${out.stderr}`);
    count = Number(out.stdout.trim());
    best = Math.min(best, seconds);
  }
  return { seconds: best, count };
}

/** main runs the benchmark and prints both rates and their ratio. */
export async function main(): Promise<void> {
  const r = new Random(42);
  const lines: string[] = [];
  for (let i = 0; i < LINES; i++) lines.push(textLine(r, i, i % 100 === 37 ? NEEDLE : undefined));
  const bytes = utf8Bytes(lines) + lines.length; // grep also reads the newlines
  const dir = mkdtempSync(join(tmpdir(), 'sluice-bench-'));
  const file = join(dir, 'lines.log');
  writeFileSync(file, lines.join('\n') + '\n');

  const query = `{app="bench"} |= "${NEEDLE}"`;
  const expr = parseLogQL(query) as LogSelectorExpr;
  checkLogQL(expr, query);
  const test = new CompiledPipeline(expr.pipeline).lineOnly;
  if (test === undefined) throw new Error('expected a line-only pipeline');
  const scan = (): number => {
    let n = 0;
    for (let i = 0; i < lines.length; i++) if (test(lines[i])) n++;
    return n;
  };
  const ours = scan();

  const head = new LogHead(new Set(['app']));
  head.append(lines.map((message, i) => ({ timestampNs: BASE_NS + BigInt(i) * 1_000_000n, message, level: '', tags: { app: 'bench' } })));
  const metric = parseLogQL(`count_over_time(${query} [1h])`);
  checkLogQL(metric, '');
  const atMs = Number(BASE_NS / 1_000_000n) + LINES + 1;

  const bench = new Bench({ time: 2000, warmupTime: 300 });
  bench.add('filter kernel', () => void scan()).add('count_over_time end to end', () => void evaluateLogQLInstant(metric, head, atMs));
  await bench.run();
  const grep = grepSeconds(file, 7);
  rmSync(dir, { recursive: true, force: true });
  if (grep.count !== ours) throw new Error(`grep counted ${grep.count} lines, the filter ${ours}`);

  const kernel = completedResult(bench, 'filter kernel');
  const e2e = completedResult(bench, 'count_over_time end to end');
  const mb = bytes / 1e6;
  const ourRate = mb * kernel.throughput.mean;
  const grepRate = mb / grep.seconds;
  console.log(`\n|= "${NEEDLE}" over ${LINES} lines, ${mb.toFixed(1)} MB (${ours} matches)`);
  console.log(`  sluice filter kernel        ${ourRate.toFixed(0).padStart(7)} MB/s`);
  console.log(`  grep -F -c (same bytes)     ${grepRate.toFixed(0).padStart(7)} MB/s`);
  console.log(`  ratio sluice/grep           ${(ourRate / grepRate).toFixed(2)}`);
  console.log(`  count_over_time end to end  ${(mb * e2e.throughput.mean).toFixed(0).padStart(7)} MB/s (storage select included)`);
  console.log('');
  console.table(bench.table());
}

runWhenDirect(import.meta.url, main);
