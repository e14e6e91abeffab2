import { Bench } from 'tinybench';
import { packSeries, unpackSeries } from '../../engine/query/packing.js';
import type { SeriesColumns } from '../../engine/storage/seriesColumns.js';
import { renderMatrix, successJson, matrixData } from '../../src/prometheus/render.js';
import { runWhenDirect } from '../runDirect.js';
import { manySeriesAnswer, POINTS, SERIES } from './manySeries.js';
import { taskMeanMs } from '../taskResult.js';

/**
 * A worker's value text (PackedSeries.valueText): a 1,000-series, 241-step rate answer packed
 * with its values formatted, as a query worker sends a large answer, against the previous way
 * of building the text (values joined as strings in groups, the rope flattened once joined) in
 * the same run, after checking that both give the same text. Then the same answer as a
 * Prometheus API matrix: rendered on the answering thread from the workers' rendering of every
 * point (PackedSeries.sampleText, bytes joined into the body) against rendering every point
 * there, as before; and what
 * that rendering costs the worker. `node dist/bench/query/valueText.bench.js`.
 */
function answer(): SeriesColumns[] {
  // Per-second rates of integer counters over 5 m: mostly repeating decimals.
  return manySeriesAnswer(
    (i, p) => ((i * 7 + p * 13) % 997) / 300,
    (i) => ({ instance: `host-${i}`, job: 'api' }),
  );
}

/** joinedValueText is the previous builder: `v + ','` appended to groups of 16 Ki characters, then joined. */
function joinedValueText(values: Float64Array): string {
  const groups: string[] = [];
  let group = '';
  for (let g = 0; g < values.length; g++) {
    const v = values[g];
    group += Number.isFinite(v) ? v + ',' : ',';
    if (group.length >= 16_384) {
      groups.push(group);
      group = '';
    }
  }
  groups.push(group);
  return groups.join('');
}

export async function main(): Promise<void> {
  const series = answer();
  const packed = packSeries(series, { valueText: true });
  if (packed.valueText !== joinedValueText(packed.values)) throw new Error('the value texts differ');
  // Measured as the worker pays for it: the text is copied to the receiving thread, which flattens a rope first.
  const bench = new Bench({ time: 1_000, warmup: true, warmupTime: 300 });
  bench.add('packSeries with value text (byte buffer)', () => void structuredClone(packSeries(series, { valueText: true }).valueText));
  bench.add('values joined as strings', () => void structuredClone(joinedValueText(packSeries(series).values)));
  await bench.run();
  const mean = (name: string): number => taskMeanMs(bench, name);
  const ours = mean('packSeries with value text (byte buffer)');
  const before = mean('values joined as strings');
  const values = SERIES * POINTS;
  console.log(`\n${values.toLocaleString('en')} values packed with their text and copied as a message would be`);
  console.log(`  byte buffer ${ours.toFixed(1)} ms (${((ours * 1e6) / values).toFixed(0)} ns/value)   joined strings ${before.toFixed(1)} ms   ratio ${(ours / before).toFixed(2)}x`);

  const rendered = unpackSeries(packSeries(series, { sampleText: true }));
  const plain = unpackSeries(packSeries(series));
  if (renderMatrix(rendered) !== renderMatrix(plain)) throw new Error('the matrices differ');
  const matrix = new Bench({ time: 1_000, warmup: true, warmupTime: 300 });
  matrix.add('matrix from the workers\' points', () => void successJson(matrixData(rendered)));
  matrix.add('matrix point by point', () => void renderMatrix(plain));
  matrix.add('worker: packSeries with points rendered', () => void packSeries(series, { sampleText: true }).sampleText);
  await matrix.run();
  const fromWorkers = taskMeanMs(matrix, "matrix from the workers' points");
  const pointByPoint = taskMeanMs(matrix, 'matrix point by point');
  console.log(`\nThe same answer as a Prometheus API matrix (${(renderMatrix(plain).length / 1e6).toFixed(1)} MB), on the answering thread`);
  console.log(`  from the workers' points ${fromWorkers.toFixed(1)} ms   point by point ${pointByPoint.toFixed(1)} ms   ratio ${(fromWorkers / pointByPoint).toFixed(2)}x`);
  console.log(`  the workers' rendering, on the workers: ${taskMeanMs(matrix, 'worker: packSeries with points rendered').toFixed(1)} ms`);
}

runWhenDirect(import.meta.url, main);
