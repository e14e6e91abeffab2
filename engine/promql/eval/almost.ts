/** MIN_NORMAL is the smallest positive normal float64, the absolute floor of comparisons near zero. */
const MIN_NORMAL = 2.2250738585072014e-308;

/**
 * almostEqual is Prometheus' relative float comparison (util/almost): equal if both are NaN,
 * exactly equal, or within `epsilon` of each other relative to their magnitudes, with an
 * absolute floor near zero. histogram_quantile uses it to ignore float noise between buckets
 * and the conformance runner to compare results.
 */
export function almostEqual(a: number, b: number, epsilon: number): boolean {
  if (a !== a && b !== b) return true;
  if (a === b) return true;
  const absSum = Math.abs(a) + Math.abs(b);
  const diff = Math.abs(a - b);
  if (a === 0 || b === 0 || absSum < MIN_NORMAL) return diff < epsilon * MIN_NORMAL;
  return diff / Math.min(absSum, Number.MAX_VALUE) < epsilon;
}
