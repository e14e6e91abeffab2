/**
 * Kahan-Neumaier compensated addition, as Prometheus sums floats (sum, avg, sum_over_time,
 * stddev...). Results must agree with Prometheus to the last few bits, including its handling
 * of overflow (the compensation resets once the sum is infinite).
 *
 * To stay allocation-free in hot loops, kahanInc returns the new sum and leaves the new
 * compensation in a slot read with kahanCompensation(); callers read it immediately. The slot
 * is a one-element Float64Array, not a module variable: a module variable holds a double as a
 * boxed heap number, so every store allocated one (and a write barrier) on Node 20's V8, which
 * made compensated sums twice as slow and filled the young generation.
 */

const compensationSlot = new Float64Array(1);

/** kahanInc adds `inc` to the compensated sum (`sum`, `c`) and returns the new sum. */
export function kahanInc(inc: number, sum: number, c: number): number {
  const t = sum + inc;
  if (t === Infinity || t === -Infinity) {
    c = 0;
  } else if (Math.abs(sum) >= Math.abs(inc)) {
    c += sum - t + inc;
  } else {
    c += inc - t + sum;
  }
  compensationSlot[0] = c;
  return t;
}

/** kahanCompensation is the compensation left by the last kahanInc call. */
export function kahanCompensation(): number {
  return compensationSlot[0];
}
