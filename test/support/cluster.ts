import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort } from '../../bench/peers/processes.js';
import { PostgresPartitionOwners } from '../../src/cluster/postgresPartitionOwners.js';
import { PostgresDatabase } from '../../src/postgres/database.js';
import { clusterDatabase, clusterEnv, type ClusterBackends } from '../../bench/cluster/backends.js';
import { startChildServer, type ChildServer } from './child.js';

export { CLUSTER_INTERNAL_TOKEN, clusterBackendsAvailable, startClusterBackends, type ClusterBackends } from '../../bench/cluster/backends.js';

/**
 * A scaled-out Sluice on loopback, for the cluster tests: the three shared backends
 * (PostgreSQL, a 3-node NATS JetStream cluster, s3rver; bench/cluster/backends.ts starts them,
 * for the replica benchmark too) started once per suite, and Sluice
 * processes in their roles over one database, stream and S3 prefix. Every process a suite
 * starts is killed, and its data directory removed, when the suite ends.
 */

/** stopProcess ends a Sluice process (SIGTERM is its graceful path) and waits for it to exit. */
export async function stopProcess(server: ChildServer, signal: 'SIGTERM' | 'SIGKILL' = 'SIGTERM'): Promise<void> {
  if (server.proc.exitCode === null && server.proc.signalCode === null) server.proc.kill(signal);
  await server.exit;
}

/**
 * PROCESS_START_TIMEOUT_MS bounds one process's start. A cluster test starts seven or eight at
 * once beside three backends, and on a loaded 2-core machine one may take well over the 15 s
 * a lone server gets.
 */
const PROCESS_START_TIMEOUT_MS = 60_000;

/** ProcessGroup starts Sluice processes, each over a data directory of its own, and ends them all at once. */
export class ProcessGroup {
  private readonly children: ChildServer[] = [];
  private readonly dirs: string[] = [];

  constructor(private readonly prefix: string) {}

  /** dataDir makes a fresh directory that killAll removes. */
  async dataDir(label: string): Promise<string> {
    const dir = await mkdtemp(path.join(tmpdir(), `sluice-${this.prefix}-${label}-`));
    this.dirs.push(dir);
    return dir;
  }

  /** start runs `sluice serve` with `env` over a fresh data directory and waits until it listens. */
  async start(label: string, env: Record<string, string>): Promise<ChildServer> {
    const server = await startChildServer({ SVC_DATA_DIR: await this.dataDir(label), ...env }, PROCESS_START_TIMEOUT_MS);
    this.children.push(server);
    return server;
  }

  /** killAll SIGKILLs every process still running and removes every data directory. */
  async killAll(): Promise<void> {
    for (const child of this.children.splice(0)) await stopProcess(child, 'SIGKILL');
    for (const dir of this.dirs.splice(0)) await rm(dir, { recursive: true, force: true });
  }
}

export interface ClusterSettings {
  /** name tells this cluster's stream and S3 prefix apart from others on the same backends. */
  name: string;
  apiKey: string;
  partitions: number;
  /** env is added to every process's settings. */
  env?: Record<string, string>;
}

export interface PartitionOwner {
  partition: number;
  ownerId: string;
  baseUrl: string;
}

/** SluiceCluster is one scaled-out installation: a database, a JetStream stream, an S3 prefix, and the processes over them. */
export interface SluiceCluster {
  readonly database: string;
  /** env is every process's settings but its role. */
  readonly env: Record<string, string>;
  /** startRole starts a process in `role` over its own data directory. */
  startRole(role: string, extra?: Record<string, string>): Promise<ChildServer>;
  /** startIngester starts an ingester on a port chosen beforehand, so its leases advertise where it listens. */
  startIngester(extra?: Record<string, string>): Promise<ChildServer>;
  /** partitionOwners reads the partition leases as a query process does. */
  partitionOwners(): Promise<PartitionOwner[]>;
  /** ownerIdOf names the lease owner id of the ingester listening at `server`'s port. */
  ownerIdOf(server: ChildServer): Promise<string | undefined>;
}

/** createCluster makes a fresh database on `backends` and the settings of processes that share it, the stream and the S3 prefix. */
export async function createCluster(backends: ClusterBackends, processes: ProcessGroup, settings: ClusterSettings): Promise<SluiceCluster> {
  const database = await clusterDatabase(backends, settings.name);
  const env: Record<string, string> = {
    ...clusterEnv(backends, database, settings),
    // Small heads: ingesters cut while data arrives, so queries read segments and heads together.
    SVC_HEAD_MAX_BYTES: '16KiB',
    ...settings.env,
  };
  const partitionOwners = async (): Promise<PartitionOwner[]> => {
    const db = await PostgresDatabase.open({ url: backends.pg.url(database), poolSize: 1, statementTimeoutMs: 5000 });
    const reader = new PostgresPartitionOwners(db, 'default', true);
    try {
      return await reader.owners();
    } finally {
      await reader.close();
    }
  };
  const startRole = (role: string, extra: Record<string, string> = {}) => processes.start(role, { ...env, SVC_ROLE: role, ...extra });
  return {
    database,
    env,
    startRole,
    async startIngester(extra = {}) {
      const port = await freePort();
      return startRole('ingester', { SVC_PORT: String(port), SVC_ADVERTISE_URL: `http://127.0.0.1:${port}`, ...extra });
    },
    partitionOwners,
    async ownerIdOf(server) {
      const port = new URL(server.url).port;
      return (await partitionOwners()).find((o) => o.baseUrl.endsWith(`:${port}`))?.ownerId;
    },
  };
}
