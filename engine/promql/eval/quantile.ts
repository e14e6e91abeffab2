/**
 * quantileOfSorted is Prometheus' quantile() over values already sorted NaN-first: linear
 * interpolation between the two closest ranks, NaN for no values or a NaN q, and -Inf/+Inf for
 * q below 0 or above 1.
 */
export function quantileOfSorted(q: number, sorted: Float64Array): number {
  const n = sorted.length;
  if (n === 0 || q !== q) return NaN;
  if (q < 0) return -Infinity;
  if (q > 1) return Infinity;
  const rank = q * (n - 1);
  const lower = Math.max(0, Math.floor(rank));
  const upper = Math.min(n - 1, lower + 1);
  const weight = rank - Math.floor(rank);
  return sorted[lower] * (1 - weight) + sorted[upper] * weight;
}
