import { describe, expect, it } from 'vitest';
import { quantileOf } from '../../../../engine/logql/eval/metric/rangeKernels.js';
import { SlidingQuantile } from '../../../../engine/logql/eval/metric/slidingQuantile.js';
import { SeededRandom } from '../../../support/seededRandom.js';

/**
 * quantile_over_time over sliding windows (SlidingQuantile) must give, bit for bit, what
 * sorting each window gives (quantileOf), over series with duplicates, NaN, infinities and
 * both zeros, for every quantile including those outside [0, 1], and windows that grow,
 * shrink, jump and empty.
 */
const VALUES = [0, -0, 1, 1, 2.5, -3, NaN, Infinity, -Infinity, 1e300, -1e-300, 7];

describe('quantile_over_time over sliding windows', () => {
  it('equals sorting each window', () => {
    let compared = 0;
    for (let seed = 1; seed <= 200; seed++) {
      const random = new SeededRandom(seed);
      const n = random.int(1, 400);
      const values = Float64Array.from({ length: n }, () => (random.chance(0.5) ? random.pick(VALUES) : Math.round(random.next() * 100) / 4));
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
