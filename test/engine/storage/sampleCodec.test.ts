import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BitReader, BitWriter } from '../../../engine/storage/bitStream.js';
import { SAMPLE_CODEC_WASM } from '../../../engine/common/sampleCodecWasm.js';
import { decodeBlockTimestamps, decodeBlockValues, encodeSampleBlock } from '../../../engine/storage/sampleBlocks.js';
import { sampleLoops, sampleLoopsInJavaScript, type SampleLoops } from '../../../engine/storage/sampleLoops.js';
import { SegmentFormatError } from '../../../engine/storage/segmentFormat.js';
import { staleMarkerArray } from '../../../engine/storage/staleness.js';
import type { ValueLayout } from '../../../engine/storage/valueCodec.js';
import { expectCommittedModule } from '../../support/wasmModule.js';

/** bits renders each float64 as its 16 hex digits, so comparisons see NaN payloads and -0. */
function bits(a: Float64Array): string[] {
  const w = new Uint32Array(a.buffer, a.byteOffset, a.length * 2);
  const out: string[] = [];
  for (let i = 0; i < a.length; i++) out.push(w[2 * i + 1].toString(16).padStart(8, '0') + w[2 * i].toString(16).padStart(8, '0'));
  return out;
}

function roundTrip(t: Float64Array, v: Float64Array): { t: Float64Array; v: Float64Array; words: number } {
  const block = encodeSampleBlock(t, v);
  return { t: decodeBlockTimestamps(block, t.length), v: decodeBlockValues(block, v.length), words: block.length };
}

function expectExact(t: Float64Array, v: Float64Array): number {
  const back = roundTrip(t, v);
  expect(bits(back.t)).toEqual(bits(t));
  expect(bits(back.v)).toEqual(bits(v));
  return back.words * 4;
}

/** fromWords builds float64s from raw 32-bit word pairs, so every bit pattern (NaN payloads, subnormals) occurs. */
function fromWords(words: number[]): Float64Array {
  const w = Uint32Array.from(words);
  return new Float64Array(w.buffer, 0, w.length >> 1);
}

const ascending = (xs: number[]): Float64Array => Float64Array.from([...new Set(xs)].sort((a, b) => a - b));

/** arbitrarySeries are arbitrary float64 bit patterns at irregular (also fractional) timestamps. */
const arbitrarySeries = fc
  .array(fc.tuple(fc.double({ noNaN: true }), fc.integer(), fc.integer()), { minLength: 1, maxLength: 300 })
  .map((rows) => {
    const t = ascending(rows.map(([x]) => x));
    const v = fromWords(rows.slice(0, t.length).flatMap(([, lo, hi]) => [lo >>> 0, hi >>> 0]));
    return { t, v };
  });

const special = fc.constantFrom(NaN, -0, 0, Infinity, -Infinity, Number.MIN_VALUE, -Number.MIN_VALUE, 2.2250738585072014e-308, Number.MAX_VALUE, staleMarkerArray()[0]);
const value = fc.oneof(
  fc.integer({ min: -1000, max: 1000 }),
  fc.integer({ min: -1e6, max: 1e6 }).map((n) => n / 1000),
  fc.double({ noNaN: false }),
  fc.integer({ min: -(2 ** 53), max: 2 ** 53 }),
  special,
);
/** scrapeLikeSeries are jittered integer timestamps with counters, decimals and special values. */
const scrapeLikeSeries = fc
  .record({
    start: fc.integer({ min: -(2 ** 50), max: 2 ** 50 }),
    step: fc.integer({ min: 1, max: 60_000 }),
    jitter: fc.array(fc.integer({ min: -3, max: 2 ** 31 }), { minLength: 1, maxLength: 400 }),
    values: fc.array(value, { minLength: 400, maxLength: 400 }),
    staleAt: fc.option(fc.nat(), { nil: undefined }),
  })
  .map(({ start, step, jitter, values, staleAt }) => {
    const t = new Float64Array(jitter.length);
    let at = start;
    jitter.forEach((j, i) => {
      at += step + Math.max(0, j % (i % 7 === 0 ? 2 ** 31 : 16));
      t[i] = at;
    });
    const v = Float64Array.from(values.slice(0, t.length));
    if (staleAt !== undefined) v.set(staleMarkerArray(), staleAt % v.length);
    return { t, v };
  });

describe('bit streams', () => {
  it('read back fields of every width at every alignment', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.integer({ min: 0, max: 53 }), fc.double({ min: 0, max: 1, noNaN: true })), { maxLength: 200 }), (fields) => {
        const w = new BitWriter(1);
        const values = fields.map(([width, f]) => Math.floor(f * 2 ** width) % 2 ** width);
        fields.forEach(([width], i) => w.writeWide(values[i], width));
        const r = new BitReader(w.finish());
        fields.forEach(([width], i) => expect(r.readWide(width)).toBe(values[i]));
      }),
    );
  });
});

