import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Bench } from 'tinybench';
import { selectionsFor } from '../../engine/query/promqlPlan.js';
import { shareMetrics } from '../../engine/query/taskData.js';
import { runTask, taskTransferables, type PromQLRangeTask } from '../../engine/query/tasks.js';
import type { MetricSeries } from '../../engine/storage/metricHead.js';
import { parseAndCheckPromQL } from '../../engine/promql/index.js';
import { Storage } from '../../engine/storage/storage.js';
import { runWhenDirect } from '../runDirect.js';
import { completedResult } from '../taskResult.js';

/**
 * What a dashboard panel over recent metrics costs, on one thread: building the task's data
 * from the head on the query front (the serial part under dashboard load, since every task of
 * every panel is built there), posting it (a structured clone, as to a worker), and
 * evaluating it. Each is timed over an unchanged head and right after one more scrape was
 * appended (the usual case while ingest runs).
 *
 * Series scraped together share their timestamps, which the head's reader hands them as one
 * array so range functions find windows once; the last row is the same query over a head
 * whose series were each scraped at their own offset, where nothing is shared.
 *
 * `node dist/bench/storage/metricHeadQuery.bench.js`; BENCH_SERIES scales the head (default
 * 1,000 series, one hour at 15 s).
 */
const SERIES = Number(process.env.BENCH_SERIES ?? 1_000);
const SCRAPE_MS = 15_000;
const HOUR_MS = 3_600_000;
const BASE_MS = 1_700_000_000_000;
const QUERY = 'sum by (job) (rate(http_requests_total[5m]))';
const LOOKBACK_MS = 300_000;

/**
 * scrape is one sample of every series at `atMs`, or, with `ownOffsets`, each series a few
 * milliseconds off it (targets scraped apart), so no two series share their timestamps.
 */
function scrape(atMs: number, round: number, ownOffsets = false): MetricSeries[] {
  return Array.from({ length: SERIES }, (_, i) => ({
    labels: { __name__: 'http_requests_total', job: `job${i % 10}`, instance: `host${i}:9100`, code: String(200 + (i % 3)) },
    timestampsMs: Float64Array.of(atMs + (ownOffsets ? i % 5_000 : 0)),
    values: Float64Array.of(round * (1 + (i % 7))),
  }));
}

export async function main(): Promise<void> {
  const dir = await mkdtemp(path.join(tmpdir(), 'sluice-metric-head-query-'));
  const storage = await Storage.open({ dir, maintenanceIntervalMs: 0, compactionIntervalMs: 0 });
  const apartDir = await mkdtemp(path.join(tmpdir(), 'sluice-metric-head-query-apart-'));
  const apart = await Storage.open({ dir: apartDir, maintenanceIntervalMs: 0, compactionIntervalMs: 0 });
  try {
    let round = 0;
    for (let t = BASE_MS; t <= BASE_MS + HOUR_MS; t += SCRAPE_MS) {
      await apart.appendMetrics('bench', scrape(t, round, true));
      await storage.appendMetrics('bench', scrape(t, round++));
    }
    let nextMs = BASE_MS + round * SCRAPE_MS;
    const appendScrape = async (): Promise<void> => {
      await storage.appendMetrics('bench', scrape(nextMs, round++));
      nextMs += SCRAPE_MS;
    };
    const expr = parseAndCheckPromQL(QUERY);
    const startMs = BASE_MS;
    const endMs = BASE_MS + HOUR_MS;
    const planCtx = { queryStartMs: startMs, queryEndMs: endMs, lookbackMs: LOOKBACK_MS, defaultSubqueryStepMs: 60_000 };
    const buildTask = (from: Storage = storage): PromQLRangeTask => {
      const data = shareMetrics(from.metrics('bench'), selectionsFor(expr, startMs, endMs, planCtx));
      const task: PromQLRangeTask = { kind: 'promql-range', query: QUERY, startMs, endMs, stepMs: SCRAPE_MS, lookbackMs: LOOKBACK_MS, maxSamples: 1e8, data };
      return structuredClone(task, { transfer: taskTransferables(task) });
    };
    const endToEnd = (from: Storage = storage): void => {
      const { result } = runTask(buildTask(from));
      if ('failed' in result) throw new Error(result.message);
    };

    const bench = new Bench({ time: 0, iterations: 60, warmup: true, warmupIterations: 10, warmupTime: 0 });
    bench
      .add('build a task, unchanged head', () => void buildTask())
      .add('build a task, after a scrape', () => void buildTask(), { beforeEach: appendScrape })
      .add('end to end, unchanged head', () => endToEnd())
      .add('end to end, after a scrape', () => endToEnd(), { beforeEach: appendScrape })
      .add('end to end, series scraped apart', () => endToEnd(apart));
    await bench.run();
    console.log(`${SERIES} series x ${HOUR_MS / SCRAPE_MS + 1} samples in the head; ${QUERY} over 1 h at 15 s, one thread`);
    console.table(
      bench.tasks.map((t) => {
        const r = completedResult(bench, t.name);
        return { task: t.name, 'median ms': r.latency.p50?.toFixed(2), 'mean ms': r.latency.mean.toFixed(2), samples: r.latency.samplesCount };
      }),
    );
    const together = completedResult(bench, 'end to end, unchanged head').latency.p50!;
    const scrapedApart = completedResult(bench, 'end to end, series scraped apart').latency.p50!;
    console.log(`series scraped together ${together.toFixed(2)} ms, scraped apart ${scrapedApart.toFixed(2)} ms: ratio ${(together / scrapedApart).toFixed(2)}x`);
  } finally {
    await storage.close();
    await apart.close();
    await rm(dir, { recursive: true, force: true });
    await rm(apartDir, { recursive: true, force: true });
  }
}

runWhenDirect(import.meta.url, main);
