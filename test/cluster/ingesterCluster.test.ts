import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeRemoteWriteBody } from '../../engine/ingest/encode/remoteWrite.js';
import type { ChildServer } from '../support/child.js';
import { clusterBackendsAvailable, createCluster, ProcessGroup, startClusterBackends, stopProcess as stop, type ClusterBackends, type PartitionOwner, type SluiceCluster } from '../support/cluster.js';
import { waitFor } from '../support/server.js';
import { query, readSse } from '../support/sse.js';

const KEY = 'slk_cluster_test_4f1c9a7e2b3d5068a1c2e3f4b5d6a7c8';
const PARTITIONS = 8;

/**
 * Sluice scaled out without SVC_ROLE_EMBEDDED: ingest, ingester, compactor (and, to read the
 * result back, query) processes over a real PostgreSQL, a 3-node NATS JetStream cluster and
 * an S3-compatible server, all on loopback. Ingesters split the write log's partitions by
 * leases, cut what an ingest process published into segments on S3 and record them in the
 * PostgreSQL catalog; a SIGKILLed ingester's partitions are taken over and every acknowledged
 * record ends up in segments exactly once; compactors elect one leader.
 */
describe.runIf(clusterBackendsAvailable('the ingester cluster test'))('scaled out: ingesters, ingest and compactors', () => {
  let backends: ClusterBackends;
  const processes = new ProcessGroup('cluster');
  let counter = 0;

  beforeAll(async () => {
    backends = await startClusterBackends();
  }, 90_000);

  afterAll(async () => {
    await processes.killAll();
    await backends?.close();
  });

  /** cluster gives a test its own database, JetStream stream and S3 prefix on the shared backends. */
  const cluster = (): Promise<SluiceCluster> => createCluster(backends, processes, { name: `c${++counter}`, apiKey: KEY, partitions: PARTITIONS });

  function remoteWrite(server: ChildServer, id: string): Promise<Response> {
    const now = Date.now();
    const samples = Array.from({ length: 5 }, (_, i) => ({ value: i, timestamp: now - 5000 + i * 1000 }));
    const body = encodeRemoteWriteBody({ timeseries: [{ labels: [{ name: '__name__', value: 'cl_samples' }, { name: 'req', value: id }], samples }] });
    return fetch(`${server.url}/api/v1/write`, { method: 'POST', body, headers: { 'x-svc-api-key': KEY, 'content-type': 'application/x-protobuf' } });
  }

  function lokiPush(server: ChildServer, service: string, ids: string[]): Promise<Response> {
    const now = BigInt(Date.now()) * 1_000_000n;
    const body = JSON.stringify({ streams: [{ stream: { service_name: service }, values: ids.map((id, i) => [String(now + BigInt(i)), `id=${id}`]) }] });
    return fetch(`${server.url}/loki/api/v1/push`, { method: 'POST', body, headers: { 'x-svc-api-key': KEY, 'content-type': 'application/json' } });
  }

  async function sampleCounts(server: ChildServer): Promise<Map<string, number>> {
    const at = Date.now() + 60_000;
    const res = await readSse(await query(server.url, '/api/v1/metrics/query', KEY, { q: 'count_over_time(cl_samples[1h])', s: String(at), e: String(at) }));
    const counts = new Map<string, number>();
    for (const e of res.events.filter((ev) => ev.type === 'result')) counts.set((e.data.tags as Record<string, string>).req, e.data.value as number);
    return counts;
  }

  async function lineCounts(server: ChildServer): Promise<Map<string, number>> {
    const now = Date.now();
    const res = await readSse(await query(server.url, '/api/v1/logs/query', KEY, { q: '{service_name=~"cl.*"}', s: String(now - 3_600_000), e: String(now + 60_000), limit: 100_000 }));
    const counts = new Map<string, number>();
    for (const e of res.events.filter((ev) => ev.type === 'result')) {
      const id = String((e.data.tags as Record<string, string>).message).replace(/^id=/, '');
      counts.set(id, (counts.get(id) ?? 0) + 1);
    }
    return counts;
  }

  async function segmentRows(c: SluiceCluster): Promise<{ segments: number; rows: number }> {
    const res = await backends.pg.query<{ segments: number; rows: number }>(
      c.database,
      `SELECT count(*)::int AS segments, coalesce(sum((meta->>'rows')::int), 0)::int AS rows FROM catalog_segments WHERE catalog = 'default'`,
    );
    return res.rows[0];
  }

  const shared: { cluster?: SluiceCluster; samples: string[]; lines: string[] } = { samples: [], lines: [] };

  it('splits the partitions between two ingesters and cuts what an ingest process published to S3 and the catalog', async () => {
    const c = await cluster();
    shared.cluster = c;
    const a = await c.startRole('ingester', { SVC_ADVERTISE_URL: 'http://ingester-a.test:8080' });
    const b = await c.startRole('ingester', { SVC_ADVERTISE_URL: 'http://ingester-b.test:8080' });
    const ingest = await c.startRole('ingest');
    // The first ingester took every partition; once it sees the second alive it releases half.
    let leased: PartitionOwner[] = [];
    await waitFor(async () => {
      leased = await c.partitionOwners();
      const per = new Map<string, number>();
      for (const o of leased) per.set(o.baseUrl, (per.get(o.baseUrl) ?? 0) + 1);
      return leased.length === PARTITIONS && per.get('http://ingester-a.test:8080') === PARTITIONS / 2 && per.get('http://ingester-b.test:8080') === PARTITIONS / 2;
    }, 20_000);
    expect(new Set(leased.map((o) => o.ownerId)).size).toBe(2);
    expect(leased.map((o) => o.partition)).toEqual([...Array(PARTITIONS).keys()]);

    for (let i = 0; i < 40; i++) {
      const id = `s${i}`;
      const [rw, lp] = await Promise.all([remoteWrite(ingest, id), lokiPush(ingest, `cl${i % 6}`, [`${id}-a`, `${id}-b`])]);
      expect(rw.status).toBe(204);
      expect(lp.status).toBe(204);
      shared.samples.push(id);
      shared.lines.push(`${id}-a`, `${id}-b`);
    }
    // An ingest process keeps no heads and writes no WAL: it published to the log only.
    expect(ingest.stdout()).not.toContain('cut heads into segments');
    expect((await fetch(`${ingest.url}/readyz`).then((r) => r.json())) as unknown).toMatchObject({ role: 'ingest', components: ['ingestApi'] });

    // A graceful stop hands the partitions over: the heads are cut and the positions recorded.
    await stop(a);
    await waitFor(async () => (await c.partitionOwners()).every((o) => o.baseUrl === 'http://ingester-b.test:8080') && (await c.partitionOwners()).length === PARTITIONS, 20_000);
    await stop(b);
    expect(a.stdout() + b.stdout()).toContain('cut heads into segments');
    const { segments, rows } = await segmentRows(c);
    expect(segments).toBeGreaterThan(0);
    expect(rows).toBe(40 * 5 + 80);
    const positions = await backends.pg.query<{ n: number }>(c.database, `SELECT count(*)::int AS n FROM catalog_log_positions WHERE catalog = 'default'`);
    expect(positions.rows[0].n).toBeGreaterThan(1);
    expect(await c.partitionOwners()).toEqual([]);

    // A query process reads the segments back from S3 through the catalog.
    const reader = await c.startRole('query');
    const counts = await sampleCounts(reader);
    expect(shared.samples.filter((id) => counts.get(id) !== 5)).toEqual([]);
    expect(counts.size).toBe(shared.samples.length);
    const lines = await lineCounts(reader);
    expect(shared.lines.filter((id) => lines.get(id) !== 1)).toEqual([]);
    expect(lines.size).toBe(shared.lines.length);
    await stop(reader);
    await stop(ingest);
  }, 120_000);

  it('takes over a SIGKILLed ingester\'s partitions; every acknowledged record is in segments exactly once', async () => {
    const c = await cluster();
    const a = await c.startRole('ingester');
    const b = await c.startRole('ingester');
    const ingest = await c.startRole('ingest');
    await waitFor(async () => new Set((await c.partitionOwners()).map((o) => o.ownerId)).size === 2, 20_000);
    const samples: string[] = [];
    const lines: string[] = [];
    let writing = true;
    let seq = 0;
    const writer = async (w: number): Promise<void> => {
      while (writing) {
        const id = `k${w}-${seq++}`;
        const [rw, lp] = await Promise.all([remoteWrite(ingest, id), lokiPush(ingest, `cl${seq % 5}`, [id])]);
        if (rw.status === 204) samples.push(id);
        if (lp.status === 204) lines.push(id);
      }
    };
    const writers = Promise.all([0, 1].map(writer));
    // Mid-stream: the ingesters have cut and recorded positions, so the takeover must start after them.
    await waitFor(async () => (await backends.pg.query<{ n: number }>(c.database, 'SELECT count(*)::int AS n FROM catalog_log_positions')).rows[0].n >= 2, 20_000);
    await new Promise((r) => setTimeout(r, 500));
    const killedId = await c.ownerIdOf(a);
    expect(killedId).toBeDefined();
    await stop(a, 'SIGKILL');
    // b takes a's partitions once their leases expire, while the writes go on.
    await waitFor(async () => {
      const now = await c.partitionOwners();
      return now.length === PARTITIONS && now.every((o) => o.ownerId !== killedId);
    }, 20_000);
    await new Promise((r) => setTimeout(r, 1000));
    writing = false;
    await writers;
    expect(samples.length).toBeGreaterThan(10);
    expect(b.stdout()).toContain('took partition leases');
    await stop(b);
    expect(await c.partitionOwners()).toEqual([]);

    const reader = await c.startRole('query');
    // Failures name each id with its count: a line missing (0) and one stored twice (2) point
    // at different causes, and samples cannot tell (a replayed sample collapses on its timestamp).
    const counts = await sampleCounts(reader);
    expect(samples.filter((id) => counts.get(id) !== 5).map((id) => [id, counts.get(id) ?? 0])).toEqual([]);
    expect([...counts].filter(([, n]) => n !== 5)).toEqual([]);
    const got = await lineCounts(reader);
    expect(lines.filter((id) => got.get(id) !== 1).map((id) => [id, got.get(id) ?? 0])).toEqual([]);
    expect([...got].filter(([, n]) => n !== 1)).toEqual([]);
    await stop(reader);
    await stop(ingest);
  }, 120_000);

  it('runs compaction on one compactor at a time; the other takes over when the leader dies', async () => {
    const c = shared.cluster;
    expect(c, 'the first test leaves segments to compact').toBeDefined();
    const before = await segmentRows(c!);
    const leaderOf = async (s: ChildServer): Promise<number> => {
      const text = await fetch(`${s.url}/metrics`, { headers: { 'x-svc-api-key': KEY } }).then((r) => r.text());
      const m = /^sluice_compactor_leader (\d+)/m.exec(text);
      return m ? Number(m[1]) : -1;
    };
    const first = await c!.startRole('compactor', { SVC_COMPACTION_INTERVAL_MS: '1000' });
    const second = await c!.startRole('compactor', { SVC_COMPACTION_INTERVAL_MS: '1000' });
    await waitFor(async () => (await leaderOf(first)) + (await leaderOf(second)) === 1, 10_000);
    // Stays so: the follower keeps trying and keeps failing.
    await new Promise((r) => setTimeout(r, 1000));
    const states = [await leaderOf(first), await leaderOf(second)];
    expect(states.sort()).toEqual([0, 1]);
    const [leader, follower] = (await leaderOf(first)) === 1 ? [first, second] : [second, first];
    // The leader merged the many small segments the cuts left; rows are all still there.
    await waitFor(async () => (await segmentRows(c!)).segments < before.segments, 20_000);
    expect((await segmentRows(c!)).rows).toBe(before.rows);

    await stop(leader, 'SIGKILL');
    await waitFor(async () => (await leaderOf(follower)) === 1, 10_000);
    // Log lines reach standard output in batches, within 200 ms.
    await waitFor(() => follower.stdout().includes('compactor leadership taken'), 2000);

    // Compacted segments still answer exactly what was written.
    const reader = await c!.startRole('query');
    const counts = await sampleCounts(reader);
    expect(shared.samples.filter((id) => counts.get(id) !== 5)).toEqual([]);
    const lines = await lineCounts(reader);
    expect(shared.lines.filter((id) => lines.get(id) !== 1)).toEqual([]);
    await stop(reader);
    await stop(follower);
  }, 90_000);
});