describe('sample blocks', () => {
  it('round-trip arbitrary float64 bit patterns and irregular timestamps exactly', () => {
    fc.assert(fc.property(arbitrarySeries, ({ t, v }) => void expectExact(t, v)), { numRuns: 300 });
  });

  it('round-trip scrape-like series: jittered integer timestamps, counters, decimals and special values', () => {
    fc.assert(fc.property(scrapeLikeSeries, ({ t, v }) => void expectExact(t, v)), { numRuns: 300 });
  });

  it('keeps the staleness marker, -0, subnormals and NaN payloads inside an otherwise decimal counter', () => {
    const n = 1000;
    const t = Float64Array.from({ length: n }, (_, i) => 1_700_000_000_000 + 15_000 * i);
    const v = Float64Array.from({ length: n }, (_, i) => 1000 + 3 * i);
    v.set(staleMarkerArray(), 500);
    v[10] = -0;
    v[20] = 5e-324;
    v.set(fromWords([0xdeadbeef, 0xfff80000 | 0x1234]), 30);
    const bytes = expectExact(t, v);
    // Exceptions cost their bits, the rest stays decimal: far below the 16 bytes a sample takes raw.
    expect(bytes / n).toBeLessThan(2);
  });

  it('stores a regular counter in about a byte per sample and a constant in almost nothing', () => {
    const n = 5760;
    const t = Float64Array.from({ length: n }, (_, i) => 1_700_000_000_000 + 15_000 * i);
    let c = 1_000_000;
    const counter = Float64Array.from({ length: n }, (_, i) => (c += (i * 7919) % 50));
    expect(expectExact(t, counter) / n).toBeLessThan(1);
    expect(expectExact(t, new Float64Array(n).fill(1)) / n).toBeLessThan(0.05);
    const gauge = Float64Array.from({ length: n }, (_, i) => Math.round(Math.sin(i / 100) * 1000) / 100);
    expect(expectExact(t, gauge) / n).toBeLessThan(2);
  });

  it('decodes a damaged block to wrong numbers or a format error, never past its arrays', () => {
    const t = Float64Array.from({ length: 50 }, (_, i) => 1000 * i);
    const v = Float64Array.from({ length: 50 }, (_, i) => i * 1.5);
    const block = encodeSampleBlock(t, v);
    fc.assert(
      fc.property(fc.nat(block.length - 1), fc.integer(), (at, word) => {
        const damaged = block.slice();
        damaged[at] = word >>> 0;
        try {
          expect(decodeBlockTimestamps(damaged, 50)).toHaveLength(50);
          expect(decodeBlockValues(damaged, 50)).toHaveLength(50);
        } catch (err) {
          expect((err as Error).name).toBe('SegmentFormatError');
        }
      }),
    );
  });
});

/** decimalSeries are decimals at one exponent whose steps take from 0 to 48 bits, so every packed width occurs, with a few exceptions, at timestamps with gaps of every size. */
const decimalSeries = fc
  .record({
    exponent: fc.integer({ min: 0, max: 4 }),
    widths: fc.array(fc.integer({ min: 0, max: 48 }), { minLength: 1, maxLength: 6 }),
    steps: fc.array(fc.double({ min: -1, max: 1, noNaN: true }), { minLength: 1, maxLength: 700 }),
    smooth: fc.boolean(),
    exceptions: fc.array(fc.tuple(fc.nat(), special), { maxLength: 3 }),
    jitterBits: fc.integer({ min: 0, max: 36 }),
  })
  .map(({ exponent, widths, steps, smooth, exceptions, jitterBits }) => {
    const n = steps.length;
    // Gaps that vary by up to 2^38 ms: every class of the timestamps' delta-of-delta codes occurs.
    let at = 1_700_000_000_000;
    const t = Float64Array.from({ length: n }, (_, i) => (at += 15_000 + ((i * 7919) % 5) * 2 ** jitterBits));
    const v = new Float64Array(n);
    let m = 0;
    let delta = 0;
    for (let i = 0; i < n; i++) {
      const step = Math.trunc(steps[i] * 2 ** widths[Math.floor(i / 128) % widths.length]);
      // Smooth series change their step by the drawn amount (deltas of deltas stay small).
      if (smooth) delta += Math.trunc(step / 64);
      else delta = step;
      m = Math.max(-(2 ** 48), Math.min(2 ** 48, m + delta));
      v[i] = m / 10 ** exponent;
    }
    for (const [at, x] of exceptions) v[at % n] = x;
    return { t, v };
  });

