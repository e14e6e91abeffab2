/**
 * The aggregating `*_over_time` kernels and deriv/predict_linear. Each is written twice: a
 * direct computation that reproduces Prometheus' arithmetic exactly (used whenever a window
 * shares no samples with the previous one, which covers instant queries and steps at least as
 * long as the range), and a sliding structure for overlapping windows. A sliding result that is
 * not finite is recomputed directly, so infinities and NaNs follow Prometheus' rules exactly.
 */
import { kahanCompensation, kahanInc } from './kahan.js';
import { better, SlidingRegression, SlidingVariance, type ExtremeMode } from './sliding.js';
import { nextOverlaps, type KernelInput, type KernelOutput, type RangeKernel } from './types.js';

/** Sliding is the per-kernel sliding state: move to a window, then read the value of step i. */
interface Sliding {
  reset(pos: number): void;
  advance(lo: number, hi: number): void;
  value(step: number): number;
}

/**
 * runWindows drives a kernel over all steps: directly for windows that do not overlap the
 * previous one, through `sliding` (created on first need) while consecutive windows overlap.
 * Variance, deriv and predict_linear use it; sums and extremes have loops of their own.
 */
function runWindows(
  input: KernelInput,
  out: KernelOutput,
  direct: (lo: number, hi: number, step: number) => number,
  makeSliding: () => Sliding,
  accept: (lo: number, hi: number) => boolean = (lo, hi) => hi > lo,
): void {
  const { lo, hi } = input;
  let sliding: Sliding | null = null;
  let active = false;
  for (let i = 0; i < lo.length; i++) {
    const a = lo[i];
    const b = hi[i];
    if (!accept(a, b)) {
      active = false;
      continue;
    }
    let value: number;
    if (active && sliding !== null && i > 0 && a < hi[i - 1]) {
      sliding.advance(a, b);
      value = sliding.value(i);
      if (!Number.isFinite(value)) value = direct(a, b, i);
    } else if (nextOverlaps(input, i)) {
      sliding ??= makeSliding();
      sliding.reset(a);
      sliding.advance(a, b);
      active = true;
      value = direct(a, b, i);
    } else {
      value = direct(a, b, i);
      active = false;
    }
    out.values[i] = value;
    out.present[i] = 1;
  }
}

/** directSum is sum_over_time's Kahan-Neumaier sum of vals[lo..hi). */
function directSum(vals: Float64Array, lo: number, hi: number): number {
  let sum = 0;
  let c = 0;
  for (let j = lo; j < hi; j++) {
    sum = kahanInc(vals[j], sum, c);
    c = kahanCompensation();
  }
  return sum === Infinity || sum === -Infinity ? sum : sum + c;
}

/**
 * directAvg is avg_over_time as Prometheus computes it: a compensated sum divided by the count,
 * switching to an incremental mean from the point where the sum would overflow.
 */
function directAvg(vals: Float64Array, lo: number, hi: number): number {
  let sum = vals[lo];
  let count = 1;
  let mean = 0;
  let c = 0;
  let incremental = false;
  for (let j = lo + 1; j < hi; j++) {
    const f = vals[j];
    count = j - lo + 1;
    if (!incremental) {
      const newSum = kahanInc(f, sum, c);
      const newC = kahanCompensation();
      if (newSum !== Infinity && newSum !== -Infinity) {
        sum = newSum;
        c = newC;
        continue;
      }
      incremental = true;
      mean = sum / (count - 1);
      c /= count - 1;
    }
    const q = (count - 1) / count;
    mean = kahanInc(f / count, q * mean, q * c);
    c = kahanCompensation();
  }
  if (incremental) return mean + c;
  return sum / count + c / count;
}

/**
 * sumScratch holds the suffix sums every sum and avg kernel call reuses: kernels run one at a
 * time to completion, and allocating suffix arrays per series and slice cost more than the sums
 * themselves on many-series queries.
 */
const sumScratch = { sums: new Float64Array(0), comps: new Float64Array(0) };

/**
 * sumWindows is sum_over_time (`mean` false) and avg_over_time (`mean` true) over every step:
 * the sliding window of sliding.ts (suffix sums for the front, a running sum for the back,
 * combined per step, no subtraction) written out in one loop. The generic driver calls its
 * window through closures shared by every kernel, which V8 could not inline and which took
 * about half of a 1,000-series avg_over_time. Each result is bit for bit what the window
 * classes gave: samples are folded in the same order. A window that shares no samples with the
 * next, or whose sliding result is not finite, is computed directly.
 */
