/**
 * histogram_quantile over classic histograms: 50 histograms of 10 buckets, 721 steps, through
 * the evaluator (each histogram's buckets ordered by bound once, a step's gathered already
 * sorted into one reused array) against the per-step way it replaced in the same run (each
 * step's buckets gathered into new arrays, sorted and coalesced, then the quantile:
 * `bucketQuantile`), after checking both give the same values.
 *
 * Run: npx tsc -p tsconfig.json && node dist/bench/promql/classicHistogram.bench.js
 */
import { Bench } from 'tinybench';
import { parseAndCheckPromQL } from '../../engine/promql/index.js';
import { evaluateRange } from '../../engine/promql/eval/index.js';
import { bucketQuantile } from '../../engine/promql/eval/classicHistogram.js';
import type { Labels } from '../../engine/storage/labels.js';
import { compileMatchers, matchesAll, type LabelMatcher } from '../../engine/storage/matchers.js';
import { lowerBound, upperBound, type MetricQuerier } from '../../engine/storage/metricHead.js';
import type { SeriesColumns } from '../../engine/storage/seriesColumns.js';
import { runWhenDirect } from '../runDirect.js';
import { taskMeanMs } from '../taskResult.js';
import { seededRandom } from '../seededRandom.js';

const HISTOGRAMS = 50;
const BOUNDS = ['0.005', '0.01', '0.025', '0.05', '0.1', '0.25', '0.5', '1', '2.5', '+Inf'];
const STEPS = 721;
const STEP_MS = 30_000;
const Q = 0.9;

/** BucketQuerier serves every bucket series at every step's time, as a gauge read without a range. */
class BucketQuerier implements MetricQuerier {
  readonly timestamps = Float64Array.from({ length: STEPS }, (_, i) => i * STEP_MS);
  readonly series: { labels: Labels; values: Float64Array }[] = [];

  constructor() {
    const random = seededRandom(3);
    for (let h = 0; h < HISTOGRAMS; h++) {
      const cumulative = Array.from({ length: STEPS }, () => 0);
      BOUNDS.forEach((le) => {
        const values = new Float64Array(STEPS);
        for (let i = 0; i < STEPS; i++) values[i] = cumulative[i] += Math.floor(random() * 20);
        this.series.push({ labels: { __name__: 'latency_bucket', route: `/r${h}`, le }, values });
      });
    }
  }

  select(matchers: readonly LabelMatcher[], minMs: number, maxMs: number): SeriesColumns[] {
    const compiled = compileMatchers(matchers);
    const from = lowerBound(this.timestamps, minMs);
    const to = upperBound(this.timestamps, maxMs);
    return this.series.filter((s) => matchesAll(s.labels, compiled)).map((s) => ({ labels: s.labels, timestampsMs: this.timestamps.subarray(from, to), values: s.values.subarray(from, to) }));
  }

  labelNames(): string[] {
    return ['__name__', 'le', 'route'];
  }

  labelValues(name: string): string[] {
    return [...new Set(this.series.map((s) => s.labels[name] ?? ''))].sort();
  }
}

/** perStep is the replaced way: every step's buckets gathered anew, sorted and coalesced, per histogram. */
function perStep(querier: BucketQuerier): Float64Array[] {
  const out: Float64Array[] = [];
  for (let h = 0; h < HISTOGRAMS; h++) {
    const members = querier.series.slice(h * BOUNDS.length, (h + 1) * BOUNDS.length);
    const values = new Float64Array(STEPS);
    for (let i = 0; i < STEPS; i++) {
      const buckets = { bounds: [] as number[], counts: [] as number[] };
      for (const m of members) {
        buckets.bounds.push(m.labels.le === '+Inf' ? Infinity : Number(m.labels.le));
        buckets.counts.push(m.values[i]);
      }
      values[i] = bucketQuantile(Q, buckets).value;
    }
    out.push(values);
  }
  return out;
}

export async function main(): Promise<void> {
  const querier = new BucketQuerier();
  const expr = parseAndCheckPromQL(`histogram_quantile(${Q}, latency_bucket)`);
  const endMs = (STEPS - 1) * STEP_MS;
  const evaluate = (): SeriesColumns[] => evaluateRange(expr, querier, 0, endMs, STEP_MS).series;
  const ours = evaluate();
  const theirs = perStep(querier);
  ours.forEach((s, h) => {
    const want = theirs[Number(s.labels.route.slice(2))];
    s.values.forEach((v, i) => {
      if (!Object.is(v, want[i])) throw new Error(`histogram ${s.labels.route} step ${i}: ${v} vs ${want[i]}`);
    });
    if (s.values.length !== STEPS) throw new Error(`histogram ${h}: ${s.values.length} steps`);
  });
  const bench = new Bench({ time: 1_000, warmup: true, warmupTime: 300 });
  bench.add('evaluator', () => void evaluate());
  bench.add('per-step sort (replaced)', () => void perStep(querier));
  await bench.run();
  const mean = (name: string): number => taskMeanMs(bench, name);
  const a = mean('evaluator');
  const b = mean('per-step sort (replaced)');
  console.log(`\nhistogram_quantile, ${HISTOGRAMS} histograms x ${BOUNDS.length} buckets x ${STEPS} steps`);
  console.log(`  evaluator (selection and grouping included) ${a.toFixed(2)} ms   per-step sort ${b.toFixed(2)} ms   ratio ${(a / b).toFixed(2)}x`);
}

runWhenDirect(import.meta.url, main);
