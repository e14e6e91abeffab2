import { describe, expect, it } from 'vitest';
import { floatText, FloatTextInJavaScript, type FloatTextWriter } from '../../../engine/common/floatText.js';
import { FLOAT_TEXT_WASM } from '../../../engine/common/floatTextWasm.js';
import { formatGoFloat } from '../../../engine/common/goFloat.js';
import { SeededRandom } from '../../support/seededRandom.js';
import { expectCommittedModule } from '../../support/wasmModule.js';

/** valuesText runs the module's `values` over a whole column, batch after batch, and splits its text per value. */
function valuesText(values: Float64Array, writer: FloatTextWriter = floatText()): string[] {
  const out: string[] = [];
  for (let from = 0; from < values.length; ) {
    const batch = writer.values(values, from, values.length);
    expect(batch.written).toBeGreaterThan(0);
    for (let i = 0; i < batch.written; i++) out.push(Buffer.from(batch.text.subarray(batch.at[i], batch.at[i + 1])).toString('latin1'));
    from += batch.written;
  }
  return out;
}

function samplesText(timestampsMs: Float64Array, values: Float64Array, writer: FloatTextWriter = floatText()): string[] {
  const out: string[] = [];
  for (let from = 0; from < values.length; ) {
    const batch = writer.samples(timestampsMs, values, from, values.length);
    expect(batch.written).toBeGreaterThan(0);
    for (let i = 0; i < batch.written; i++) out.push(Buffer.from(batch.text.subarray(batch.at[i], batch.at[i + 1])).toString('latin1'));
    from += batch.written;
  }
  return out;
}

/** randomBits is doubles of uniformly random bit patterns: every exponent, subnormals, NaNs and infinities included. */
function randomBits(rng: SeededRandom, count: number): Float64Array {
  const words = new Uint32Array(count * 2);
  for (let i = 0; i < words.length; i++) words[i] = Math.floor(rng.next() * 2 ** 32);
  return new Float64Array(words.buffer);
}

/** EDGES are the doubles where shortest printing is hardest: powers of two and ten, their neighbours, the ends of every range. */
function edges(): Float64Array {
  const out = [0, -0, 1, -1, 0.1, 0.2, 0.3, 1 / 3, 2 / 3, 5e-324, 1e-323, 1.5e-323, 2.2250738585072014e-308, 2.225073858507201e-308, Number.MAX_VALUE, Number.MIN_VALUE, Number.EPSILON];
  out.push(1e21, 1e22, 9.999999999999999e20, 1e-7, 1e-6, 9.99999e-7, 2 ** 53, 2 ** 53 + 2, 2 ** 63, 2 ** 64, 123456789012345680000, 4.35, 0.000001);
  for (let e = -1074; e <= 1023; e++) out.push(2 ** e, 2 ** e * 1.5, -(2 ** e));
  for (let p = -323; p <= 308; p++) out.push(Number(`1e${p}`), Number(`9.999999999999999e${p}`), Number(`5e${p}`), Number(`1.2345678901234567e${p}`));
  const bits = new Float64Array(1);
  const word = new BigUint64Array(bits.buffer);
  for (const v of out.slice()) {
    if (!(v > 0)) continue;
    bits[0] = v;
    const w = word[0];
    for (const d of [1n, 2n]) {
      word[0] = w + d;
      out.push(bits[0]);
      word[0] = w - d;
      out.push(bits[0]);
    }
  }
  return Float64Array.from(out.filter((v) => !Number.isNaN(v)));
}

describe('float text in WebAssembly', () => {
  it('is the module its source compiles to', async () => {
    await expectCommittedModule('floatText', FLOAT_TEXT_WASM);
  });

  it('writes values as JavaScript prints them, and nothing for NaN and infinities', () => {
    const rng = new SeededRandom(71);
    const realistic = Float64Array.from({ length: 50_000 }, () => ((rng.next() - 0.5) * 10 ** Math.floor(rng.next() * 40 - 20)) / 3);
    const repeated = Float64Array.from({ length: 2_000 }, (_, i) => Math.floor(i / 7) / 4);
    for (const column of [edges(), randomBits(rng, 200_000), realistic, repeated, Float64Array.of(NaN, Infinity, -Infinity, 1, 1, NaN, 1)]) {
      const got = valuesText(column);
      expect(got).toHaveLength(column.length);
      const wrong = [...column].map((v, i) => ({ v, want: Number.isFinite(v) ? `${v},` : ',', got: got[i] })).filter((r) => r.got !== r.want);
      expect(wrong.slice(0, 5)).toEqual([]);
    }
  });

  it('writes samples as the Prometheus API renders them: seconds as JavaScript prints them, values as Go does', () => {
    const rng = new SeededRandom(72);
    const values = Float64Array.from([...edges(), ...randomBits(rng, 100_000), NaN, Infinity, -Infinity, -0, 1e-300, -1e300]);
    const timestamps = Float64Array.from(values, (_, i) => {
      switch (i % 5) {
        case 0:
          return 1_764_000_000_000 + i * 15_000;
        case 1:
          return -Math.floor(rng.next() * 1e13);
        case 2:
          return Math.floor(rng.next() * 1e17);
        case 3:
          return rng.next() * 1e12;
        default:
          return i;
      }
    });
    // Never a sample's time, but spelled as JavaScript spells them all the same.
    timestamps.set([NaN, Infinity, -Infinity, -0, 0.5, 1e300], 10);
    const got = samplesText(timestamps, values);
    expect(got).toHaveLength(values.length);
    const wrong = [...values].map((v, i) => ({ t: timestamps[i], v, want: `[${timestamps[i] / 1000},"${formatGoFloat(v)}"],`, got: got[i] })).filter((r) => r.got !== r.want);
    expect(wrong.slice(0, 5)).toEqual([]);
  });

  it('writes the same text in JavaScript where WebAssembly is off (node --jitless)', () => {
    const rng = new SeededRandom(73);
    const values = Float64Array.from([...edges().subarray(0, 3_000), ...randomBits(rng, 20_000), NaN, Infinity, -Infinity, -0, 1e-300]);
    const timestamps = Float64Array.from(values, (_, i) => (i % 2 === 0 ? 1_764_000_000_000 + i * 15_000 : rng.next() * 1e12));
    const javaScript = new FloatTextInJavaScript();
    expect(floatText()).not.toBeInstanceOf(FloatTextInJavaScript);
    expect(valuesText(values, javaScript)).toEqual(valuesText(values));
    expect(samplesText(timestamps, values, javaScript)).toEqual(samplesText(timestamps, values));
  });

  it('splits a column whose text outgrows one batch', () => {
    // Go spells each of these with over 300 digits: a batch holds fewer than the module's chunk.
    const tiny = new Float64Array(20_000).fill(1e-300);
    const first = floatText().samples(new Float64Array(tiny.length), tiny, 0, tiny.length);
    expect(first.written).toBeLessThan(8_192);
    const all = samplesText(new Float64Array(tiny.length), tiny);
    expect(new Set(all)).toEqual(new Set([`[0,"${formatGoFloat(1e-300)}"],`]));
    expect(all).toHaveLength(tiny.length);
  });
});
