/**
 * The sliding kernels must give, for overlapping windows, what a naive recomputation of each
 * window gives: these tests slide random windows over random series and compare against
 * straightforward reference implementations written here.
 */
import { describe, expect, it } from 'vitest';
import { functionKernel } from '../../../../engine/promql/functions.js';
import { SortedWindow } from '../../../../engine/promql/eval/kernels/ordered.js';
import type { KernelInput, KernelOutput } from '../../../../engine/promql/eval/kernels/types.js';
import { mulberry32 } from './helpers.js';

interface Case {
  input: KernelInput;
}

/** randomCase builds a series (1s spacing with gaps) and windows of `rangeMs` every `stepMs`. */
function randomCase(seed: number, stepMs: number, rangeMs: number, special: boolean): Case {
  const rnd = mulberry32(seed);
  const ts: number[] = [];
  const vals: number[] = [];
  let t = 0;
  for (let i = 0; i < 400; i++) {
    t += 1000 * (1 + Math.floor(rnd() * 3));
    ts.push(t);
    let v = Math.round((rnd() * 200 - 50) * 1000) / 1000;
    if (special) {
      const r = rnd();
      if (r < 0.02) v = NaN;
      else if (r < 0.03) v = Infinity;
      else if (r < 0.04) v = -Infinity;
    }
    vals.push(v);
  }
  const steps: number[] = [];
  for (let s = rangeMs; s <= t + rangeMs; s += stepMs) steps.push(s);
  const lo = new Int32Array(steps.length);
  const hi = new Int32Array(steps.length);
  steps.forEach((end, i) => {
    let a = 0;
    while (a < ts.length && ts[a] <= end - rangeMs) a++;
    let b = a;
    while (b < ts.length && ts[b] <= end) b++;
    lo[i] = a;
    hi[i] = b;
  });
  const q = Float64Array.from(steps, (_, i) => [0, 0.25, 0.5, 0.9, 1][i % 5]);
  return {
    input: {
      ts: Float64Array.from(ts),
      vals: Float64Array.from(vals),
      lo,
      hi,
      refs: Float64Array.from(steps),
      rangeMs,
      stepTimes: Float64Array.from(steps),
      params: [q],
    },
  };
}

function run(name: string, input: KernelInput): KernelOutput {
  const out: KernelOutput = { values: new Float64Array(input.lo.length), present: new Uint8Array(input.lo.length) };
  const fn = functionKernel(name);
  if (fn?.kind !== 'window') throw new Error(`${name} has no window kernel`);
  fn.kernel(input, out);
  return out;
}

function windowValues(input: KernelInput, i: number): number[] {
  return Array.from(input.vals.subarray(input.lo[i], input.hi[i]));
}

/** close compares with a relative tolerance, NaN equal to NaN and infinities exactly. */
function expectClose(actual: number, expected: number, context: string): void {
  if (Number.isNaN(expected)) {
    expect(actual, context).toBeNaN();
    return;
  }
  if (!Number.isFinite(expected)) {
    expect(actual, context).toBe(expected);
    return;
  }
  const tolerance = 1e-9 * Math.max(1, Math.abs(expected));
  expect(Math.abs(actual - expected), `${context}: ${actual} vs ${expected}`).toBeLessThanOrEqual(tolerance);
}

const references: Record<string, (w: number[], input: KernelInput, i: number) => number> = {
  sum_over_time: (w) => w.reduce((a, b) => a + b, 0),
  avg_over_time: (w) => w.reduce((a, b) => a + b, 0) / w.length,
  count_over_time: (w) => w.length,
  max_over_time: (w) => {
    const numbers = w.filter((v) => !Number.isNaN(v));
    return numbers.length === 0 ? NaN : Math.max(...numbers);
  },
  min_over_time: (w) => {
    const numbers = w.filter((v) => !Number.isNaN(v));
    return numbers.length === 0 ? NaN : Math.min(...numbers);
  },
  stdvar_over_time: (w) => {
    const mean = w.reduce((a, b) => a + b, 0) / w.length;
    return w.reduce((a, b) => a + (b - mean) ** 2, 0) / w.length;
  },
  quantile_over_time: (w, input, i) => {
    const q = input.params[0][i];
    const sorted = w.slice().sort((a, b) => (Number.isNaN(a) ? -1 : Number.isNaN(b) ? 1 : a - b));
    const rank = q * (sorted.length - 1);
    const lower = Math.floor(rank);
    const upper = Math.min(sorted.length - 1, lower + 1);
    return sorted[lower] * (1 - (rank - lower)) + sorted[upper] * (rank - lower);
  },
  mad_over_time: (w) => {
    if (w.some(Number.isNaN)) return NaN;
    const median = (xs: number[]): number => {
      const s = xs.slice().sort((a, b) => a - b);
      const r = 0.5 * (s.length - 1);
      const l = Math.floor(r);
      return s[l] * (1 - (r - l)) + s[Math.min(s.length - 1, l + 1)] * (r - l);
    };
    const m = median(w);
    return median(w.map((v) => Math.abs(v - m)));
  },
  ts_of_max_over_time: (w, input, i) => {
    let best = -1;
    for (let k = 0; k < w.length; k++) if (best < 0 || w[k] >= w[best] || Number.isNaN(w[best])) best = k;
    return input.ts[input.lo[i] + best] / 1000;
  },
  deriv: (w, input, i) => {
    const xs = Array.from(input.ts.subarray(input.lo[i], input.hi[i]), (t) => t / 1000);
    const mx = xs.reduce((a, b) => a + b, 0) / xs.length;
    const my = w.reduce((a, b) => a + b, 0) / w.length;
    let sxy = 0;
    let sxx = 0;
    for (let k = 0; k < w.length; k++) {
      sxy += (xs[k] - mx) * (w[k] - my);
      sxx += (xs[k] - mx) ** 2;
    }
    return sxy / sxx;
  },
  changes: (w) => {
    let n = 0;
    for (let k = 1; k < w.length; k++) if (w[k] !== w[k - 1] && !(Number.isNaN(w[k]) && Number.isNaN(w[k - 1]))) n++;
    return n;
  },
  resets: (w) => {
    let n = 0;
    for (let k = 1; k < w.length; k++) if (w[k] < w[k - 1]) n++;
    return n;
  },
};

