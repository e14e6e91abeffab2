import type { Bench } from 'tinybench';

/** taskMeanMs is a finished tinybench task's mean time per run in milliseconds; a task that did not complete fails the benchmark. */
export function taskMeanMs(bench: Bench, name: string): number {
  const result = bench.getTask(name)?.result;
  if (result === undefined || result.state !== 'completed') throw new Error(`benchmark ${name} did not complete`);
  return result.latency.mean;
}
