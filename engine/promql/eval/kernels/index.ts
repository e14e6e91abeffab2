/**
 * RANGE_KERNELS maps every range-vector function to its kernel, the evaluator's one table of
 * range function implementations (absent_over_time is resolved by the evaluator itself since
 * it looks across series rather than within one).
 */
import { changesKernel, countOverTimeKernel, firstOverTimeKernel, lastOverTimeKernel, presentOverTimeKernel, resetsKernel, tsOfFirstOverTimeKernel, tsOfLastOverTimeKernel } from './counts.js';
import { doubleExponentialSmoothingKernel, madOverTimeKernel, quantileOverTimeKernel } from './ordered.js';
import {
  avgOverTimeKernel,
  derivKernel,
  maxOverTimeKernel,
  minOverTimeKernel,
  predictLinearKernel,
  stddevOverTimeKernel,
  stdvarOverTimeKernel,
  sumOverTimeKernel,
  tsOfMaxOverTimeKernel,
  tsOfMinOverTimeKernel,
} from './overTime.js';
import { deltaKernel, ideltaKernel, increaseKernel, irateKernel, rateKernel } from './rate.js';
import type { RangeKernel } from './types.js';

export type { KernelInput, KernelOutput, RangeKernel } from './types.js';

export const RANGE_KERNELS: ReadonlyMap<string, RangeKernel> = new Map<string, RangeKernel>([
  ['rate', rateKernel],
  ['increase', increaseKernel],
  ['delta', deltaKernel],
  ['irate', irateKernel],
  ['idelta', ideltaKernel],
  ['resets', resetsKernel],
  ['changes', changesKernel],
  ['deriv', derivKernel],
  ['predict_linear', predictLinearKernel],
  ['sum_over_time', sumOverTimeKernel],
  ['avg_over_time', avgOverTimeKernel],
  ['count_over_time', countOverTimeKernel],
  ['min_over_time', minOverTimeKernel],
  ['max_over_time', maxOverTimeKernel],
  ['stddev_over_time', stddevOverTimeKernel],
  ['stdvar_over_time', stdvarOverTimeKernel],
  ['quantile_over_time', quantileOverTimeKernel],
  ['mad_over_time', madOverTimeKernel],
  ['last_over_time', lastOverTimeKernel],
  ['first_over_time', firstOverTimeKernel],
  ['present_over_time', presentOverTimeKernel],
  ['ts_of_last_over_time', tsOfLastOverTimeKernel],
  ['ts_of_first_over_time', tsOfFirstOverTimeKernel],
  ['ts_of_max_over_time', tsOfMaxOverTimeKernel],
  ['ts_of_min_over_time', tsOfMinOverTimeKernel],
  ['double_exponential_smoothing', doubleExponentialSmoothingKernel],
]);
