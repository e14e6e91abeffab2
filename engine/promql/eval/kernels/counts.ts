/**
 * Kernels that only count or pick samples: count_over_time, present_over_time, last/first
 * value and timestamp, resets and changes. Each window is answered in O(1) from its bounds or
 * from prefix counts built once per series.
 */
import type { RangeKernel } from './types.js';

/** pairPrefix counts, for every index j, the adjacent pairs up to j that satisfy `test`. */
function pairPrefix(vals: Float64Array, test: (prev: number, cur: number) => boolean): Int32Array {
  const prefix = new Int32Array(vals.length);
  for (let j = 1; j < vals.length; j++) prefix[j] = prefix[j - 1] + (test(vals[j - 1], vals[j]) ? 1 : 0);
  return prefix;
}

/** pairCountKernel answers resets() and changes(): pairs of neighbours in the window meeting `test`. */
function pairCountKernel(test: (prev: number, cur: number) => boolean): RangeKernel {
  return ({ vals, lo, hi }, out) => {
    const prefix = pairPrefix(vals, test);
    for (let i = 0; i < lo.length; i++) {
      if (hi[i] <= lo[i]) continue;
      out.values[i] = prefix[hi[i] - 1] - prefix[lo[i]];
      out.present[i] = 1;
    }
  };
}

/** resetsKernel counts counter resets (a value below its predecessor) per window. */
export const resetsKernel: RangeKernel = pairCountKernel((prev, cur) => cur < prev);
/** changesKernel counts value changes per window (NaN to NaN is no change). */
export const changesKernel: RangeKernel = pairCountKernel(
  (prev, cur) => cur !== prev && !(Number.isNaN(cur) && Number.isNaN(prev)),
);

/** boundsKernel builds kernels whose answer depends only on a non-empty window's bounds. */
function boundsKernel(pick: (ts: Float64Array, vals: Float64Array, lo: number, hi: number) => number): RangeKernel {
  return ({ ts, vals, lo, hi }, out) => {
    for (let i = 0; i < lo.length; i++) {
      if (hi[i] <= lo[i]) continue;
      out.values[i] = pick(ts, vals, lo[i], hi[i]);
      out.present[i] = 1;
    }
  };
}

/** countOverTimeKernel and its siblings answer from a window's bounds: count, presence, last/first value or time. */
export const countOverTimeKernel = boundsKernel((_ts, _vals, lo, hi) => hi - lo);
export const presentOverTimeKernel = boundsKernel(() => 1);
export const lastOverTimeKernel = boundsKernel((_ts, vals, _lo, hi) => vals[hi - 1]);
export const firstOverTimeKernel = boundsKernel((_ts, vals, lo) => vals[lo]);
export const tsOfLastOverTimeKernel = boundsKernel((ts, _vals, _lo, hi) => ts[hi - 1] / 1000);
export const tsOfFirstOverTimeKernel = boundsKernel((ts, _vals, lo) => ts[lo] / 1000);
