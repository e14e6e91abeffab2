import { describe, expect, it } from 'vitest';
import { quantileOf, slideWindows } from '../../../../engine/logql/eval/metric/rangeKernels.js';
import { SlidingQuantile } from '../../../../engine/logql/eval/metric/slidingWindows.js';
import { SeededRandom } from '../../../support/seededRandom.js';

/**
 * Range aggregations over sliding windows must give, bit for bit, what reading each window
 * alone gives: quantile_over_time (SlidingQuantile) what sorting it gives (quantileOf),
 * min_over_time and max_over_time (SlidingExtreme) what minOf and maxOf give, over series
 * with duplicates, NaN, infinities and both zeros, for every quantile including those outside
 * [0, 1], and windows that grow, shrink, jump and empty.
 */
const VALUES = [0, -0, 1, 1, 2.5, -3, NaN, Infinity, -Infinity, 1e300, -1e-300, 7];

/** seriesValues is a series of up to `most` values, half of them from VALUES, the others quarters up to 25. */
function seriesValues(random: SeededRandom, most: number): Float64Array {
  const n = random.int(1, most);
  return Float64Array.from({ length: n }, () => (random.chance(0.5) ? random.pick(VALUES) : Math.round(random.next() * 100) / 4));
}

describe('quantile_over_time over sliding windows', () => {
  it('equals sorting each window', () => {
    let compared = 0;
    for (let seed = 1; seed <= 200; seed++) {
      const random = new SeededRandom(seed);
      const values = seriesValues(random, 400);
      const n = values.length;
      const q = random.pick([0, 1, 0.5, 0.99, 0.25, 0.333, -0.5, 1.5]);
      const sliding = new SlidingQuantile(values, n);
      const scratch = new Float64Array(n);
      let lo = 0;
      let hi = 0;
      while (hi < n) {
        const newHi = Math.min(n, hi + random.int(0, 12));
        for (; hi < newHi; hi++) sliding.add(hi);
        const newLo = Math.min(hi, lo + random.int(0, 12));
        for (; lo < newLo; lo++) sliding.remove(lo);
        if (hi === lo) continue;
        const want = quantileOf(q, values, lo, hi, scratch);
        const got = sliding.quantile(q);
        expect(Object.is(got, want), `seed ${seed} q ${q} window [${lo}, ${hi}) of ${Array.from(values.subarray(lo, hi)).join(',')}: ${got} vs ${want}`).toBe(true);
        compared++;
      }
    }
    expect(compared).toBeGreaterThan(3000);
  });
});

describe('min_over_time and max_over_time over sliding windows', () => {
  it('equal each window read alone, NaN and both zeros included', () => {
    let compared = 0;
    for (let seed = 1; seed <= 150; seed++) {
      const random = new SeededRandom(seed);
      const values = seriesValues(random, 300);
      const n = values.length;
      const ts = Float64Array.from({ length: n }, (_, i) => i * 10 + random.int(0, 9));
      const samples = { labels: { key: '{}', labels: {} }, ts, values, length: n };
      const rangeNs = random.int(1, 400);
      // Windows move forward, as a range query's steps do.
      const ends = new Float64Array(random.int(2, 60));
      for (let j = 1; j < ends.length; j++) ends[j] = ends[j - 1] + random.int(5, 60);
      for (const op of ['min_over_time', 'max_over_time'] as const) {
        const all = { values: new Float64Array(ends.length), present: new Uint8Array(ends.length) };
        slideWindows(op, samples, { ends, rangeNs }, 0, true, all);
        for (let j = 0; j < ends.length; j++) {
          // One window alone is read sample by sample (minOf, maxOf).
          const one = { values: new Float64Array(1), present: new Uint8Array(1) };
          slideWindows(op, samples, { ends: ends.subarray(j, j + 1), rangeNs }, 0, true, one);
          expect(all.present[j], `seed ${seed} ${op} step ${j}`).toBe(one.present[0]);
          if (one.present[0] === 1) {
            expect(Object.is(all.values[j], one.values[0]), `seed ${seed} ${op} step ${j}: ${all.values[j]} vs ${one.values[0]}`).toBe(true);
            compared++;
          }
        }
      }
    }
    expect(compared).toBeGreaterThan(2000);
  });
});
