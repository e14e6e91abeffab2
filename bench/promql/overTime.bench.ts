/**
 * The window kernels dashboards run over many series, avg_over_time and max_over_time, over
 * 1,000 series of 6 h scraped every 15 s, with a 10 m range at a 30 s step (the peer suite's
 * `avg by (route) (avg_over_time(x[10m]))` over 6 h): the engine's single loops timed against the
 * closure-driven driver they replaced (legacySliding.ts) in the same run, after checking that
 * both give the same bits.
 *
 * Run: npx tsc -p tsconfig.json && node dist/bench/promql/overTime.bench.js
 */
import { Bench } from 'tinybench';
import { functionKernel } from '../../engine/promql/functions.js';
import type { KernelInput, KernelOutput, RangeKernel } from '../../engine/promql/eval/kernels/types.js';
import { windowBounds } from '../../engine/promql/eval/selectors.js';
import { runWhenDirect } from '../runDirect.js';
import { taskMeanMs } from '../taskResult.js';
import { legacyAvgOverTime, legacyMaxOverTime } from './legacySliding.js';
import { seededRandom } from '../seededRandom.js';

const SERIES = Number(process.env.BENCH_SERIES ?? 1_000);
const SCRAPE_MS = 15_000;
const SAMPLES = 6 * 240 + 1;
const RANGE_MS = 600_000;
const STEP_MS = 30_000;

/** inputs builds every series' samples and windows once, as the evaluator hands them to a kernel. */
function inputs(): KernelInput[] {
  const ts = Float64Array.from({ length: SAMPLES }, (_, i) => i * SCRAPE_MS);
  const refs = Float64Array.from({ length: Math.floor((ts[SAMPLES - 1] - RANGE_MS) / STEP_MS) + 1 }, (_, i) => RANGE_MS + i * STEP_MS);
  const random = seededRandom(7);
  const out: KernelInput[] = [];
  for (let s = 0; s < SERIES; s++) {
    const vals = new Float64Array(SAMPLES);
    let v = random() * 1000;
    for (let i = 0; i < SAMPLES; i++) vals[i] = v += random() * 3.7;
    const lo = new Int32Array(refs.length);
    const hi = new Int32Array(refs.length);
    windowBounds(ts, refs, RANGE_MS, lo, hi);
    out.push({ ts, vals, lo, hi, refs, rangeMs: RANGE_MS, stepTimes: refs, params: [] });
  }
  return out;
}

function kernelOf(name: string): RangeKernel {
  const fn = functionKernel(name);
  if (fn?.kind !== 'window') throw new Error(`${name} has no window kernel`);
  return fn.kernel;
}

/** runAll applies `kernel` to every series, as a range query over all of them does. */
function runAll(kernel: RangeKernel, all: readonly KernelInput[], outs: KernelOutput[]): void {
  for (let s = 0; s < all.length; s++) {
    outs[s].present.fill(0);
    kernel(all[s], outs[s]);
  }
}

function sameBits(a: KernelOutput[], b: KernelOutput[], name: string): void {
  for (let s = 0; s < a.length; s++) {
    for (let i = 0; i < a[s].values.length; i++) {
      if (a[s].present[i] !== b[s].present[i] || !Object.is(a[s].values[i], b[s].values[i])) throw new Error(`${name}: series ${s} step ${i}: ${a[s].values[i]} vs ${b[s].values[i]}`);
    }
  }
}

export async function main(): Promise<void> {
  const all = inputs();
  const steps = all[0].lo.length;
  const outputs = (): KernelOutput[] => all.map(() => ({ values: new Float64Array(steps), present: new Uint8Array(steps) }));
  const cases = [
    { name: 'avg_over_time', kernel: kernelOf('avg_over_time'), legacy: legacyAvgOverTime },
    { name: 'max_over_time', kernel: kernelOf('max_over_time'), legacy: legacyMaxOverTime },
  ];
  const ours = outputs();
  const theirs = outputs();
  for (const c of cases) {
    runAll(c.kernel, all, ours);
    runAll(c.legacy, all, theirs);
    sameBits(ours, theirs, c.name);
  }
  const bench = new Bench({ time: 500, warmup: true, warmupTime: 200 });
  for (const c of cases) {
    bench.add(c.name, () => runAll(c.kernel, all, ours));
    bench.add(`${c.name} closure-driven`, () => runAll(c.legacy, all, theirs));
  }
  await bench.run();
  const mean = (name: string): number => taskMeanMs(bench, name);
  console.log(`\n${SERIES} series x ${steps} steps (10m range, 30s step); ms per query, one thread`);
  for (const c of cases) {
    const a = mean(c.name);
    const b = mean(`${c.name} closure-driven`);
    console.log(`  ${c.name.padEnd(14)} single loop ${a.toFixed(2).padStart(7)} ms   closure-driven ${b.toFixed(2).padStart(7)} ms   ratio ${(a / b).toFixed(2)}x   ${((a * 1e6) / (SERIES * steps)).toFixed(1)} ns/step`);
  }
}

runWhenDirect(import.meta.url, main);
