/**
 * Binary searches over sorted timestamp columns, in milliseconds (Float64Array) or
 * nanoseconds (BigInt64Array). Every time-range read narrows a sorted run with these.
 */

/** lowerBound is the first index whose timestamp is >= t. */
export function lowerBound(ts: Float64Array, t: number): number;
export function lowerBound(ts: BigInt64Array, t: bigint): number;
export function lowerBound(ts: Float64Array | BigInt64Array, t: number | bigint): number {
  let lo = 0;
  let hi = ts.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((ts[mid] as number) < (t as number)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** upperBound is the first index whose timestamp is > t. */
export function upperBound(ts: Float64Array, t: number): number;
export function upperBound(ts: BigInt64Array, t: bigint): number;
export function upperBound(ts: Float64Array | BigInt64Array, t: number | bigint): number {
  let lo = 0;
  let hi = ts.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((ts[mid] as number) <= (t as number)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
