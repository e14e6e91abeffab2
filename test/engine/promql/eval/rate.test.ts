import { describe, expect, it } from 'vitest';
import { deltaKernel, ideltaKernel, increaseKernel, irateKernel, rateKernel } from '../../../../engine/promql/eval/kernels/rate.js';
import type { KernelInput, KernelOutput, RangeKernel, SharedWindows } from '../../../../engine/promql/eval/kernels/types.js';
import { byLabels, headWith, key, range, regular, vectorOf } from './helpers.js';
import { SeededRandom } from '../../../support/seededRandom.js';

/**
 * prometheusExtrapolatedRate is Prometheus' extrapolatedRate for one window, written out step by
 * step as its source computes it, so the kernel's shortcuts can be held to the same bits.
 */
function prometheusExtrapolatedRate(ts: Float64Array, vals: Float64Array, first: number, last: number, rangeEnd: number, rangeMs: number, isCounter: boolean, isRate: boolean): number {
  let result = vals[last] - vals[first];
  if (isCounter) for (let j = first + 1; j <= last; j++) if (vals[j] < vals[j - 1]) result += vals[j - 1];
  const rangeStart = rangeEnd - rangeMs;
  let durationToStart = (ts[first] - rangeStart) / 1000;
  let durationToEnd = (rangeEnd - ts[last]) / 1000;
  const sampledInterval = (ts[last] - ts[first]) / 1000;
  const averageDurationBetweenSamples = sampledInterval / (last - first);
  const extrapolationThreshold = averageDurationBetweenSamples * 1.1;
  if (durationToStart >= extrapolationThreshold) durationToStart = averageDurationBetweenSamples / 2;
  if (isCounter) {
    let durationToZero = durationToStart;
    if (result > 0 && vals[first] >= 0) durationToZero = sampledInterval * (vals[first] / result);
    if (durationToZero < durationToStart) durationToStart = durationToZero;
  }
  if (durationToEnd >= extrapolationThreshold) durationToEnd = averageDurationBetweenSamples / 2;
  let factor = 1;
  if (sampledInterval !== 0) factor = (sampledInterval + durationToStart + durationToEnd) / sampledInterval;
  if (isRate) factor /= rangeMs / 1000;
  return result * factor;
}

/** kernels are the extrapolating kernels with their counter and per-second flags. */
const kernels: Array<[RangeKernel, boolean, boolean]> = [
  [rateKernel, true, true],
  [increaseKernel, true, false],
  [deltaKernel, false, false],
];

/** randomWindows is a series' timestamps, regular or not, and a range query's windows over them. */
function randomWindows(random: SeededRandom): { ts: Float64Array; refs: number[]; los: number[]; his: number[]; rangeMs: number } {
  const regularScrape = random.chance(0.5);
  const n = random.int(2, 300);
  const ts = new Float64Array(n);
  let t = 1_700_000_000_000 + random.int(0, 14_999);
  for (let j = 0; j < n; j++) {
    ts[j] = t;
    t += regularScrape ? 15_000 : random.int(1, 40_000);
  }
  const rangeMs = random.pick([60_000, 300_000, 600_000]);
  const stepMs = random.pick([15_000, 30_000, 60_000, 7_000]);
  const refs: number[] = [];
  const los: number[] = [];
  const his: number[] = [];
  for (let end = ts[0] + random.int(0, 60_000); end <= ts[n - 1] + rangeMs; end += stepMs) {
    let lo = 0;
    while (lo < n && ts[lo] <= end - rangeMs) lo++;
    let hi = lo;
    while (hi < n && ts[hi] <= end) hi++;
    refs.push(end);
    los.push(lo);
    his.push(hi);
  }
  return { ts, refs, los, his, rangeMs };
}

/** randomCounter is a counter's values: small or large, with resets and flat stretches. */
function randomCounter(random: SeededRandom, n: number): Float64Array {
  const vals = new Float64Array(n);
  let v = random.chance(0.3) ? random.next() * 5 : random.next() * 1e6;
  for (let j = 0; j < n; j++) {
    vals[j] = v;
    v = random.chance(0.02) ? random.next() * 10 : v + random.next() * (random.chance(0.2) ? 0 : 100);
  }
  return vals;
}

/** edgeValues mixes zeros, negatives, NaN and infinities into a counter, where extrapolation takes its other turns. */
function edgeValues(random: SeededRandom, n: number): Float64Array {
  const vals = randomCounter(random, n);
  const odd = [0, -0, -3, NaN, Infinity, -Infinity, 1e-300, 1e300];
  for (let j = 0; j < n; j++) if (random.chance(0.1)) vals[j] = random.pick(odd);
  return vals;
}

