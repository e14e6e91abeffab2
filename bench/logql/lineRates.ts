/**
 * The report the per-line LogQL benchmarks share: each task's mean rate in lines per second,
 * then tinybench's own table. A task that did not complete fails the benchmark.
 */
import type { Bench } from 'tinybench';
import { fmtRate } from './data.js';
import { taskHz } from '../taskResult.js';

/** printLineRates prints `title` and the rate of each named task, one pass being `linesPerRun` lines. */
export function printLineRates(bench: Bench, title: string, names: readonly string[], linesPerRun: number): void {
  console.log(`\n${title}`);
  for (const name of names) {
    console.log(`  ${name.padEnd(24)} ${fmtRate(taskHz(bench, name) * linesPerRun).padStart(8)} lines/s`);
  }
  console.log('');
  console.table(bench.table());
}