function sumWindows(input: KernelInput, out: KernelOutput, mean: boolean): void {
  const { vals, lo, hi } = input;
  if (sumScratch.sums.length < vals.length) {
    const capacity = Math.max(vals.length, sumScratch.sums.length * 2);
    sumScratch.sums = new Float64Array(capacity);
    sumScratch.comps = new Float64Array(capacity);
  }
  const sufSum = sumScratch.sums;
  const sufComp = sumScratch.comps;
  const values = out.values;
  const present = out.present;
  // The window is [wLo, wHi): [wLo, wMid) is the front, read from the suffix sums, and
  // [wMid, wHi) the back, folded into (backSum, backComp) as samples enter.
  let wLo = 0;
  let wMid = 0;
  let wHi = 0;
  let backSum = 0;
  let backComp = 0;
  let active = false;
  for (let i = 0; i < lo.length; i++) {
    const a = lo[i];
    const b = hi[i];
    if (b <= a) {
      active = false;
      continue;
    }
    if (!(active && a < hi[i - 1])) {
      if (!nextOverlaps(input, i)) {
        values[i] = mean ? directAvg(vals, a, b) : directSum(vals, a, b);
        present[i] = 1;
        active = false;
        continue;
      }
      wLo = wMid = wHi = a;
      backSum = 0;
      backComp = 0;
      active = true;
    }
    if (a >= wHi) {
      wLo = wMid = wHi = a;
      backSum = 0;
      backComp = 0;
    } else if (a > wLo) {
      if (a >= wMid) {
        // The start passed the front: the back becomes the new front.
        let sum = 0;
        let comp = 0;
        for (let k = wHi - 1; k >= a; k--) {
          // kahanInc written out: see the loop below.
          const f = vals[k];
          const t = sum + f;
          if (t === Infinity || t === -Infinity) comp = 0;
          else if (Math.abs(sum) >= Math.abs(f)) comp += sum - t + f;
          else comp += f - t + sum;
          sum = t;
          sufSum[k] = sum;
          sufComp[k] = comp;
        }
        wMid = wHi;
        backSum = 0;
        backComp = 0;
      }
      wLo = a;
    }
    for (let j = wHi; j < b; j++) {
      // kahanInc written out, the same operations in the same order: through the helper the
      // compensation made a round trip through memory, and each addition waited on the last
      // one's store and load.
      const f = vals[j];
      const t = backSum + f;
      if (t === Infinity || t === -Infinity) backComp = 0;
      else if (Math.abs(backSum) >= Math.abs(f)) backComp += backSum - t + f;
      else backComp += f - t + backSum;
      backSum = t;
    }
    if (b > wHi) wHi = b;
    let sum: number;
    let comp: number;
    if (wLo === wMid) {
      sum = backSum;
      comp = backComp;
    } else if (wMid === wHi) {
      sum = sufSum[wLo];
      comp = sufComp[wLo];
    } else {
      // kahanInc(backSum, sufSum[wLo], sufComp[wLo]) written out.
      const front = sufSum[wLo];
      sum = front + backSum;
      comp = sufComp[wLo];
      if (sum === Infinity || sum === -Infinity) comp = 0;
      else if (Math.abs(front) >= Math.abs(backSum)) comp += front - sum + backSum;
      else comp += backSum - sum + front;
      comp += backComp;
    }
    let value: number;
    if (mean) {
      const count = wHi - wLo;
      value = sum / count + comp / count;
    } else {
      value = sum === Infinity || sum === -Infinity ? sum : sum + comp;
    }
    if (!Number.isFinite(value)) value = mean ? directAvg(vals, a, b) : directSum(vals, a, b);
    values[i] = value;
    present[i] = 1;
  }
}

/** sumOverTimeKernel is each window's compensated sum. */
export const sumOverTimeKernel: RangeKernel = (input, out) => sumWindows(input, out, false);

/** avgOverTimeKernel is each window's mean, overflow-safe as in Prometheus. */
export const avgOverTimeKernel: RangeKernel = (input, out) => sumWindows(input, out, true);

/** directVariance is stdvar_over_time's compensated Welford variance of vals[lo..hi). */
function directVariance(vals: Float64Array, lo: number, hi: number): number {
  let count = 0;
  let mean = 0;
  let cMean = 0;
  let aux = 0;
  let cAux = 0;
  for (let j = lo; j < hi; j++) {
    const f = vals[j];
    count++;
    const delta = f - (mean + cMean);
    mean = kahanInc(delta / count, mean, cMean);
    cMean = kahanCompensation();
    aux = kahanInc(delta * (f - (mean + cMean)), aux, cAux);
    cAux = kahanCompensation();
  }
  return (aux + cAux) / count;
}