/** differences counts the positions where two columns differ (a deep comparison of millions of doubles takes seconds). */
function differences(a: Float64Array, b: Float64Array): number {
  let count = Math.abs(a.length - b.length);
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (!Object.is(a[i], b[i])) count++;
  return count;
}

/** decodedBits decodes a block's timestamps and values with the given loops, as bit patterns. */
function decodedBits(block: Uint32Array, count: number, loops: SampleLoops): { t: string[]; v: string[] } {
  return { t: bits(decodeBlockTimestamps(block, count, loops)), v: bits(decodeBlockValues(block, count, loops)) };
}

describe('decoding loops in WebAssembly', () => {
  it('is the module its source compiles to', async () => {
    await expectCommittedModule('sampleCodec', SAMPLE_CODEC_WASM);
  });

  it('run where the runtime has WebAssembly', () => {
    expect(sampleLoops()).not.toBe(sampleLoopsInJavaScript());
  });

  it('decode every layout bit for bit as the JavaScript loops do', () => {
    const layouts: ValueLayout[] = ['xor', 'decimal', 'smaller'];
    const anySeries = fc.oneof(arbitrarySeries, scrapeLikeSeries, decimalSeries);
    fc.assert(
      fc.property(anySeries, fc.constantFrom(...layouts), ({ t, v }, layout) => {
        const block = encodeSampleBlock(t, v, layout);
        const reference = decodedBits(block, t.length, sampleLoopsInJavaScript());
        expect(reference).toEqual({ t: bits(t), v: bits(v) });
        expect(decodedBits(block, t.length, sampleLoops())).toEqual(reference);
      }),
      { numRuns: 600 },
    );
  });

  it('grow their memory for a long series and keep decoding short ones after it', () => {
    const n = 2_000_000;
    const t = Float64Array.from({ length: n }, (_, i) => 1_700_000_000_000 + 15_000 * i + ((i * 7) % 11));
    const v = Float64Array.from({ length: n }, (_, i) => Math.sqrt(i));
    const long = encodeSampleBlock(t, v);
    const short = encodeSampleBlock(t.subarray(0, 3), v.subarray(0, 3));
    expect(bits(decodeBlockValues(short, 3))).toEqual(bits(v.subarray(0, 3)));
    expect(differences(decodeBlockValues(long, n), v)).toBe(0);
    expect(differences(decodeBlockTimestamps(long, n), t)).toBe(0);
    expect(bits(decodeBlockValues(short, 3))).toEqual(bits(v.subarray(0, 3)));
  });

  it('leave a series too large for their memory bound to the JavaScript loops, which decode it the same', () => {
    const n = 5_000_000;
    const t = Float64Array.from({ length: n }, (_, i) => 1_700_000_000_000 + 15_000 * i + ((i * 7) % 11));
    const v = Float64Array.from({ length: n }, (_, i) => Math.sqrt(i));
    const block = encodeSampleBlock(t, v, 'xor');
    // Eight bytes a decoded value and about seven a coded one: past the module's 64 MiB.
    expect(block.length * 4 + n * 8).toBeGreaterThan(64 * 2 ** 20);
    expect(differences(decodeBlockValues(block, n), v)).toBe(0);
    expect(differences(decodeBlockTimestamps(block, n), t)).toBe(0);
  });

  it('report a stream cut short as a format error', () => {
    const n = 1000;
    const t = Float64Array.from({ length: n }, (_, i) => 1_700_000_000_000 + 15_000 * i + ((i * 7919) % 13));
    for (const [layout, v] of [
      ['xor', Float64Array.from({ length: n }, (_, i) => Math.sqrt(i))],
      ['decimal', Float64Array.from({ length: n }, (_, i) => i * 1000 + ((i * 7919) % 97))],
    ] as const) {
      const block = encodeSampleBlock(t, v, layout);
      // Cut the last quarter of the value stream: the count still asks for every sample.
      const cut = block.subarray(0, block.length - Math.floor((block.length - 1 - block[0]) / 4));
      expect(() => decodeBlockValues(cut, n), layout).toThrow(SegmentFormatError);
    }
    const timestampsOnly = encodeSampleBlock(t, t);
    const cutTimes = Uint32Array.from(timestampsOnly.subarray(0, 1 + timestampsOnly[0]));
    cutTimes[0] = Math.floor(timestampsOnly[0] / 2);
    expect(() => decodeBlockTimestamps(cutTimes, n)).toThrow(SegmentFormatError);
  });
});
