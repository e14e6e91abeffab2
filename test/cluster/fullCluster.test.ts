import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeRemoteWriteBody } from '../../engine/ingest/encode/remoteWrite.js';
import { PostgresPartitionOwners } from '../../src/cluster/postgresPartitionOwners.js';
import { PostgresDatabase } from '../../src/postgres/database.js';
import { startChildServer, type ChildServer } from '../support/child.js';
import { natsAvailable, startNatsCluster, type NatsCluster } from '../support/natsCluster.js';
import { postgresAvailable, startTestPostgres, type TestPostgres } from '../support/postgres.js';
import { startTestS3, type TestS3 } from '../support/s3Server.js';
import { waitFor } from '../support/server.js';
import { query, readSse, type SseEventParsed } from '../support/sse.js';

const KEY = 'slk_full_cluster_test_9a8b7c6d5e4f30211a2b3c4d5e6f7a8b';
const TOKEN = 'full-cluster-internal-token-0123456789abcdef';
const PARTITIONS = 4;

/**
 * The whole scaled-out layout on loopback: two ingest processes, two ingesters and two query
 * processes (and a compactor) over PostgreSQL, a 3-node NATS JetStream cluster and s3rver, with no
 * SVC_INGESTER_URLS: the query processes find the ingesters through the partition leases. A
 * single-node Sluice (role all, embedded) fed the same data gives the reference answers.
 */