/** varianceKernel builds stdvar_over_time and stddev_over_time. */
function varianceKernel(finish: (variance: number) => number): RangeKernel {
  const w = new SlidingVariance();
  const sliding: Sliding = { reset: (p) => w.reset(p), advance: (a, b) => w.advance(a, b), value: () => finish(w.variance()) };
  return (input, out) => {
    const vals = input.vals;
    runWindows(
      input,
      out,
      (lo, hi) => finish(directVariance(vals, lo, hi)),
      () => {
        w.bind(vals);
        return sliding;
      },
    );
  };
}

/** stdvarOverTimeKernel and stddevOverTimeKernel are each window's population variance and deviation. */
export const stdvarOverTimeKernel = varianceKernel((v) => v);
export const stddevOverTimeKernel = varianceKernel(Math.sqrt);

/** directExtremeIndex is the index of the extreme sample of vals[lo..hi) under `mode`. */
function directExtremeIndex(vals: Float64Array, lo: number, hi: number, mode: ExtremeMode): number {
  let best = lo;
  for (let j = lo + 1; j < hi; j++) if (better(mode, vals[j], vals[best])) best = j;
  return best;
}

/** extremeScratch holds the suffix extremes' indices every min/max kernel call reuses (see sumScratch). */
const extremeScratch = { indices: new Int32Array(0) };

/**
 * extremeWindows picks every step's extreme sample under `mode` and writes its value, or its
 * time in seconds with `timestamp`: the sliding window of sliding.ts written out in one loop as
 * sumWindows is, keeping sample indices (the front's suffix extremes, the back's running one)
 * so that ties resolve as `mode` says. Windows that share no samples with the next, and sliding
 * results that are not finite, are scanned directly.
 */
function extremeWindows(input: KernelInput, out: KernelOutput, mode: ExtremeMode, timestamp: boolean): void {
  const { ts, vals, lo, hi } = input;
  if (extremeScratch.indices.length < vals.length) extremeScratch.indices = new Int32Array(Math.max(vals.length, extremeScratch.indices.length * 2));
  const sufIndex = extremeScratch.indices;
  const values = out.values;
  const present = out.present;
  let wLo = 0;
  let wMid = 0;
  let wHi = 0;
  let backIndex = -1;
  let backValue = 0;
  let active = false;
  for (let i = 0; i < lo.length; i++) {
    const a = lo[i];
    const b = hi[i];
    if (b <= a) {
      active = false;
      continue;
    }
    let pick: number;
    if (!(active && a < hi[i - 1]) && !nextOverlaps(input, i)) {
      pick = directExtremeIndex(vals, a, b, mode);
      active = false;
    } else {
      if (!(active && a < hi[i - 1]) || a >= wHi) {
        wLo = wMid = wHi = a;
        backIndex = -1;
        active = true;
      } else if (a > wLo) {
        if (a >= wMid) {
          let best = -1;
          let bestValue = 0;
          for (let k = wHi - 1; k >= a; k--) {
            // Sample k comes first in [k, wHi): the later part's extreme wins only if it is better.
            const v = vals[k];
            if (best < 0 || !better(mode, bestValue, v)) {
              best = k;
              bestValue = v;
            }
            sufIndex[k] = best;
          }
          wMid = wHi;
          backIndex = -1;
        }
        wLo = a;
      }
      // The running extreme's value is kept beside its index: read back through the index, each
      // comparison waited on the load the last one chose.
      for (let j = wHi; j < b; j++) {
        const v = vals[j];
        if (backIndex < 0 || better(mode, v, backValue)) {
          backIndex = j;
          backValue = v;
        }
      }
      if (b > wHi) wHi = b;
      if (wLo === wMid) pick = backIndex;
      else if (wMid === wHi) pick = sufIndex[wLo];
      else pick = better(mode, vals[backIndex], vals[sufIndex[wLo]]) ? backIndex : sufIndex[wLo];
      // As every sliding kernel, a result that is not finite is taken from the direct scan.
      if (!timestamp && !Number.isFinite(vals[pick])) pick = directExtremeIndex(vals, a, b, mode);
    }
    values[i] = timestamp ? ts[pick] / 1000 : vals[pick];
    present[i] = 1;
  }
}

/** extremeKernel builds min/max_over_time (the value) and ts_of_min/max_over_time (its time). */
function extremeKernel(mode: ExtremeMode, timestamp: boolean): RangeKernel {
  return (input, out) => extremeWindows(input, out, mode, timestamp);
}

/** maxOverTimeKernel, minOverTimeKernel and the ts_of_ variants pick each window's extreme (or its time). */
export const maxOverTimeKernel = extremeKernel('>', false);
export const minOverTimeKernel = extremeKernel('<', false);
export const tsOfMaxOverTimeKernel = extremeKernel('>=', true);
export const tsOfMinOverTimeKernel = extremeKernel('<=', true);

/** RegressionFit is a least-squares line: its slope, and its value at the intercept time. */
interface RegressionFit {
  slope: number;
  intercept: number;
}

