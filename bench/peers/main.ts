import { harnessLog, REPO_ROOT, RESULTS_DIR, runHarness } from '../harness/run.js';
import { directoryBytes, sluiceDiskUsage } from './diskUsage.js';
import { runLogsSuite } from './logsSuite.js';
import { Dataset, datasetEndMs } from './dataset.js';
import { loadPrometheusBlocks } from './loadPrometheus.js';
import { loadSluiceLogs, loadSluiceMetrics } from './loadSluice.js';
import { loadVictoria } from './loadVictoria.js';
import { machineInfo, sluiceVersion } from './machine.js';
import { parseOptions } from './options.js';
import { ensurePeersInstalled, peerVersions, sluiceCliOf, sluiceCompact, sluicePrometheusApi, startPrometheus, startSluice, startVictoria, type RunningSystem } from './peers.js';
import { emptyKeptDirectories, keptDataDirectories, keptLoad, recordKeptLoad, temporaryDataDirectories, type DataDirectories, type LoadFigures } from './keptData.js';
import { queryCases } from './queries.js';
import { runConcurrencySuite } from './concurrencySuite.js';
import { QUICK_CASE_MS, runQuerySuite } from './querySuite.js';
import { writeReport, type RunReport } from './report.js';
import { waitForSameSampleCount } from './sampleCounts.js';
import { SCALES } from './scales.js';

/**
 * `npm run bench:peers`: one command that loads the same deterministic data into Sluice,
 * Prometheus and VictoriaMetrics, checks that all three hold the same samples, times the
 * suites against each, and writes the JSON record and Markdown report under bench/results/.
 * Every process it starts is stopped at the end, on error and on Ctrl-C.
 */
const log = harnessLog('bench:peers');

/** The pid is logged so that whoever runs the harness (and its test) can see every process end. */
function logStarted(sys: RunningSystem): void {
  log(`started ${sys.name} (pid ${sys.process.pid}) on ${sys.url}`);
}

/**
 * alternateWithBaseline runs `suite` against another checkout's build and this one's, in turns
 * (baseline first in each round), each started afresh over `sluice`'s data directory, which
 * stays stopped afterwards (later suites restart it).
 */
async function alternateWithBaseline<T>(sluice: RunningSystem, checkout: string, rounds: number, nodeArgs: string[], suite: (sys: RunningSystem) => Promise<T[]>): Promise<T[]> {
  const rows: T[] = [];
  await sluice.process.stop();
  for (let round = 1; round <= rounds; round++) {
    for (const which of ['baseline', 'current'] as const) {
      const started = await startSluice(sluice.dataDir, sluice.key, which === 'baseline' ? { cli: sluiceCliOf(checkout) } : { nodeArgs });
      const sys: RunningSystem = which === 'baseline' ? { ...started, name: 'sluice-baseline' } : started;
      logStarted(sys);
      log(`baseline comparison, round ${round} of ${rounds}: ${which}`);
      try {
        rows.push(...(await suite(sys)));
      } finally {
        await sys.process.stop();
      }
    }
  }
  return rows;
}

