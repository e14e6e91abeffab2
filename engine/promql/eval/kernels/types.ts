/**
 * The contract of a range-vector function kernel. A kernel receives one series' samples and,
 * for every step, the index range `[lo, hi)` of the samples in that step's window; it writes one
 * output value per step (or leaves the step absent). Kernels see the whole series at once so
 * they can slide their state from window to window instead of rescanning each window.
 */

/** KernelInput is one series and its per-step windows. */
export interface KernelInput {
  /** ts and vals are the samples, ascending by time, without staleness markers. */
  readonly ts: Float64Array;
  readonly vals: Float64Array;
  /** resetFree: no value of `vals` is below the one before it, so a counter kernel need not look for resets. */
  readonly resetFree?: boolean;
  /** lo and hi bound each step's window: samples lo..hi-1. Both are non-decreasing. */
  readonly lo: Int32Array;
  readonly hi: Int32Array;
  /** refs is each window's end (inclusive); its start (exclusive) is refs[i] - rangeMs. */
  readonly refs: Float64Array;
  readonly rangeMs: number;
  /** stepTimes is each step's evaluation time (predict_linear's intercept time). */
  readonly stepTimes: Float64Array;
  /** params holds the function's scalar arguments, one value per step, in argument order. */
  readonly params: readonly Float64Array[];
  /**
   * windows, where given, are these windows as several series read them (RunWindows): a kernel
   * may keep there what it derives from the windows' sample times alone, for the next series.
   */
  readonly windows?: SharedWindows;
}

/**
 * SharedWindows is one stretch of step windows over one timestamp array. Series scraped
 * together share that array, so what a kernel derives from the windows' times alone (not from
 * the values) holds for each of them: it is kept in `derived` until the windows are found over
 * other timestamps.
 */
export interface SharedWindows {
  /** reused tells that an earlier series read these same windows: deriving pays only then. */
  readonly reused: boolean;
  /** derived is a kernel's own data about these windows, undefined until it keeps some. */
  derived: object | undefined;
}

/** KernelOutput receives the results; `present` starts all zero. */
export interface KernelOutput {
  readonly values: Float64Array;
  readonly present: Uint8Array;
  /** invalidParam is set to a parameter value the kernel found out of range (quantile), for a warning. */
  invalidParam?: number;
}

/** RangeKernel computes a range function over every window of one series. */
export type RangeKernel = (input: KernelInput, out: KernelOutput) => void;

/**
 * nextOverlaps tells whether the window after step `i` shares samples with window `i`, in which
 * case a kernel keeps sliding state; otherwise it computes each window directly, which then
 * visits every sample once anyway.
 */
export function nextOverlaps(input: KernelInput, i: number): boolean {
  return i + 1 < input.lo.length && input.lo[i + 1] < input.hi[i] && input.hi[i + 1] > input.lo[i + 1];
}
