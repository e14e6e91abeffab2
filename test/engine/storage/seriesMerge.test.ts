import { describe, expect, it } from 'vitest';
import { mergeSeriesRuns } from '../../../engine/storage/seriesMerge.js';
import type { SeriesColumns } from '../../../engine/storage/seriesColumns.js';
import { bitsOf, staleMarkerArray } from '../../../engine/storage/staleness.js';
import { SeededRandom } from '../../support/seededRandom.js';

/**
 * mergeSeriesRuns joins one series' runs from segments and heads: runs in time order are
 * concatenated, overlapping ones merged with the newer run winning equal timestamps. Both must
 * give what a plain reference merge gives, bit for bit (staleness markers included).
 */

const STALE = staleMarkerArray()[0];

/** referenceMerge keeps, per timestamp, the sample of the newest run that has it. */
function referenceMerge(runs: readonly SeriesColumns[]): { ts: number[]; words: number[] } {
  const byTime = new Map<number, [number, number]>();
  for (const run of runs) {
    const words = bitsOf(run.values);
    run.timestampsMs.forEach((t, i) => byTime.set(t, [words[2 * i], words[2 * i + 1]]));
  }
  const ts = [...byTime.keys()].sort((a, b) => a - b);
  return { ts, words: ts.flatMap((t) => byTime.get(t)!) };
}

function randomRuns(random: SeededRandom, overlapping: boolean): SeriesColumns[] {
  const count = random.int(1, 4);
  const runs: SeriesColumns[] = [];
  let t = 0;
  for (let r = 0; r < count; r++) {
    const n = random.int(0, 30);
    const start = overlapping ? random.int(0, 40) * 1000 : t;
    const ts = Float64Array.from({ length: n }, (_, i) => start + i * 1000 * random.int(1, 2));
    // Strictly increasing within a run.
    for (let i = 1; i < n; i++) if (ts[i] <= ts[i - 1]) ts[i] = ts[i - 1] + 1000;
    const values = Float64Array.from({ length: n }, () => (random.chance(0.1) ? STALE : random.int(-50, 50) / 4));
    if (n > 0) t = ts[n - 1] + 1000 * random.int(1, 3);
    runs.push({ labels: { __name__: 'm', run: String(r) }, timestampsMs: ts, values, staleFree: !values.some((_, i) => bitsOf(values)[2 * i + 1] === 0x7ff00000) });
  }
  return runs;
}

describe('mergeSeriesRuns', () => {
  for (const overlapping of [false, true]) {
    it(`equals a reference merge, bit for bit, for runs ${overlapping ? 'that overlap' : 'in time order'}`, () => {
      for (let seed = 1; seed <= 300; seed++) {
        const random = new SeededRandom(seed);
        const runs = randomRuns(random, overlapping);
        const merged = mergeSeriesRuns(runs);
        const want = referenceMerge(runs);
        expect([...merged.timestampsMs], `seed ${seed}`).toEqual(want.ts);
        expect([...bitsOf(merged.values)], `seed ${seed}`).toEqual(want.words);
        expect(merged.labels, `seed ${seed}`).toEqual(runs[runs.length - 1].labels);
      }
    });
  }

  it('concatenates runs in time order with their histogram slots, and says no marker is left when none of them had one', () => {
    const h = { schema: 0, zeroThreshold: 0, zeroCount: 0, count: 1, sum: 1, posIndex: Int32Array.of(0), posCount: Float64Array.of(1), negIndex: new Int32Array(0), negCount: new Float64Array(0), customValues: null, counterResetHint: 0 } as never;
    const older: SeriesColumns = { labels: { a: '1' }, timestampsMs: Float64Array.of(1, 2), values: Float64Array.of(1, 0), histograms: [undefined, h], staleFree: true };
    const empty: SeriesColumns = { labels: { a: '1' }, timestampsMs: new Float64Array(0), values: new Float64Array(0) };
    const newer: SeriesColumns = { labels: { a: '1' }, timestampsMs: Float64Array.of(5, 6), values: Float64Array.of(3, 4), staleFree: true };
    const merged = mergeSeriesRuns([older, empty, newer]);
    expect([...merged.timestampsMs]).toEqual([1, 2, 5, 6]);
    expect([...merged.values]).toEqual([1, 0, 3, 4]);
    expect(merged.histograms).toEqual([undefined, h, undefined, undefined]);
    expect(merged.staleFree).toBe(true);
    expect(mergeSeriesRuns([older, { ...newer, staleFree: undefined }]).staleFree).toBeUndefined();
  });

  it('says joined runs are free of counter resets only when each run is and no run starts below where the one before ended', () => {
    const run = (from: number, values: number[], resetFree: boolean): SeriesColumns => ({
      labels: { a: '1' },
      timestampsMs: Float64Array.from(values, (_, i) => from + i),
      values: Float64Array.from(values),
      resetFree,
    });
    const empty: SeriesColumns = { labels: { a: '1' }, timestampsMs: new Float64Array(0), values: new Float64Array(0) };
    expect(mergeSeriesRuns([run(0, [1, 2], true), empty, run(10, [2, 5], true)]).resetFree).toBe(true);
    expect(mergeSeriesRuns([run(0, [1, 2], true), run(10, [1.5, 5], true)]).resetFree).toBeUndefined();
    expect(mergeSeriesRuns([run(0, [1, 2], true), run(10, [3, 1], false)]).resetFree).toBeUndefined();
    // NaN compares false both ways, as rate's scan for resets compares.
    expect(mergeSeriesRuns([run(0, [1, NaN], true), run(10, [0, 5], true)]).resetFree).toBe(true);
  });
});
