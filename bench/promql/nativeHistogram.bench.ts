/**
 * Native histograms against classic `_bucket` series carrying the same observations:
 * `histogram_quantile(0.9, rate(x[5m]))` and `histogram_quantile(0.9, sum(rate(x[5m])))` as 1m
 * step range queries, each timed next to the classic form (`rate(x_bucket[5m])`, `sum by (le)`)
 * in the same run and printed as a ratio. Both sides read memory (the in-memory histogram
 * querier and the float head), so the ratio compares the evaluators, not storage.
 *
 * Run: npx tsc -p tsconfig.json && node dist/bench/promql/nativeHistogram.bench.js
 * Scale with BENCH_SERIES (default 200) and BENCH_HOURS (default 6).
 *
 * BENCH_BASELINE_DIST names the `dist` directory of another build (say the previous commit,
 * exported with `git archive` and compiled): its evaluator then runs the same native queries
 * over the same data in the same run, and the speed of this build's against it is printed.
 */
import { Bench } from 'tinybench';
import { parseAndCheckPromQL } from '../../engine/promql/index.js';
import { evaluateRange } from '../../engine/promql/eval/index.js';
import { CUSTOM_BUCKETS_SCHEMA, emptyHistogram, type FloatHistogram } from '../../engine/histogram/floatHistogram.js';
import { HistogramQuerier } from '../../engine/histogram/histogramQuerier.js';
import { storedHints } from '../../engine/histogram/storedHints.js';
import { MetricHead } from '../../engine/storage/metricHead.js';
import { runWhenDirect } from '../runDirect.js';
import { pathToFileURL } from 'node:url';
import path from 'node:path';
import { taskHz } from '../taskResult.js';
import { seededRandom } from '../seededRandom.js';

/** Engine is the parse and evaluate pair of one build. */
interface Engine {
  parse: typeof parseAndCheckPromQL;
  evaluate: typeof evaluateRange;
}

/** baselineEngine loads the evaluator of the build BENCH_BASELINE_DIST names, if any. */
async function baselineEngine(): Promise<Engine | undefined> {
  const dir = process.env.BENCH_BASELINE_DIST;
  if (dir === undefined || dir === '') return undefined;
  const load = async <T>(rel: string): Promise<T> => (await import(pathToFileURL(path.resolve(dir, rel)).href)) as T;
  const { parseAndCheckPromQL: parse } = await load<{ parseAndCheckPromQL: Engine['parse'] }>('engine/promql/index.js');
  const { evaluateRange: evaluate } = await load<{ evaluateRange: Engine['evaluate'] }>('engine/promql/eval/index.js');
  return { parse, evaluate };
}

const SERIES = Number(process.env.BENCH_SERIES ?? 200);
const HOURS = Number(process.env.BENCH_HOURS ?? 6);
const SCRAPE_MS = 15_000;
const STEP_MS = 60_000;
/** BOUNDS are the bucket bounds of both forms (the native one as custom buckets). */
const BOUNDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** build generates SERIES latency histograms, stored both as native histograms and as classic series. */
function build(): { querier: HistogramQuerier; samples: number } {
  const points = (HOURS * 3600_000) / SCRAPE_MS + 1;
  const ts = Float64Array.from({ length: points }, (_, i) => i * SCRAPE_MS);
  const head = new MetricHead();
  const querier = new HistogramQuerier(head);
  const customValues = Float64Array.from(BOUNDS);
  const index = Int32Array.from({ length: BOUNDS.length + 1 }, (_, k) => k);
  const random = seededRandom(7);
  for (let s = 0; s < SERIES; s++) {
    const perBucket = new Float64Array(BOUNDS.length + 1);
    const classic = Array.from({ length: BOUNDS.length + 1 }, () => new Float64Array(points));
    const histograms: FloatHistogram[] = [];
    let sum = 0;
    for (let i = 0; i < points; i++) {
      for (let k = 0; k < perBucket.length; k++) perBucket[k] += Math.floor(random() * (8 - Math.abs(k - 5)));
      sum += random() * 10;
      let cumulative = 0;
      for (let k = 0; k < perBucket.length; k++) classic[k][i] = cumulative += perBucket[k];
      histograms.push({ ...emptyHistogram(), schema: CUSTOM_BUCKETS_SCHEMA, customValues, posIndex: index, posCount: perBucket.slice(), count: cumulative, sum });
    }
    const instance = `host-${s}`;
    querier.add({ labels: { __name__: 'lat', instance }, timestampsMs: ts, values: new Float64Array(points), histograms: storedHints(histograms) });
    classic.forEach((values, k) => {
      const le = k < BOUNDS.length ? String(BOUNDS[k]) : '+Inf';
      head.append({ labels: { __name__: 'lat_bucket', instance, le }, timestampsMs: ts, values, stale: new Uint8Array(points) });
    });
  }
  return { querier, samples: SERIES * points };
}

