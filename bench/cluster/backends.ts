import { natsAvailable, startNatsCluster, type NatsCluster } from './natsCluster.js';
import { postgresAvailable, startTestPostgres, type TestPostgres } from './postgres.js';
import { startTestS3, type TestS3 } from './s3Server.js';

/**
 * The three shared backends a scaled-out Sluice runs on (PostgreSQL, a 3-node NATS JetStream
 * cluster, s3rver), all on loopback, and the settings every Sluice process over them shares.
 * The cluster tests and the replica benchmark start the same servers with the same settings,
 * so what the benchmark measures is the layout the tests prove correct.
 */

/** clusterBackendsAvailable tells whether PostgreSQL and nats-server are installed (s3rver comes with npm). */
export function clusterBackendsAvailable(suite: string): boolean {
  return postgresAvailable(suite) && natsAvailable(suite);
}

/** ClusterBackends are the real servers a scaled-out installation runs on; each can be stopped and started again. */
export interface ClusterBackends {
  pg: TestPostgres;
  nats: NatsCluster;
  s3: TestS3;
  close(): Promise<void>;
}

export async function startClusterBackends(): Promise<ClusterBackends> {
  const [pg, nats, s3] = await Promise.all([startTestPostgres(), startNatsCluster(), startTestS3()]);
  return { pg, nats, s3, close: async () => void (await Promise.all([pg.close(), nats.close(), s3.close()])) };
}

/** CLUSTER_INTERNAL_TOKEN lets query processes read the ingesters' heads; loopback only, never a deployment's. */
export const CLUSTER_INTERNAL_TOKEN = 'cluster-internal-token-for-tests-0123456789';

export interface ClusterEnvSettings {
  /** name tells this cluster's stream and S3 prefix apart from others on the same backends. */
  name: string;
  apiKey: string;
  partitions: number;
}

/**
 * clusterDatabase makes a fresh database for a cluster called `name` and returns its name.
 * Only letters, digits and underscores reach the SQL.
 */
export function clusterDatabase(backends: ClusterBackends, name: string): Promise<string> {
  return backends.pg.createDatabase(name.toLowerCase().replace(/[^a-z0-9]/g, '_'));
}

/**
 * clusterEnv is every process's settings but its role: the database's catalog and metadata,
 * the JetStream stream (three replicas) and the S3 prefix, one query worker per process
 * (several processes share few cores), short partition leases and compactor retries so
 * take-overs happen within seconds, and the internal token ingesters serve their heads with.
 */
export function clusterEnv(backends: ClusterBackends, database: string, settings: ClusterEnvSettings): Record<string, string> {
  return {
    SVC_BOOTSTRAP_ORG: 'cluster',
    SVC_BOOTSTRAP_API_KEY: settings.apiKey,
    ...backends.pg.env(database, { catalog: true }),
    SVC_WRITE_LOG: 'jetstream',
    SVC_NATS_URLS: backends.nats.urls.join(','),
    SVC_NATS_STREAM: `SLUICE_${settings.name.toUpperCase().replace(/[^A-Z0-9]/g, '_')}_${process.pid}`,
    SVC_NATS_REPLICAS: '3',
    SVC_WRITE_LOG_PARTITIONS: String(settings.partitions),
    ...backends.s3.env(`${settings.name}-${process.pid}`),
    SVC_QUERY_WORKERS: '1',
    SVC_PARTITION_LEASE_MS: '1500',
    SVC_COMPACTOR_LOCK_RETRY_MS: '300',
    SVC_INTERNAL_TOKEN: CLUSTER_INTERNAL_TOKEN,
  };
}
