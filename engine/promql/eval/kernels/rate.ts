/**
 * rate, increase, delta (with Prometheus' extrapolation to the window edges) and irate, idelta
 * (from the last two samples). Every window needs only its first and last samples plus, for
 * counters, the resets inside it; the resets are indexed once per series and walked with a
 * forward pointer, so a range query does O(1) work per step beyond the resets it meets. A
 * series storage already knows to be free of resets (KernelInput.resetFree) skips the scan:
 * at steps much longer than the scrape interval it was most of what a window cost.
 */
import type { KernelInput, KernelOutput, RangeKernel, SharedWindows } from './types.js';

/**
 * resetScratch holds the counter resets of the series a kernel is evaluating: kernels run one
 * at a time to completion, and an array per series (empty for almost every one) was an
 * allocation and a second pass over its samples.
 */
let resetScratch = new Int32Array(64);

/**
 * resetPositions lists in resetScratch every index j in (from, to) whose value dropped below its
 * predecessor's (a counter reset) and returns how many. The kernel is handed a run of samples
 * that may reach far beyond its steps' windows (a day-long segment for an hour's slice), so
 * only the samples the windows take, from the first window's first to the last one's last,
 * are scanned.
 */
function resetPositions(vals: Float64Array, from: number, to: number): number {
  let count = 0;
  let previous = from < to ? vals[from] : 0;
  for (let j = from + 1; j < to; j++) {
    const v = vals[j];
    if (v < previous) {
      if (count === resetScratch.length) {
        const grown = new Int32Array(count * 2);
        grown.set(resetScratch);
        resetScratch = grown;
      }
      resetScratch[count++] = j;
    }
    previous = v;
  }
  return count;
}

/**
 * WindowExtrapolation is the part of each window's extrapolation that depends on its samples'
 * times alone, computed with the very operations extrapolatedRate performs, so a series read
 * through it gets the same bits. Series scraped together share their timestamps and so these
 * numbers: with them a window of a counter costs one division (towards zero) instead of seven,
 * which were most of a rate's time.
 */
class WindowExtrapolation {
  /** durationToStart and durationToEnd are the extrapolation at each edge, after the threshold. */
  readonly durationToStart: Float64Array;
  readonly durationToEnd: Float64Array;
  readonly sampledInterval: Float64Array;
  /** factor is the extrapolation factor when durationToStart stands; rateFactor is it per second of the range. */
  readonly factor: Float64Array;
  readonly rateFactor: Float64Array;

  constructor(input: KernelInput) {
    const { ts, lo, hi, refs, rangeMs } = input;
    const n = lo.length;
    this.durationToStart = new Float64Array(n);
    this.durationToEnd = new Float64Array(n);
    this.sampledInterval = new Float64Array(n);
    this.factor = new Float64Array(n);
    this.rateFactor = new Float64Array(n);
    const rangeSeconds = rangeMs / 1000;
    for (let i = 0; i < n; i++) {
      const first = lo[i];
      const last = hi[i] - 1;
      if (last - first < 1) continue;
      const rangeEnd = refs[i];
      const rangeStart = rangeEnd - rangeMs;
      const firstT = ts[first];
      const lastT = ts[last];
      let durationToStart = (firstT - rangeStart) / 1000;
      let durationToEnd = (rangeEnd - lastT) / 1000;
      const sampledInterval = (lastT - firstT) / 1000;
      const averageDurationBetweenSamples = sampledInterval / (last - first);
      const extrapolationThreshold = averageDurationBetweenSamples * 1.1;
      if (durationToStart >= extrapolationThreshold) durationToStart = averageDurationBetweenSamples / 2;
      if (durationToEnd >= extrapolationThreshold) durationToEnd = averageDurationBetweenSamples / 2;
      let factor = 1;
      if (sampledInterval !== 0) factor = (sampledInterval + durationToStart + durationToEnd) / sampledInterval;
      this.durationToStart[i] = durationToStart;
      this.durationToEnd[i] = durationToEnd;
      this.sampledInterval[i] = sampledInterval;
      this.factor[i] = factor;
      this.rateFactor[i] = factor / rangeSeconds;
    }
  }
}

/** sharedExtrapolation is the windows' WindowExtrapolation, made on their second series and kept for the rest. */
function sharedExtrapolation(windows: SharedWindows | undefined, input: KernelInput): WindowExtrapolation | undefined {
  if (windows === undefined || !windows.reused) return undefined;
  if (windows.derived instanceof WindowExtrapolation) return windows.derived;
  const made = new WindowExtrapolation(input);
  windows.derived = made;
  return made;
}

