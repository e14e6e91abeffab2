import type { Bench, TaskResultCompleted } from 'tinybench';

/** completedResult is a finished tinybench task's statistics; a task that did not complete fails the benchmark. */
export function completedResult(bench: Bench, name: string): TaskResultCompleted {
  const result = bench.getTask(name)?.result;
  if (result === undefined || result.state !== 'completed') throw new Error(`benchmark ${name} did not complete`);
  return result;
}

/** taskMeanMs is a finished task's mean time per run in milliseconds. */
export function taskMeanMs(bench: Bench, name: string): number {
  return completedResult(bench, name).latency.mean;
}

/** taskHz is a finished task's mean runs per second. */
export function taskHz(bench: Bench, name: string): number {
  return completedResult(bench, name).throughput.mean;
}

/** taskMedianMs is a finished task's median time per run in milliseconds (the mean where no median was kept). */
export function taskMedianMs(bench: Bench, name: string): number {
  const latency = completedResult(bench, name).latency;
  return latency.p50 ?? latency.mean;
}
