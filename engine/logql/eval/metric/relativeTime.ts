/**
 * Reading a stream's BigInt64Array of nanosecond timestamps as float64 offsets from a base
 * time, in place: offsets below 2^53 ns (104 days) are exact, which is all a query window
 * needs, and floats make the window arithmetic cheap. The reader looks at the two 32-bit
 * halves of each timestamp instead of doing BigInt arithmetic or copying the column.
 */

const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
const TWO_32 = 4294967296;

/** TimeReader yields ts[i] - base as float64 nanoseconds. */
export class TimeReader {
  private readonly words: Int32Array | undefined;
  private readonly baseLo: number;
  private readonly baseHi: number;

  constructor(
    private readonly ts: BigInt64Array,
    private readonly base: bigint,
  ) {
    this.words = LITTLE_ENDIAN ? new Int32Array(ts.buffer, ts.byteOffset, ts.length * 2) : undefined;
    this.baseLo = Number(BigInt.asUintN(32, base));
    this.baseHi = Number(BigInt.asIntN(32, base >> 32n));
  }

  at(i: number): number {
    const words = this.words;
    if (words === undefined) return Number(this.ts[i] - this.base);
    return (words[2 * i + 1] - this.baseHi) * TWO_32 + ((words[2 * i] >>> 0) - this.baseLo);
  }
}

/** msToNs converts milliseconds (possibly fractional) to nanoseconds without losing precision. */
export function msToNs(ms: number): bigint {
  const whole = Math.trunc(ms);
  const fraction = Math.round((ms - whole) * 1e6);
  return BigInt(whole) * 1_000_000n + BigInt(fraction);
}
