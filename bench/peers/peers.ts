import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, startProcess, temporaryDirectory, waitFor, type ManagedProcess } from './processes.js';

/**
 * Starting and stopping the three systems. Each gets a fresh data directory and a loopback
 * port; every system runs with its result cache off (Prometheus has none; VictoriaMetrics
 * takes -search.disableCache; Sluice SVC_RESULTS_CACHE=false unless asked) so repeated queries
 * measure evaluation, not a cache hit.
 */
export type SystemName = 'sluice' | 'sluice-compact' | 'sluice-prom' | 'sluice-cache' | 'sluice-baseline' | 'prometheus' | 'victoria';

/**
 * QUERY_TIMEOUT_S is every system's query deadline. The defaults differ (Sluice 60 s,
 * Prometheus 2 min, VictoriaMetrics 30 s) and a whole-day query over 10,000 series on a busy
 * machine can pass the shortest; the harness measures speed, so all three get the same, long one.
 */
const QUERY_TIMEOUT_S = 300;

export const PEER_BINARIES = ['prometheus', 'promtool', 'victoria-metrics'] as const;

export interface RunningSystem {
  name: SystemName;
  url: string;
  dataDir: string;
  process: ManagedProcess;
  /** API key (Sluice only). */
  key: string;
}

/** SLUICE_CLI is this checkout's built command-line entry (the replica benchmark starts its roles from it too). */
export const SLUICE_CLI = fileURLToPath(new URL('../../src/cli/main.js', import.meta.url));

/** sluiceCliOf is the built command-line entry of another checkout (after its `npm run build`). */
export function sluiceCliOf(checkout: string): string {
  return path.join(checkout, 'dist', 'src', 'cli', 'main.js');
}

export function missingPeerBinaries(): string[] {
  return PEER_BINARIES.filter((bin) => spawnSync('sh', ['-c', `command -v ${bin}`]).status !== 0);
}

/**
 * ensurePeersInstalled installs Debian's packages when a binary is missing and the harness
 * runs as root; otherwise it says what to install. The packages' own services are not used.
 */
