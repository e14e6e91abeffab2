import type { RunningSystem, SystemName } from './peers.js';
import { cpuSeconds, residentBytes } from './procStats.js';
import type { QueryCase } from './queries.js';
import { timedQuery } from './queryClients.js';
import { percentile } from './stats.js';

/**
 * Simulated dashboard viewers: each viewer refreshes a 10-panel dashboard in a loop, its
 * panels' queries in parallel as a browser sends them, for a fixed time, at several numbers
 * of viewers, against one system at a time. Every tenth viewer reads its answers slowly
 * (a pause between chunks, like a browser on a poor link), which exercises Sluice's bounded
 * stream buffers while the others keep querying. CPU and memory are read from the system's
 * own process.
 */
export const PANELS_PER_DASHBOARD = 10;
const SLOW_READER_EVERY = 10;
const SLOW_READ_PAUSE_MS = 20;
const REQUEST_TIMEOUT_MS = 60_000;

export interface ConcurrencyLevelResult {
  system: SystemName;
  viewers: number;
  seconds: number;
  queries: number;
  queriesPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  errors: number;
  firstError?: string;
  cpuSecondsPerQuery: number;
  peakRssMiB: number;
}

async function viewer(sys: RunningSystem, panels: QueryCase[], slow: boolean, deadline: number, latencies: number[], errors: string[]): Promise<void> {
  while (Date.now() < deadline) {
    await Promise.all(
      panels.map(async (panel) => {
        const signal = AbortSignal.timeout(REQUEST_TIMEOUT_MS);
        try {
          latencies.push((await timedQuery(sys, panel.request, signal, slow ? SLOW_READ_PAUSE_MS : 0)).ms);
        } catch (err) {
          errors.push(err instanceof Error ? err.message : String(err));
        }
      }),
    );
  }
}

export async function runConcurrencyLevel(sys: RunningSystem, panels: QueryCase[], viewers: number, seconds: number): Promise<ConcurrencyLevelResult> {
  const latencies: number[] = [];
  const errors: string[] = [];
  let peakRss = residentBytes(sys.process.pid);
  const sampler = setInterval(() => {
    peakRss = Math.max(peakRss, residentBytes(sys.process.pid));
  }, 200);
  const cpuBefore = cpuSeconds(sys.process.pid);
  const started = performance.now();
  const deadline = Date.now() + seconds * 1000;
  try {
    await Promise.all(Array.from({ length: viewers }, (_, i) => viewer(sys, panels, i % SLOW_READER_EVERY === SLOW_READER_EVERY - 1, deadline, latencies, errors)));
  } finally {
    clearInterval(sampler);
  }
  const elapsedS = (performance.now() - started) / 1000;
  const cpu = cpuSeconds(sys.process.pid) - cpuBefore;
  return {
    system: sys.name,
    viewers,
    seconds: Number(elapsedS.toFixed(2)),
    queries: latencies.length,
    queriesPerSecond: latencies.length / elapsedS,
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
    errors: errors.length,
    ...(errors.length > 0 ? { firstError: errors[0].slice(0, 300) } : {}),
    cpuSecondsPerQuery: latencies.length === 0 ? Number.NaN : cpu / latencies.length,
    peakRssMiB: Number((peakRss / 2 ** 20).toFixed(1)),
  };
}

/** dashboardPanels picks ten range queries over the scale's shortest window, the usual "last hour" dashboard. */
export function dashboardPanels(cases: QueryCase[]): QueryCase[] {
  const window = cases.find((c) => c.request.kind === 'range')?.window;
  const ranged = cases.filter((c) => c.window === window);
  return Array.from({ length: PANELS_PER_DASHBOARD }, (_, i) => ranged[i % ranged.length]);
}

export async function runConcurrencySuite(systems: RunningSystem[], cases: QueryCase[], viewerCounts: number[], seconds: number, log: (line: string) => void): Promise<ConcurrencyLevelResult[]> {
  const panels = dashboardPanels(cases);
  const results: ConcurrencyLevelResult[] = [];
  for (const viewers of viewerCounts) {
    for (const sys of systems) {
      const r = await runConcurrencyLevel(sys, panels, viewers, seconds);
      log(`concurrency: ${sys.name} with ${viewers} viewers: ${r.queriesPerSecond.toFixed(1)} queries/s, p50 ${r.p50Ms.toFixed(0)} ms, p99 ${r.p99Ms.toFixed(0)} ms, ${r.errors} errors`);
      results.push(r);
    }
  }
  return results;
}
