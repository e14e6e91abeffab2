import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChildServer } from '../support/child.js';
import { clusterBackendsAvailable, createCluster, ProcessGroup, startClusterBackends, type ClusterBackends, type SluiceCluster } from '../support/cluster.js';
import { ClusterRecords } from '../support/clusterRecords.js';
import { waitFor } from '../support/server.js';
import { query, readSse } from '../support/sse.js';

const KEY = 'slk_cluster_faults_test_0f1e2d3c4b5a69788796a5b4c3d2e1f0';
const PARTITIONS = 4;
/** WRITE_TIMEOUT_MS bounds one write: a write still unanswered then counts as not acknowledged. */
const WRITE_TIMEOUT_MS = 10_000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The scaled-out layout of fullCluster.test.ts (two ingest processes, two ingesters, two query
 * processes and a compactor over PostgreSQL, a 3-node NATS JetStream cluster and s3rver), started
 * once, with each backend failing in turn while both ingest processes keep writing: one NATS
 * node down, PostgreSQL restarted, the object store gone for 10 s. No Sluice process is
 * restarted; after each fault every acknowledged record is counted exactly once on both query
 * processes.
 */
describe.runIf(clusterBackendsAvailable('the cluster fault test'))('scaled out: backends failing under a steady write load', () => {
  let backends: ClusterBackends;
  let cluster: SluiceCluster;
  const processes = new ProcessGroup('faults');
  const records = new ClusterRecords(KEY);
  let ingest: ChildServer[] = [];
  let queries: ChildServer[] = [];
  let ingesters: ChildServer[] = [];
  let ingesterIds: string[] = [];
  /** acked holds every acknowledged record with the time its acknowledgement arrived. */
  const acked: Array<{ id: string; at: number }> = [];
  let next = 0;

  beforeAll(async () => {
    backends = await startClusterBackends();
    cluster = await createCluster(backends, processes, { name: 'faults', apiKey: KEY, partitions: PARTITIONS });
    ingesters = [await cluster.startIngester(), await cluster.startIngester()];
    ingest = [await cluster.startRole('ingest'), await cluster.startRole('ingest')];
    queries = [await cluster.startRole('query'), await cluster.startRole('query')];
    await cluster.startRole('compactor', { SVC_COMPACTION_INTERVAL_MS: '1000' });
    await waitFor(async () => {
      const held = await cluster.partitionOwners();
      return held.length === PARTITIONS && new Set(held.map((o) => o.ownerId)).size === 2;
    }, 20_000);
    ingesterIds = await Promise.all(ingesters.map(async (i) => (await cluster.ownerIdOf(i)) ?? ''));
    expect(ingesterIds.every((id) => id !== '')).toBe(true);
  }, 240_000);

  afterAll(async () => {
    await processes.killAll();
    await backends?.close();
  });

  /**
   * writeThrough keeps both ingest processes writing numbered records while `fault` runs, and
   * for a moment after it, recording each acknowledged one.
   */
  async function writeThrough(fault: () => Promise<void>): Promise<void> {
    let writing = true;
    const writer = async (server: ChildServer): Promise<void> => {
      while (writing) {
        const i = next++;
        const id = `f${i}`;
        const ok = await records.write(server, id, i, AbortSignal.timeout(WRITE_TIMEOUT_MS)).catch(() => false);
        if (ok) acked.push({ id, at: Date.now() });
        else await sleep(100);
      }
    };
    const writers = Promise.all(ingest.map(writer));
    try {
      await sleep(500);
      await fault();
      await sleep(1000);
    } finally {
      writing = false;
      await writers;
    }
  }

  const ackedBetween = (from: number, to: number) => acked.filter((a) => a.at >= from && a.at <= to).length;
  const ackedIds = () => acked.map((a) => a.id);

  /** recordedPositions sums the write-log positions the catalog records: every committed cut moves it forward. */
  async function recordedPositions(): Promise<number> {
    const res = await backends.pg.query<{ n: string | null }>(cluster.database, `SELECT sum(position)::text AS n FROM catalog_log_positions WHERE catalog = 'default'`);
    return Number(res.rows[0].n ?? 0);
  }

  /** cutCommittedSince waits, while the writes go on, until an ingester commits a cut past `positions`. */
  const cutCommittedSince = (positions: number) => waitFor(async () => (await recordedPositions()) > positions, 30_000);

  /** leasesHeldByTheIngesters: every partition leased, and only to the ingesters started at first (none was restarted). */
  async function leasesHeldByTheIngesters(): Promise<boolean> {
    const held = await cluster.partitionOwners();
    return held.length === PARTITIONS && held.every((o) => ingesterIds.includes(o.ownerId));
  }

  it('acknowledges writes with one NATS node of three down and counts each once after it is back', async () => {
    let downAt = 0;
    let upAt = 0;
    await writeThrough(async () => {
      await backends.nats.stopNode(0, true);
      downAt = Date.now();
      // If the stopped node led the stream, the other two elect a leader first; on a loaded
      // machine that takes seconds, so the node stays down until writes are acknowledged again.
      await waitFor(() => ackedBetween(downAt, Date.now()) > 5, 45_000).catch(() => {});
      await sleep(2000);
      upAt = Date.now();
      await backends.nats.startNode(0);
    });
    // The stream has three replicas: two keep a quorum, so writes go on (after a leader election at most).
    expect(ackedBetween(downAt, upAt)).toBeGreaterThan(5);
    expect(ackedBetween(upAt - 2000, upAt)).toBeGreaterThan(0);
    for (const q of queries) await records.expectEachOnce(q, ackedIds(), 15_000);
  }, 120_000);

  it('recovers from a PostgreSQL restart without restarting any Sluice process; leases stay with the ingesters', async () => {
    let downAt = 0;
    let upAt = 0;
    await writeThrough(async () => {
      await backends.pg.stop('fast');
      downAt = Date.now();
      await sleep(2000);
      await backends.pg.start();
      upAt = Date.now();
      // Cuts commit to the catalog again.
      await cutCommittedSince(await recordedPositions());
    });
    // Keys are checked in memory and a write goes to JetStream alone: ingest does not need the database.
    expect(ackedBetween(downAt, upAt)).toBeGreaterThan(0);
    expect(ackedBetween(upAt, Date.now())).toBeGreaterThan(0);
    await waitFor(leasesHeldByTheIngesters, 10_000);
    for (const q of queries) await records.expectEachOnce(q, ackedIds(), 15_000);
    expect(await leasesHeldByTheIngesters()).toBe(true);
  }, 90_000);

  it('keeps acknowledging writes with the object store gone for 10 s; cuts retry, queries stay bounded', async () => {
    let downAt = 0;
    let upAt = 0;
    const outcomes: string[] = [];
    const logsBefore = ingesters.map((i) => i.stdout().length);
    await writeThrough(async () => {
      await backends.s3.stop();
      downAt = Date.now();
      // Queries meanwhile answer from the segment cache and the heads, or end with the spec's error.
      for (const q of [...queries, ...queries]) {
        const asked = Date.now();
        const at = String(records.base + 3_600_000);
        const res = await readSse(await query(q.url, '/api/v1/metrics/query', KEY, { q: 'sum(count_over_time(fc_samples[2h]))', s: at, e: at }));
        expect(Date.now() - asked).toBeLessThan(15_000);
        const done = res.events.find((e) => e.type === 'done')?.data;
        const outcome = res.status === 200 ? `${String(done?.status)}${done?.code ? ` ${String(done.code)}` : ''}` : `${res.status} ${String(res.body?.code)}`;
        outcomes.push(outcome);
      }
      await sleep(Math.max(0, downAt + 10_000 - Date.now()));
      upAt = Date.now();
      const positions = await recordedPositions();
      await backends.s3.start();
      // The next cut writes what the failed ones left in the heads, and commits.
      await cutCommittedSince(positions);
    });
    for (const o of outcomes) expect(['ok', 'error SERVICE_UNAVAILABLE', '503 SERVICE_UNAVAILABLE']).toContain(o);
    expect(ackedBetween(downAt, upAt)).toBeGreaterThan(5);
    // Cuts during the outage failed; their data stayed in the heads until one succeeded after it.
    expect(ingesters.map((i, n) => i.stdout().slice(logsBefore[n])).join('')).toContain('cutting heads into segments failed');
    for (const q of queries) await records.expectEachOnce(q, ackedIds(), 20_000);
    expect(await leasesHeldByTheIngesters()).toBe(true);
  }, 120_000);
});
