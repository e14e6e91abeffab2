import { clusterDatabase, clusterEnv, type ClusterBackends } from '../cluster/backends.js';
import { SLUICE_CLI, type RunningSystem } from '../peers/peers.js';
import { freePort, startProcess, temporaryDirectory, waitFor } from '../peers/processes.js';

/**
 * The scaled-out Sluice the replica benchmark measures: ingesters, a compactor, ingest
 * replicas and query replicas, each its own process of this checkout's build over one
 * database, JetStream stream and S3 prefix (bench/cluster/backends.ts). Every process is
 * registered with bench/peers/processes.ts, so it ends with the harness however that ends.
 */
export type FleetRole = 'ingest' | 'ingester' | 'query' | 'compactor';

/** A role process: a RunningSystem the peer benchmark's clients can ask, named by role and number. */
export interface RoleProcess {
  role: FleetRole;
  label: string;
  system: RunningSystem;
}

export interface FleetLayout {
  ingesters: number;
  ingestReplicas: number;
  queryReplicas: number;
  partitions: number;
}

export interface Fleet {
  ingesters: RoleProcess[];
  compactor: RoleProcess;
  ingest: RoleProcess[];
  query: RoleProcess[];
  /** all lists every Sluice process, for CPU and memory summed over the installation. */
  all(): RoleProcess[];
  stop(): Promise<void>;
}

/**
 * QUERY_TIMEOUT_MS matches the peer benchmark's long deadline: the window measures throughput,
 * and a query refused for time on a saturated machine would hide it as errors.
 */
const QUERY_TIMEOUT_MS = 300_000;
const START_TIMEOUT_MS = 90_000;

/**
 * benchSettings are what the benchmark adds to the cluster's shared settings: no results cache
 * (the viewers repeat the same ranges; a cache would time hits, not evaluations), per-org query
 * slots for every viewer, the peer benchmark's points cap and deadline, and heads cut at 4 MiB
 * so most of the data is read from object storage through each query replica's cache, the
 * path query replicas scale on, with the newest minutes still fetched from the ingesters.
 */
function benchSettings(): Record<string, string> {
  return {
    SVC_LOG_LEVEL: 'info',
    SVC_RETENTION_DAYS: '0',
    SVC_RESULTS_CACHE: 'false',
    SVC_MAX_QUERIES_PER_ORG: '1000',
    SVC_MAX_POINTS_PER_SERIES: '30000',
    SVC_QUERY_TIMEOUT_MS: String(QUERY_TIMEOUT_MS),
    SVC_HEAD_MAX_BYTES: '4MiB',
  };
}

async function startRole(role: FleetRole, label: string, env: Record<string, string>, key: string, log: (line: string) => void): Promise<RoleProcess> {
  const extra: Record<string, string> = { SVC_ROLE: role, SVC_HOST: '127.0.0.1', SVC_PORT: '0', SVC_DATA_DIR: temporaryDirectory(`sluice-replicas-${label}-`) };
  if (role === 'ingester') {
    // An ingester advertises where it listens in its partition leases, so its port is chosen first.
    const port = await freePort();
    extra.SVC_PORT = String(port);
    extra.SVC_ADVERTISE_URL = `http://127.0.0.1:${port}`;
  }
  const proc = startProcess(label, process.execPath, [SLUICE_CLI, 'serve'], { ...env, ...extra });
  let url = '';
  await waitFor(`${label} to listen`, async () => {
    const m = /"port":(\d+)[^\n]*sluice listening/.exec(proc.output());
    if (m) url = `http://127.0.0.1:${m[1]}`;
    return m !== null;
  }, START_TIMEOUT_MS, proc);
  log(`started ${label} (pid ${proc.pid}) on ${url}`);
  return { role, label, system: { name: 'sluice', url, dataDir: extra.SVC_DATA_DIR, process: proc, key } };
}

/** startFleet creates the cluster's database and starts every process of `layout`, ingesters first. */
export async function startFleet(backends: ClusterBackends, layout: FleetLayout, apiKey: string, log: (line: string) => void): Promise<Fleet> {
  const name = 'replicas';
  const database = await clusterDatabase(backends, name);
  const env = { ...clusterEnv(backends, database, { name, apiKey, partitions: layout.partitions }), ...benchSettings() };
  const started: RoleProcess[] = [];
  const stop = async (): Promise<void> => {
    for (const p of started.splice(0).reverse()) await p.system.process.stop();
  };
  try {
    const ingesters: RoleProcess[] = [];
    for (let i = 1; i <= layout.ingesters; i++) started.push(ingesters[ingesters.length] = await startRole('ingester', `ingester-${i}`, env, apiKey, log));
    const compactor = await startRole('compactor', 'compactor', env, apiKey, log);
    started.push(compactor);
    const ingest: RoleProcess[] = [];
    for (let i = 1; i <= layout.ingestReplicas; i++) started.push(ingest[ingest.length] = await startRole('ingest', `ingest-${i}`, env, apiKey, log));
    const query: RoleProcess[] = [];
    for (let i = 1; i <= layout.queryReplicas; i++) started.push(query[query.length] = await startRole('query', `query-${i}`, env, apiKey, log));
    return { ingesters, compactor, ingest, query, all: () => [...started], stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
