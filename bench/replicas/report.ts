import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { DatasetSummary } from '../peers/dataset.js';
import type { MachineInfo } from '../peers/machine.js';
import type { DashboardLevelResult } from './dashboardLevels.js';
import type { FleetLayout } from './fleet.js';
import type { IngestPhaseResult } from './ingestPhases.js';

/** The record `npm run bench:replicas` writes: bench/results/<time>-replicas.json and .md. */
export interface ReplicaReport {
  startedAt: string;
  finishedAt: string;
  scale: string;
  machine: MachineInfo;
  version: string;
  layout: FleetLayout;
  viewers: number;
  windowSeconds: number;
  rounds: number;
  dataset: DatasetSummary;
  /** Samples every query replica held before the dashboard windows. */
  sampleCounts: Record<string, number>;
  ingest: IngestPhaseResult[];
  /** One row per query replica count, its rounds combined. */
  dashboards: DashboardLevelResult[];
  /** Every measuring window in the order it ran. */
  dashboardWindows: DashboardLevelResult[];
  /** limits says in words what bounded scaling in this run, from the CPU figures. */
  limits: string;
}

export interface WrittenReplicaReport {
  json: string;
  markdown: string;
}

function fixed(value: number, digits: number): string {
  return Number.isFinite(value) ? value.toFixed(digits) : '–';
}

export function dashboardTable(rows: readonly DashboardLevelResult[], withRound = false): string {
  const lines = [
    `| ${withRound ? 'Round | ' : ''}Query replicas | Queries/s | Ratio to 1 | p50 ms | p99 ms | Errors | CPU s per query (all Sluice processes) | Sluice cores busy | Viewer cores | Machine busy |`,
    `|${withRound ? '---:|' : ''}---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|`,
  ];
  for (const r of rows) {
    lines.push(`| ${withRound ? `${r.round} | ` : ''}${r.queryReplicas} | ${fixed(r.queriesPerSecond, 1)} | ${fixed(r.ratioToOne, 2)}× | ${fixed(r.p50Ms, 0)} | ${fixed(r.p99Ms, 0)} | ${r.errors} | ${fixed(r.cpuSecondsPerQuery, 4)} | ${fixed(r.sluiceCores, 2)} | ${fixed(r.harnessCores, 2)} | ${fixed(r.machineBusy * 100, 0)} % |`);
  }
  return lines.join('\n');
}

export function ingestTable(rows: readonly IngestPhaseResult[]): string {
  const lines = ['| Ingest replicas | Samples | Samples/s | Ratio to 1 | Errors | Sluice CPU s | Sluice cores busy | Sender cores | Machine busy |', '|---:|---:|---:|---:|---:|---:|---:|---:|---:|'];
  for (const r of rows) {
    lines.push(`| ${r.ingestReplicas} | ${r.samples} | ${fixed(r.samplesPerSecond, 0)} | ${fixed(r.ratioToOne, 2)}× | ${r.errors} | ${fixed(r.sluiceCpuSeconds, 1)} | ${fixed(r.sluiceCores, 2)} | ${fixed(r.harnessCores, 2)} | ${fixed(r.machineBusy * 100, 0)} % |`);
  }
  return lines.join('\n');
}

/** rest is the cores neither Sluice nor the harness used: the backends and anything else on the machine. */
function rest(cores: number, row: { machineBusy: number; sluiceCores: number; harnessCores: number }): number {
  return Math.max(0, row.machineBusy * cores - row.sluiceCores - row.harnessCores);
}

/**
 * limitsText reads the CPU figures: when the machine was nearly all busy already at one
 * replica, more replicas only divide the same cores, and the text says so with the numbers.
 */
