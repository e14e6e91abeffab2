/**
 * Kahan-Neumaier compensated addition, as Prometheus sums floats (sum, avg, sum_over_time,
 * stddev...). Results must agree with Prometheus to the last few bits, including its handling
 * of overflow (the compensation resets once the sum is infinite).
 *
 * To stay allocation-free in hot loops, kahanInc returns the new sum and leaves the new
 * compensation in a module slot read with kahanCompensation(); callers read it immediately.
 */

let compensationSlot = 0;

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
  compensationSlot = c;
  return t;
}

/** kahanCompensation is the compensation left by the last kahanInc call. */
export function kahanCompensation(): number {
  return compensationSlot;
}
