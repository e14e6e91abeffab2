/**
 * Range functions over series held in parts: 2,000 counters whose 12 hours lie in two
 * segments and the head (runs of 6 h, 4.5 h and 1.5 h at a 15 s scrape), `sum(rate(x[5m]))` at a
 * 120 s step, evaluated with the runs kept apart (each window in the run that holds it) against
 * the same querier joining each series' runs first (what every query did before), after checking
 * both give the same values.
 *
 * Run: npx tsc -p tsconfig.json && node dist/bench/promql/runWindows.bench.js
 */
import { Bench } from 'tinybench';
import { evaluateRange } from '../../engine/promql/eval/index.js';
import { parseAndCheckPromQL } from '../../engine/promql/index.js';
import type { Labels } from '../../engine/storage/labels.js';
import { compileMatchers, matchesAll, type LabelMatcher } from '../../engine/storage/matchers.js';
import type { MetricQuerier } from '../../engine/storage/metricHead.js';
import { lowerBound, upperBound } from '../../engine/storage/bounds.js';
import type { SeriesColumns } from '../../engine/storage/seriesColumns.js';
import { mergeSeriesRuns, seriesRunsOf, type SeriesRuns } from '../../engine/storage/seriesMerge.js';
import { runWhenDirect } from '../runDirect.js';
import { taskMeanMs } from '../taskResult.js';
import { seededRandom } from '../seededRandom.js';

const SERIES = 2_000;
const SCRAPE_MS = 15_000;
const HOUR_MS = 3_600_000;
/** RUN_HOURS are the lengths of the parts, oldest first: a segment, the next, the head. */
const RUN_HOURS = [6, 4.5, 1.5];
const STEP_MS = 120_000;

/** PartedQuerier holds every series as runs and answers `select` joined, `selectRuns` (when kept) apart. */
class PartedQuerier implements MetricQuerier {
  readonly series: { labels: Labels; runs: SeriesColumns[] }[] = [];

  constructor() {
    const random = seededRandom(11);
    for (let s = 0; s < SERIES; s++) {
      const labels: Labels = { __name__: 'requests_total', instance: `i-${s % 100}`, route: `/r${Math.floor(s / 100)}` };
      let at = 0;
      let value = 0;
      const runs = RUN_HOURS.map((hours) => {
        const n = (hours * HOUR_MS) / SCRAPE_MS;
        const timestampsMs = new Float64Array(n);
        const values = new Float64Array(n);
        for (let i = 0; i < n; i++) {
          timestampsMs[i] = (at + i) * SCRAPE_MS;
          value = random() < 0.001 ? 0 : value + Math.floor(random() * 40);
          values[i] = value;
        }
        at += n;
        return { labels, timestampsMs, values, staleFree: true };
      });
      this.series.push({ labels, runs });
    }
  }

  private matching(matchers: readonly LabelMatcher[], minMs: number, maxMs: number): SeriesColumns[][] {
    const compiled = compileMatchers(matchers);
    return this.series
      .filter((s) => matchesAll(s.labels, compiled))
      .map((s) =>
        s.runs.map((r) => {
          const from = lowerBound(r.timestampsMs, minMs);
          const to = upperBound(r.timestampsMs, maxMs);
          return { labels: r.labels, timestampsMs: r.timestampsMs.subarray(from, to), values: r.values.subarray(from, to), staleFree: true };
        }),
      );
  }

  select(matchers: readonly LabelMatcher[], minMs: number, maxMs: number): SeriesColumns[] {
    return this.matching(matchers, minMs, maxMs).map(mergeSeriesRuns);
  }

  selectRuns(matchers: readonly LabelMatcher[], minMs: number, maxMs: number): SeriesRuns[] {
    return this.matching(matchers, minMs, maxMs).map(seriesRunsOf);
  }

  labelNames(): string[] {
    return ['__name__', 'instance', 'route'];
  }

  labelValues(): string[] {
    return [];
  }
}

export async function main(): Promise<void> {
  const parted = new PartedQuerier();
  // The same data with `selectRuns` hidden: the evaluator then reads every series joined.
  const joined: MetricQuerier = { select: (m, a, b) => parted.select(m, a, b), labelNames: () => parted.labelNames(), labelValues: () => parted.labelValues() };
  const expr = parseAndCheckPromQL('sum by (route) (rate(requests_total[5m]))');
  const endMs = RUN_HOURS.reduce((a, b) => a + b, 0) * HOUR_MS - SCRAPE_MS;
  const evaluate = (querier: MetricQuerier): SeriesColumns[] => evaluateRange(expr, querier, 10 * 60_000, endMs, STEP_MS).series;
  const apart = evaluate(parted);
  const together = evaluate(joined);
  if (apart.length !== together.length || apart.length === 0) throw new Error(`${apart.length} series against ${together.length}`);
  apart.forEach((s, k) => {
    s.values.forEach((v, i) => {
      if (!Object.is(v, together[k].values[i])) throw new Error(`series ${k} step ${i}: ${v} vs ${together[k].values[i]}`);
    });
  });
  const bench = new Bench({ time: 2_000, warmup: true, warmupTime: 500 });
  bench.add('runs kept apart', () => void evaluate(parted));
  bench.add('runs joined (replaced)', () => void evaluate(joined));
  await bench.run();
  const a = taskMeanMs(bench, 'runs kept apart');
  const b = taskMeanMs(bench, 'runs joined (replaced)');
  console.log(`\nsum by (route) (rate(x[5m])), ${SERIES} series in runs of ${RUN_HOURS.join(' + ')} h, step ${STEP_MS / 1000} s`);
  console.log(`  runs kept apart ${a.toFixed(1)} ms   joined ${b.toFixed(1)} ms   ratio ${(a / b).toFixed(2)}x`);
}

runWhenDirect(import.meta.url, main);
