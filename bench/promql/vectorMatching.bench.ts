/**
 * One-to-one vector matching, `a / b` over 5,000 pairs of series and 241 steps (a 1-hour panel):
 * pairs fixed once and each computed along its steps, against the step-by-step matching (every
 * step looks up every series' partner, reading one value of each series per step) in the same
 * run. The step-by-step matcher is made to run on the same data by one extra series on the
 * right whose signature repeats another's and which has no sample, so the answers are the same.
 * Likewise `a and b` and `a or b`, series by series against step by step (setOperation without
 * room for its presence table).
 *
 * Run: npx tsc -p tsconfig.json && node dist/bench/promql/vectorMatching.bench.js
 */
import { Bench } from 'tinybench';
import type { BinaryExpr } from '../../engine/promql/ast.js';
import { parseAndCheckPromQL } from '../../engine/promql/index.js';
import { setOperation, vectorVector } from '../../engine/promql/eval/binary.js';
import { EvalContext } from '../../engine/promql/eval/context.js';
import { makeGrid } from '../../engine/promql/eval/grid.js';
import type { VectorSeries } from '../../engine/promql/eval/series.js';
import type { MetricQuerier } from '../../engine/storage/metricHead.js';
import { runWhenDirect } from '../runDirect.js';
import { seededRandom } from '../seededRandom.js';
import { taskMeanMs } from '../taskResult.js';

const PAIRS = 5_000;
const STEPS = 241;
const STEP_MS = 15_000;

function side(name: string, random: () => number): VectorSeries[] {
  return Array.from({ length: PAIRS }, (_, i) => ({
    labels: { __name__: name, instance: `host-${i}`, job: `job${i % 10}` },
    values: Float64Array.from({ length: STEPS }, () => random() * 100),
    present: Uint8Array.from({ length: STEPS }, () => (random() < 0.98 ? 1 : 0)),
    dropName: false,
  }));
}

export async function main(): Promise<void> {
  const random = seededRandom(5);
  const lhs = side('a', random);
  const rhs = side('b', random);
  const absentTwin: VectorSeries = { labels: { __name__: 'b', instance: 'host-0', job: 'job0' }, values: new Float64Array(STEPS), present: new Uint8Array(STEPS), dropName: false };
  const rhsWithTwin = [...rhs, absentTwin];
  const node = parseAndCheckPromQL('a / b') as BinaryExpr;
  const grid = makeGrid(0, (STEPS - 1) * STEP_MS, STEP_MS);
  const ctx = (): EvalContext => new EvalContext({} as MetricQuerier, {}, grid.startMs, grid.endMs, STEP_MS);
  const pairwise = (): VectorSeries[] => vectorVector(ctx(), node, lhs, rhs, grid);
  const stepwise = (): VectorSeries[] => vectorVector(ctx(), node, lhs, rhsWithTwin, grid);
  const a = pairwise();
  const b = stepwise();
  const byLabels = new Map(b.map((s) => [s.labels.instance, s]));
  if (a.length !== b.length) throw new Error(`${a.length} series against ${b.length}`);
  for (const s of a) {
    const t = byLabels.get(s.labels.instance)!;
    for (let i = 0; i < STEPS; i++) {
      if (s.present[i] !== t.present[i] || (s.present[i] === 1 && !Object.is(s.values[i], t.values[i]))) throw new Error(`${s.labels.instance} step ${i} differs`);
    }
  }
  const and = parseAndCheckPromQL('a and b') as BinaryExpr;
  const or = parseAndCheckPromQL('a or b') as BinaryExpr;
  const points = (out: VectorSeries[]): number => out.reduce((n, s) => n + s.present.reduce((x, y) => x + y, 0), 0);
  for (const node of [and, or]) {
    if (points(setOperation(ctx(), node, lhs, rhs, grid)) !== points(setOperation(ctx(), node, lhs, rhs, grid, 0))) throw new Error('set operation answers differ');
  }
  const bench = new Bench({ time: 1_000, warmup: true, warmupTime: 300 });
  bench.add('pairs along their steps', () => void pairwise());
  bench.add('step by step (baseline)', () => void stepwise());
  bench.add('and, series by series', () => void setOperation(ctx(), and, lhs, rhs, grid));
  bench.add('and, step by step (baseline)', () => void setOperation(ctx(), and, lhs, rhs, grid, 0));
  bench.add('or, series by series', () => void setOperation(ctx(), or, lhs, rhs, grid));
  bench.add('or, step by step (baseline)', () => void setOperation(ctx(), or, lhs, rhs, grid, 0));
  await bench.run();
  const report = (label: string, fastName: string, slowName: string): void => {
    const fast = taskMeanMs(bench, fastName);
    const slow = taskMeanMs(bench, slowName);
    console.log(`  ${label}: ${fast.toFixed(2)} ms against ${slow.toFixed(2)} ms step by step, ratio ${(fast / slow).toFixed(2)}x`);
  };
  console.log(`\n${PAIRS} series a side x ${STEPS} steps`);
  report('a / b, pairs along their steps', 'pairs along their steps', 'step by step (baseline)');
  report('a and b, series by series', 'and, series by series', 'and, step by step (baseline)');
  report('a or b, series by series', 'or, series by series', 'or, step by step (baseline)');
}

runWhenDirect(import.meta.url, main);
