import { Bench } from 'tinybench';
import { eachBatch, floatText, type FloatTextBatch } from '../../engine/common/floatText.js';
import { formatGoFloat } from '../../engine/common/goFloat.js';
import { runWhenDirect } from '../runDirect.js';
import { seededRandom } from '../seededRandom.js';
import { taskMeanMs } from '../taskResult.js';

/**
 * Doubles to text as the query workers write them, 241,000 points (1,000 series of 241 steps):
 * the WebAssembly module (engine/common/floatText.ts) against JavaScript's number-to-string
 * copied byte by byte into a buffer, as the workers did before, in the same run, after
 * checking that both give the same bytes. Values are rates (17 significant digits, the costly
 * case) and, apart, whole numbers. `node dist/bench/common/floatText.bench.js`.
 */
const POINTS = 241_000;
const STEPS = 241;

function column(make: (i: number) => number): Float64Array {
  return Float64Array.from({ length: POINTS }, (_, i) => make(i));
}

const out = Buffer.allocUnsafe(POINTS * 64);

/** javaScriptValues is the previous way: `'' + v` per value, copied character by character. */
function javaScriptValues(values: Float64Array): number {
  let length = 0;
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (Number.isFinite(v)) {
      const text = '' + v;
      for (let k = 0; k < text.length; k++) out[length++] = text.charCodeAt(k);
    }
    out[length++] = 0x2c;
  }
  return length;
}

/** javaScriptSamples is the previous Prometheus API rendering: each step's seconds formatted once, values through formatGoFloat. */
function javaScriptSamples(timestampsMs: Float64Array, values: Float64Array): number {
  const stepText: string[] = [];
  let length = 0;
  for (let g = 0; g < values.length; g++) {
    const time = (stepText[g % STEPS] ??= '' + timestampsMs[g] / 1000);
    const value = formatGoFloat(values[g]);
    out[length++] = 0x5b;
    for (let k = 0; k < time.length; k++) out[length++] = time.charCodeAt(k);
    out[length++] = 0x2c;
    out[length++] = 0x22;
    for (let k = 0; k < value.length; k++) out[length++] = value.charCodeAt(k);
    out[length++] = 0x22;
    out[length++] = 0x5d;
    out[length++] = 0x2c;
  }
  return length;
}

/** copyOut copies every batch's text into `out`, as the workers copy it into their buffers. */
function copyOut(count: number, make: (from: number) => FloatTextBatch): number {
  let length = 0;
  eachBatch(count, make, (batch) => {
    out.set(batch.text, length);
    length += batch.text.length;
  });
  return length;
}

function moduleValues(values: Float64Array): number {
  return copyOut(values.length, (from) => floatText().values(values, from, values.length));
}

function moduleSamples(timestampsMs: Float64Array, values: Float64Array): number {
  return copyOut(values.length, (from) => floatText().samples(timestampsMs, values, from, values.length));
}

function sameBytes(a: () => number, b: () => number, what: string): void {
  const first = Buffer.from(out.subarray(0, a()));
  if (!first.equals(out.subarray(0, b()))) throw new Error(`${what}: the module's text differs from JavaScript's`);
}

export async function main(): Promise<void> {
  const random = seededRandom(5);
  const rates = column(() => Math.floor(random() * 100_000) / 300);
  const wholes = column(() => Math.floor(random() * 1e9));
  const timestampsMs = column((i) => 1_764_000_000_000 + (i % STEPS) * 15_000);
  sameBytes(() => javaScriptValues(rates), () => moduleValues(rates), 'values');
  sameBytes(() => javaScriptSamples(timestampsMs, rates), () => moduleSamples(timestampsMs, rates), 'samples');
  const bench = new Bench({ time: 1_000, warmup: true, warmupTime: 300 });
  bench.add('rates: JavaScript', () => void javaScriptValues(rates));
  bench.add('rates: module', () => void moduleValues(rates));
  bench.add('whole numbers: JavaScript', () => void javaScriptValues(wholes));
  bench.add('whole numbers: module', () => void moduleValues(wholes));
  bench.add('Prometheus API samples: JavaScript', () => void javaScriptSamples(timestampsMs, rates));
  bench.add('Prometheus API samples: module', () => void moduleSamples(timestampsMs, rates));
  await bench.run();
  console.log(`\n${POINTS.toLocaleString('en')} doubles to text`);
  for (const what of ['rates', 'whole numbers', 'Prometheus API samples']) {
    const js = taskMeanMs(bench, `${what}: JavaScript`);
    const wasm = taskMeanMs(bench, `${what}: module`);
    const ns = (ms: number): string => `${((ms * 1e6) / POINTS).toFixed(0)} ns/value`;
    console.log(`  ${what.padEnd(24)} module ${ns(wasm)}   JavaScript ${ns(js)}   ratio ${(wasm / js).toFixed(2)}x`);
  }
}

runWhenDirect(import.meta.url, main);
