/**
 * Range functions over series held in parts: 2,000 counters whose 12 hours lie in two
 * segments and the head (runs of 6 h, 4.5 h and 1.5 h at a 15 s scrape), `sum(rate(x[5m]))` at a
 * 120 s step, evaluated with the runs kept apart (each window in the run that holds it) against
 * the same querier joining each series' runs first (what every query did before), after checking
 * both give the same values. Then the same with every series' runs sharing one timestamp array
 * per run, as series scraped together share a segment's timestamp column: their windows are
 * found once per array instead of per series, and rate's extrapolation from the windows' times
 * is derived once per array too (at this 120 s step the counter-reset scan, 8 samples a window,
 * is most of what remains). Last, counters that never reset (a healthy service's hours), read
 * with and without storage's word that their runs are free of resets, which spares rate that scan;
 * and deriv, whose sample times in seconds are worked out once per shared timestamp array.
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
const DASHBOARD_STEP_MS = 30_000;

/** PartedQuerier holds every series as runs and answers `select` joined, `selectRuns` (when kept) apart. */
class PartedQuerier implements MetricQuerier {
  readonly series: { labels: Labels; runs: SeriesColumns[] }[] = [];

  /**
   * With `shareTimestamps` every series' run k holds the same timestamp array, and a selection
   * hands each series the same view of it. Counters reset now and then unless `resets` is false;
   * with `flagResets` each run says whether it is free of resets, as segments do.
   */
  constructor(
    private readonly shareTimestamps: boolean,
    resets = true,
    private readonly flagResets = false,
  ) {
    const random = seededRandom(11);
    const shared: Float64Array[] = [];
    for (let s = 0; s < SERIES; s++) {
      const labels: Labels = { __name__: 'requests_total', instance: `i-${s % 100}`, route: `/r${Math.floor(s / 100)}` };
      let at = 0;
      let value = 0;
      const runs = RUN_HOURS.map((hours, k) => {
        const n = (hours * HOUR_MS) / SCRAPE_MS;
        const timestampsMs = (shareTimestamps ? shared[k] : undefined) ?? new Float64Array(n);
        shared[k] = timestampsMs;
        const values = new Float64Array(n);
        for (let i = 0; i < n; i++) {
          timestampsMs[i] = (at + i) * SCRAPE_MS;
          value = resets && random() < 0.001 ? 0 : value + Math.floor(random() * 40);
          values[i] = value;
        }
        at += n;
        const resetFree = flagResets && values.every((v, i) => i === 0 || v >= values[i - 1]);
        return { labels, timestampsMs, values, staleFree: true, resetFree };
      });
      this.series.push({ labels, runs });
    }
  }

