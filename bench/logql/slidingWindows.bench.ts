/**
 * quantile_over_time and max_over_time over one series as a range query evaluates them
 * (slideWindows): the series sorted once and its windows' order statistics read from a
 * Fenwick tree (SlidingQuantile), the maximum kept in a queue (SlidingExtreme), against each
 * window's samples read again at every step (sorted by quantileOf, scanned for the maximum),
 * over 6 hours of 200,000 samples at a 15 s step, for a short window and a long one. Both run
 * in one process, alternated by tinybench, so only the ratio matters.
 *
 * Run: npx tsc -p tsconfig.json && node dist/bench/logql/slidingWindows.bench.js
 */
import { Bench } from 'tinybench';
import { quantileOf, slideWindows } from '../../engine/logql/eval/metric/rangeKernels.js';
import { runWhenDirect } from '../runDirect.js';
import { seededRandom } from '../seededRandom.js';
import { taskMedianMs } from '../taskResult.js';

const SAMPLES = 200_000;
const SPAN_NS = 6 * 3600e9;
const STEP_NS = 15e9;

type Op = 'quantile_over_time' | 'max_over_time';

/** perWindow is the way before the sliding structures: every window read again (for a quantile, copied and sorted). */
function perWindow(op: Op, ts: Float64Array, values: Float64Array, ends: Float64Array, rangeNs: number, out: Float64Array): void {
  const scratch = new Float64Array(values.length);
  let lo = 0;
  let hi = 0;
  for (let j = 0; j < ends.length; j++) {
    while (hi < ts.length && ts[hi] <= ends[j]) hi++;
    while (lo < hi && ts[lo] <= ends[j] - rangeNs) lo++;
    if (hi === lo) {
      out[j] = NaN;
    } else if (op === 'quantile_over_time') {
      out[j] = quantileOf(0.99, values, lo, hi, scratch);
    } else {
      let m = values[lo];
      for (let i = lo; i < hi; i++) if (values[i] > m || m !== m) m = values[i];
      out[j] = m;
    }
  }
}

export async function main(): Promise<void> {
  const random = seededRandom(7);
  const ts = Float64Array.from({ length: SAMPLES }, (_, i) => (i / SAMPLES) * SPAN_NS);
  const values = Float64Array.from({ length: SAMPLES }, () => Math.floor(random() * random() * 2000));
  const ends = Float64Array.from({ length: SPAN_NS / STEP_NS }, (_, j) => (j + 1) * STEP_NS);
  const samples = { labels: { key: '{}', labels: {} }, ts, values, length: SAMPLES };
  const bench = new Bench({ time: 0, iterations: 5, warmup: true, warmupIterations: 1, warmupTime: 0 });
  const cases = (['quantile_over_time', 'max_over_time'] as const).flatMap((op) => [
    { op, name: `${op} [5m]`, rangeNs: 300e9 },
    { op, name: `${op} [1h]`, rangeNs: 3600e9 },
  ]);
  for (const c of cases) {
    const sliding = { values: new Float64Array(ends.length), present: new Uint8Array(ends.length) };
    const before = new Float64Array(ends.length);
    slideWindows(c.op, samples, { ends, rangeNs: c.rangeNs }, 0.99, true, sliding);
    perWindow(c.op, ts, values, ends, c.rangeNs, before);
    for (let j = 0; j < ends.length; j++) {
      if (!Object.is(sliding.values[j], before[j])) throw new Error(`${c.name}: step ${j} answers ${sliding.values[j]} against ${before[j]}`);
    }
    bench.add(`${c.name} per window`, () => perWindow(c.op, ts, values, ends, c.rangeNs, before));
    bench.add(`${c.name} sliding`, () => void slideWindows(c.op, samples, { ends, rangeNs: c.rangeNs }, 0.99, true, sliding));
  }
  await bench.run();
  console.log(`${SAMPLES} samples over 6 h, ${ends.length} steps (median ms; ratio sliding / per window)`);
  for (const c of cases) {
    const before = taskMedianMs(bench, `${c.name} per window`);
    const sliding = taskMedianMs(bench, `${c.name} sliding`);
    console.log(`  ${c.name.padEnd(26)}${before.toFixed(1).padStart(10)}${sliding.toFixed(1).padStart(10)}${`${(sliding / before).toFixed(2)}x`.padStart(9)}`);
  }
}

runWhenDirect(import.meta.url, main);
