/**
 * Reading 64-bit timestamps through their 32-bit halves. Every read of a BigInt64Array element
 * makes a BigInt on the heap; a selection of a million log lines read each timestamp three
 * times (two to check the order, one to copy), and those BigInts were a large part of its time
 * and of its garbage. Through an Int32Array over the same bytes the same comparisons and copies
 * allocate nothing. The layout is the platform's: little-endian only (every platform Node ships
 * for but s390x); `int64Words` answers undefined elsewhere and callers read BigInts.
 */

const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** int64Words views `values` as pairs of 32-bit words (low, then high), or undefined on a big-endian platform. */
export function int64Words(values: BigInt64Array): Int32Array | undefined {
  return LITTLE_ENDIAN ? new Int32Array(values.buffer, values.byteOffset, values.length * 2) : undefined;
}

/** wordsLess says whether element `i` of `a` is below element `j` of `b` (both int64Words views). */
export function wordsLess(a: Int32Array, i: number, b: Int32Array, j: number): boolean {
  const high = a[2 * i + 1];
  const otherHigh = b[2 * j + 1];
  return high < otherHigh || (high === otherHigh && a[2 * i] >>> 0 < b[2 * j] >>> 0);
}

/** copyWords copies element `i` of `from` to element `j` of `to` (both int64Words views). */
export function copyWords(from: Int32Array, i: number, to: Int32Array, j: number): void {
  to[2 * j] = from[2 * i];
  to[2 * j + 1] = from[2 * i + 1];
}