  private matching(matchers: readonly LabelMatcher[], minMs: number, maxMs: number): SeriesColumns[][] {
    const compiled = compileMatchers(matchers);
    const views = new Map<Float64Array, Float64Array>();
    return this.series
      .filter((s) => matchesAll(s.labels, compiled))
      .map((s) =>
        s.runs.map((r) => {
          const from = lowerBound(r.timestampsMs, minMs);
          const to = upperBound(r.timestampsMs, maxMs);
          let timestampsMs = this.shareTimestamps ? views.get(r.timestampsMs) : undefined;
          if (timestampsMs === undefined) {
            timestampsMs = r.timestampsMs.subarray(from, to);
            views.set(r.timestampsMs, timestampsMs);
          }
          return { labels: r.labels, timestampsMs, values: r.values.subarray(from, to), staleFree: true, resetFree: this.flagResets && r.resetFree };
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

/** sameValues throws unless both answers hold the same series with the same values. */
function sameValues(ours: SeriesColumns[], theirs: SeriesColumns[]): void {
  if (ours.length !== theirs.length || ours.length === 0) throw new Error(`${ours.length} series against ${theirs.length}`);
  ours.forEach((s, k) => {
    s.values.forEach((v, i) => {
      if (!Object.is(v, theirs[k].values[i])) throw new Error(`series ${k} step ${i}: ${v} vs ${theirs[k].values[i]}`);
    });
  });
}

export async function main(): Promise<void> {
  const parted = new PartedQuerier(false);
  const sharing = new PartedQuerier(true);
  // The same data with `selectRuns` hidden: the evaluator then reads every series joined.
  const joined: MetricQuerier = { select: (m, a, b) => parted.select(m, a, b), labelNames: () => parted.labelNames(), labelValues: () => parted.labelValues() };
  const expr = parseAndCheckPromQL('sum by (route) (rate(requests_total[5m]))');
  const endMs = RUN_HOURS.reduce((a, b) => a + b, 0) * HOUR_MS - SCRAPE_MS;
  const evaluate = (querier: MetricQuerier): SeriesColumns[] => evaluateRange(expr, querier, 10 * 60_000, endMs, STEP_MS).series;
  const apart = evaluate(parted);
  sameValues(apart, evaluate(joined));
  sameValues(evaluate(sharing), apart);
  const bench = new Bench({ time: 2_000, warmup: true, warmupTime: 500 });
  bench.add('runs kept apart', () => void evaluate(parted));
  bench.add('runs joined (replaced)', () => void evaluate(joined));
  bench.add('runs kept apart, timestamps shared', () => void evaluate(sharing));
  // A dashboard's step: two samples a window apart, where the windows' times were most of rate's cost.
  const atDashboardStep = (querier: MetricQuerier): SeriesColumns[] => evaluateRange(expr, querier, 10 * 60_000, endMs, DASHBOARD_STEP_MS).series;
  sameValues(atDashboardStep(sharing), atDashboardStep(parted));
  bench.add('30 s step, each series its own timestamps', () => void atDashboardStep(parted));
  bench.add('30 s step, timestamps shared', () => void atDashboardStep(sharing));
  const steady = new PartedQuerier(true, false);
  const steadyKnown = new PartedQuerier(true, false, true);
  sameValues(atDashboardStep(steadyKnown), atDashboardStep(steady));
  bench.add('30 s step, counters without resets, scanned for them', () => void atDashboardStep(steady));
  bench.add('30 s step, counters without resets, known free of them', () => void atDashboardStep(steadyKnown));
  // deriv slides a least-squares fit; the sample times in seconds from the first are what it
  // derives from the times alone, made once per shared timestamp array.
  const derivExpr = parseAndCheckPromQL('deriv(requests_total[10m])');
  const derivAtDashboardStep = (querier: MetricQuerier): SeriesColumns[] => evaluateRange(derivExpr, querier, 10 * 60_000, endMs, DASHBOARD_STEP_MS).series;
  sameValues(derivAtDashboardStep(sharing), derivAtDashboardStep(parted));
  bench.add('deriv, 30 s step, each series its own timestamps', () => void derivAtDashboardStep(parted));
  bench.add('deriv, 30 s step, timestamps shared', () => void derivAtDashboardStep(sharing));
  await bench.run();
  const a = taskMeanMs(bench, 'runs kept apart');
  const b = taskMeanMs(bench, 'runs joined (replaced)');
  const c = taskMeanMs(bench, 'runs kept apart, timestamps shared');
  console.log(`\nsum by (route) (rate(x[5m])), ${SERIES} series in runs of ${RUN_HOURS.join(' + ')} h, step ${STEP_MS / 1000} s`);
  console.log(`  runs kept apart ${a.toFixed(1)} ms   joined ${b.toFixed(1)} ms   ratio ${(a / b).toFixed(2)}x`);
  console.log(`  timestamps shared by the series, windows found once per array ${c.toFixed(1)} ms   each series' own ${a.toFixed(1)} ms   ratio ${(c / a).toFixed(2)}x`);
  const own30 = taskMeanMs(bench, '30 s step, each series its own timestamps');
  const shared30 = taskMeanMs(bench, '30 s step, timestamps shared');
  console.log(`  at a ${DASHBOARD_STEP_MS / 1000} s step: timestamps shared ${shared30.toFixed(1)} ms   each series' own ${own30.toFixed(1)} ms   ratio ${(shared30 / own30).toFixed(2)}x`);
  const scanned = taskMeanMs(bench, '30 s step, counters without resets, scanned for them');
  const known = taskMeanMs(bench, '30 s step, counters without resets, known free of them');
  console.log(`  counters that never reset, at a ${DASHBOARD_STEP_MS / 1000} s step: known free of resets ${known.toFixed(1)} ms   scanned for them ${scanned.toFixed(1)} ms   ratio ${(known / scanned).toFixed(2)}x`);
  const derivOwn = taskMeanMs(bench, 'deriv, 30 s step, each series its own timestamps');
  const derivShared = taskMeanMs(bench, 'deriv, 30 s step, timestamps shared');
  console.log(`  deriv(x[10m]) at a ${DASHBOARD_STEP_MS / 1000} s step: timestamps shared ${derivShared.toFixed(1)} ms   each series' own ${derivOwn.toFixed(1)} ms   ratio ${(derivShared / derivOwn).toFixed(2)}x`);
}

runWhenDirect(import.meta.url, main);
