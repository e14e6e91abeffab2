import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeRemoteWriteBody } from '../../engine/ingest/encode/remoteWrite.js';
import type { ChildServer } from '../support/child.js';
import { clusterBackendsAvailable, createCluster, ProcessGroup, startClusterBackends, type ClusterBackends, type SluiceCluster } from '../support/cluster.js';
import { waitFor } from '../support/server.js';
import { query, readSse } from '../support/sse.js';

const KEY = 'slk_limits_test_5e4d3c2b1a09f8e7d6c5b4a392817065';
const SYSTEM_KEY = 'sys-limits-test-Qw7Rt2Yp9Zx4Lm6Nb8Vc3Kd5Hf1Gj0Ts';
const ORG = '3b9e6a52-7c41-4d8f-9a2e-5f0c1d7b8e63';
const PARTITIONS = 4;

/**
 * Per-org ingest limits when writes arrive through a process that only ingests, over a real
 * PostgreSQL, a 3-node NATS JetStream cluster and s3rver. The org's own settings, changed on a
 * query process, reach the ingest processes (per-record limits, and the ingestion rate, which
 * two ingest processes share) and the ingester (active series and streams, which only the
 * holder of the heads can count: the ingest process acknowledged those writes and the ingester
 * refuses them as it reads the log).
 */
