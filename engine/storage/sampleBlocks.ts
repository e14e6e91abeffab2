import { BitReader } from './bitStream.js';
import { SegmentFormatError } from './segmentFormat.js';
import { decodeTimestamps, encodeTimestamps } from './timestampCodec.js';
import { decodeValues, encodeValues, type ValueLayout } from './valueCodec.js';

/**
 * A sample block is one series' samples in a version 2 metric segment, as 32-bit words:
 *
 *     word 0          T, the number of words of the timestamp stream
 *     words 1..T      timestamps (timestampCodec.ts)
 *     words T+1..     values (valueCodec.ts)
 *
 * Both streams start on a word, so timestamps decode without touching the values (a label
 * query only needs to know whether a series has a sample in its window) and either stream
 * decodes straight into a Float64Array.
 */

/** encodeSampleBlock encodes one series (at least one sample, timestamps ascending); `layout` is for comparing value layouts. */
export function encodeSampleBlock(t: Float64Array, v: Float64Array, layout?: ValueLayout): Uint32Array {
  const ts = encodeTimestamps(t);
  const vs = encodeValues(v, layout);
  const out = new Uint32Array(1 + ts.length + vs.length);
  out[0] = ts.length;
  out.set(ts, 1);
  out.set(vs, 1 + ts.length);
  return out;
}

function timestampWords(block: Uint32Array): number {
  const n = block[0];
  if (n === undefined || 1 + n > block.length) throw new SegmentFormatError('sample block: timestamp stream runs past the block');
  return n;
}

/** decodeBlockTimestamps decodes the `count` timestamps of a block into a new array. */
export function decodeBlockTimestamps(block: Uint32Array, count: number): Float64Array {
  const out = new Float64Array(count);
  decodeTimestamps(new BitReader(block.subarray(1, 1 + timestampWords(block))), out);
  return out;
}

/** decodeBlockValues decodes the `count` values of a block into a new array. */
export function decodeBlockValues(block: Uint32Array, count: number): Float64Array {
  const out = new Float64Array(count);
  try {
    decodeValues(new BitReader(block.subarray(1 + timestampWords(block))), out);
  } catch (err) {
    if (err instanceof RangeError) throw new SegmentFormatError(`sample block: ${err.message}`);
    throw err;
  }
  return out;
}