describe.runIf(postgresAvailable('the full cluster test') && natsAvailable('the full cluster test'))('scaled out: ingest, ingesters and query processes together', () => {
  let pg: TestPostgres;
  let nats: NatsCluster;
  let s3: TestS3;
  let env: Record<string, string>;
  let database: string;
  const dirs: string[] = [];
  const children: ChildServer[] = [];
  let ingesters: ChildServer[] = [];
  let ingest: ChildServer[] = [];
  let queries: ChildServer[] = [];
  let single: ChildServer;
  /** base is the first sample's time: every write is placed from it, identically in both installations. */
  const base = Math.floor(Date.now() / 1000) * 1000 - 1_200_000;

  async function dataDir(role: string): Promise<string> {
    const dir = await mkdtemp(path.join(tmpdir(), `sluice-full-${role}-`));
    dirs.push(dir);
    return dir;
  }

  async function start(role: string, extra: Record<string, string> = {}): Promise<ChildServer> {
    const server = await startChildServer({ ...env, SVC_ROLE: role, SVC_DATA_DIR: await dataDir(role), ...extra });
    children.push(server);
    return server;
  }

  /** startIngester gives an ingester a port chosen beforehand, so its leases advertise where it listens. */
  async function startIngester(): Promise<ChildServer> {
    const port = await freePort();
    return start('ingester', { SVC_PORT: String(port), SVC_ADVERTISE_URL: `http://127.0.0.1:${port}` });
  }

  async function owners(): Promise<Array<{ partition: number; ownerId: string; baseUrl: string }>> {
    const db = await PostgresDatabase.open({ url: pg.url(database), poolSize: 1, statementTimeoutMs: 5000 });
    const reader = new PostgresPartitionOwners(db, 'default', true);
    try {
      return await reader.owners();
    } finally {
      await reader.close();
    }
  }

  beforeAll(async () => {
    [pg, nats, s3] = await Promise.all([startTestPostgres(), startNatsCluster(), startTestS3()]);
    database = await pg.createDatabase('full');
    env = {
      SVC_BOOTSTRAP_ORG: 'cluster',
      SVC_BOOTSTRAP_API_KEY: KEY,
      ...pg.env(database, { catalog: true }),
      SVC_WRITE_LOG: 'jetstream',
      SVC_NATS_URLS: nats.urls.join(','),
      SVC_NATS_STREAM: `SLUICE_FULL_${process.pid}`,
      SVC_NATS_REPLICAS: '3',
      SVC_WRITE_LOG_PARTITIONS: String(PARTITIONS),
      ...s3.env(`full-${process.pid}`),
      SVC_QUERY_WORKERS: '1',
      SVC_INTERNAL_TOKEN: TOKEN,
      SVC_PARTITION_LEASE_MS: '1500',
      // Small heads: ingesters cut while data arrives, so queries read segments and heads together.
      SVC_HEAD_MAX_BYTES: '16KiB',
    };
    ingesters = [await startIngester(), await startIngester()];
    [ingest, queries] = [[await start('ingest'), await start('ingest')], [await start('query'), await start('query')]];
    // A compactor merges the ingesters' segments while the queries run: merged segments name it as writer.
    await start('compactor', { SVC_COMPACTION_INTERVAL_MS: '1000', SVC_COMPACTOR_LOCK_RETRY_MS: '300' });
    single = await startChildServer({ SVC_BOOTSTRAP_ORG: 'cluster', SVC_BOOTSTRAP_API_KEY: KEY, SVC_QUERY_WORKERS: '1', SVC_DATA_DIR: await dataDir('single') });
    children.push(single);
    // Both ingesters hold half of the partitions.
    await waitFor(async () => {
      const held = await owners();
      return held.length === PARTITIONS && new Set(held.map((o) => o.ownerId)).size === 2;
    }, 20_000);
  }, 180_000);

  afterAll(async () => {
    for (const c of children) {
      if (c.proc.exitCode === null && c.proc.signalCode === null) c.proc.kill('SIGKILL');
      await c.exit;
    }
    await Promise.all([pg?.close(), nats?.close(), s3?.close()]);
    for (const d of dirs) await rm(d, { recursive: true, force: true });
  });

  /** write sends one series of 5 samples and two log lines for `id` to `server`, all at times derived from `i`. */
  async function write(server: ChildServer, id: string, i: number): Promise<boolean> {
    // Series differ by id, so times may repeat: they stay in the past however long the writes go on.
    const t = base + (i % 1000) * 1000;
    const samples = Array.from({ length: 5 }, (_, k) => ({ value: i + k, timestamp: t + k * 100 }));
    const rw = await fetch(`${server.url}/api/v1/write`, {
      method: 'POST',
      body: encodeRemoteWriteBody({ timeseries: [{ labels: [{ name: '__name__', value: 'fc_samples' }, { name: 'req', value: id }, { name: 'shard', value: String(i % 3) }], samples }] }),
      headers: { 'x-svc-api-key': KEY, 'content-type': 'application/x-protobuf' },
    });
    const ns = BigInt(t) * 1_000_000n;
    const lp = await fetch(`${server.url}/loki/api/v1/push`, {
      method: 'POST',
      body: JSON.stringify({ streams: [{ stream: { service_name: `fc${i % 3}` }, values: [[String(ns), `id=${id}-a level=info`], [String(ns + 1n), `id=${id}-b level=warn`]] }] }),
      headers: { 'x-svc-api-key': KEY, 'content-type': 'application/json' },
    });
    return rw.status === 204 && lp.status === 204;
  }

  async function results(server: ChildServer, route: string, body: unknown): Promise<string[]> {
    const res = await readSse(await query(server.url, route, KEY, body));
    expect(res.status).toBe(200);
    const done = res.events.find((e) => e.type === 'done');
    expect(done?.data.status, JSON.stringify(done?.data)).toBe('ok');
    return res.events.filter((e) => e.type === 'result').map((e) => JSON.stringify(e.data)).sort();
  }

  async function sampleCounts(server: ChildServer): Promise<Map<string, number>> {
    const at = String(base + 3_600_000);
    const res = await readSse(await query(server.url, '/api/v1/metrics/query', KEY, { q: 'count_over_time(fc_samples[2h])', s: at, e: at }));
    const counts = new Map<string, number>();
    for (const e of res.events.filter((ev) => ev.type === 'result')) counts.set((e.data.tags as Record<string, string>).req, e.data.value as number);
    return counts;
  }

  async function lineCounts(server: ChildServer): Promise<Map<string, number>> {
    const res = await readSse(await query(server.url, '/api/v1/logs/query', KEY, { q: '{service_name=~"fc.*"}', s: String(base - 1000), e: String(base + 3_600_000), limit: 100_000 }));
    const counts = new Map<string, number>();
    for (const e of res.events.filter((ev) => ev.type === 'result')) {
      const id = /id=(\S+)/.exec(String((e.data.tags as Record<string, string>).message))?.[1] ?? '?';
      counts.set(id, (counts.get(id) ?? 0) + 1);
    }
    return counts;
  }

  it('shows a write on every query process within a second and answers as a single node fed the same data', async () => {
    for (let i = 0; i < 30; i++) {
      const id = `e${i}`;
      expect(await write(ingest[i % 2], id, i)).toBe(true);
      expect(await write(single, id, i)).toBe(true);
    }
    // Visibility: each query process counts an acknowledged write within a second.
    for (let i = 30; i < 33; i++) {
      const id = `e${i}`;
      expect(await write(ingest[i % 2], id, i)).toBe(true);
      const acked = Date.now();
      expect(await write(single, id, i)).toBe(true);
      for (const q of queries) {
        let seen = false;
        while (!seen && Date.now() - acked < 1000) seen = (await sampleCounts(q)).get(id) === 5;
        expect(seen, `write ${id} seen on ${q.url} within a second`).toBe(true);
      }
    }
    const at = String(base + 60_000);
    const cases: Array<[string, unknown]> = [
      ['/api/v1/metrics/query', { q: 'sum by (shard) (count_over_time(fc_samples[2h]))', s: String(base + 3_600_000), e: String(base + 3_600_000) }],
      ['/api/v1/metrics/query', { q: 'sum by (shard) (max_over_time(fc_samples[30s]))', s: String(base), e: at, step: 5 }],
      ['/api/v1/metrics/query', { q: 'fc_samples{shard="1"}', s: String(base), e: at, step: 10 }],
      ['/api/v1/logs/query', { q: 'sum by (service_name) (count_over_time({service_name=~"fc.*"} |= "warn" [1m]))', s: String(base), e: at, step: 10 }],
      ['/api/v1/logs/query', { q: '{service_name="fc2"} | logfmt | level="info"', s: String(base - 1000), e: at, limit: 1000 }],
    ];
    for (const [route, body] of cases) {
      const want = await results(single, route, body);
      expect(want.length, JSON.stringify(body)).toBeGreaterThan(0);
      for (const q of queries) expect(await results(q, route, body), `${JSON.stringify(body)} on ${q.url}`).toEqual(want);
    }
  }, 120_000);

  it('counts every acknowledged record exactly once after an ingester is SIGKILLed mid-stream', async () => {
    const acked: string[] = [];
    let writing = true;
    let n = 100;
    const writer = async (w: number): Promise<void> => {
      while (writing) {
        const i = n++;
        if (await write(ingest[w], `k${i}`, i)) acked.push(`k${i}`);
      }
    };
    const writers = Promise.all([0, 1].map(writer));
    await new Promise((r) => setTimeout(r, 1500));
    const victim = ingesters[0];
    const victimId = (await owners()).find((o) => o.baseUrl.endsWith(`:${new URL(victim.url).port}`))?.ownerId;
    expect(victimId).toBeDefined();
    victim.proc.kill('SIGKILL');
    await victim.exit;
    // After the lease period the survivor holds every partition; the writes go on meanwhile.
    await waitFor(async () => {
      const held = await owners();
      return held.length === PARTITIONS && held.every((o) => o.ownerId !== victimId);
    }, 20_000);
    await new Promise((r) => setTimeout(r, 1000));
    writing = false;
    await writers;
    expect(acked.length).toBeGreaterThan(10);
    // Merges ran under the queries: the catalog holds segments written by the compactor, with their inputs' writers.
    const merged = await pg.query<{ n: number }>(database, `SELECT count(*)::int AS n FROM catalog_segments WHERE catalog = 'default' AND meta->'writers' IS NOT NULL`);
    expect(merged.rows[0].n).toBeGreaterThan(0);
    const all = [...Array.from({ length: 33 }, (_, i) => `e${i}`), ...acked];
    for (const q of queries) {
      // The survivor replays the taken partitions from their recorded positions; then every record is there once.
      let counts = new Map<string, number>();
      await waitFor(async () => {
        counts = await sampleCounts(q);
        return all.every((id) => counts.get(id) === 5);
      }, 15_000).catch(() => undefined); // the assertions below name what is missing
      expect(all.filter((id) => counts.get(id) !== 5)).toEqual([]);
      expect([...counts].filter(([, c]) => c !== 5)).toEqual([]);
      const lines = await lineCounts(q);
      const wantLines = all.flatMap((id) => [`${id}-a`, `${id}-b`]);
      expect(wantLines.filter((id) => lines.get(id) !== 1)).toEqual([]);
      expect([...lines].filter(([, c]) => c !== 1)).toEqual([]);
    }
  }, 120_000);

  it('drops a stream whose query process is SIGKILLed; the next query on the other one works', async () => {
    const [doomed, other] = queries;
    // A long range at a 1 s step gives an answer far larger than the socket buffers, so it is still streaming when read slowly.
    const res = await query(doomed.url, '/api/v1/metrics/query', KEY, { q: 'fc_samples', s: String(base), e: String(base + 3_000_000), step: 1 });
    expect(res.status).toBe(200);
    const events: SseEventParsed[] = [];
    let killed = false;
    let failure: unknown;
    try {
      await readSse(res, (e) => {
        events.push(e);
        if (!killed) {
          killed = true;
          doomed.proc.kill('SIGKILL');
        }
      });
    } catch (err) {
      failure = err;
    }
    await doomed.exit;
    expect(events.length).toBeGreaterThan(0);
    // The client sees the drop: the stream breaks or ends without its terminal event.
    expect(failure !== undefined || !events.some((e) => e.type === 'done')).toBe(true);
    expect(events.some((e) => e.type === 'done')).toBe(false);
    const counts = await sampleCounts(other);
    expect(counts.get('e0')).toBe(5);
  }, 60_000);
});

/** freePort asks the system for a port nobody listens on now. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address !== null ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}
