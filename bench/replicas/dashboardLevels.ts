import { dashboardPanels, runConcurrencyLevel, type ConcurrencyLevelResult } from '../peers/concurrencySuite.js';
import type { QueryCase } from '../peers/queries.js';
import { timedQuery } from '../peers/queryClients.js';
import { busyShare, harnessCpuSeconds, machineCpuTimes } from './machineCpu.js';
import type { RoleProcess } from './fleet.js';

/**
 * Dashboard queries per second at several numbers of query replicas: the peer benchmark's
 * dashboard viewers (bench/peers/concurrencySuite.ts), the same number at every level, spread
 * round robin over the first n query replicas. CPU is summed over every Sluice process of the
 * installation (idle replicas, ingesters and the compactor included), and the share of the
 * whole machine that was busy is read beside it.
 */
export interface DashboardLevelResult extends ConcurrencyLevelResult {
  queryReplicas: number;
  /** Which round the window ran in; 0 in a row that combines every round. */
  round: number;
  /** Cores the Sluice processes kept busy on average (CPU seconds per second). */
  sluiceCores: number;
  /** Cores the benchmark's own viewers kept busy on average. */
  harnessCores: number;
  /** Share of the whole machine's CPU time that was busy (Sluice, backends and the harness). */
  machineBusy: number;
  ratioToOne: number;
}

/** warmUp asks every panel once on every replica, so no level starts with a replica's cold segment cache. */
async function warmUp(query: RoleProcess[], panels: QueryCase[]): Promise<void> {
  for (const replica of query) for (const panel of new Set(panels)) await timedQuery(replica.system, panel.request);
}

/** measureWindow runs one window of the viewers over the first `n` query replicas. */
async function measureWindow(query: RoleProcess[], panels: QueryCase[], n: number, round: number, viewers: number, seconds: number, everyProcess: () => RoleProcess[], log: (line: string) => void): Promise<DashboardLevelResult> {
  const replicas = query.slice(0, n).map((p) => p.system);
  const pids = everyProcess().map((p) => p.system.process.pid);
  const machineBefore = machineCpuTimes();
  const harnessBefore = harnessCpuSeconds();
  const r = await runConcurrencyLevel(replicas[0], panels, viewers, seconds, { replicas, pids });
  const machineBusy = busyShare(machineBefore, machineCpuTimes());
  const harnessCores = (harnessCpuSeconds() - harnessBefore) / r.seconds;
  const sluiceCores = Number.isNaN(r.cpuSecondsPerQuery) ? 0 : (r.cpuSecondsPerQuery * r.queries) / r.seconds;
  log(`dashboards on ${n} query replica(s), round ${round}, ${viewers} viewers: ${r.queriesPerSecond.toFixed(1)} queries/s, p50 ${r.p50Ms.toFixed(0)} ms, p99 ${r.p99Ms.toFixed(0)} ms, ${r.errors} errors, Sluice ${sluiceCores.toFixed(2)} cores, viewers ${harnessCores.toFixed(2)} cores, machine ${(machineBusy * 100).toFixed(0)} % busy`);
  return { ...r, queryReplicas: n, round, sluiceCores: Number(sluiceCores.toFixed(2)), harnessCores: Number(harnessCores.toFixed(2)), machineBusy: Number(machineBusy.toFixed(3)), ratioToOne: 1 };
}

const mean = (values: number[]): number => values.reduce((a, b) => a + b, 0) / values.length;

/**
 * combine folds one replica count's windows into one row: counts and CPU summed, rates over
 * the summed seconds, busy shares weighted by seconds, and the latency percentiles as the mean
 * of the windows' (each window keeps its own in `windows`).
 */
function combine(windows: DashboardLevelResult[]): DashboardLevelResult {
  if (windows.length === 1) return { ...windows[0], round: 0 };
  const seconds = windows.reduce((n, w) => n + w.seconds, 0);
  const queries = windows.reduce((n, w) => n + w.queries, 0);
  const cpu = windows.reduce((n, w) => n + (Number.isNaN(w.cpuSecondsPerQuery) ? 0 : w.cpuSecondsPerQuery * w.queries), 0);
  const weighted = (pick: (w: DashboardLevelResult) => number): number => windows.reduce((n, w) => n + pick(w) * w.seconds, 0) / seconds;
  const errors = windows.reduce((n, w) => n + w.errors, 0);
  const firstError = windows.find((w) => w.firstError !== undefined)?.firstError;
  return {
    system: windows[0].system,
    viewers: windows[0].viewers,
    queryReplicas: windows[0].queryReplicas,
    round: 0,
    seconds: Number(seconds.toFixed(2)),
    queries,
    queriesPerSecond: queries / seconds,
    p50Ms: mean(windows.map((w) => w.p50Ms)),
    p99Ms: mean(windows.map((w) => w.p99Ms)),
    slowReaderP50Ms: mean(windows.map((w) => w.slowReaderP50Ms)),
    unfinished: windows.reduce((n, w) => n + w.unfinished, 0),
    errors,
    ...(firstError !== undefined ? { firstError } : {}),
    cpuSecondsPerQuery: queries === 0 ? Number.NaN : cpu / queries,
    peakRssMiB: Math.max(...windows.map((w) => w.peakRssMiB)),
    sluiceCores: Number((cpu / seconds).toFixed(2)),
    harnessCores: Number(weighted((w) => w.harnessCores).toFixed(2)),
    machineBusy: Number(weighted((w) => w.machineBusy).toFixed(3)),
    ratioToOne: 1,
  };
}

export interface DashboardLevels {
  /** One row per replica count, its rounds' windows combined. */
  rows: DashboardLevelResult[];
  /** Every window in the order it ran. */
  windows: DashboardLevelResult[];
}

/**
 * runDashboardLevels measures every replica count `rounds` times, ascending in odd rounds and
 * descending in even ones, so a drift over the run (segments being merged by the compactor,
 * caches filling) weighs on every count alike instead of on the first or the last.
 */
export async function runDashboardLevels(query: RoleProcess[], cases: QueryCase[], replicaCounts: number[], rounds: number, viewers: number, seconds: number, everyProcess: () => RoleProcess[], log: (line: string) => void): Promise<DashboardLevels> {
  const panels = dashboardPanels(cases);
  await warmUp(query.slice(0, Math.max(...replicaCounts)), panels);
  const windows: DashboardLevelResult[] = [];
  for (let round = 1; round <= rounds; round++) {
    const order = round % 2 === 1 ? replicaCounts : [...replicaCounts].reverse();
    for (const n of order) windows.push(await measureWindow(query, panels, n, round, viewers, seconds, everyProcess, log));
  }
  const rows = replicaCounts.map((n) => combine(windows.filter((w) => w.queryReplicas === n)));
  const one = rows.find((r) => r.queryReplicas === 1) ?? rows[0];
  for (const r of rows) r.ratioToOne = Number((r.queriesPerSecond / one.queriesPerSecond).toFixed(3));
  for (const w of windows) w.ratioToOne = Number((w.queriesPerSecond / one.queriesPerSecond).toFixed(3));
  return { rows, windows };
}
