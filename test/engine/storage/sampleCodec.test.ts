import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BitReader, BitWriter } from '../../../engine/storage/bitStream.js';
import { decodeBlockTimestamps, decodeBlockValues, encodeSampleBlock } from '../../../engine/storage/sampleBlocks.js';
import { staleMarkerArray } from '../../../engine/storage/staleness.js';

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
    const series = fc
      .array(fc.tuple(fc.double({ noNaN: true }), fc.integer(), fc.integer()), { minLength: 1, maxLength: 300 })
      .map((rows) => {
        const t = ascending(rows.map(([x]) => x));
        const v = fromWords(rows.slice(0, t.length).flatMap(([, lo, hi]) => [lo >>> 0, hi >>> 0]));
        return { t, v };
      });
    fc.assert(fc.property(series, ({ t, v }) => void expectExact(t, v)), { numRuns: 300 });
  });

  it('round-trip scrape-like series: jittered integer timestamps, counters, decimals and special values', () => {
    const special = fc.constantFrom(NaN, -0, 0, Infinity, -Infinity, Number.MIN_VALUE, -Number.MIN_VALUE, 2.2250738585072014e-308, Number.MAX_VALUE, staleMarkerArray()[0]);
    const value = fc.oneof(
      fc.integer({ min: -1000, max: 1000 }),
      fc.integer({ min: -1e6, max: 1e6 }).map((n) => n / 1000),
      fc.double({ noNaN: false }),
      fc.integer({ min: -(2 ** 53), max: 2 ** 53 }),
      special,
    );
    const series = fc
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
    fc.assert(fc.property(series, ({ t, v }) => void expectExact(t, v)), { numRuns: 300 });
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
