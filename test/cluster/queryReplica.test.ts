import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeRemoteWriteBody } from '../../engine/ingest/encode/remoteWrite.js';
import { decodeHeadExport } from '../../engine/storage/headWire.js';
import type { ChildServer } from '../support/child.js';
import { clusterBackendsAvailable, ProcessGroup, startClusterBackends, type ClusterBackends } from '../support/cluster.js';
import type { TestPostgres } from '../support/postgres.js';
import { waitFor } from '../support/server.js';
import { query, readSse, type SseResponse } from '../support/sse.js';

const KEY = 'query-replica-test-key-0123456789abcdef012345';
const TOKEN = 'internal-token-for-the-replica-test-9f8e7d6c5b4a';

/**
 * A query process (role query) beside a process that holds the heads (role all, writes through
 * a JetStream log of 4 partitions), over one PostgreSQL catalog and one S3 bucket, as a
 * scaled-out installation runs them: the query
 * process reads the segments from the catalog and object storage and the un-cut data from
 * the holder's internal head endpoint (SVC_INGESTER_URLS). Writes are seen there as soon as
 * they are acknowledged, its answers equal the holder's (no sample or line counted twice
 * while heads are cut into segments under it), and with the holder killed it answers from
 * the segments and says the answer is partial.
 */
describe.runIf(clusterBackendsAvailable('the query replica test'))('query process reading heads from their holder', () => {
  let backends: ClusterBackends;
  let pg: TestPostgres;
  const processes = new ProcessGroup('replica');
  let holder: ChildServer;
  let replica: ChildServer;
  let database: string;
  const T0 = Math.floor((Date.now() - 20 * 60_000) / 1000) * 1000;
  let linesPushed = 0;

  beforeAll(async () => {
    backends = await startClusterBackends();
    const { s3, nats } = backends;
    pg = backends.pg;
    database = await pg.createDatabase('replica');
    const shared = {
      ...pg.env(database, { catalog: true }),
      ...s3.env('replica/'),
      SVC_BOOTSTRAP_ORG: 'replica-test',
      SVC_BOOTSTRAP_API_KEY: KEY,
      SVC_INTERNAL_TOKEN: TOKEN,
      SVC_QUERY_WORKERS: '1',
      SVC_WRITE_LOG_PARTITIONS: '4',
    };
    // Small heads: a few writes fill one, so cuts keep happening while the test writes and reads.
    holder = await processes.start('holder', {
      ...shared,
      SVC_HEAD_MAX_BYTES: '4KiB',
      SVC_WRITE_LOG: 'jetstream',
      SVC_NATS_URLS: nats.urls.join(','),
      SVC_NATS_REPLICAS: '1',
    });
    replica = await processes.start('query', { ...shared, SVC_ROLE: 'query', SVC_INGESTER_URLS: holder.url });
  }, 120_000);

  afterAll(async () => {
    await processes.killAll();
    await backends?.close();
  });

  async function pushLines(batch: number, lines: number, marker = 'line', app = batch % 2 === 0 ? 'even' : 'odd'): Promise<number> {
    const values = Array.from({ length: lines }, (_, i) => [String((BigInt(T0 + batch * 10_000 + i * 100) * 1_000_000n).toString()), `${marker} batch=${batch} i=${i} ${'x'.repeat(80)}`]);
    const body = JSON.stringify({ streams: [{ stream: { job: 'replica', app }, values }] });
    const res = await fetch(`${holder.url}/loki/api/v1/push`, { method: 'POST', body, headers: { 'x-svc-api-key': KEY, 'content-type': 'application/json' } });
    expect(res.status).toBe(204);
    linesPushed += lines;
    return Date.now();
  }

  async function pushSamples(batch: number): Promise<void> {
    const timeseries = Array.from({ length: 4 }, (_, s) => ({
      labels: [{ name: '__name__', value: 'replica_gauge' }, { name: 'host', value: `h${s}` }],
      samples: Array.from({ length: 10 }, (_, i) => ({ value: batch * 100 + s * 10 + i, timestamp: T0 + batch * 10_000 + i * 1000 })),
    }));
    const res = await fetch(`${holder.url}/api/v1/write`, { method: 'POST', body: encodeRemoteWriteBody({ timeseries }), headers: { 'x-svc-api-key': KEY, 'content-type': 'application/x-protobuf' } });
    expect(res.status).toBe(204);
  }

  function ask(server: ChildServer, signal: 'logs' | 'metrics', body: Record<string, unknown>): Promise<SseResponse> {
    return query(server.url, `/api/v1/${signal}/query`, KEY, body).then((res) => readSse(res));
  }

  const results = (res: SseResponse) => res.events.filter((e) => e.type === 'result').map((e) => e.data);
  const done = (res: SseResponse) => res.events.find((e) => e.type === 'done')?.data;

  async function catalogRows(signal: 'logs' | 'metrics'): Promise<number> {
    const res = await pg.query<{ rows: string | null }>(database, "SELECT sum((meta->>'rows')::bigint)::text AS rows FROM catalog_segments WHERE signal = $1", [signal]);
    return Number(res.rows[0].rows ?? 0);
  }

  it('sees an acknowledged write at once and answers as the holder does while heads are cut', async () => {
    for (let batch = 0; batch < 8; batch++) {
      await pushLines(batch, 20);
      await pushSamples(batch);
    }
    // Cuts run in the background once a head is full: some of the data goes to segments (the
    // catalog and object storage) while the rest stays in the heads.
    await waitFor(async () => (await catalogRows('logs')) > 0, 20_000);

    const ackedAt = await pushLines(8, 3, 'fresh', 'fresh');
    let seen: unknown[] = [];
    let polls = 0;
    while (Date.now() - ackedAt < 1000) {
      polls++;
      seen = results(await ask(replica, 'logs', { q: '{job="replica"} |= "fresh"', s: String(T0), e: 'now', limit: 100 }));
      if (seen.length === 3) break;
    }
    expect(seen).toHaveLength(3);
    expect(polls).toBe(1);
    // Listings see the heads too, with no query in between: the stream just written is only there.
    await pushLines(9, 1, 'listed', 'listed');
    const values = async (server: ChildServer) => ((await (await fetch(`${server.url}/loki/api/v1/label/app/values?start=${T0}000000`, { headers: { 'x-svc-api-key': KEY } })).json()) as { data: string[] }).data;
    expect(await values(replica)).toEqual(['even', 'fresh', 'listed', 'odd']);
    expect(await values(holder)).toEqual(['even', 'fresh', 'listed', 'odd']);
    // So do the tool gateway's listing tools.
    await pushLines(10, 1, 'tooled', 'tooled');
    const { org } = (await (await fetch(`${replica.url}/api/v1/ping`, { headers: { 'x-svc-api-key': KEY } })).json()) as { org: string };
    const call = await fetch(`${replica.url}/api/orgs/${org}/integrations/telemetry/mcp`, {
      method: 'POST',
      headers: { 'x-svc-api-key': KEY, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'list_labels', arguments: { signal: 'logs', label: 'app' } } }),
    });
    expect(call.status).toBe(200);
    expect(await call.text()).toContain('tooled');

    const now = Date.now();
    const bodies: Array<['logs' | 'metrics', Record<string, unknown>]> = [
      ['logs', { q: 'sum(count_over_time({job="replica"}[1h]))', s: String(now), e: String(now) }],
      ['logs', { q: 'sum by (app) (count_over_time({job="replica"}[1m]))', s: String(T0), e: String(now), step: 60 }],
      ['logs', { q: '{job="replica"}', s: String(T0), e: String(now), limit: 1000 }],
      ['metrics', { q: 'sum by (host) (count_over_time(replica_gauge[1h]))', s: String(now), e: String(now) }],
      ['metrics', { q: 'max by (host) (max_over_time(replica_gauge[1m]))', s: String(T0), e: String(now), step: 60 }],
    ];
    for (const [signal, body] of bodies) {
      const [fromHolder, fromReplica] = await Promise.all([ask(holder, signal, body), ask(replica, signal, body)]);
      expect(done(fromReplica), String(body.q)).toEqual({ status: 'ok' });
      expect(results(fromReplica), String(body.q)).toEqual(results(fromHolder));
      expect(results(fromReplica).length, String(body.q)).toBeGreaterThan(0);
    }
    // The Prometheus API's instant range selector reads storage directly; it too merges the heads.
    const at = (now / 1000).toFixed(3);
    const raw = (server: ChildServer) =>
      fetch(`${server.url}/prometheus/api/v1/query?query=${encodeURIComponent('replica_gauge[1h]')}&time=${at}`, { headers: { 'x-svc-api-key': KEY } }).then((r) => r.json() as Promise<{ data: { result: Array<{ values: unknown[] }> } }>);
    const [rawHolder, rawReplica] = await Promise.all([raw(holder), raw(replica)]);
    expect(rawReplica).toEqual(rawHolder);
    expect(rawReplica.data.result.map((r) => r.values.length)).toEqual([80, 80, 80, 80]);
    const total = results(await ask(replica, 'logs', bodies[0][1]));
    expect(total[0].value).toBe(linesPushed);
    const samples = results(await ask(replica, 'metrics', bodies[3][1]));
    expect(samples.map((r) => r.value)).toEqual([80, 80, 80, 80]);
  }, 60_000);

  it('guards the internal head endpoint with the cluster token and answers bad requests with the JSON error body', async () => {
    const post = (body: string, auth?: string) =>
      fetch(`${holder.url}/internal/v1/head`, { method: 'POST', body, headers: { 'content-type': 'application/json', ...(auth ? { authorization: auth } : {}) } });
    const cases: Array<[Response, number, string]> = [
      [await post('{"org":"x"}'), 401, 'UNAUTHORIZED'],
      [await post('{"org":"x"}', `Bearer ${KEY}`), 401, 'UNAUTHORIZED'],
      [await post('{"org":', `Bearer ${TOKEN}`), 400, 'INVALID_JSON'],
      [await post('{"org":"x","partitions":[-1]}', `Bearer ${TOKEN}`), 400, 'VALIDATION_FAILED'],
      [await post(JSON.stringify({ org: 'x', selectors: [[{ name: 'a', type: '=~', value: '(' }]] }), `Bearer ${TOKEN}`), 400, 'VALIDATION_FAILED'],
      [await post(JSON.stringify({ org: 'x', selectors: [[{ name: 'a', type: '<', value: 'b' }]] }), `Bearer ${TOKEN}`), 400, 'VALIDATION_FAILED'],
      [await post(JSON.stringify({ org: 'x', selectors: [] }), `Bearer ${TOKEN}`), 400, 'VALIDATION_FAILED'],
      [await post(JSON.stringify({ org: 'x', pad: 'y'.repeat(1_100_000) }), `Bearer ${TOKEN}`), 413, 'PAYLOAD_TOO_LARGE'],
    ];
    for (const [res, status, code] of cases) {
      expect(res.status).toBe(status);
      expect(await res.json()).toMatchObject({ status, code });
    }
    // With the token, the org's heads in the wire format, and per write-log partition what the segments and the heads hold.
    const { org } = (await (await fetch(`${holder.url}/api/v1/ping`, { headers: { 'x-svc-api-key': KEY } })).json()) as { org: string };
    const ok = await post(JSON.stringify({ org, signals: ['logs'], partitions: [0, 1, 2, 3] }), `Bearer ${TOKEN}`);
    expect(ok.status).toBe(200);
    expect(ok.headers.get('content-type')).toBe('application/octet-stream');
    const heads = decodeHeadExport(new Uint8Array(await ok.arrayBuffer()));
    expect(heads.metrics).toEqual([]);
    expect(heads.segmentsBefore).toBeGreaterThan(0);
    expect(Object.keys(heads.partitions ?? {}).sort()).toEqual(['0', '1', '2', '3']);
    const positions = Object.values(heads.partitions ?? {});
    for (const p of positions) expect(p.appliedThrough).toBeGreaterThanOrEqual(p.coveredThrough);
    expect(positions.some((p) => p.coveredThrough > 0)).toBe(true);
    // The query process holds no heads: the route names the roles that serve it.
    const elsewhere = await fetch(`${replica.url}/internal/v1/head`, { method: 'POST', body: '{}', headers: { authorization: `Bearer ${TOKEN}` } });
    expect(elsewhere.status).toBe(404);
    expect(await elsewhere.json()).toMatchObject({ details: { servedBy: ['all', 'ingester'] } });
  });

  it('answers from the segments, saying the answer is partial, once the holder is gone', async () => {
    holder.proc.kill('SIGKILL');
    await holder.exit;
    // What the catalog holds now is final: the answer is exactly that, and says it is partial.
    const inSegments = await catalogRows('logs');
    expect(inSegments).toBeGreaterThan(0);
    const now = Date.now();
    const res = await ask(replica, 'logs', { q: 'sum(count_over_time({job="replica"}[1h]))', s: String(now), e: String(now) });
    expect(results(res)[0].value).toBe(inSegments);
    expect(done(res)).toMatchObject({ status: 'error', code: 'SERVICE_UNAVAILABLE' });
    expect(String(done(res)?.message)).toMatch(/holder\(s\) of recent data could not be read/);
    const metrics = await (await fetch(`${replica.url}/metrics`)).text();
    expect(Number(/sluice_head_fetches_total\{outcome="ok"\} (\d+)/.exec(metrics)?.[1])).toBeGreaterThan(5);
    expect(Number(/sluice_head_fetches_total\{outcome="failed"\} (\d+)/.exec(metrics)?.[1])).toBeGreaterThan(0);
  }, 30_000);
});