export function limitsText(cores: number, dashboards: readonly DashboardLevelResult[], ingest: readonly IngestPhaseResult[]): string {
  const parts: string[] = [];
  const first = dashboards[0];
  const last = dashboards[dashboards.length - 1];
  if (first !== undefined && last !== undefined) {
    const saturated = first.machineBusy >= 0.9;
    parts.push(
      `Dashboards: with ${first.queryReplicas} query replica(s) the Sluice processes kept ${fixed(first.sluiceCores, 2)} of ${cores} cores busy, the viewers ${fixed(first.harnessCores, 2)}, everything else (PostgreSQL, NATS, s3rver, other work) ${fixed(rest(cores, first), 2)}, and the whole machine was ${fixed(first.machineBusy * 100, 0)} % busy; ` +
        `with ${last.queryReplicas} they kept ${fixed(last.sluiceCores, 2)} cores busy, the viewers ${fixed(last.harnessCores, 2)}, everything else ${fixed(rest(cores, last), 2)} (machine ${fixed(last.machineBusy * 100, 0)} %), at ${fixed(last.ratioToOne, 2)}× the queries/s of one replica and ${fixed(last.cpuSecondsPerQuery, 4)} against ${fixed(first.cpuSecondsPerQuery, 4)} CPU s per query. ` +
        (saturated
          ? `The machine's ${cores} cores were already saturated with one replica, so more replicas share the same CPU: the limit is the total CPU of all processes (replicas, ingesters, compactor, PostgreSQL, NATS, s3rver and the viewers), not the number of replicas.`
          : `The machine still had idle CPU with one replica; the gain from more replicas stops where the machine's ${cores} cores are all busy.`),
    );
  }
  const one = ingest[0];
  const more = ingest[ingest.length - 1];
  if (one !== undefined && more !== undefined && more !== one) {
    parts.push(
      `Ingest: ${one.ingestReplicas} replica(s) kept ${fixed(one.sluiceCores, 2)} cores busy in Sluice, the senders ${fixed(one.harnessCores, 2)}, everything else ${fixed(rest(cores, one), 2)} (machine ${fixed(one.machineBusy * 100, 0)} %), ${more.ingestReplicas} kept ${fixed(more.sluiceCores, 2)} (machine ${fixed(more.machineBusy * 100, 0)} %), ratio ${fixed(more.ratioToOne, 2)}×; ` +
        `every acknowledged write also waits for JetStream to store it on three nodes of the same machine, and the ingesters replay the stream on the same cores.`,
    );
  }
  return parts.join('\n\n');
}

export function renderMarkdown(report: ReplicaReport): string {
  const d = report.dataset;
  const l = report.layout;
  return [
    `# Replica benchmark, ${report.scale} scale, ${report.startedAt}`,
    '',
    `Machine: ${report.machine.cpuModel}, ${report.machine.cores} cores, ${report.machine.memoryGiB} GiB, ${report.machine.os}, Node ${report.machine.node} (load average at start ${report.machine.loadAverageAtStart.join(', ')}). Sluice ${report.version}.`,
    '',
    `Layout on loopback: PostgreSQL, a 3-node NATS JetStream cluster (stream replicas 3, ${l.partitions} partitions), s3rver; ${l.ingesters} ingesters, 1 compactor, ${l.ingestReplicas} ingest and ${l.queryReplicas} query replicas (one query worker each, results cache off).`,
    '',
    `Dataset: ${d.series} series × ${d.steps} scrapes = ${d.samples} samples, written by remote write through the ingest replicas; every query replica held all of them before the dashboards ran.`,
    '',
    `## Dashboard queries (${report.viewers} viewers of a 10-panel dashboard, viewers spread round robin over the replicas)`,
    '',
    `Each count ran ${report.rounds} window(s) of ${report.windowSeconds} s, ascending in odd rounds and descending in even ones; a row combines its windows (p50 and p99 are the mean of the windows').`,
    '',
    dashboardTable(report.dashboards),
    '',
    'Every window, in the order it ran:',
    '',
    dashboardTable(report.dashboardWindows, true),
    '',
    '## Ingest (remote write, acknowledged)',
    '',
    ingestTable(report.ingest),
    '',
    '## What limits scaling here',
    '',
    report.limits,
    '',
  ].join('\n');
}

export function writeReplicaReport(report: ReplicaReport, outDir: string): WrittenReplicaReport {
  mkdirSync(outDir, { recursive: true });
  const base = `${report.startedAt.replace(/[:.]/g, '-').replace(/-\d+Z$/, 'Z')}-replicas`;
  const json = path.join(outDir, `${base}.json`);
  const markdown = path.join(outDir, `${base}.md`);
  writeFileSync(json, `${JSON.stringify(report, null, 2)}\n`);
  writeFileSync(markdown, renderMarkdown(report));
  return { json, markdown };
}
