import { Gauge, type Registry } from 'prom-client';

/** ClusterMetrics are the gauges of a process's part in a scaled-out cluster. */
export class ClusterMetrics {
  readonly compactorLeader: Gauge;
  readonly ownedPartitions: Gauge;
  readonly ingestProcesses: Gauge;

  constructor(registry: Registry) {
    this.compactorLeader = new Gauge({
      name: 'sluice_compactor_leader',
      help: '1 while this compactor holds the leader lock (PostgreSQL advisory lock) and runs compaction and retention, else 0.',
      registers: [registry],
    });
    this.ownedPartitions = new Gauge({
      name: 'sluice_ingester_partitions',
      help: 'Write log partitions this ingester holds leases on and reads into its heads.',
      registers: [registry],
    });
    this.ingestProcesses = new Gauge({
      name: 'sluice_ingest_processes',
      help: 'Live ingest processes this ingest process counted at its last heartbeat; each admits an org\'s ingestion rate divided by it (SVC_INGEST_RATE_STRATEGY=global).',
      registers: [registry],
    });
  }
}
