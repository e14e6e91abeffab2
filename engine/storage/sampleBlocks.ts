import { BitReader } from './bitStream.js';
import { sampleLoops, type SampleLoops } from './sampleLoops.js';
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

/**
 * uninitializedDoubles allocates a column the decoders then write in full: zero-filling it first
 * took a quarter of decoding's time (a fresh, unfilled allocation is a quarter of the cost).
 */
function uninitializedDoubles(count: number): Float64Array {
  return new Float64Array(Buffer.allocUnsafeSlow(count * 8).buffer, 0, count);
}

/** asFormatError turns a damaged stream's RangeError into the segment's format error. */
function asFormatError<T>(decode: () => T): T {
  try {
    return decode();
  } catch (err) {
    if (err instanceof RangeError) throw new SegmentFormatError(`sample block: ${err.message}`);
    throw err;
  }
}

/** timestampStream is a block's timestamp stream (a view, no copy). */
export function timestampStream(block: Uint32Array): Uint32Array {
  return block.subarray(1, 1 + timestampWords(block));
}

/** decodeBlockTimestamps decodes the `count` timestamps of a block into a new array (`loops` for comparing implementations). */
export function decodeBlockTimestamps(block: Uint32Array, count: number, loops: SampleLoops = sampleLoops()): Float64Array {
  const out = uninitializedDoubles(count);
  asFormatError(() => decodeTimestamps(new BitReader(timestampStream(block)), out, loops.deltaOfDelta));
  return out;
}

/** decodeBlockValues decodes the `count` values of a block into a new array (`loops` for comparing implementations). */
export function decodeBlockValues(block: Uint32Array, count: number, loops: SampleLoops = sampleLoops()): Float64Array {
  const out = uninitializedDoubles(count);
  const stream = block.subarray(1 + timestampWords(block));
  asFormatError(() => decodeValues(new BitReader(stream), out, loops.values));
  return out;
}