/** main builds the data, checks both forms agree, times them and prints native/classic ratios. */
export async function main(): Promise<void> {
  const { querier, samples } = build();
  console.log(`${SERIES} series x ${HOURS}h at 15s: ${samples} native histogram samples, ${samples * (BOUNDS.length + 1)} classic bucket samples`);
  const end = HOURS * 3600_000;
  const start = 5 * 60_000;
  const pairs = [
    { name: 'quantile(rate)', native: 'histogram_quantile(0.9, rate(lat[5m]))', classic: 'histogram_quantile(0.9, rate(lat_bucket[5m]))' },
    { name: 'quantile(sum(rate))', native: 'histogram_quantile(0.9, sum(rate(lat[5m])))', classic: 'histogram_quantile(0.9, sum by (le) (rate(lat_bucket[5m])))' },
  ];
  for (const p of pairs) {
    const a = evaluateRange(parseAndCheckPromQL(p.native), querier, end - 3600_000, end, STEP_MS).series;
    const b = evaluateRange(parseAndCheckPromQL(p.classic), querier, end - 3600_000, end, STEP_MS).series;
    const worst = Math.max(...a.flatMap((s, i) => Array.from(s.values, (v, j) => Math.abs(v - b[i].values[j]) / Math.max(1e-12, Math.abs(v)))));
    if (a.length !== b.length || !(worst < 1e-9)) throw new Error(`${p.name}: native and classic results differ (worst relative ${worst})`);
  }
  const bench = new Bench({ time: 0, iterations: 3, warmup: true, warmupIterations: 1, warmupTime: 0 });
  for (const p of pairs) {
    const native = parseAndCheckPromQL(p.native);
    const classic = parseAndCheckPromQL(p.classic);
    bench.add(`${p.name} native`, () => void evaluateRange(native, querier, start, end, STEP_MS));
    bench.add(`${p.name} classic`, () => void evaluateRange(classic, querier, start, end, STEP_MS));
  }
  const baseline = await baselineEngine();
  if (baseline !== undefined) {
    for (const p of pairs) {
      const native = baseline.parse(p.native);
      const classic = baseline.parse(p.classic);
      bench.add(`${p.name} native (baseline)`, () => void baseline.evaluate(native, querier, start, end, STEP_MS));
      bench.add(`${p.name} classic (baseline)`, () => void baseline.evaluate(classic, querier, start, end, STEP_MS));
    }
  }
  await bench.run();
  console.log(`\nRange queries over ${HOURS}h at a 1m step (native/classic > 1 means native histograms are faster)`);
  for (const p of pairs) {
    console.log(`  ${p.name.padEnd(22)} native/classic = ${(taskHz(bench, `${p.name} native`) / taskHz(bench, `${p.name} classic`)).toFixed(2)}x`);
    if (baseline === undefined) continue;
    console.log(`  ${''.padEnd(22)} baseline native/classic = ${(taskHz(bench, `${p.name} native (baseline)`) / taskHz(bench, `${p.name} classic (baseline)`)).toFixed(2)}x`);
    console.log(`  ${''.padEnd(22)} native this build/baseline = ${(taskHz(bench, `${p.name} native`) / taskHz(bench, `${p.name} native (baseline)`)).toFixed(2)}x`);
  }
  console.table(bench.table());
}

runWhenDirect(import.meta.url, main);
