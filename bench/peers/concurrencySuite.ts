import { setMaxListeners } from 'node:events';
import type { RunningSystem, SystemName } from './peers.js';
import { cpuSeconds, residentBytes } from './procStats.js';
import type { QueryCase } from './queries.js';
import { QueryFailed, timedQuery } from './queryClients.js';
import { percentile } from './stats.js';

/**
 * Simulated dashboard viewers: each viewer refreshes a 10-panel dashboard in a loop, its
 * panels' queries in parallel as a browser sends them, for a fixed window, at several numbers
 * of viewers, against one system at a time. Every tenth viewer reads its answers slowly
 * (a pause between chunks, like a browser on a poor link), which exercises bounded stream
 * buffers while the others keep querying. Throughput, latency and CPU are measured over the
 * window only: at its end the requests still open are abandoned (not errors), so a slow
 * reader's long answer cannot stretch the window and hide what the fast viewers got. Slow
 * readers' latencies are reported apart from the others'. CPU and memory are read from the
 * system's own process, or summed over every process of a scaled-out installation (ReplicaFleet).
 *
 * A refused panel (429 or 503) counts as an error, and its viewer waits the refusal's
 * Retry-After before refreshing again, as a dashboard that is told to back off does (Grafana
 * does not even retry until its next refresh). Refreshing at once turned every refusal into
 * a busy loop of requests against the one system that refused, a load no dashboard makes.
 */
export const PANELS_PER_DASHBOARD = 10;
const SLOW_READER_EVERY = 10;
const SLOW_READ_PAUSE_MS = 20;
const REQUEST_TIMEOUT_MS = 60_000;

export interface ConcurrencyLevelResult {
  system: SystemName;
  viewers: number;
  seconds: number;
  /** Queries answered in full within the window, by every viewer. */
  queries: number;
  queriesPerSecond: number;
  /** Latency percentiles of the viewers that read at full speed. */
  p50Ms: number;
  p99Ms: number;
  /** Median latency of the slow readers' answers finished within the window (NaN when none). */
  slowReaderP50Ms: number;
  /** Requests still open when the window closed (abandoned, not failed). */
  unfinished: number;
  errors: number;
  firstError?: string;
  cpuSecondsPerQuery: number;
  /**
   * clientCpuSecondsPerQuery is the viewers' own CPU (this process: requests, reading and
   * decompressing answers) over the window per completed query. The viewers share the machine's
   * cores with the system measured, so a format that costs its clients more leaves the system
   * less. Absent in reports written before it was measured.
   */
  clientCpuSecondsPerQuery?: number;
  peakRssMiB: number;
}

interface LevelTally {
  fastMs: number[];
  slowMs: number[];
  errors: string[];
  unfinished: number;
}

async function viewer(sys: RunningSystem, panels: QueryCase[], slow: boolean, window: AbortSignal, tally: LevelTally): Promise<void> {
  while (!window.aborted) {
    let backOffS = 0;
    await Promise.all(
      panels.map(async (panel) => {
        // One controller per request, aborted by the window's end or the request timeout (held
        // strongly here: fetch keeps only a weak reference to the signal it is given).
        const request = new AbortController();
        const stop = (): void => request.abort(window.reason);
        window.addEventListener('abort', stop, { once: true });
        const timeout = setTimeout(() => request.abort(new Error('request timed out')), REQUEST_TIMEOUT_MS);
        try {
          const { ms } = await timedQuery(sys, panel.request, request.signal, slow ? SLOW_READ_PAUSE_MS : 0);
          if (window.aborted) tally.unfinished++;
          else (slow ? tally.slowMs : tally.fastMs).push(ms);
        } catch (err) {
          if (window.aborted) tally.unfinished++;
          else tally.errors.push(err instanceof Error ? err.message : String(err));
          if (err instanceof QueryFailed && err.retryAfterS !== undefined) backOffS = Math.max(backOffS, err.retryAfterS);
        } finally {
          clearTimeout(timeout);
          window.removeEventListener('abort', stop);
        }
      }),
    );
    if (backOffS > 0 && !window.aborted) await backOff(backOffS * 1000, window);
  }
}

/** backOff waits `ms`, or less when the window closes first. */
function backOff(ms: number, window: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      window.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    window.addEventListener('abort', done, { once: true });
  });
}

/**
 * ReplicaFleet spreads the viewers over several replicas of one system, round robin as a load
 * balancer would (viewer i asks replica i mod n), and measures CPU and memory summed over
 * every process of the installation, not only the replicas asked.
 */
export interface ReplicaFleet {
  replicas: RunningSystem[];
  pids: number[];
}

