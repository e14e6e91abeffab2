import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalBlobStore } from '../../engine/storage/blobStore.js';
import { PartitionsLostError } from '../../engine/storage/catalogStore.js';
import { partitionOf, streamKeyOf } from '../../engine/storage/logPartitions.js';
import { JetStreamWriteLog } from '../../engine/storage/nats/jetStreamWriteLog.js';
import { Storage } from '../../engine/storage/storage.js';
import { PartitionLeases } from '../../src/cluster/partitionLeases.js';
import { PostgresCatalogStore } from '../../src/postgres/catalogStore.js';
import { PostgresDatabase } from '../../src/postgres/database.js';
import { natsAvailable, startNatsCluster, type NatsCluster } from '../support/natsCluster.js';
import { postgresAvailable, startTestPostgres, type TestPostgres } from '../support/postgres.js';
import { waitFor } from '../support/server.js';

const PARTITIONS = 4;
const TAGS = ['service_name'];

/**
 * An ingester's storage over the shared catalog, in one process against real PostgreSQL and
 * NATS: it reads only the partitions it is given, after the positions the catalog records; a
 * cut after its lease on a partition was taken over is refused, its heads are dropped and the
 * partitions it still holds are read again, while the new owner starts after the recorded
 * position, so every line ends up in segments exactly once.
 */
describe.runIf(postgresAvailable('the ingester storage test') && natsAvailable('the ingester storage test'))('ingester storage on a shared catalog', () => {
  let pg: TestPostgres;
  let nats: NatsCluster;
  let db: PostgresDatabase;
  let dir: string;
  const opened: Array<{ close(): Promise<void> }> = [];

  beforeAll(async () => {
    [pg, nats] = await Promise.all([startTestPostgres(), startNatsCluster()]);
    db = await PostgresDatabase.open({ url: pg.url(await pg.createDatabase('ingester')), poolSize: 4, statementTimeoutMs: 5000 });
    dir = await mkdtemp(path.join(tmpdir(), 'sluice-ingester-storage-'));
  }, 90_000);

  afterAll(async () => {
    for (const o of opened.reverse()) await o.close().catch(() => undefined);
    await db?.close();
    await Promise.all([pg?.close(), nats?.close()]);
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  async function storage(owner: string | undefined, log: JetStreamWriteLog | undefined, mode?: 'none' | 'assigned'): Promise<Storage> {
    const s = await Storage.open({
      dir,
      indexedTags: TAGS,
      writeLog: log,
      logPartitions: mode,
      sharedCatalog: new PostgresCatalogStore(db, 'default', owner),
      blobStore: new LocalBlobStore(path.join(dir, 'segments')),
      maintenanceIntervalMs: 0,
      compactionIntervalMs: 0,
    });
    opened.push(s);
    return s;
  }

  /** lines counts each line id an org's view holds. */
  function lines(s: Storage): Map<string, number> {
    const counts = new Map<string, number>();
    for (const stream of s.logs('org').select([{ name: 'service_name', type: '=~', value: '.+' }], 0n, BigInt(Date.now() + 60_000) * 1_000_000n)) {
      for (const m of stream.messages) counts.set(m, (counts.get(m) ?? 0) + 1);
    }
    return counts;
  }

  it('reads its partitions only, and hands a lost one over without losing or doubling a line', async () => {
    const log = await JetStreamWriteLog.open({ servers: nats.urls, stream: `INGESTER_${process.pid}`, replicas: 3, partitions: PARTITIONS, ackTimeoutMs: 5000 });
    opened.push(log);
    const publisher = await storage(undefined, log, 'none');
    const services = Array.from({ length: 12 }, (_, i) => `svc${i}`);
    const partitionOfService = (service: string): number => partitionOf('org', streamKeyOf({ service_name: service }, new Set(TAGS)), PARTITIONS);
    expect(new Set(services.map(partitionOfService)).size).toBe(PARTITIONS);
    const written = new Map<string, number>();
    let seq = 0;
    const publish = async (round: string): Promise<void> => {
      for (const service of services) {
        const id = `${round}-${service}-${seq++}`;
        await publisher.appendLogs('org', [{ timestampNs: BigInt(Date.now()) * 1_000_000n + BigInt(seq), message: id, level: 'info', tags: { service_name: service } }]);
        written.set(id, partitionOfService(service));
      }
    };

    const leasesX = new PartitionLeases(db, { catalog: 'default', ownerId: 'x', baseUrl: 'http://x', leaseMs: 60_000, partitions: PARTITIONS });
    await leasesX.init();
    expect(await leasesX.take(3)).toEqual([0, 1, 2]);
    const x = await storage('x', log, 'assigned');
    await publish('one');
    await x.takePartitions([0, 1, 2]);
    expect(x.readingPartitions()).toEqual([0, 1, 2]);
    const wanted = (round: string, parts: number[]): string[] => [...written].filter(([id, p]) => id.startsWith(round) && parts.includes(p)).map(([id]) => id).sort();
    await waitFor(() => [...lines(x).keys()].sort().join() === wanted('one', [0, 1, 2]).join(), 10_000);
    // Partition 3 is nobody's yet: x never applied it.
    expect(await x.cut().then((r) => r.segments.length)).toBeGreaterThan(0);

    await publish('two');
    await waitFor(() => wanted('two', [0, 1, 2]).every((id) => lines(x).has(id)), 10_000);
    // x stalls: its lease on partition 1 lapses and y takes it over, reading after what segments hold.
    await db.pool.query(`UPDATE partition_leases SET expires_at = '-infinity' WHERE partition = 1`);
    const leasesY = new PartitionLeases(db, { catalog: 'default', ownerId: 'y', baseUrl: 'http://y', leaseMs: 60_000, partitions: PARTITIONS });
    expect(await leasesY.take(2)).toEqual([1, 3]);
    const y = await storage('y', log, 'assigned');
    await y.takePartitions([1, 3]);
    await waitFor(() => [...lines(y).keys()].sort().join() === [...wanted('one', [3]), ...wanted('two', [1, 3])].sort().join(), 10_000);

    // x's next cut would record partition 1's position too: refused, its heads dropped, 0 and 2 read again.
    await expect(x.cut()).rejects.toBeInstanceOf(PartitionsLostError);
    expect(x.readingPartitions()).toEqual([0, 2]);
    await waitFor(() => [...lines(x).keys()].sort().join() === wanted('two', [0, 2]).join(), 10_000);

    await publish('three');
    await waitFor(() => wanted('three', [0, 2]).every((id) => lines(x).has(id)) && wanted('three', [1, 3]).every((id) => lines(y).has(id)), 10_000);
    await x.cut();
    await y.cut();
    const reader = await storage(undefined, undefined);
    await reader.refreshCatalog();
    const counts = lines(reader);
    expect([...written.keys()].filter((id) => counts.get(id) !== 1)).toEqual([]);
    expect(counts.size).toBe(written.size);
  }, 90_000);
});
