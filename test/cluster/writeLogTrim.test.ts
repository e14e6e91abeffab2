import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChildServer } from '../support/child.js';
import { clusterBackendsAvailable, createCluster, ProcessGroup, startClusterBackends, stopProcess, type ClusterBackends, type SluiceCluster } from '../support/cluster.js';
import { ClusterRecords } from '../support/clusterRecords.js';
import { waitFor } from '../support/server.js';

const KEY = 'slk_trim_test_0a1b2c3d4e5f60718293a4b5c6d7e8f9';
const PARTITIONS = 4;

/**
 * The write log once ingesters consumed it, on a real PostgreSQL, 3-node NATS JetStream
 * cluster and s3rver: an ingester's cut purges the records the catalog's segments now hold, so
 * the stream empties as data is cut, and an ingester SIGKILLed after trimming and started again
 * still answers every acknowledged sample and line exactly once (segments for what was trimmed,
 * the log for the rest). While no ingester runs, the query process's listings say they are
 * partial instead of silently leaving out what only the log holds.
 */
describe.runIf(clusterBackendsAvailable('the write log trimming test'))('scaled out: trimming the write log, listings without an ingester', () => {
  let backends: ClusterBackends;
  const processes = new ProcessGroup('trim');
  let cluster: SluiceCluster;
  let ingest: ChildServer;
  let reader: ChildServer;
  const records = new ClusterRecords(KEY);
  const written: string[] = [];

  beforeAll(async () => {
    backends = await startClusterBackends();
    // Heads cut by age every few seconds, not by size: the test decides when data is only in the log.
    cluster = await createCluster(backends, processes, { name: 'trim', apiKey: KEY, partitions: PARTITIONS, env: { SVC_HEAD_MAX_BYTES: '64MiB', SVC_HEAD_MAX_AGE_MS: '10000' } });
    [ingest, reader] = await Promise.all([cluster.startRole('ingest'), cluster.startRole('query')]);
  }, 120_000);

  afterAll(async () => {
    await processes.killAll();
    await backends?.close();
  });

  /** streamMessages is how many records the write log stream holds now, as `nats stream info` shows. */
  async function streamMessages(): Promise<number> {
    const nc = await connect({ servers: backends.nats.urls });
    try {
      const jsm = await jetstreamManager(nc);
      return (await jsm.streams.info(cluster.env.SVC_NATS_STREAM)).state.messages;
    } finally {
      await nc.close();
    }
  }

  async function writeRecords(prefix: string, count: number): Promise<void> {
    for (let i = 0; i < count; i++) {
      const id = `${prefix}${i}`;
      expect(await records.write(ingest, id, written.length)).toBe(true);
      written.push(id);
    }
  }

  const api = (path: string, init: RequestInit = {}): Promise<Response> =>
    fetch(`${reader.url}${path}`, { ...init, headers: { 'x-svc-api-key': KEY, 'content-type': 'application/json', ...init.headers } });

  /** reqValues lists the `req` label's values through the native helper endpoint. */
  async function reqValues(): Promise<{ data: string[]; partial?: boolean; warnings?: string[] }> {
    const res = await api('/api/v1/metrics/tagvalues', { method: 'POST', body: JSON.stringify({ key: 'req', s: String(records.base - 1000), e: String(records.base + 3_600_000), limit: 10_000 }) });
    expect(res.status).toBe(200);
    return (await res.json()) as { data: string[]; partial?: boolean; warnings?: string[] };
  }

  let ingester: ChildServer;

  it('purges what a cut recorded in the catalog: the stream empties once the ingester cut everything', async () => {
    ingester = await cluster.startIngester();
    await waitFor(async () => (await cluster.partitionOwners()).length === PARTITIONS, 20_000);
    await writeRecords('a', 30);
    // Every record is one metrics and one logs message until a cut covers it.
    const before = await streamMessages();
    expect(before).toBeGreaterThan(0);
    expect(before).toBeLessThanOrEqual(60);
    await waitFor(async () => (await streamMessages()) === 0, 30_000);
    // Trimmed only after the catalog recorded the segments: their positions are there.
    const positions = await backends.pg.query<{ n: number }>(cluster.database, `SELECT count(*)::int AS n FROM catalog_log_positions WHERE catalog = 'default'`);
    expect(positions.rows[0].n).toBeGreaterThan(0);
    await records.expectEachOnce(reader, written, 30_000);
    // Complete listings carry no partial mark.
    const listing = await reqValues();
    expect(listing.partial).toBeUndefined();
    expect(listing.data.length).toBe(written.length);
  }, 120_000);

  it('lists as partial while no ingester can be read, in every API', async () => {
    // New records only the log holds when the ingester dies.
    await writeRecords('b', 20);
    await stopProcess(ingester, 'SIGKILL');
    expect(await streamMessages()).toBeGreaterThan(0);

    const native = await reqValues();
    expect(native.partial).toBe(true);
    expect(native.warnings?.[0]).toMatch(/holder\(s\) of recent data could not be read; the listing is partial/);
    // What it lists is what the segments hold: the first records, not the ones in the log only.
    expect(native.data.filter((v) => v.startsWith('a')).length).toBe(30);
    expect(native.data.filter((v) => v.startsWith('b')).length).toBeLessThan(20);

    const services = (await (await api('/api/v1/services')).json()) as { partial?: boolean };
    expect(services.partial).toBe(true);

    const prom = (await (await api('/prometheus/api/v1/label/req/values')).json()) as { status: string; warnings?: string[] };
    expect(prom.status).toBe('success');
    expect(prom.warnings?.some((w) => /could not be read; the listing is partial/.test(w))).toBe(true);
    const series = (await (await api(`/prometheus/api/v1/series?match[]=fc_samples`)).json()) as { warnings?: string[] };
    expect(series.warnings?.length).toBeGreaterThan(0);

    const loki = await api('/loki/api/v1/labels');
    expect(loki.status).toBe(503);
    expect(await loki.json()).toMatchObject({ status: 503, code: 'SERVICE_UNAVAILABLE', message: expect.stringMatching(/holder\(s\) of recent data could not be read/) });

    // The tool gateway's listing tools add the warning to their result.
    const { org } = (await (await api('/api/v1/ping')).json()) as { org: string };
    const call = await api(`/api/orgs/${org}/integrations/telemetry/mcp`, {
      method: 'POST',
      headers: { accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'list_labels', arguments: { signal: 'metrics', label: 'req' } } }),
    });
    expect(call.status).toBe(200);
    const text = await call.text();
    expect(text).toContain('a0');
    expect(text).toMatch(/warning: \d+ holder\(s\) of recent data could not be read; the listing is partial/);
  }, 60_000);

  it('an ingester started after trimming replays the rest: every record exactly once, and the stream empties again', async () => {
    await cluster.startIngester();
    await records.expectEachOnce(reader, written, 60_000);
    const listing = await reqValues();
    expect(listing.partial).toBeUndefined();
    expect(listing.data.length).toBe(written.length);
    await waitFor(async () => (await streamMessages()) === 0, 30_000);
    // Cut, trimmed and read from segments alone: still each record once.
    await records.expectEachOnce(reader, written, 30_000);
  }, 120_000);
});