describe('sliding kernels agree with per-window recomputation', () => {
  for (const [name, reference] of Object.entries(references)) {
    for (const [stepMs, rangeMs] of [
      [1000, 30_000],
      [7000, 60_000],
      [60_000, 60_000],
      [90_000, 60_000],
    ]) {
      it(`${name} with step ${stepMs / 1000}s over ${rangeMs / 1000}s windows`, () => {
        for (const seed of [1, 2, 3]) {
          const { input } = randomCase(seed * 31 + stepMs, stepMs, rangeMs, false);
          const out = run(name, input);
          let checked = 0;
          for (let i = 0; i < input.lo.length; i++) {
            const w = windowValues(input, i);
            const minimum = name === 'deriv' ? 2 : 1;
            if (w.length < minimum) {
              expect(out.present[i], `${name} step ${i} should be absent`).toBe(0);
              continue;
            }
            expect(out.present[i], `${name} step ${i} should be present`).toBe(1);
            expectClose(out.values[i], reference(w, input, i), `${name} seed ${seed} step ${i}`);
            checked++;
          }
          expect(checked).toBeGreaterThan(0);
        }
      });
    }
  }

  it('follow Prometheus for NaN and infinities while sliding', () => {
    for (const name of ['sum_over_time', 'avg_over_time', 'max_over_time', 'min_over_time', 'quantile_over_time', 'mad_over_time']) {
      const { input } = randomCase(99, 2000, 45_000, true);
      const out = run(name, input);
      for (let i = 0; i < input.lo.length; i++) {
        const w = windowValues(input, i);
        if (w.length === 0) continue;
        const reference = references[name](w, input, i);
        // Plain summation and Prometheus agree on NaN/infinite outcomes; finite ones may differ in rounding.
        if (!Number.isFinite(reference)) expectClose(out.values[i], reference, `${name} step ${i}`);
        else expect(Number.isFinite(out.values[i]), `${name} step ${i}`).toBe(true);
      }
    }
  });

  it('keep compensated sums exact where naive sliding would lose them', () => {
    // Plain floating-point sums of these windows lose the small values next to ±1e100.
    const ts = Float64Array.from([1000, 2000, 3000, 4000, 5000]);
    const vals = Float64Array.from([1, 1e100, 2, -1e100, 3]);
    const refs = Float64Array.from([4000, 4500, 5000]);
    const input: KernelInput = {
      ts,
      vals,
      lo: Int32Array.from([0, 1, 1]),
      hi: Int32Array.from([4, 4, 5]),
      refs,
      rangeMs: 4000,
      stepTimes: refs,
      params: [],
    };
    const out = run('sum_over_time', input);
    expect(Array.from(out.values)).toEqual([3, 2, 5]);
  });
});

describe('SortedWindow', () => {
  it('keeps order through inserts and removals, NaN first', () => {
    const w = new SortedWindow(10);
    w.load(Float64Array.from([5, 1, NaN, 3]), 0, 4);
    expect([0, 1, 2, 3].map((k) => w.at(k))).toEqual([NaN, 1, 3, 5]);
    w.remove(NaN);
    w.insert(2);
    w.remove(5);
    w.insert(10);
    expect(w.length).toBe(4);
    expect([0, 1, 2, 3].map((k) => w.at(k))).toEqual([1, 2, 3, 10]);
    expect(w.quantile(0.5)).toBe(2.5);
    expect(w.medianAbsoluteDeviation()).toBe(1);
  });
});
