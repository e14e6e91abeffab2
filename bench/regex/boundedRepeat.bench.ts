/**
 * Bounded repeats such as `a{2,1000}`: the cost a query pays to compile the pattern once and
 * run it over a handful of short lines, which is what a LogQL line filter or a label matcher
 * does per query. Compilation dominates here: a large counted repeat expands to thousands of
 * instructions, and any analysis that is worse than linear in that expansion shows up as
 * seconds per query. Reports milliseconds per query (compile + match 40 lines) per pattern.
 *
 * Run: npx tsc -p tsconfig.json && node dist/bench/regex/boundedRepeat.bench.js
 */
import { Bench } from 'tinybench';
import { compileRegex, type CompileOptions } from '../../engine/regex/index.js';
import { runWhenDirect } from '../runDirect.js';
import { completedResult } from '../taskResult.js';

/** RepeatCase is one pattern, compiled as a line filter (unanchored) or a label matcher. */
interface RepeatCase {
  pattern: string;
  options: CompileOptions;
  /** exec runs the submatch search (regexp stage, label_replace) instead of test. */
  exec: boolean;
}

const CASES: readonly RepeatCase[] = [
  { pattern: 'a{2,1000}', options: {}, exec: false },
  { pattern: 'a{2,1000}', options: {}, exec: true },
  { pattern: 'a{2,1000}', options: { anchored: true }, exec: false },
  { pattern: '(ab){1,500}', options: {}, exec: false },
  { pattern: 'id=[0-9a-f]{2,1000} ', options: {}, exec: false },
  { pattern: '[a-z]{2,1000}=', options: { anchored: true }, exec: false },
];

/** shortLines builds 40 short log lines, some with runs of `a`. */
function shortLines(): string[] {
  const out: string[] = [];
  for (let i = 0; i < 40; i++) {
    out.push(`ts=${1700000000 + i} level=info id=${(i * 2654435761).toString(16)} msg="${'a'.repeat(i % 7)}b done" ab=${'ab'.repeat(i % 4)}`);
  }
  return out;
}

function label(c: RepeatCase): string {
  return `${c.pattern} ${c.options.anchored === true ? 'anchored' : 'search'} ${c.exec ? 'exec' : 'test'}`;
}

/** main measures compile + 40 matches per case and prints milliseconds per query. */
export async function main(): Promise<void> {
  const lines = shortLines();
  const bench = new Bench({ time: 300, iterations: 3 });
  for (const c of CASES) {
    bench.add(label(c), () => {
      const re = compileRegex(c.pattern, c.options);
      let n = 0;
      for (const line of lines) if (c.exec ? re.exec(line) !== null : re.test(line)) n++;
      return void n;
    });
  }
  await bench.run();
  const table: Record<string, string | number>[] = [];
  for (const c of CASES) {
    const result = completedResult(bench, label(c));
    const re = compileRegex(c.pattern, c.options);
    table.push({ case: label(c), matcher: re.strategy, 'ms per query (compile + 40 lines)': Number(result.latency.mean.toFixed(3)) });
  }
  console.table(table);
}

runWhenDirect(import.meta.url, main);