export function ensurePeersInstalled(log: (line: string) => void): void {
  const missing = missingPeerBinaries();
  if (missing.length === 0) return;
  if (process.getuid?.() !== 0) {
    throw new Error(`missing ${missing.join(', ')}: run as root or install them with apt-get install -y prometheus victoria-metrics`);
  }
  log(`installing prometheus and victoria-metrics (missing: ${missing.join(', ')})`);
  const apt = (args: string[]): void => {
    const res = spawnSync('apt-get', args, { stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
    if (res.status !== 0) throw new Error(`apt-get ${args.join(' ')} failed with status ${res.status}`);
  };
  apt(['update']);
  apt(['install', '-y', 'prometheus', 'victoria-metrics']);
}

/** peerVersions reads the installed versions from dpkg, falling back to the binaries. */
export function peerVersions(): Record<string, string> {
  const dpkg = spawnSync('dpkg-query', ['-W', '-f', '${Package} ${Version}\\n', 'prometheus', 'victoria-metrics'], { encoding: 'utf8' });
  const versions: Record<string, string> = {};
  for (const line of (dpkg.stdout ?? '').split('\n')) {
    const [name, version] = line.split(' ');
    if (name && version) versions[name === 'victoria-metrics' ? 'victoria' : name] = version;
  }
  if (versions.prometheus === undefined) {
    versions.prometheus = (spawnSync('prometheus', ['--version'], { encoding: 'utf8' }).stdout ?? '').split('\n')[0] ?? 'unknown';
  }
  versions.victoria ??= 'unknown';
  return versions;
}

/**
 * sluicePrometheusApi is the same running Sluice asked through its Prometheus-compatible API
 * (`/prometheus/api/v1/...`), timed beside the SSE API so the cost of each wire format shows.
 * It shares the process: it is never stopped on its own.
 */
/** sluiceCompact is Sluice asked through its SSE API for the compact result format (series once, points as columns). */
export function sluiceCompact(sluice: RunningSystem): RunningSystem {
  return { ...sluice, name: 'sluice-compact' };
}

export function sluicePrometheusApi(sluice: RunningSystem): RunningSystem {
  return { ...sluice, name: 'sluice-prom', url: `${sluice.url}/prometheus` };
}

export interface SluiceOptions {
  workers?: number;
  /** cli is the command-line entry to start (another checkout's build for `--baseline`); this checkout's by default. */
  cli?: string;
  /**
   * resultsCache turns Sluice's results cache on. Off unless asked: the peers run without one
   * (Prometheus has none, VictoriaMetrics' is disabled) and the dashboard viewers repeat the
   * same ranges, so with it on the comparison would time cache hits against evaluations.
   */
  resultsCache?: boolean;
  /** nodeArgs go to node before the CLI, for example `--cpu-prof` to profile the server. */
  nodeArgs?: string[];
}

export async function startSluice(dataDir = temporaryDirectory('sluice-peers-'), key = `slk_bench_${randomBytes(24).toString('hex')}`, options: SluiceOptions = {}): Promise<RunningSystem> {
  const env: Record<string, string> = {
    SVC_HOST: '127.0.0.1',
    SVC_PORT: '0',
    SVC_DATA_DIR: dataDir,
    SVC_LOG_LEVEL: 'info',
    SVC_BOOTSTRAP_ORG: 'bench',
    SVC_BOOTSTRAP_API_KEY: key,
    SVC_RETENTION_DAYS: '0',
    // The concurrency suite runs up to 200 viewers; the per-org limit would turn them into 429s.
    SVC_MAX_QUERIES_PER_ORG: '1000',
    SVC_MAX_POINTS_PER_SERIES: '30000',
    SVC_QUERY_TIMEOUT_MS: String(QUERY_TIMEOUT_S * 1000),
    SVC_RESULTS_CACHE: options.resultsCache === true ? 'true' : 'false',
  };
  if (options.workers !== undefined) env.SVC_QUERY_WORKERS = String(options.workers);
  const proc = startProcess('sluice', process.execPath, [...(options.nodeArgs ?? []), options.cli ?? SLUICE_CLI, 'serve'], env);
  let url = '';
  await waitFor('sluice to listen', async () => {
    const m = /"port":(\d+)[^\n]*sluice listening/.exec(proc.output());
    if (m) url = `http://127.0.0.1:${m[1]}`;
    return m !== null;
  }, 30_000, proc);
  return { name: 'sluice', url, dataDir, process: proc, key };
}

export async function startPrometheus(dataDir: string): Promise<RunningSystem> {
  const port = await freePort();
  const configDir = temporaryDirectory('prometheus-config-');
  const config = path.join(configDir, 'prometheus.yml');
  writeFileSync(config, 'global:\n  scrape_interval: 15s\nscrape_configs: []\n');
  const proc = startProcess('prometheus', 'prometheus', [
    `--config.file=${config}`,
    `--storage.tsdb.path=${dataDir}`,
    `--web.listen-address=127.0.0.1:${port}`,
    '--storage.tsdb.retention.time=100y',
    // The sample-count check reads every sample at the large scale in one query.
    '--query.max-samples=1000000000',
    `--query.timeout=${QUERY_TIMEOUT_S}s`,
    '--log.level=warn',
  ]);
  const url = `http://127.0.0.1:${port}`;
  await waitFor('prometheus to be ready', async () => (await fetch(`${url}/-/ready`)).status === 200, 60_000, proc);
  return { name: 'prometheus', url, dataDir, process: proc, key: '' };
}

export async function startVictoria(dataDir = temporaryDirectory('victoria-peers-')): Promise<RunningSystem> {
  const port = await freePort();
  const proc = startProcess('victoria', 'victoria-metrics', [
    `-storageDataPath=${dataDir}`,
    `-httpListenAddr=127.0.0.1:${port}`,
    '-search.disableCache',
    '-retentionPeriod=100y',
    // Without this, the newest 30 s are hidden from queries and the counts never agree.
    '-search.latencyOffset=0s',
    '-search.maxPointsPerTimeseries=30000',
    `-search.maxQueryDuration=${QUERY_TIMEOUT_S}s`,
    '-loggerLevel=ERROR',
  ]);
  const url = `http://127.0.0.1:${port}`;
  await waitFor('victoria-metrics to be ready', async () => (await fetch(`${url}/health`)).status === 200, 60_000, proc);
  return { name: 'victoria', url, dataDir, process: proc, key: '' };
}
