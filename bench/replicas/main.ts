import { clusterBackendsAvailable, startClusterBackends, type ClusterBackends } from '../cluster/backends.js';
import { harnessLog, REPO_ROOT, RESULTS_DIR, runHarness } from '../harness/run.js';
import { Dataset, datasetEndMs } from '../peers/dataset.js';
import { machineInfo, sluiceVersion } from '../peers/machine.js';
import { onSignalCleanUp, waitFor } from '../peers/processes.js';
import { queryCases } from '../peers/queries.js';
import { storedSampleCount } from '../peers/sampleCounts.js';
import { SCALES } from '../peers/scales.js';
import { runDashboardLevels } from './dashboardLevels.js';
import { startFleet, type Fleet } from './fleet.js';
import { runIngestPhases } from './ingestPhases.js';
import { parseOptions } from './options.js';
import { dashboardTable, ingestTable, limitsText, writeReplicaReport, type ReplicaReport } from './report.js';

/**
 * `npm run bench:replicas`: starts the scaled-out layout on loopback (PostgreSQL, a 3-node
 * NATS JetStream cluster, s3rver, then ingesters, a compactor, ingest and query replicas),
 * loads the peer benchmark's deterministic metrics through the ingest replicas (timing each
 * ingest replica count), waits until every query replica answers over every sample, runs the
 * dashboard viewers at each query replica count, and writes bench/results/<time>-replicas.json
 * and .md. Every process it starts is stopped at the end, on error and on Ctrl-C.
 */
const API_KEY = 'slk_bench_replicas_0123456789abcdef0123456789abcdef';
const SAMPLE_WAIT_MS = 300_000;

const log = harnessLog('bench:replicas');

/** waitForEverySample waits until each query replica counts the whole dataset through its query API. */
async function waitForEverySample(fleet: Fleet, dataset: Dataset): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const replica of fleet.query) {
    await waitFor(`${replica.label} to hold ${dataset.sampleCount} samples`, async () => {
      counts[replica.label] = await storedSampleCount(replica.system, dataset);
      return counts[replica.label] === dataset.sampleCount;
    }, SAMPLE_WAIT_MS).catch((err: unknown) => {
      throw new Error(`${replica.label} holds ${counts[replica.label]} samples, expected ${dataset.sampleCount}: ${String(err)}`);
    });
    log(`${replica.label} holds all ${counts[replica.label]} samples`);
  }
  return counts;
}

async function main(): Promise<number> {
  const options = parseOptions(process.argv.slice(2), RESULTS_DIR);
  if (!clusterBackendsAvailable('bench:replicas')) return 1;
  const startedAt = new Date().toISOString();
  const machine = machineInfo();
  const scale = SCALES[options.scale];
  const dataset = new Dataset(scale, datasetEndMs(Date.now()));
  const layout = { ingesters: options.ingesters, ingestReplicas: Math.max(...options.ingestReplicas), queryReplicas: Math.max(...options.queryReplicas), partitions: options.partitions };
  log(`scale ${scale.name}: ${dataset.series.length} series × ${dataset.steps} scrapes = ${dataset.sampleCount} samples`);
  let backends: ClusterBackends | undefined;
  let fleet: Fleet | undefined;
  const unhook = onSignalCleanUp(async () => backends?.close());
  try {
    backends = await startClusterBackends();
    log('started PostgreSQL, a 3-node NATS JetStream cluster and s3rver');
    fleet = await startFleet(backends, layout, API_KEY, log);
    const everyProcess = fleet.all;
    const ingest = await runIngestPhases(dataset, fleet.ingest, options.ingestReplicas, options.senders, everyProcess, log);
    const sampleCounts = await waitForEverySample(fleet, dataset);
    const { rows: dashboards, windows: dashboardWindows } = await runDashboardLevels(fleet.query, queryCases(dataset), options.queryReplicas, options.rounds, options.viewers, options.seconds, everyProcess, log);
    const report: ReplicaReport = {
      startedAt,
      finishedAt: new Date().toISOString(),
      scale: scale.name,
      machine,
      version: sluiceVersion(`${REPO_ROOT}package.json`),
      layout,
      viewers: options.viewers,
      windowSeconds: options.seconds,
      rounds: options.rounds,
      dataset: dataset.summary(),
      sampleCounts,
      ingest,
      dashboards,
      dashboardWindows,
      limits: limitsText(machine.cores, dashboards, ingest),
    };
    const written = writeReplicaReport(report, options.outDir);
    process.stdout.write(`${dashboardTable(dashboards)}\n\n${ingestTable(ingest)}\n\n${report.limits}\n`);
    log(`wrote ${written.json} and ${written.markdown}`);
    const failed = dashboards.some((r) => r.errors > 0 || r.queries === 0) || ingest.some((r) => r.errors > 0);
    return failed ? 1 : 0;
  } finally {
    await fleet?.stop();
    await backends?.close();
    unhook();
  }
}

runHarness(main, log);