async function main(): Promise<number> {
  const options = parseOptions(process.argv.slice(2), RESULTS_DIR);
  const startedAt = new Date().toISOString();
  const machine = machineInfo();
  if (options.install) ensurePeersInstalled(log);
  const scale = SCALES[options.scale];
  const kept = options.keepDir === undefined ? undefined : keptLoad(options.keepDir, scale.name);
  const dataset = new Dataset(scale, kept?.endMs ?? datasetEndMs(Date.now()));
  log(`scale ${scale.name}: ${dataset.series.length} series × ${dataset.steps} scrapes = ${dataset.sampleCount} samples, ${scale.logLines} log lines`);
  const systems: RunningSystem[] = [];
  try {
    let dirs: DataDirectories;
    let load: LoadFigures;
    let sluice: RunningSystem;
    let victoria: RunningSystem;
    if (kept !== undefined) {
      dirs = keptDataDirectories(options.keepDir!);
      load = kept.load;
      log(`using the data loaded into ${options.keepDir} at ${kept.loadedAt} (load figures are that run's)`);
      sluice = await startSluice(dirs.sluice, kept.sluiceKey, { nodeArgs: options.nodeArgs });
      systems.push(sluice);
      logStarted(sluice);
      victoria = await startVictoria(dirs.victoria);
      systems.push(victoria);
      logStarted(victoria);
    } else {
      dirs = options.keepDir === undefined ? temporaryDataDirectories() : emptyKeptDirectories(options.keepDir);
      const prometheusLoad = await loadPrometheusBlocks(dataset, dirs.prometheus);
      log(`prometheus blocks written (openmetrics ${prometheusLoad.writeSeconds.toFixed(1)} s, promtool ${prometheusLoad.promtoolSeconds.toFixed(1)} s)`);
      sluice = await startSluice(dirs.sluice, undefined, { nodeArgs: options.nodeArgs });
      systems.push(sluice);
      logStarted(sluice);
      const sluiceMetrics = await loadSluiceMetrics(sluice, dataset);
      log(`sluice: ${sluiceMetrics.items} samples by remote write at ${Math.round(sluiceMetrics.perSecond)}/s`);
      const sluiceLogs = await loadSluiceLogs(sluice, dataset, dirs.rawLogFile);
      log(`sluice: ${sluiceLogs.items} log lines by Loki push at ${Math.round(sluiceLogs.perSecond)}/s`);
      victoria = await startVictoria(dirs.victoria);
      systems.push(victoria);
      logStarted(victoria);
      const victoriaLoad = await loadVictoria(victoria, dataset);
      log(`victoria-metrics: ${victoriaLoad.items} samples imported at ${Math.round(victoriaLoad.perSecond)}/s`);
      load = { prometheus: prometheusLoad, sluiceMetrics, sluiceLogs, victoria: victoriaLoad };
    }
    const prometheus = await startPrometheus(dirs.prometheus);
    systems.push(prometheus);
    logStarted(prometheus);
    const sampleCounts = await waitForSameSampleCount(systems, dataset, 120_000, log);
    if (options.keepDir !== undefined && kept === undefined) {
      recordKeptLoad(options.keepDir, { scale: scale.name, endMs: dataset.endMs, sluiceKey: sluice.key, load, loadedAt: new Date().toISOString() });
      log(`the loaded data stays in ${options.keepDir} for later runs with --keep`);
    }
    const { sluiceMetrics, sluiceLogs, victoria: victoriaLoad } = load;
    const promDir = dirs.prometheus;
    const rawLogFile = dirs.rawLogFile;

    const report: RunReport = {
      startedAt,
      finishedAt: '',
      scale: scale.name,
      repetitions: options.repetitions,
      quickRepetitions: Math.max(options.repetitions, options.quickRepetitions),
      quickCaseMs: QUICK_CASE_MS,
      machine,
      // Node arguments change what is measured, so the report names them with the version.
      versions: { sluice: `${sluiceVersion(`${REPO_ROOT}package.json`)}${options.nodeArgs.length > 0 ? ` run with node ${options.nodeArgs.join(' ')}` : ''}`, ...peerVersions() },
      dataset: dataset.summary(),
      load: kept === undefined ? { ...load } : { ...load, loadedByAnEarlierRunAt: kept.loadedAt },
      sampleCounts,
      queries: [],
      concurrency: [],
      suites: {},
    };
    const cases = queryCases(dataset);
    if (options.suites.includes('queries')) report.queries = await runQuerySuite([...systems, sluiceCompact(sluice), sluicePrometheusApi(sluice)], cases, options.repetitions, log, options.quickRepetitions);
    if (options.suites.includes('concurrency')) {
      // Sluice through each of its clients' formats: the spec's events, the compact format its web
      // UI reads, and the Prometheus API Grafana reads; one process, measured one format at a time.
      const concurrencySystems = [sluice, sluiceCompact(sluice), sluicePrometheusApi(sluice), ...systems.filter((s) => s !== sluice)];
      report.concurrency = await runConcurrencySuite(concurrencySystems, cases, options.viewers, options.concurrencySeconds, log);
      if (options.resultsCacheRows) {
        // Same data directory, cache on; stopped afterwards (a stopped process stops again as a no-op).
        await sluice.process.stop();
        const cached: RunningSystem = { ...(await startSluice(sluice.dataDir, sluice.key, { resultsCache: true, nodeArgs: options.nodeArgs })), name: 'sluice-cache' };
        logStarted(cached);
        try {
          report.concurrency.push(...(await runConcurrencySuite([cached], cases, options.viewers, options.concurrencySeconds, log)));
        } finally {
          await cached.process.stop();
        }
      }
    }
    if (options.suites.includes('concurrency') && options.baseline !== undefined) {
      report.concurrency.push(...(await alternateWithBaseline(sluice, options.baseline, options.baselineRounds, options.nodeArgs, (sys) => runConcurrencySuite([sys], cases, options.viewers, options.concurrencySeconds, log))));
    }
    if (options.suites.includes('logs')) {
      // A restart empties Sluice's segment cache, so the first run of each log query is cold.
      await sluice.process.stop();
      systems.splice(systems.indexOf(sluice), 1);
      const restarted = await startSluice(sluice.dataDir, sluice.key, { nodeArgs: options.nodeArgs });
      systems.push(restarted);
      logStarted(restarted);
      report.suites.logs = await runLogsSuite(restarted, dataset, rawLogFile, options.repetitions, log);
    }
    for (const sys of systems.splice(0).reverse()) await sys.process.stop();
    if (options.suites.includes('ingest')) {
      const sluiceDisk = sluiceDiskUsage(sluice.dataDir);
      const promBytes = directoryBytes(promDir);
      const victoriaBytes = directoryBytes(victoria.dataDir);
      report.suites.ingest = {
        sluiceRemoteWriteSamplesPerSecond: sluiceMetrics.perSecond,
        sluiceLokiPushLinesPerSecond: sluiceLogs.perSecond,
        victoriaImportSamplesPerSecond: victoriaLoad.perSecond,
        sluiceDisk,
        sluiceBytesPerSample: sluiceDisk.metricSegmentBytes / dataset.sampleCount,
        sluiceBytesPerLogLine: sluiceDisk.logSegmentBytes / dataset.scale.logLines,
        sluiceWalBytesPerSampleOrLine: sluiceDisk.walBytes / (dataset.sampleCount + dataset.scale.logLines),
        prometheusBytesPerSample: promBytes / dataset.sampleCount,
        victoriaBytesPerSample: victoriaBytes / dataset.sampleCount,
      };
    }
    report.finishedAt = new Date().toISOString();
    const written = writeReport(report, options.outDir);
    log(`wrote ${written.json}, ${written.markdown}${written.chart ? ` and ${written.chart}` : ''}`);
    const sluiceClients = ['sluice', 'sluice-compact', 'sluice-prom'] as const;
    const wrong = report.queries.filter((q) => sluiceClients.some((name) => (q.agreement[name]?.mismatches ?? 0) > 0));
    for (const q of wrong) {
      for (const name of sluiceClients) {
        const agreement = q.agreement[name];
        if (agreement !== undefined && agreement.mismatches > 0) log(`Sluice (${name === 'sluice' ? 'SSE' : name === 'sluice-compact' ? 'compact SSE' : 'Prometheus API'}) differs from Prometheus on ${q.id}: ${agreement.examples.join('; ')}`);
      }
    }
    const sluiceFailed = report.queries.filter((q) => sluiceClients.some((name) => q.failures[name] !== undefined));
    for (const q of sluiceFailed) log(`Sluice failed ${q.id}: ${sluiceClients.map((name) => q.failures[name]).filter((m) => m !== undefined).join('; ')}`);
    return wrong.length === 0 && sluiceFailed.length === 0 ? 0 : 1;
  } finally {
    for (const sys of systems.reverse()) await sys.process.stop();
  }
}

runHarness(main, log);
