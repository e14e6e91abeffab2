import { METRIC_NAME_PATTERN, type Dataset } from './dataset.js';
import type { RunningSystem } from './peers.js';
import { parseAnswer, timedQuery } from './queryClients.js';
import { waitFor } from './processes.js';

/**
 * Asks each system, through its query API, how many samples it holds, and waits until every
 * one holds exactly the dataset's count: timings mean nothing unless all three answer over
 * the same data.
 */
export async function storedSampleCount(sys: RunningSystem, dataset: Dataset): Promise<number> {
  const windowS = Math.ceil((dataset.endMs - dataset.startMs) / 1000) + 3600;
  const answer = await timedQuery(sys, {
    expr: `sum(count_over_time({__name__=~"${METRIC_NAME_PATTERN}"}[${windowS}s]))`,
    kind: 'instant',
    startMs: dataset.endMs,
    endMs: dataset.endMs,
    stepS: 0,
  });
  let total = 0;
  for (const series of parseAnswer(sys.name, answer.body).values()) for (const v of series.values()) total += v;
  return total;
}

export async function waitForSameSampleCount(systems: RunningSystem[], dataset: Dataset, timeoutMs: number, log: (line: string) => void): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const sys of systems) {
    await waitFor(`${sys.name} to hold ${dataset.sampleCount} samples`, async () => {
      counts[sys.name] = await storedSampleCount(sys, dataset);
      return counts[sys.name] === dataset.sampleCount;
    }, timeoutMs).catch((err: unknown) => {
      throw new Error(`${sys.name} holds ${counts[sys.name]} samples, expected ${dataset.sampleCount}: ${String(err)}`);
    });
    log(`${sys.name} holds all ${counts[sys.name]} samples`);
  }
  return counts;
}