/** sumOver adds a per-process figure over processes; one that has exited counts as zero. */
function sumOver(pids: number[], read: (pid: number) => number): number {
  let total = 0;
  for (const pid of pids) {
    try {
      total += read(pid);
    } catch {
      // exited: nothing more to count
    }
  }
  return total;
}

export async function runConcurrencyLevel(sys: RunningSystem, panels: QueryCase[], viewers: number, seconds: number, fleet?: ReplicaFleet): Promise<ConcurrencyLevelResult> {
  const tally: LevelTally = { fastMs: [], slowMs: [], errors: [], unfinished: 0 };
  const replicas = fleet?.replicas ?? [sys];
  const pids = fleet?.pids ?? [sys.process.pid];
  const rss = (): number => sumOver(pids, residentBytes);
  const cpuNow = (): number => sumOver(pids, cpuSeconds);
  let peakRss = rss();
  const sampler = setInterval(() => {
    peakRss = Math.max(peakRss, rss());
  }, 200);
  const window = new AbortController();
  // Every open panel request of every viewer listens for the window's end: 2,000 at 200 viewers.
  setMaxListeners(0, window.signal);
  const cpuBefore = cpuNow();
  const clientBefore = process.cpuUsage();
  const started = performance.now();
  let cpu = 0;
  let clientCpu = 0;
  let elapsedS = seconds;
  const closeWindow = setTimeout(() => {
    cpu = cpuNow() - cpuBefore;
    const client = process.cpuUsage(clientBefore);
    clientCpu = (client.user + client.system) / 1e6;
    elapsedS = (performance.now() - started) / 1000;
    window.abort(new Error('the measuring window closed'));
  }, seconds * 1000);
  try {
    await Promise.all(Array.from({ length: viewers }, (_, i) => viewer(replicas[i % replicas.length], panels, i % SLOW_READER_EVERY === SLOW_READER_EVERY - 1, window.signal, tally)));
  } finally {
    clearTimeout(closeWindow);
    clearInterval(sampler);
  }
  const queries = tally.fastMs.length + tally.slowMs.length;
  return {
    system: sys.name,
    viewers,
    seconds: Number(elapsedS.toFixed(2)),
    queries,
    queriesPerSecond: queries / elapsedS,
    p50Ms: percentile(tally.fastMs, 50),
    p99Ms: percentile(tally.fastMs, 99),
    slowReaderP50Ms: tally.slowMs.length === 0 ? Number.NaN : percentile(tally.slowMs, 50),
    unfinished: tally.unfinished,
    errors: tally.errors.length,
    ...(tally.errors.length > 0 ? { firstError: tally.errors[0].slice(0, 300) } : {}),
    cpuSecondsPerQuery: queries === 0 ? Number.NaN : cpu / queries,
    clientCpuSecondsPerQuery: queries === 0 ? Number.NaN : clientCpu / queries,
    peakRssMiB: Number((peakRss / 2 ** 20).toFixed(1)),
  };
}

/**
 * DASHBOARD_QUERIES is how many of the suite's first queries make the dashboard: the nine it
 * has had since the first runs, so levels compare across runs as the suite grows.
 */
const DASHBOARD_QUERIES = 9;

/** dashboardPanels picks ten range queries over the scale's shortest window, the usual "last hour" dashboard. */
export function dashboardPanels(cases: QueryCase[]): QueryCase[] {
  const window = cases.find((c) => c.request.kind === 'range')?.window;
  const names = [...new Set(cases.map((c) => c.definition.name))].slice(0, DASHBOARD_QUERIES);
  const ranged = cases.filter((c) => c.window === window && names.includes(c.definition.name));
  return Array.from({ length: PANELS_PER_DASHBOARD }, (_, i) => ranged[i % ranged.length]);
}

export async function runConcurrencySuite(systems: RunningSystem[], cases: QueryCase[], viewerCounts: number[], seconds: number, log: (line: string) => void): Promise<ConcurrencyLevelResult[]> {
  const panels = dashboardPanels(cases);
  const results: ConcurrencyLevelResult[] = [];
  for (const viewers of viewerCounts) {
    for (const sys of systems) {
      const r = await runConcurrencyLevel(sys, panels, viewers, seconds);
      log(`concurrency: ${sys.name} with ${viewers} viewers: ${r.queriesPerSecond.toFixed(1)} queries/s, p50 ${r.p50Ms.toFixed(0)} ms, p99 ${r.p99Ms.toFixed(0)} ms, slow readers p50 ${r.slowReaderP50Ms.toFixed(0)} ms, ${r.errors} errors, ${r.unfinished} unfinished`);
      results.push(r);
    }
  }
  return results;
}
