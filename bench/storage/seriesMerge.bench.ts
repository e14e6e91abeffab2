import { Bench } from 'tinybench';
import { mergeSeriesRuns } from '../../engine/storage/seriesMerge.js';
import type { SeriesColumns } from '../../engine/storage/seriesColumns.js';
import { runWhenDirect } from '../runDirect.js';
import { taskMeanMs } from '../taskResult.js';

/**
 * A selection over a segment and the head: 1,000 series whose 12 h (2,880 samples at 15 s)
 * are split between the two sources, merged into one run each. Runs in time order (the usual
 * case) are concatenated; the same runs made to overlap by one sample take the element-by-element
 * merge, every sample compared, which is what every selection paid before. Same run, same
 * sizes. `node dist/bench/storage/seriesMerge.bench.js`.
 */
const SERIES = 1_000;
const SAMPLES = 2_880;
const SPLIT = 2_000;

function runs(overlap: boolean): SeriesColumns[][] {
  return Array.from({ length: SERIES }, (_, s) => {
    const ts = Float64Array.from({ length: SAMPLES }, (_, i) => i * 15_000);
    const values = Float64Array.from({ length: SAMPLES }, (_, i) => s + i / 7);
    const labels = { __name__: 'm', series: String(s) };
    const older = { labels, timestampsMs: ts.subarray(0, SPLIT), values: values.subarray(0, SPLIT) };
    const from = overlap ? SPLIT - 1 : SPLIT;
    return [older, { labels, timestampsMs: ts.slice(from), values: values.slice(from) }];
  });
}

export async function main(): Promise<void> {
  const ordered = runs(false);
  const overlapping = runs(true);
  for (let s = 0; s < SERIES; s++) {
    const a = mergeSeriesRuns(ordered[s]);
    const b = mergeSeriesRuns(overlapping[s]);
    if (a.values.length !== SAMPLES || b.values.length !== SAMPLES || a.values.some((v, i) => !Object.is(v, b.values[i]))) throw new Error(`series ${s}: the two merges differ`);
  }
  const bench = new Bench({ time: 1_000, warmup: true, warmupTime: 300 });
  bench.add('in time order (concatenated)', () => void ordered.map(mergeSeriesRuns));
  bench.add('overlapping by one sample (merged by element)', () => void overlapping.map(mergeSeriesRuns));
  await bench.run();
  const mean = (name: string): number => taskMeanMs(bench, name);
  const a = mean('in time order (concatenated)');
  const b = mean('overlapping by one sample (merged by element)');
  console.log(`\n${SERIES} series x ${SAMPLES} samples from two runs: concatenated ${a.toFixed(1)} ms, merged by element ${b.toFixed(1)} ms, ratio ${(a / b).toFixed(2)}x`);
}

runWhenDirect(import.meta.url, main);