/** expectPrometheusBits checks every window of a kernel's answer against prometheusExtrapolatedRate, bit for bit. */
function expectPrometheusBits(out: KernelOutput, input: KernelInput, isCounter: boolean, isRate: boolean, what: string): void {
  for (let i = 0; i < input.refs.length; i++) {
    const present = input.hi[i] - input.lo[i] >= 2;
    expect(out.present[i], `${what} window ${i}`).toBe(present ? 1 : 0);
    if (present) {
      const want = prometheusExtrapolatedRate(input.ts, input.vals, input.lo[i], input.hi[i] - 1, input.refs[i], input.rangeMs, isCounter, isRate);
      expect(Object.is(out.values[i], want), `${what} window ${i}: ${out.values[i]} against ${want}`).toBe(true);
    }
  }
}

/** runKernel applies a kernel to samples for one window ending at `endMs`. */
function runKernel(kernel: RangeKernel, ts: number[], vals: number[], endMs: number, rangeMs: number): number | undefined {
  const t = Float64Array.from(ts);
  let lo = 0;
  while (lo < t.length && t[lo] <= endMs - rangeMs) lo++;
  let hi = lo;
  while (hi < t.length && t[hi] <= endMs) hi++;
  const input: KernelInput = {
    ts: t,
    vals: Float64Array.from(vals),
    lo: Int32Array.of(lo),
    hi: Int32Array.of(hi),
    refs: Float64Array.of(endMs),
    rangeMs,
    stepTimes: Float64Array.of(endMs),
    params: [],
  };
  const out: KernelOutput = { values: new Float64Array(1), present: new Uint8Array(1) };
  kernel(input, out);
  return out.present[0] === 1 ? out.values[0] : undefined;
}

describe('rate/increase extrapolation', () => {
  it('gives the bits of Prometheus\' formula over regular and irregular series, resets and counters starting near zero', () => {
    const random = new SeededRandom(2026);
    for (let trial = 0; trial < 200; trial++) {
      const { ts, refs, los, his, rangeMs } = randomWindows(random);
      const vals = randomCounter(random, ts.length);
      const input: KernelInput = { ts, vals, lo: Int32Array.from(los), hi: Int32Array.from(his), refs: Float64Array.from(refs), rangeMs, stepTimes: Float64Array.from(refs), params: [] };
      for (const [kernel, isCounter, isRate] of kernels) {
        const out: KernelOutput = { values: new Float64Array(refs.length), present: new Uint8Array(refs.length) };
        kernel(input, out);
        expectPrometheusBits(out, input, isCounter, isRate, `trial ${trial}`);
      }
    }
  });

  it('gives the same bits to series that share their windows, the times\' part derived once from the second on', () => {
    const random = new SeededRandom(1125);
    for (let trial = 0; trial < 60; trial++) {
      const { ts, refs, los, his, rangeMs } = randomWindows(random);
      for (const [kernel, isCounter, isRate] of kernels) {
        // As RunWindows hands them out: not reused for the first series, reused for every later one.
        const windows: SharedWindows = { reused: false, derived: undefined };
        let derived: object | undefined;
        for (let series = 0; series < 6; series++) {
          const vals = series === 5 ? edgeValues(random, ts.length) : randomCounter(random, ts.length);
          const input: KernelInput = { ts, vals, lo: Int32Array.from(los), hi: Int32Array.from(his), refs: Float64Array.from(refs), rangeMs, stepTimes: Float64Array.from(refs), params: [], windows };
          const out: KernelOutput = { values: new Float64Array(refs.length), present: new Uint8Array(refs.length) };
          kernel(input, out);
          expectPrometheusBits(out, input, isCounter, isRate, `trial ${trial} series ${series}`);
          if (series === 0) expect(windows.derived, 'nothing derived for windows read once').toBeUndefined();
          if (series === 1) derived = windows.derived;
          if (series >= 1) expect(windows.derived, 'derived once, then kept').toBe(derived);
          (windows as { reused: boolean }).reused = true;
        }
        expect(derived).toBeDefined();
      }
    }
  });

  it('covers the whole window when samples reach its start', () => {
    // 1/s counter sampled every 15s; window (0s, 60s] holds 15..60.
    expect(runKernel(rateKernel, [15e3, 30e3, 45e3, 60e3], [15, 30, 45, 60], 60e3, 60e3)).toBeCloseTo(1, 12);
    expect(runKernel(increaseKernel, [15e3, 30e3, 45e3, 60e3], [15, 30, 45, 60], 60e3, 60e3)).toBeCloseTo(60, 12);
  });

  it('extrapolates only half an interval when the series starts inside the window', () => {
    // First sample 30s after the window start (> 1.1 average intervals): extend by 7.5s.
    expect(runKernel(increaseKernel, [30e3, 45e3, 60e3], [100, 115, 130], 60e3, 60e3)).toBeCloseTo(37.5, 12);
    expect(runKernel(rateKernel, [30e3, 45e3, 60e3], [100, 115, 130], 60e3, 60e3)).toBeCloseTo(0.625, 12);
  });

  it('never extrapolates a counter below zero', () => {
    // Slope 1/s from value 1: the counter was zero 1s before the first sample.
    expect(runKernel(increaseKernel, [30e3, 45e3, 60e3], [1, 16, 31], 60e3, 60e3)).toBeCloseTo(31, 12);
  });

  it('adds the pre-reset value at each counter reset', () => {
    // 10 -> 20 -> reset -> 5 -> 15: raw increase 5 + 20 = 25, scaled by 60/45.
    expect(runKernel(increaseKernel, [15e3, 30e3, 45e3, 60e3], [10, 20, 5, 15], 60e3, 60e3)).toBeCloseTo((25 * 60) / 45, 12);
    // delta() treats the same samples as a gauge: 15 - 10, scaled.
    expect(runKernel(deltaKernel, [15e3, 30e3, 45e3, 60e3], [10, 20, 5, 15], 60e3, 60e3)).toBeCloseTo((5 * 60) / 45, 12);
  });

  it('needs two samples', () => {
    expect(runKernel(rateKernel, [60e3], [5], 60e3, 60e3)).toBeUndefined();
    expect(runKernel(rateKernel, [], [], 60e3, 60e3)).toBeUndefined();
  });

  it('irate and idelta use the last two samples', () => {
    expect(runKernel(irateKernel, [15e3, 30e3, 45e3, 60e3], [10, 20, 5, 15], 60e3, 60e3)).toBeCloseTo(10 / 15, 12);
    // At a reset irate takes the new value as the increase.
    expect(runKernel(irateKernel, [15e3, 30e3, 45e3], [10, 20, 5], 45e3, 60e3)).toBeCloseTo(5 / 15, 12);
    expect(runKernel(ideltaKernel, [15e3, 30e3, 45e3], [10, 20, 5], 45e3, 60e3)).toBe(-15);
  });

  it('the left edge of a window is open', () => {
    // A sample exactly at end - range is outside the window.
    expect(runKernel(increaseKernel, [0, 60e3], [0, 60], 60e3, 60e3)).toBeUndefined();
  });
});

