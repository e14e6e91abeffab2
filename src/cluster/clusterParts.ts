import { randomBytes } from 'node:crypto';
import os from 'node:os';
import type { Storage } from '../../engine/storage/storage.js';
import type { EventSink } from '../../engine/storage/storageEvent.js';
import type { Config } from '../config.js';
import type { PostgresDatabase } from '../postgres/database.js';
import { componentsOf } from '../roles/roles.js';
import type { ClusterMetrics } from './clusterMetrics.js';
import { CompactorLeader } from './compactorLeader.js';
import { IngesterLeases } from './ingesterLeases.js';
import { IngestReplicas } from './ingestReplicas.js';
import { PartitionLeases } from './partitionLeases.js';

/**
 * scaledOut tells whether this process is one of several over shared backends: a role other
 * than `all`, not forced onto the embedded backends (the start-up check has already made sure
 * the role's shared backends are configured).
 */
export function scaledOut(config: Config): boolean {
  return config.role !== 'all' && !config.roleEmbedded;
}

/** newOwnerId names this process in the lease table: the host name plus a random part, so a restarted process never mistakes its predecessor's leases for its own. */
export function newOwnerId(): string {
  return `${os.hostname()}-${randomBytes(4).toString('hex')}`;
}

/** advertiseUrl is where other processes reach this one: SVC_ADVERTISE_URL, else http://<hostname>:<port>. */
export function advertiseUrl(config: Config, port: number): string {
  return config.advertiseUrl ?? `http://${os.hostname()}:${port}`;
}

/** logPartitionsOf is which write log partitions a scaled-out role reads into heads. */
export function logPartitionsOf(config: Config): 'none' | 'assigned' | undefined {
  if (!scaledOut(config)) return undefined;
  const components = componentsOf(config.role);
  if (components.has('heads')) return 'assigned';
  return components.has('ingestApi') ? 'none' : undefined;
}

/** needsWriteLog tells whether this process opens the write log: scaled out, only roles that publish or read it do. */
export function needsWriteLog(config: Config): boolean {
  if (!scaledOut(config)) return true;
  const components = componentsOf(config.role);
  return components.has('heads') || components.has('ingestApi');
}

export interface ClusterPartsDeps {
  config: Config;
  storage: Storage;
  database: PostgresDatabase;
  ownerId: string;
  port: number;
  metrics: ClusterMetrics;
  onEvent: EventSink;
}

/** ClusterParts are the running parts: how to stop them, and an ingest process's share of the org rates. */
export interface ClusterParts {
  stop(): Promise<void>;
  /** ingestRateShare divides an org's ingestion rate among the live ingest processes (global strategy); absent: the whole rate. */
  ingestRateShare?: () => number;
}

/**
 * startClusterParts starts what a scaled-out role runs beside its routes: an ingester's
 * partition leases (which drive the storage's partition readers), a compactor's leader
 * election (which gates compaction and retention) and an ingest process's count of the live
 * ingest processes (which share the org rates). Its `stop` stops them, handing partitions over
 * and releasing the lock.
 */
export async function startClusterParts(deps: ClusterPartsDeps): Promise<ClusterParts> {
  const { config, storage, database, metrics, onEvent } = deps;
  const components = componentsOf(config.role);
  const stops: Array<() => Promise<void>> = [];
  let ingestRateShare: (() => number) | undefined;
  if (components.has('ingestApi') && config.ingestRateStrategy === 'global') {
    const replicas = new IngestReplicas(database, { catalog: config.catalogName, ownerId: deps.ownerId, leaseMs: config.partitionLeaseMs }, onEvent, (n) => metrics.ingestProcesses.set(n));
    await replicas.start();
    stops.push(() => replicas.stop());
    ingestRateShare = () => replicas.count();
  }
  if (components.has('heads')) {
    const leases = new PartitionLeases(database, {
      catalog: config.catalogName,
      ownerId: deps.ownerId,
      baseUrl: advertiseUrl(config, deps.port),
      leaseMs: config.partitionLeaseMs,
      partitions: config.writeLogPartitions,
    });
    const ingester = new IngesterLeases(leases, storage, onEvent, (n) => metrics.ownedPartitions.set(n));
    await ingester.start();
    stops.push(() => ingester.stop());
  }
  if (components.has('compaction')) {
    metrics.compactorLeader.set(0);
    const leader = new CompactorLeader(database, {
      catalog: config.catalogName,
      retryMs: config.compactorLockRetryMs,
      intervalMs: config.compactionIntervalMs,
      onEvent,
      onLeader: (on) => metrics.compactorLeader.set(on ? 1 : 0),
      work: async () => {
        await storage.refreshCatalog();
        await storage.compact();
        await storage.applyRetention();
        await storage.sweepOrphanSegments(config.orphanSegmentGraceMs);
      },
    });
    leader.start();
    stops.push(() => leader.stop());
  }
  return {
    stop: async () => {
      for (const stop of stops) await stop();
    },
    ingestRateShare,
  };
}
