/**
 * Dashboard validation time for generated specs: 10,000 panels tiled without overlap (each with
 * its own PromQL query, so most of the time is parsing queries), 10,000 cells stacked on one spot
 * (the overlap sweep and the capped finding list), and, for scale, the 2,000 stacked cells that
 * took 14 s or more when every pair of cells was compared. Validation is the schema check and
 * lint together, as the validate endpoint runs them; the schema is compiled before timing.
 *
 * Run: npx tsc -p tsconfig.json && node dist/bench/dashboards/lint.bench.js
 */
import { Bench } from 'tinybench';
import { createDashboardValidator } from '../../src/dashboards/index.js';
import { manyPanelsSpec } from './manyPanels.js';
import { runWhenDirect } from '../runDirect.js';
import { completedResult } from '../taskResult.js';

const CASES = [
  { name: 'validate 10,000 panels, tiled', spec: manyPanelsSpec(10_000, 'tiled') },
  { name: 'validate 10,000 panels, stacked', spec: manyPanelsSpec(10_000, 'stacked') },
  { name: 'validate 2,000 panels, stacked', spec: manyPanelsSpec(2_000, 'stacked') },
];

/** main times each case and prints the mean, p99 and the size of the answer. */
export async function main(): Promise<void> {
  const validator = createDashboardValidator();
  validator.validate(manyPanelsSpec(2, 'tiled'), { mode: 'create' });

  // Time the first run of each case on its own: a server validates a large spec cold, once.
  for (const c of CASES) {
    const cpu = process.cpuUsage();
    const started = performance.now();
    const result = validator.validate(c.spec, { mode: 'create' });
    const wall = performance.now() - started;
    const used = process.cpuUsage(cpu);
    console.log(
      `  first run, ${c.name.padEnd(32)} ${wall.toFixed(0).padStart(5)} ms wall, ${((used.user + used.system) / 1000).toFixed(0).padStart(5)} ms CPU;` +
        ` answer ${JSON.stringify(result).length} bytes, ${result.warnings.length} warnings listed, ${result.truncated?.warnings ?? 0} counted`,
    );
  }

  const bench = new Bench({ time: 0, iterations: 10, warmupTime: 0, warmupIterations: 2 });
  for (const c of CASES) bench.add(c.name, () => void validator.validate(c.spec, { mode: 'create' }));
  await bench.run();
  console.log('');
  for (const c of CASES) {
    const result = completedResult(bench, c.name);
    console.log(`  ${c.name.padEnd(32)} mean ${result.latency.mean.toFixed(0).padStart(5)} ms, p99 ${result.latency.p99.toFixed(0).padStart(5)} ms`);
  }
  console.log('');
  console.table(bench.table());
}

runWhenDirect(import.meta.url, main);
