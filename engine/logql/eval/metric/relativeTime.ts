/**
 * Time arithmetic of LogQL metric queries. Reading a stream's nanosecond timestamps as float64
 * offsets from a base time is engine/storage/logCounts.ts' OffsetReader, shared with the
 * readers that count lines in place.
 */

/** msToNs converts milliseconds (possibly fractional) to nanoseconds without losing precision. */
export function msToNs(ms: number): bigint {
  const whole = Math.trunc(ms);
  const fraction = Math.round((ms - whole) * 1e6);
  return BigInt(whole) * 1_000_000n + BigInt(fraction);
}