/**
 * extrapolatedRate implements rate (counter, per second), increase (counter) and delta (gauge):
 * the change over the window, corrected for counter resets, extrapolated towards the window
 * edges unless the series seems to start or end inside the window, and never extrapolated
 * below zero for counters.
 */
function extrapolatedRate(input: KernelInput, out: KernelOutput, isCounter: boolean, isRate: boolean): void {
  const { ts, vals, lo, hi, refs, rangeMs } = input;
  // Windows move forward (lo and hi never decrease), so the first and the last window bound every sample read.
  const resetCount = isCounter && lo.length > 0 && input.resetFree !== true ? resetPositions(vals, lo[0], hi[hi.length - 1]) : 0;
  const resets = resetScratch;
  const rangeSeconds = rangeMs / 1000;
  // A series read alone keeps the one pass below: working out the times' part first for it too
  // cost 9-14% more over series that each have their own timestamps.
  const shared = sharedExtrapolation(input.windows, input);
  if (shared !== undefined) {
    extrapolateWith(shared, input, out, resetCount, isCounter, isRate);
    return;
  }
  let r = 0;
  for (let i = 0; i < lo.length; i++) {
    const first = lo[i];
    const last = hi[i] - 1;
    if (last - first < 1) continue;
    let result = vals[last] - vals[first];
    if (isCounter) {
      while (r < resetCount && resets[r] <= first) r++;
      for (let k = r; k < resetCount && resets[k] <= last; k++) result += vals[resets[k] - 1];
    }
    const rangeEnd = refs[i];
    const rangeStart = rangeEnd - rangeMs;
    const firstT = ts[first];
    const lastT = ts[last];
    let durationToStart = (firstT - rangeStart) / 1000;
    let durationToEnd = (rangeEnd - lastT) / 1000;
    const sampledInterval = (lastT - firstT) / 1000;
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
    if (isRate) factor /= rangeSeconds;
    out.values[i] = result * factor;
    out.present[i] = 1;
  }
}

/**
 * extrapolateWith is extrapolatedRate over windows whose times' part is known: per window the
 * change (resets added back), and for a counter the distance to zero, which moves the start
 * (and so the factor) only when it is nearer than the extrapolation there.
 */
function extrapolateWith(g: WindowExtrapolation, input: KernelInput, out: KernelOutput, resetCount: number, isCounter: boolean, isRate: boolean): void {
  const { vals, lo, hi } = input;
  const resets = resetScratch;
  const rangeSeconds = input.rangeMs / 1000;
  const factors = isRate ? g.rateFactor : g.factor;
  const { values, present } = out;
  let r = 0;
  for (let i = 0; i < lo.length; i++) {
    const first = lo[i];
    const last = hi[i] - 1;
    if (last - first < 1) continue;
    let result = vals[last] - vals[first];
    let factor = factors[i];
    if (isCounter) {
      while (r < resetCount && resets[r] <= first) r++;
      for (let k = r; k < resetCount && resets[k] <= last; k++) result += vals[resets[k] - 1];
      const firstValue = vals[first];
      if (result > 0 && firstValue >= 0) {
        const sampledInterval = g.sampledInterval[i];
        const durationToZero = sampledInterval * (firstValue / result);
        if (durationToZero < g.durationToStart[i]) {
          factor = 1;
          if (sampledInterval !== 0) factor = (sampledInterval + durationToZero + g.durationToEnd[i]) / sampledInterval;
          if (isRate) factor /= rangeSeconds;
        }
      }
    }
    values[i] = result * factor;
    present[i] = 1;
  }
}

/** instantValue implements irate (per-second, reset-aware) and idelta from a window's last two samples. */
function instantValue(input: KernelInput, out: KernelOutput, isRate: boolean): void {
  const { ts, vals, lo, hi } = input;
  for (let i = 0; i < lo.length; i++) {
    const last = hi[i] - 1;
    if (last - lo[i] < 1) continue;
    const interval = ts[last] - ts[last - 1];
    if (interval === 0) continue;
    const previous = vals[last - 1];
    const current = vals[last];
    let result = isRate && current < previous ? current : current - previous;
    if (isRate) result /= interval / 1000;
    out.values[i] = result;
    out.present[i] = 1;
  }
}

/** rateKernel, increaseKernel and deltaKernel extrapolate; irateKernel and ideltaKernel use the last two samples. */
export const rateKernel: RangeKernel = (input, out) => extrapolatedRate(input, out, true, true);
export const increaseKernel: RangeKernel = (input, out) => extrapolatedRate(input, out, true, false);
export const deltaKernel: RangeKernel = (input, out) => extrapolatedRate(input, out, false, false);
export const irateKernel: RangeKernel = (input, out) => instantValue(input, out, true);
export const ideltaKernel: RangeKernel = (input, out) => instantValue(input, out, false);
