/**
 * quantile_over_time over one series as a range query evaluates it (slideWindows): the series
 * sorted once and its windows' order statistics read from a Fenwick tree (SlidingQuantile)
 * against each window's samples copied and sorted (quantileOf), over 6 hours of 200,000
 * samples at a 15 s step, for a short window and a long one. Both run in one process,
 * alternated by tinybench, so only the ratio matters.
 *
 * Run: npx tsc -p tsconfig.json && node dist/bench/logql/quantileOverTime.bench.js
 */
import { Bench } from 'tinybench';
import { quantileOf, slideWindows } from '../../engine/logql/eval/metric/rangeKernels.js';
import { runWhenDirect } from '../runDirect.js';
import { seededRandom } from '../seededRandom.js';
import { taskMedianMs } from '../taskResult.js';

const SAMPLES = 200_000;
const SPAN_NS = 6 * 3600e9;
const STEP_NS = 15e9;

/** sortedPerWindow is the way before SlidingQuantile: every window copied and sorted. */
function sortedPerWindow(ts: Float64Array, values: Float64Array, ends: Float64Array, rangeNs: number, out: Float64Array): void {
  const scratch = new Float64Array(values.length);
  let lo = 0;
  let hi = 0;
  for (let j = 0; j < ends.length; j++) {
    while (hi < ts.length && ts[hi] <= ends[j]) hi++;
    while (lo < hi && ts[lo] <= ends[j] - rangeNs) lo++;
    out[j] = hi > lo ? quantileOf(0.99, values, lo, hi, scratch) : NaN;
  }
}

export async function main(): Promise<void> {
  const random = seededRandom(7);
  const ts = Float64Array.from({ length: SAMPLES }, (_, i) => (i / SAMPLES) * SPAN_NS);
  const values = Float64Array.from({ length: SAMPLES }, () => Math.floor(random() * random() * 2000));
  const ends = Float64Array.from({ length: SPAN_NS / STEP_NS }, (_, j) => (j + 1) * STEP_NS);
  const samples = { labels: { key: '{}', labels: {} }, ts, values, length: SAMPLES };
  const bench = new Bench({ time: 0, iterations: 5, warmup: true, warmupIterations: 1, warmupTime: 0 });
  const windows = [
    { name: '[5m]', rangeNs: 300e9 },
    { name: '[1h]', rangeNs: 3600e9 },
  ];
  for (const w of windows) {
    const sliding = { values: new Float64Array(ends.length), present: new Uint8Array(ends.length) };
    const sorted = new Float64Array(ends.length);
    slideWindows('quantile_over_time', samples, { ends, rangeNs: w.rangeNs }, 0.99, true, sliding);
    sortedPerWindow(ts, values, ends, w.rangeNs, sorted);
    for (let j = 0; j < ends.length; j++) {
      if (!Object.is(sliding.values[j], sorted[j])) throw new Error(`${w.name}: step ${j} answers ${sliding.values[j]} against ${sorted[j]}`);
    }
    bench.add(`${w.name} sorted per window`, () => sortedPerWindow(ts, values, ends, w.rangeNs, sorted));
    bench.add(`${w.name} sliding`, () => void slideWindows('quantile_over_time', samples, { ends, rangeNs: w.rangeNs }, 0.99, true, sliding));
  }
  await bench.run();
  console.log(`${SAMPLES} samples over 6 h, ${ends.length} steps (median ms; ratio sliding / sorted per window)`);
  for (const w of windows) {
    const sorted = taskMedianMs(bench, `${w.name} sorted per window`);
    const sliding = taskMedianMs(bench, `${w.name} sliding`);
    console.log(`  ${w.name.padEnd(8)}${sorted.toFixed(1).padStart(10)}${sliding.toFixed(1).padStart(10)}${`${(sliding / sorted).toFixed(2)}x`.padStart(9)}`);
  }
}

runWhenDirect(import.meta.url, main);
