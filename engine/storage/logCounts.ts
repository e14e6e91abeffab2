import { int64Words } from './int64Words.js';
import type { Labels } from './labels.js';
import type { LabelMatcher } from './matchers.js';
import type { LineMatch } from './lineMatch.js';

/**
 * Counting log lines per step window without materialising them. A count-only range
 * aggregation (count_over_time, rate with no pipeline) needs, per output series, how many
 * lines each step's window holds. Counts from segments and heads add up, so each source adds
 * its lines straight into the series' difference arrays: no per-row arrays, no messages, no
 * merge of runs across sources.
 */

/**
 * CountWindows is a query's step grid as a count sees it: step j holds the lines whose time t
 * satisfies j·stepNs < t - baseNs ≤ j·stepNs + rangeNs. Offsets from baseNs are read as
 * float64 nanoseconds, exact below 2^53 ns (104 days), which covers any query window.
 */
export interface CountWindows {
  baseNs: bigint;
  stepNs: number;
  rangeNs: number;
  steps: number;
}

/**
 * OpenCounts is asked once per matching group of lines a source meets (a tag set, possibly
 * again for another source) and returns the difference array (steps + 1 long) the group's
 * lines are added to, or undefined to skip them. Groups that end in one series share an array.
 */
export type OpenCounts = (tags: Labels) => Float64Array | undefined;

/** LogCountReader counts lines per step window; see the module comment. */
export interface LogCountReader {
  /**
   * countLines adds every line in [minNs, maxNs] matching `matchers` to the windows holding
   * it, in the array `open` gives for the line's tag set. `checkAbort` is called now and then
   * during long scans, and may throw to end them. With `lines`, only lines that pass its
   * literal filters count (lineMatch.ts).
   */
  countLines(matchers: readonly LabelMatcher[], minNs: bigint, maxNs: bigint, windows: CountWindows, open: OpenCounts, checkAbort?: () => void, lines?: LineMatch): void;
}

/** firstStep is the first step whose window holds offset t (may be below 0 or past the last step). */
export function firstStep(t: number, stepNs: number, rangeNs: number): number {
  const u = t - rangeNs;
  const p = Math.floor(u / stepNs);
  return u - p * stepNs === 0 ? p : p + 1;
}

/** lastStep is the last step whose window holds offset t (may be below 0 or past the last step). */
export function lastStep(t: number, stepNs: number): number {
  const q = Math.floor(t / stepNs);
  return t - q * stepNs === 0 ? q - 1 : q;
}

/** addLine adds one line at offset t to `diff`: +1 at its first step, -1 after its last. */
export function addLine(diff: Float64Array, t: number, stepNs: number, rangeNs: number, steps: number): void {
  let lo = firstStep(t, stepNs, rangeNs);
  let hi = lastStep(t, stepNs);
  if (lo < 0) lo = 0;
  if (hi > steps - 1) hi = steps - 1;
  if (lo > hi) return;
  diff[lo] += 1;
  diff[hi + 1] -= 1;
}

/**
 * allInFirstWindow says whether every line of [minNs, maxNs] falls in step 0 and no other:
 * a one-step grid whose window covers the selection (an instant query). Lines are then just
 * counted, without reading their timestamps.
 */
export function allInFirstWindow(windows: CountWindows, minNs: bigint, maxNs: bigint): boolean {
  return windows.steps === 1 && minNs > windows.baseNs && maxNs - windows.baseNs <= BigInt(Math.floor(windows.rangeNs));
}

const TWO_32 = 4294967296;

/**
 * OffsetReader reads ts[i] - baseNs as a float64 from the two 32-bit halves of each
 * timestamp, without BigInt arithmetic or copying the column: offsets below 2^53 ns (104 days)
 * are exact, which is all a query window needs, and floats make the window arithmetic cheap.
 */
export class OffsetReader {
  private readonly words: Int32Array | undefined;
  private readonly baseLo: number;
  private readonly baseHi: number;

  constructor(
    private readonly ts: BigInt64Array,
    private readonly baseNs: bigint,
  ) {
    this.words = int64Words(ts);
    this.baseLo = Number(BigInt.asUintN(32, baseNs));
    this.baseHi = Number(BigInt.asIntN(32, baseNs >> 32n));
  }

  at(i: number): number {
    const words = this.words;
    if (words === undefined) return Number(this.ts[i] - this.baseNs);
    return (words[2 * i + 1] - this.baseHi) * TWO_32 + ((words[2 * i] >>> 0) - this.baseLo);
  }
}

/**
 * countRows is how many lines in [minNs, maxNs] match `matchers`: a count over one window
 * that holds the whole span. Its range is twice the span, so every line's offset is inside it
 * even where float64 rounds offsets of a span near 2^64 ns.
 */
export function countRows(reader: LogCountReader, matchers: readonly LabelMatcher[], minNs: bigint, maxNs: bigint): number {
  if (maxNs < minNs) return 0;
  const diff = new Float64Array(2);
  const rangeNs = 2 * Number(maxNs - minNs + 1n) + 1;
  reader.countLines(matchers, minNs, maxNs, { baseNs: minNs - 1n, stepNs: 1, rangeNs, steps: 1 }, () => diff);
  return diff[0];
}

/** ABORT_CHECK_ROWS is how many rows a count scans between abort checks. */
export const ABORT_CHECK_ROWS = 1 << 16;
