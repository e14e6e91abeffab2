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

export async function runDashboardLevels(query: RoleProcess[], cases: QueryCase[], replicaCounts: number[], viewers: number, seconds: number, everyProcess: () => RoleProcess[], log: (line: string) => void): Promise<DashboardLevelResult[]> {
  const panels = dashboardPanels(cases);
  await warmUp(query.slice(0, Math.max(...replicaCounts)), panels);
  const results: DashboardLevelResult[] = [];
  for (const n of replicaCounts) {
    const replicas = query.slice(0, n).map((p) => p.system);
    const pids = everyProcess().map((p) => p.system.process.pid);
    const machineBefore = machineCpuTimes();
    const harnessBefore = harnessCpuSeconds();
    const r = await runConcurrencyLevel(replicas[0], panels, viewers, seconds, { replicas, pids });
    const machineBusy = busyShare(machineBefore, machineCpuTimes());
    // The window's own length, less the few milliseconds the abandoned requests took to unwind.
    const harnessCores = (harnessCpuSeconds() - harnessBefore) / r.seconds;
    const sluiceCores = Number.isNaN(r.cpuSecondsPerQuery) ? 0 : (r.cpuSecondsPerQuery * r.queries) / r.seconds;
    results.push({ ...r, queryReplicas: n, sluiceCores: Number(sluiceCores.toFixed(2)), harnessCores: Number(harnessCores.toFixed(2)), machineBusy: Number(machineBusy.toFixed(3)), ratioToOne: 1 });
    log(`dashboards on ${n} query replica(s), ${viewers} viewers: ${r.queriesPerSecond.toFixed(1)} queries/s, p50 ${r.p50Ms.toFixed(0)} ms, p99 ${r.p99Ms.toFixed(0)} ms, ${r.errors} errors, Sluice ${sluiceCores.toFixed(2)} cores, viewers ${harnessCores.toFixed(2)} cores, machine ${(machineBusy * 100).toFixed(0)} % busy`);
  }
  const one = results.find((r) => r.queryReplicas === 1) ?? results[0];
  for (const r of results) r.ratioToOne = Number((r.queriesPerSecond / one.queriesPerSecond).toFixed(3));
  return results;
}
