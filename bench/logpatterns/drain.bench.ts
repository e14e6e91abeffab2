/**
 * Template mining rate in lines per second on one core: 100k generated lines mixing plain
 * access-log text, logfmt and JSON (the LogQL benchmarks' seeded generator, plus a share of
 * free-text error lines), mined with 60 time buckets as a pattern query over an hour would.
 * Also times tokenising alone, so the share of the prefix tree and merging is visible, and an
 * adversarial run of unique random lines that keeps the cluster cap evicting.
 *
 * Run: npx tsc -p tsconfig.json && node dist/bench/logpatterns/drain.bench.js
 */
import { Bench } from 'tinybench';
import { DrainMiner, type LogPattern } from '../../engine/logpatterns/drain.js';
import { tokenizeLine } from '../../engine/logpatterns/tokens.js';
import { Random, fmtRate, jsonLine, logfmtLine, textLine } from '../logql/data.js';
import { runWhenDirect } from '../runDirect.js';
import { taskHz } from '../taskResult.js';

const LINES = 100_000;
const START_MS = 1_767_225_600_000;
const SPAN_MS = 3_600_000;
const ERRORS = [
  (r: Random) => `connection to db-${Math.floor(r.next() * 8)} refused after ${Math.floor(r.next() * 5)} retries`,
  (r: Random) => `failed to acquire lock on /var/lib/app/${r.hex(8)}.lock: resource busy`,
  (r: Random) => `panic: runtime error: index out of range [${Math.floor(r.next() * 64)}] with length ${Math.floor(r.next() * 64)}`,
  (r: Random) => `user ${Math.floor(r.next() * 1e6)} logged in from 10.${Math.floor(r.next() * 255)}.0.${Math.floor(r.next() * 255)}`,
];

/** mixedLines returns the benchmark's lines: 30% text, 30% logfmt, 30% JSON, 10% free text. */
function mixedLines(n: number): string[] {
  const r = new Random(42);
  const lines: string[] = [];
  for (let i = 0; i < n; i++) {
    const k = r.next();
    if (k < 0.3) lines.push(textLine(r, i));
    else if (k < 0.6) lines.push(logfmtLine(r));
    else if (k < 0.9) lines.push(jsonLine(r));
    else lines.push(r.pick(ERRORS)(r));
  }
  return lines;
}

/** uniqueLines returns lines of random words, each its own cluster, to exercise eviction. */
function uniqueLines(n: number): string[] {
  const r = new Random(7);
  const lines: string[] = [];
  for (let i = 0; i < n; i++) {
    const words: string[] = [];
    const count = 4 + Math.floor(r.next() * 9);
    for (let w = 0; w < count; w++) words.push(r.hex(6).replace(/[0-9]/g, (d) => 'ghijklmnop'[Number(d)]));
    lines.push(words.join(' '));
  }
  return lines;
}

function mineAll(lines: readonly string[]): DrainMiner {
  const miner = new DrainMiner({ timeBuckets: { startMs: START_MS, endMs: START_MS + SPAN_MS, count: 60 } });
  const step = SPAN_MS / lines.length;
  for (let i = 0; i < lines.length; i++) miner.add(lines[i], START_MS + Math.floor(i * step));
  return miner;
}

function linesPerSecond(bench: Bench, name: string, lines: number): number {
  return lines * taskHz(bench, name);
}

function printTop(patterns: readonly LogPattern[], n: number): void {
  for (const p of patterns.slice(0, n)) console.log(`  ${String(p.count).padStart(6)}  ${p.template}`);
}

/** main runs the benchmark and prints lines per second for each task. */
export async function main(): Promise<void> {
  const mixed = mixedLines(LINES);
  const unique = uniqueLines(LINES);
  const mb = mixed.reduce((n, l) => n + l.length, 0) / 1e6;

  // Each iteration mines all 100k lines, so a few iterations are plenty.
  const bench = new Bench({ time: 0, iterations: 8, warmupTime: 0, warmupIterations: 1 });
  bench
    .add('mine mixed lines', () => void mineAll(mixed))
    .add('tokenise only', () => {
      for (const line of mixed) tokenizeLine(line, 2048);
    })
    .add('mine unique lines (evicting)', () => void mineAll(unique));
  await bench.run();

  const miner = mineAll(mixed);
  const patterns = miner.patterns();
  const evicting = mineAll(unique).stats();
  console.log(`\nDrain template mining over ${LINES} mixed lines (${mb.toFixed(1)} MB), ${patterns.length} patterns:`);
  printTop(patterns, 8);
  console.log(`  mine mixed lines             ${fmtRate(linesPerSecond(bench, 'mine mixed lines', LINES)).padStart(8)} lines/s`);
  console.log(`  tokenise only                ${fmtRate(linesPerSecond(bench, 'tokenise only', LINES)).padStart(8)} lines/s`);
  console.log(
    `  mine unique lines (evicting) ${fmtRate(linesPerSecond(bench, 'mine unique lines (evicting)', LINES)).padStart(8)} lines/s` +
      ` (${evicting.clusters} clusters kept, ${evicting.evicted} evicted)`,
  );
  console.log('');
  console.table(bench.table());
}

runWhenDirect(import.meta.url, main);
