/**
 * Converting a stream's BigInt64Array of nanosecond timestamps into float64 offsets from a
 * base time. Offsets below 2^53 ns (104 days) are exact, which is all a query window needs,
 * and floats make the window arithmetic cheap. The conversion reads the two 32-bit halves of
 * each timestamp instead of doing BigInt arithmetic per line.
 */

const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
const TWO_32 = 4294967296;

/** relativeTimes returns ts[i] - base for every timestamp, as float64 nanoseconds. */
export function relativeTimes(ts: BigInt64Array, base: bigint): Float64Array {
  const n = ts.length;
  const out = new Float64Array(n);
  if (!LITTLE_ENDIAN) {
    for (let i = 0; i < n; i++) out[i] = Number(ts[i] - base);
    return out;
  }
  const words = new Int32Array(ts.buffer, ts.byteOffset, n * 2);
  const baseLo = Number(BigInt.asUintN(32, base));
  const baseHi = Number(BigInt.asIntN(32, base >> 32n));
  for (let i = 0; i < n; i++) {
    const lo = words[2 * i] >>> 0;
    const hi = words[2 * i + 1];
    out[i] = (hi - baseHi) * TWO_32 + (lo - baseLo);
  }
  return out;
}

/** msToNs converts integral milliseconds to nanoseconds without losing precision. */
export function msToNs(ms: number): bigint {
  const whole = Math.trunc(ms);
  const fraction = Math.round((ms - whole) * 1e6);
  return BigInt(whole) * 1_000_000n + BigInt(fraction);
}
