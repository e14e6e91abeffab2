/**
 * Prometheus marks a series as gone with a specific NaN (bits 0x7ff0000000000002). Ordinary
 * arithmetic may turn it into another NaN, so markers are written and tested by their bits,
 * never by value, and moved only with bulk copies (`set`, `slice`) that preserve bits.
 */
export const STALE_HI = 0x7ff00000;
export const STALE_LO = 0x00000002;

/** bitsOf views a value array as 32-bit words, made once per series so scans allocate nothing. */
export function bitsOf(values: Float64Array): Uint32Array {
  return new Uint32Array(values.buffer, values.byteOffset, values.length * 2);
}

/** isStale tells whether sample i of the array behind `words` (see bitsOf) is the staleness marker. */
export function isStale(words: Uint32Array, i: number): boolean {
  return words[2 * i + 1] === STALE_HI && words[2 * i] === STALE_LO;
}

/** staleMarker returns a one-element array holding the marker, for tests and generators. */
export function staleMarkerArray(): Float64Array {
  const a = new Float64Array(1);
  const w = new Uint32Array(a.buffer);
  w[0] = STALE_LO;
  w[1] = STALE_HI;
  return a;
}
