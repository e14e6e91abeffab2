/**
 * The window kernels of the range-vector functions, gathered for the function table
 * (../../functions.ts), which pairs each with its function's name and properties.
 */
export { changesKernel, countOverTimeKernel, firstOverTimeKernel, lastOverTimeKernel, presentOverTimeKernel, resetsKernel, tsOfFirstOverTimeKernel, tsOfLastOverTimeKernel } from './counts.js';
export { doubleExponentialSmoothingKernel, madOverTimeKernel, quantileOverTimeKernel } from './ordered.js';
export {
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
export { deltaKernel, ideltaKernel, increaseKernel, irateKernel, rateKernel } from './rate.js';
export type { KernelInput, KernelOutput, RangeKernel } from './types.js';