describe.runIf(clusterBackendsAvailable('the ingest-only limits test'))('scaled out: per-org limits on ingest-only processes', () => {
  let backends: ClusterBackends;
  const processes = new ProcessGroup('limits');
  let cluster: SluiceCluster;
  let ingest: ChildServer;
  let ingest2: ChildServer;
  let ingester: ChildServer;
  let reader: ChildServer;

  beforeAll(async () => {
    backends = await startClusterBackends();
    // Heads are not cut during the test, so the active series and streams are those written here.
    cluster = await createCluster(backends, processes, {
      name: 'limits',
      apiKey: KEY,
      partitions: PARTITIONS,
      env: { SVC_BOOTSTRAP_ORG: ORG, SVC_MCP_API_KEY: SYSTEM_KEY, SVC_HEAD_MAX_BYTES: '64MiB' },
    });
    ingester = await cluster.startIngester();
    [ingest, ingest2, reader] = await Promise.all([cluster.startRole('ingest'), cluster.startRole('ingest'), cluster.startRole('query')]);
    await waitFor(async () => (await cluster.partitionOwners()).length === PARTITIONS, 20_000);
  }, 120_000);

  afterAll(async () => {
    await processes.killAll();
    await backends?.close();
  });

  /** setOrg changes the org's own settings through the admin API of the query process. */
  async function setOrg(settings: Record<string, number | null>): Promise<void> {
    const res = await fetch(`${reader.url}/api/admin/orgs/${ORG}/settings`, {
      method: 'PATCH',
      body: JSON.stringify(settings),
      headers: { 'x-svc-api-key': SYSTEM_KEY, 'content-type': 'application/json' },
    });
    expect(res.status, await res.clone().text()).toBe(200);
    await res.arrayBuffer();
  }

  function remoteWrite(labels: Record<string, string>, samples: number): Promise<Response> {
    const now = Date.now();
    const body = encodeRemoteWriteBody({
      timeseries: [{ labels: Object.entries(labels).map(([name, value]) => ({ name, value })), samples: Array.from({ length: samples }, (_, i) => ({ value: i, timestamp: now - 60_000 + i * 10 })) }],
    });
    return fetch(`${ingest.url}/api/v1/write`, { method: 'POST', body, headers: { 'x-svc-api-key': KEY, 'content-type': 'application/x-protobuf' } });
  }

  function lokiPush(service: string): Promise<Response> {
    const ns = BigInt(Date.now() - 60_000) * 1_000_000n;
    const body = JSON.stringify({ streams: [{ stream: { service_name: service }, values: [[String(ns), `line of ${service}`]] }] });
    return fetch(`${ingest.url}/loki/api/v1/push`, { method: 'POST', body, headers: { 'x-svc-api-key': KEY, 'content-type': 'application/json' } });
  }

  /** instant runs an instant metrics query on the query process and answers each result's value. */
  async function instant(q: string): Promise<number[]> {
    const at = String(Date.now());
    const res = await readSse(await query(reader.url, '/api/v1/metrics/query', KEY, { q, s: at, e: at }));
    return res.events.filter((e) => e.type === 'result').map((e) => e.data.value as number);
  }

  async function gauge(server: ChildServer, name: string): Promise<number> {
    const text = await fetch(`${server.url}/metrics`, { headers: { 'x-svc-api-key': KEY } }).then((r) => r.text());
    const line = text.split('\n').find((l) => l.startsWith(`${name} `));
    return line === undefined ? -1 : Number(line.split(' ').pop());
  }

  async function rejected(server: ChildServer, signal: string, reason: string): Promise<number> {
    const text = await fetch(`${server.url}/metrics`, { headers: { 'x-svc-api-key': KEY } }).then((r) => r.text());
    const line = text.split('\n').find((l) => l.startsWith('sluice_ingest_rejected_records_total{') && l.includes(`signal="${signal}"`) && l.includes(`reason="${reason}"`) && l.includes(`org="${ORG}"`));
    return line === undefined ? 0 : Number(line.split(' ').pop());
  }

  it('applies the org\'s per-record limits and ingestion rate on the ingest process', async () => {
    await setOrg({ maxLabelsPerSeries: 4, ingestSamplesPerSecond: 1, ingestSamplesBurst: 20 });
    // The change reaches the ingest process through PostgreSQL's notifications.
    let refused: Response | undefined;
    await waitFor(async () => {
      const res = await remoteWrite({ __name__: 'lim_labels', a: '1', b: '2', c: '3', d: '4' }, 1);
      if (res.status === 400) refused = res;
      else await res.arrayBuffer();
      return refused !== undefined;
    }, 10_000);
    expect(await refused!.text()).toMatch(/max_label_names_per_series.*maxLabelsPerSeries=4/);

    // The two ingest processes count each other in PostgreSQL and share the org's rate.
    await waitFor(async () => (await gauge(ingest, 'sluice_ingest_processes')) === 2 && (await gauge(ingest2, 'sluice_ingest_processes')) === 2, 10_000);
    // 20 samples of burst, one more a second shared by two: 15 pass, the next 15 are refused
    // whole, and the 10 missing samples take 20 s at half a sample a second (10 s were the
    // rate not shared).
    expect((await remoteWrite({ __name__: 'lim_rate' }, 15)).status).toBe(204);
    const limited = await remoteWrite({ __name__: 'lim_rate' }, 15);
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(15);
    expect(await limited.json()).toMatchObject({ status: 429, code: 'RATE_LIMITED', message: expect.stringMatching(/shared by 2 ingest processes \(0\.5 each\)/) });
    expect(await rejected(ingest, 'metrics', 'rate_limited')).toBe(15);
  }, 60_000);

  it('refuses series and streams past the org\'s active limits on the ingester that reads them', async () => {
    await setOrg({ ingestSamplesPerSecond: null, ingestSamplesBurst: null, maxSeries: 10, maxStreams: 2 });
    // The rate limit is gone on the ingest process once a large write passes; the ingester got the same notification.
    await waitFor(async () => (await remoteWrite({ __name__: 'lim_rate' }, 100)).status === 204, 10_000);
    await new Promise((r) => setTimeout(r, 1000));

    // One series or stream a request: the ingest process cannot tell which are new and acknowledges every one.
    for (let i = 0; i < 25; i++) expect((await remoteWrite({ __name__: 'lim_series', n: String(i) }, 1)).status).toBe(204);
    for (let i = 0; i < 5; i++) expect((await lokiPush(`lim-svc-${i}`)).status).toBe(204);

    // lim_rate (and lim_labels, if a write of it passed before the settings arrived) count
    // among the ten: the rest of the ten are lim_series, the others were refused by the ingester.
    const [others] = await instant('count(count_over_time({__name__=~"lim_.+", __name__!="lim_series"}[1h]))');
    expect([1, 2]).toContain(others);
    await waitFor(async () => (await rejected(ingester, 'metrics', 'series_limit')) === 25 - (10 - others), 15_000);
    expect(await instant('count(count_over_time({__name__=~"lim_.+"}[1h]))')).toEqual([10]);
    expect(await instant('count(count_over_time(lim_series[1h]))')).toEqual([10 - others]);
    await waitFor(async () => (await rejected(ingester, 'logs', 'stream_limit')) === 3, 15_000);
    const logs = await readSse(await query(reader.url, '/api/v1/logs/query', KEY, { q: '{service_name=~"lim-svc-.*"}', s: 'now-1h', e: 'now', limit: 100 }));
    const services = new Set(logs.events.filter((e) => e.type === 'result').map((e) => (e.data.tags as Record<string, string>).service_name));
    expect(services.size).toBe(2);
    // Log lines reach standard output in batches, within 200 ms.
    await waitFor(() => /read from the write log refused: the org is at its share of the active series limit/.test(ingester.stdout()), 2000);
    // The ingest process counted nothing of it: it could not know.
    expect(await rejected(ingest, 'metrics', 'series_limit')).toBe(0);
  }, 90_000);
});