describe('rate() through the evaluator', () => {
  const head = headWith([
    { labels: { __name__: 'req_total', job: 'a' }, samples: regular(15e3, Array.from({ length: 41 }, (_, i) => i * 15)) },
    { labels: { __name__: 'req_total', job: 'b' }, samples: regular(15e3, Array.from({ length: 41 }, (_, i) => i * 30)) },
    { labels: { __name__: 'reset_total', job: 'c' }, samples: regular(15e3, Array.from({ length: 41 }, (_, i) => (i < 20 ? i * 30 : (i - 20) * 30))) },
    { labels: { __name__: 'temperature', job: 'a' }, samples: regular(15e3, Array.from({ length: 41 }, () => 20)) },
  ]);

  it('drops the metric name and flags non-counter names', () => {
    const result = byLabels(vectorOf(head, 'rate(req_total[1m])', 300e3));
    expect(Object.keys(result).sort()).toEqual([key({ job: 'a' }), key({ job: 'b' })]);
    expect(result[key({ job: 'a' })]).toBeCloseTo(1, 12);
    expect(result[key({ job: 'b' })]).toBeCloseTo(2, 12);
    const info = vectorOf(head, 'rate(temperature[1m])', 300e3);
    expect(info).toHaveLength(1);
  });

  it('reports a possible non-counter as an info annotation', () => {
    const r = range(head, 'rate(temperature[1m])', 60e3, 120e3, 30e3);
    expect(r.annotations.map((a) => a.message)).toEqual([
      'PromQL info: metric might not be a counter, name does not end in _total/_sum/_count/_bucket: "temperature"',
    ]);
  });

  it('gives the same answer in a range query at every step', () => {
    const r = range(head, 'rate({__name__=~".*_total"}[2m])', 120e3, 600e3, 15e3);
    expect(r.series).toHaveLength(3);
    for (const series of r.series) {
      for (let i = 0; i < series.timestampsMs.length; i++) {
        const v = vectorOf(head, 'rate({__name__=~".*_total"}[2m])', series.timestampsMs[i]).find((s) => s.labels.job === series.labels.job);
        expect(v?.value).toBeCloseTo(series.values[i], 12);
      }
    }
  });
});
