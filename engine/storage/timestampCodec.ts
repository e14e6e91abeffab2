import { BitReader, BitWriter, unzigzag, zigzag } from './bitStream.js';

/**
 * Timestamps of one series (ascending, unique, in ms) as delta-of-delta, the scheme Gorilla
 * and Prometheus use: scrapes at a fixed interval repeat the same delta, so their
 * deltas-of-delta are zero. Three layouts, chosen per series:
 *
 * - REGULAR: every delta equal; first timestamp and the delta, then nothing per sample.
 * - DELTA_OF_DELTA: first timestamp, first delta, then one prefix code per further sample:
 *   `0` for an unchanged delta, else `1` plus a class and the zigzagged difference in 7, 13,
 *   20 or 52 bits (scrape jitter of a few ms costs 10 bits, a missed scrape 16).
 * - RAW: any other float64 (fractions, -0, beyond ±2^49 ms), eight bytes each, bit for bit.
 */

const REGULAR = 0;
const DELTA_OF_DELTA = 1;
const RAW = 2;
/** MAX_ABS_MS keeps deltas and their differences, zigzagged, within 52 bits. */
const MAX_ABS_MS = 2 ** 49;
/** Payload widths of the four classes after a `1` bit; the class itself takes two bits. */
const CLASS_BITS = [7, 13, 20, 52];

function integral(t: Float64Array): boolean {
  for (let i = 0; i < t.length; i++) {
    const x = t[i];
    if (!Number.isInteger(x) || Math.abs(x) > MAX_ABS_MS || Object.is(x, -0)) return false;
  }
  return true;
}

/** encodeTimestamps encodes a series' timestamps (at least one). */
export function encodeTimestamps(t: Float64Array): Uint32Array {
  const out = new BitWriter(4);
  const words = new Uint32Array(t.buffer, t.byteOffset, t.length * 2);
  if (t.length < 2 || !integral(t)) {
    out.write(RAW, 2);
    for (let i = 0; i < words.length; i++) out.write(words[i], 32);
    return out.finish();
  }
  const delta = t[1] - t[0];
  let regular = true;
  for (let i = 2; i < t.length && regular; i++) regular = t[i] - t[i - 1] === delta;
  out.write(regular ? REGULAR : DELTA_OF_DELTA, 2);
  out.writeWords(words[0], words[1]);
  out.writeWide(zigzag(delta), 52);
  if (regular) return out.finish();
  let previous = delta;
  for (let i = 2; i < t.length; i++) {
    const d = t[i] - t[i - 1];
    const z = zigzag(d - previous);
    previous = d;
    if (z === 0) {
      out.write(0, 1);
      continue;
    }
    out.write(1, 1);
    let cls = 0;
    while (z >= 2 ** CLASS_BITS[cls]) cls++;
    out.write(cls, 2);
    out.writeWide(z, CLASS_BITS[cls]);
  }
  return out.finish();
}

/**
 * DeltaOfDeltaLoop decodes timestamps 2..n-1 of a delta-of-delta stream into `out` from the
 * input's position (advanced past them): `t` is timestamp 1 and `delta` the delta that led to
 * it. It is the per-sample part of decoding, so a faster implementation can take its place
 * (sampleLoops.ts); deltaOfDeltaInJavaScript is the reference.
 */
export type DeltaOfDeltaLoop = (input: BitReader, out: Float64Array, t: number, delta: number) => void;

/** deltaOfDeltaInJavaScript is the DeltaOfDeltaLoop written in JavaScript. */
export function deltaOfDeltaInJavaScript(input: BitReader, out: Float64Array, t: number, delta: number): void {
  for (let i = 2; i < out.length; i++) {
    if (input.read(1) !== 0) delta += unzigzag(input.readWide(CLASS_BITS[input.read(2)]));
    out[i] = t += delta;
  }
}

/** decodeTimestamps fills `out` (its length is the sample count the series table gave) from `input`. */
export function decodeTimestamps(input: BitReader, out: Float64Array, deltaOfDelta: DeltaOfDeltaLoop = deltaOfDeltaInJavaScript): void {
  const n = out.length;
  const mode = input.read(2);
  if (mode === RAW) {
    const words = new Uint32Array(out.buffer, out.byteOffset, n * 2);
    for (let i = 0; i < words.length; i++) words[i] = input.read(32);
    return;
  }
  const first = new Float64Array(1);
  const firstWords = new Uint32Array(first.buffer);
  firstWords[0] = input.read(32);
  firstWords[1] = input.read(32);
  let t = first[0];
  const delta = unzigzag(input.readWide(52));
  if (n > 0) out[0] = t;
  if (mode === REGULAR) {
    for (let i = 1; i < n; i++) out[i] = t += delta;
    return;
  }
  if (n > 1) out[1] = t += delta;
  if (n > 2) deltaOfDelta(input, out, t, delta);
}
