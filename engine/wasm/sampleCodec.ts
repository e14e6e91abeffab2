// AssemblyScript source of the sample decoding module (engine/storage/sampleDecoder.ts loads
// it; build with scripts/build-wasm.sh). It decodes the per-sample parts of a version 2 sample
// block (engine/storage/timestampCodec.ts and valueCodec.ts define the formats; their
// JavaScript decoders are the reference this module must equal bit for bit). JavaScript has
// no 64-bit integers, so its XOR decoder splits every value into two 32-bit halves and every
// bit field into one or two word reads; here a value is one i64 and a field one unaligned
// 64-bit load.
//
// Memory is the loader's: it copies a stream's words to `input`, pads them with at least 16
// zero bytes (a read of up to 64 bits at the stream's last bit stays inside), and takes the
// decoded doubles from `output`. Every function returns the bit position after what it read,
// or a negative code: -1 when the stream ran past `limit` (its length in bits: a damaged
// stream), -2 when an XOR window is impossible.

const RAN_PAST: i32 = -1;
const BAD_WINDOW: i32 = -2;
/** Payload widths of the delta-of-delta classes after a `1` bit (timestampCodec.ts). */
const CLASS_0: u32 = 7;
const CLASS_1: u32 = 13;
const CLASS_2: u32 = 20;
const CLASS_3: u32 = 52;

/** peek returns at least 57 bits of the stream from bit `at` (the stream fills each byte from its least significant bit). */
// @ts-ignore: decorator
@inline function peek(input: usize, at: u32): u64 {
  return load<u64>(input + (at >>> 3)) >> (<u64>(at & 7));
}

/** field returns the `bits` (0..64) bits from bit `at`. */
// @ts-ignore: decorator
@inline function field(input: usize, at: u32, bits: u32): u64 {
  if (bits <= 56) return peek(input, at) & ((<u64>1 << bits) - 1);
  const low = peek(input, at) & 0xffffffff;
  const high = peek(input, at + 32) & (bits == 64 ? 0xffffffff : (<u64>1 << (bits - 32)) - 1);
  return low | (high << 32);
}

// @ts-ignore: decorator
@inline function unzigzag(z: u64): i64 {
  return <i64>(z >> 1) ^ -<i64>(z & 1);
}

/**
 * xorValues decodes values 1..n-1 of an XOR value stream whose first value is already at
 * output[0]; `at` is the bit after that value.
 */
export function xorValues(input: usize, limit: u32, at: u32, output: usize, n: i32): i32 {
  let value = load<u64>(output);
  let lead: u32 = 0;
  let trail: u32 = 0;
  for (let i = 1; i < n; i++) {
    if (at > limit) return RAN_PAST;
    const head = peek(input, at);
    if ((head & 1) == 0) {
      at += 1;
    } else {
      if ((head & 2) != 0) {
        lead = <u32>(head >> 2) & 63;
        const length = (<u32>(head >> 8) & 63) + 1;
        if (lead + length > 64) return BAD_WINDOW;
        trail = 64 - lead - length;
        at += 14;
      } else at += 2;
      const length = 64 - lead - trail;
      value ^= field(input, at, length) << trail;
      at += length;
    }
    store<u64>(output + (<usize>i << 3), value);
  }
  return <i32>at;
}

/**
 * decimalMantissas decodes the bit-packed groups of a decimal value stream from index `from`
 * on: each group of up to 128 is a 6-bit width and that many bits per residual (a delta, or
 * with `byDeltaOfDelta` a delta of deltas), added to the running mantissa `m` (and `delta`).
 * Mantissas stay below 2^53, so they are integers in doubles and i64 alike; `scale` (10^e,
 * 1 for none) divides each, as the JavaScript decoder does after its loop.
 */
export function decimalMantissas(input: usize, limit: u32, at: u32, output: usize, from: i32, n: i32, m: f64, delta: f64, byDeltaOfDelta: bool, scale: f64): i32 {
  let mantissa = <i64>m;
  let step = <i64>delta;
  let i = from;
  while (i < n) {
    if (at > limit) return RAN_PAST;
    const width = <u32>peek(input, at) & 63;
    at += 6;
    const end = min(n, i + 128);
    if (at + <u32>(end - i) * width > limit) return RAN_PAST;
    if (byDeltaOfDelta) {
      for (; i < end; i++, at += width) {
        step += unzigzag(field(input, at, width));
        mantissa += step;
        store<f64>(output + (<usize>i << 3), <f64>mantissa / scale);
      }
    } else {
      for (; i < end; i++, at += width) {
        mantissa += unzigzag(field(input, at, width));
        store<f64>(output + (<usize>i << 3), <f64>mantissa / scale);
      }
    }
  }
  return <i32>at;
}

/**
 * deltaOfDeltaTimes decodes timestamps 2..n-1 of a delta-of-delta stream: per sample a `0`
 * for an unchanged delta, or a `1`, a two-bit class and the zigzagged change. `t` is
 * timestamp 1 and `delta` the delta that led to it (both integers below 2^50 ms).
 */
export function deltaOfDeltaTimes(input: usize, limit: u32, at: u32, output: usize, n: i32, t: f64, delta: f64): i32 {
  let time = <i64>t;
  let step = <i64>delta;
  for (let i = 2; i < n; i++) {
    if (at > limit) return RAN_PAST;
    const head = peek(input, at);
    if ((head & 1) == 0) at += 1;
    else {
      const cls = <u32>(head >> 1) & 3;
      const bits = cls == 0 ? CLASS_0 : cls == 1 ? CLASS_1 : cls == 2 ? CLASS_2 : CLASS_3;
      step += unzigzag(field(input, at + 3, bits));
      at += 3 + bits;
    }
    time += step;
    store<f64>(output + (<usize>i << 3), <f64>time);
  }
  return <i32>at;
}
