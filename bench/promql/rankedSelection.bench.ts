/**
 * topk in a range query: 2,000 series over 721 steps, values rounded so that many tie, selected
 * per step by value and then labels (a range query's selection, rankedSelection.ts) against
 * Prometheus' heap over the input order (an instant query's, and what range queries used before
 * they could be split by series) in the same run, through the same aggregation entry.
 *
 * Run: npx tsc -p tsconfig.json && node dist/bench/promql/rankedSelection.bench.js
 */
import { Bench } from 'tinybench';
import type { AggregateExpr } from '../../engine/promql/ast.js';
import { parseAndCheckPromQL } from '../../engine/promql/index.js';
import { aggregateSelect } from '../../engine/promql/eval/aggregateK.js';
import { EvalContext } from '../../engine/promql/eval/context.js';
import { makeGrid } from '../../engine/promql/eval/grid.js';
import type { VectorSeries } from '../../engine/promql/eval/series.js';
import type { MetricQuerier } from '../../engine/storage/metricHead.js';
import { runWhenDirect } from '../runDirect.js';
import { seededRandom } from '../seededRandom.js';
import { taskMeanMs } from '../taskResult.js';

const SERIES = 2_000;
const STEPS = 721;
const STEP_MS = 30_000;
const K = 5;

function inputSeries(): VectorSeries[] {
  const random = seededRandom(11);
  return Array.from({ length: SERIES }, (_, i) => ({
    labels: { __name__: 'requests', instance: `host-${String(i).padStart(5, '0')}`, zone: `z${i % 3}` },
    values: Float64Array.from({ length: STEPS }, () => Math.round(random() * 50)),
    present: new Uint8Array(STEPS).fill(1),
    dropName: false,
  }));
}

export async function main(): Promise<void> {
  const input = inputSeries();
  const node = parseAndCheckPromQL(`topk(${K}, requests)`) as AggregateExpr;
  const grid = makeGrid(0, (STEPS - 1) * STEP_MS, STEP_MS);
  const param = new Float64Array(STEPS).fill(K);
  const querier = {} as MetricQuerier;
  // The step of the query is what tells a range query's selection from an instant query's.
  const select = (queryStepMs: number): VectorSeries[] => aggregateSelect(new EvalContext(querier, {}, grid.startMs, grid.endMs, queryStepMs), node, input, grid, param);
  for (const stepMs of [STEP_MS, 0]) {
    const kept = select(stepMs).reduce((n, s) => n + s.present.reduce((a, b) => a + b, 0), 0);
    if (kept !== K * STEPS) throw new Error(`selected ${kept} points, expected ${K * STEPS}`);
  }
  const bench = new Bench({ time: 1_000, warmup: true, warmupTime: 300 });
  bench.add('by value, then labels', () => void select(STEP_MS));
  bench.add("Prometheus' heap (baseline)", () => void select(0));
  await bench.run();
  const ranked = taskMeanMs(bench, 'by value, then labels');
  const heap = taskMeanMs(bench, "Prometheus' heap (baseline)");
  console.log(`\ntopk(${K}) over ${SERIES} series x ${STEPS} steps, values 0-50 (many ties)`);
  console.log(`  by value, then labels ${ranked.toFixed(2)} ms   heap ${heap.toFixed(2)} ms   ratio ${(ranked / heap).toFixed(2)}x`);
}

runWhenDirect(import.meta.url, main);