const fitScratch: RegressionFit = { slope: 0, intercept: 0 };

/**
 * directRegression fits vals[lo..hi) against time relative to `interceptMs`, with compensated
 * sums, exactly as Prometheus' linearRegression does (constant series are special-cased).
 */
function directRegression(ts: Float64Array, vals: Float64Array, lo: number, hi: number, interceptMs: number): RegressionFit {
  let n = 0;
  let sumX = 0;
  let cX = 0;
  let sumY = 0;
  let cY = 0;
  let sumXY = 0;
  let cXY = 0;
  let sumX2 = 0;
  let cX2 = 0;
  const initY = vals[lo];
  let constY = true;
  for (let j = lo; j < hi; j++) {
    const y = vals[j];
    if (constY && j > lo && y !== initY) constY = false;
    n += 1;
    const x = (ts[j] - interceptMs) / 1e3;
    sumX = kahanInc(x, sumX, cX);
    cX = kahanCompensation();
    sumY = kahanInc(y, sumY, cY);
    cY = kahanCompensation();
    sumXY = kahanInc(x * y, sumXY, cXY);
    cXY = kahanCompensation();
    sumX2 = kahanInc(x * x, sumX2, cX2);
    cX2 = kahanCompensation();
  }
  if (constY) {
    if (initY === Infinity || initY === -Infinity) {
      fitScratch.slope = NaN;
      fitScratch.intercept = NaN;
    } else {
      fitScratch.slope = 0;
      fitScratch.intercept = initY;
    }
    return fitScratch;
  }
  sumX += cX;
  sumY += cY;
  sumXY += cXY;
  sumX2 += cX2;
  const covXY = sumXY - (sumX * sumY) / n;
  const varX = sumX2 - (sumX * sumX) / n;
  const slope = covXY / varX;
  fitScratch.slope = slope;
  fitScratch.intercept = sumY / n - (slope * sumX) / n;
  return fitScratch;
}

/**
 * RegressionTimes is what deriv and predict_linear derive from a stretch's sample times alone,
 * kept with its windows (SharedWindows.derived) for the series scraped together that read them
 * next: each time in seconds from the first.
 */
class RegressionTimes {
  constructor(readonly xs: Float64Array) {}
}

/** regressionTimes is `ts` as seconds from its first sample, made once per shared timestamp array. */
function regressionTimes(input: KernelInput): Float64Array {
  const { ts, windows } = input;
  if (windows !== undefined && windows.reused && windows.derived instanceof RegressionTimes) return windows.derived.xs;
  const xs = new Float64Array(ts.length);
  const origin = ts.length > 0 ? ts[0] : 0;
  for (let j = 0; j < ts.length; j++) xs[j] = (ts[j] - origin) / 1e3;
  if (windows !== undefined) windows.derived = new RegressionTimes(xs);
  return xs;
}

/**
 * regressionKernel builds deriv (slope per second) and predict_linear (value `params[0]`
 * seconds after the evaluation time). Windows need at least two samples. One sliding state
 * serves every series (bound to each in turn), as the variance kernels keep theirs.
 */
function regressionKernel(predict: boolean): RangeKernel {
  const w = new SlidingRegression();
  // The current call's inputs, read by the one `sliding` object below.
  let horizon: Float64Array | null = null;
  let stepTimes: Float64Array = new Float64Array(0);
  let origin = 0;
  const sliding: Sliding = {
    reset: (p) => w.reset(p),
    advance: (a, b) => w.advance(a, b),
    value: (step) => {
      w.fit();
      // A constant series has no slope to fit; its exact answer comes from the direct path.
      if (w.sxy === 0 || !(w.sxx > 0)) return NaN;
      const slope = w.sxy / w.sxx;
      if (horizon === null) return slope;
      const x0 = (stepTimes[step] - origin) / 1e3;
      return slope * horizon[step] + w.meanY + slope * (x0 - w.meanX);
    },
  };
  return (input, out) => {
    const { ts, vals } = input;
    horizon = predict ? input.params[0] : null;
    stepTimes = input.stepTimes;
    origin = ts.length > 0 ? ts[0] : 0;
    const direct = (lo: number, hi: number, step: number): number => {
      const fit = directRegression(ts, vals, lo, hi, predict ? input.stepTimes[step] : ts[lo]);
      return horizon === null ? fit.slope : fit.slope * horizon[step] + fit.intercept;
    };
    runWindows(
      input,
      out,
      direct,
      () => {
        w.bind(regressionTimes(input), vals);
        return sliding;
      },
      (lo, hi) => hi - lo >= 2,
    );
  };
}

/** derivKernel and predictLinearKernel fit a least-squares line per window. */
export const derivKernel = regressionKernel(false);
export const predictLinearKernel = regressionKernel(true);
