import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { snappyCompress } from '../../engine/ingest/index.js';
import { encodeRemoteWriteBody } from '../../engine/ingest/encode/remoteWrite.js';
import { labelsKey, sortLabels } from '../../engine/storage/labels.js';
import { partitionOf } from '../../engine/storage/logPartitions.js';
import { pbEncode, WriteRequest } from '../engine/ingest/protoTypes.js';
import type { ChildServer } from '../support/child.js';
import { CLUSTER_INTERNAL_TOKEN, clusterBackendsAvailable, createCluster, ProcessGroup, startClusterBackends, type ClusterBackends, type SluiceCluster } from '../support/cluster.js';
import { ClusterRecords } from '../support/clusterRecords.js';
import { waitFor } from '../support/server.js';
import { query, readSse, type SseEventParsed } from '../support/sse.js';

const KEY = 'slk_full_cluster_test_9a8b7c6d5e4f30211a2b3c4d5e6f7a8b';
const PARTITIONS = 4;

/**
 * The whole scaled-out layout on loopback: two ingest processes, two ingesters and two query
 * processes (and a compactor) over PostgreSQL, a 3-node NATS JetStream cluster and s3rver, with no
 * SVC_INGESTER_URLS: the query processes find the ingesters through the partition leases. A
 * single-node Sluice (role all, embedded) fed the same data gives the reference answers.
 */
describe.runIf(clusterBackendsAvailable('the full cluster test'))('scaled out: ingest, ingesters and query processes together', () => {
  let backends: ClusterBackends;
  let cluster: SluiceCluster;
  const processes = new ProcessGroup('full');
  const records = new ClusterRecords(KEY);
  let ingesters: ChildServer[] = [];
  let ingest: ChildServer[] = [];
  let queries: ChildServer[] = [];
  let single: ChildServer;
  const write = (server: ChildServer, id: string, i: number) => records.write(server, id, i);
  const sampleCounts = (server: ChildServer) => records.sampleCounts(server);
  const base = records.base;

  beforeAll(async () => {
    backends = await startClusterBackends();
    cluster = await createCluster(backends, processes, { name: 'full', apiKey: KEY, partitions: PARTITIONS });
    ingesters = [await cluster.startIngester(), await cluster.startIngester()];
    [ingest, queries] = [[await cluster.startRole('ingest'), await cluster.startRole('ingest')], [await cluster.startRole('query'), await cluster.startRole('query')]];
    // A compactor merges the ingesters' segments while the queries run: merged segments name it as writer.
    await cluster.startRole('compactor', { SVC_COMPACTION_INTERVAL_MS: '1000' });
    single = await processes.start('single', { SVC_BOOTSTRAP_ORG: 'cluster', SVC_BOOTSTRAP_API_KEY: KEY, SVC_QUERY_WORKERS: '1' });
    // Both ingesters hold half of the partitions.
    await waitFor(async () => {
      const held = await cluster.partitionOwners();
      return held.length === PARTITIONS && new Set(held.map((o) => o.ownerId)).size === 2;
    }, 20_000);
  }, 180_000);

  afterAll(async () => {
    await processes.killAll();
    await backends?.close();
  });

  async function results(server: ChildServer, route: string, body: unknown): Promise<string[]> {
    const res = await readSse(await query(server.url, route, KEY, body));
    expect(res.status).toBe(200);
    const done = res.events.find((e) => e.type === 'done');
    expect(done?.data.status, JSON.stringify(done?.data)).toBe('ok');
    return res.events.filter((e) => e.type === 'result').map((e) => JSON.stringify(e.data)).sort();
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

  /** servedBytes sums what the ingesters sent query processes over the internal head endpoint. */
  async function servedBytes(): Promise<number> {
    let total = 0;
    for (const ingester of ingesters) {
      const text = await (await fetch(`${ingester.url}/metrics`)).text();
      total += Number(/^sluice_head_served_bytes_total (\S+)$/m.exec(text)?.[1] ?? NaN);
    }
    return total;
  }

  it('asks the ingesters only for the series a query selects: same answers, far fewer bytes for a narrow query', async () => {
    // 40 series of 10 samples each in the ingesters' heads (well under their 16 KiB cut size together with what is there).
    const timeseries = Array.from({ length: 40 }, (_, n) => ({
      labels: [{ name: '__name__', value: 'fc_wide' }, { name: 'n', value: String(n) }],
      samples: Array.from({ length: 10 }, (_, k) => ({ value: n * 100 + k, timestamp: base + k * 1000 })),
    }));
    for (const server of [ingest[0], single]) {
      const res = await fetch(`${server.url}/api/v1/write`, { method: 'POST', body: encodeRemoteWriteBody({ timeseries }), headers: { 'x-svc-api-key': KEY, 'content-type': 'application/x-protobuf' } });
      expect(res.status).toBe(204);
    }
    const window = { s: String(base), e: String(base + 60_000), step: 5 };
    const narrow = { q: 'fc_wide{n="7"}', ...window };
    const wide = { q: 'fc_wide', ...window };
    // Waiting asks with other selectors: the measured queries below must not find chunks kept from it.
    const probe = { ...wide, q: 'fc_wide{n=~".+"}' };
    const probed = JSON.stringify(await results(single, '/api/v1/metrics/query', probe));
    await waitFor(async () => JSON.stringify(await results(queries[0], '/api/v1/metrics/query', probe)) === probed, 10_000);
    const before = await servedBytes();
    const narrowAnswer = await results(queries[0], '/api/v1/metrics/query', narrow);
    const afterNarrow = await servedBytes();
    const wideAnswer = await results(queries[0], '/api/v1/metrics/query', wide);
    const afterWide = await servedBytes();
    // The answers are those of a single node fed the same data.
    // (One result event per series and step.)
    const seriesOf = (answer: string[]) => new Set(answer.map((r) => String((JSON.parse(r) as { tags: Record<string, unknown> }).tags.n)));
    expect(narrowAnswer).toEqual(await results(single, '/api/v1/metrics/query', narrow));
    expect(seriesOf(narrowAnswer)).toEqual(new Set(['7']));
    expect(wideAnswer).toEqual(await results(single, '/api/v1/metrics/query', wide));
    expect(seriesOf(wideAnswer).size).toBe(40);
    // The narrow query moved a fraction of what the wide one did (one series of forty, plus the answers' headers).
    const narrowBytes = afterNarrow - before;
    const wideBytes = afterWide - afterNarrow;
    expect(narrowBytes).toBeGreaterThan(0);
    // The wide query's samples alone are 400 timestamps and values of 8 bytes each.
    expect(wideBytes).toBeGreaterThan(400 * 16);
    expect(narrowBytes * 4).toBeLessThan(wideBytes);
  }, 60_000);

  /** headFetches counts the head fetches a query process made (one per holder asked). */
  async function headFetches(server: ChildServer): Promise<number> {
    const text = await (await fetch(`${server.url}/metrics`)).text();
    return Number(/^sluice_head_fetches_total\{outcome="ok"\} (\S+)$/m.exec(text)?.[1] ?? 0);
  }

  it('asks the ingesters only for the time a query reads: same answers, far fewer bytes for a narrow range', async () => {
    // One series of 600 samples 10 s apart (100 min) in the ingesters' heads... unless a cut
    // (16 KiB heads, cut as other data arrives) moves it to a segment before the measured
    // queries: then the attempt is repeated with a new series, which lands in fresh heads.
    const SAMPLES = 600;
    const STEP_MS = 10_000;
    const to = base + 990_000;
    const from = to - (SAMPLES - 1) * STEP_MS;
    for (let attempt = 0; attempt < 4; attempt++) {
      const name = `fc_span${attempt}`;
      const timeseries = [{ labels: [{ name: '__name__', value: name }], samples: Array.from({ length: SAMPLES }, (_, k) => ({ value: k, timestamp: from + k * STEP_MS })) }];
      for (const server of [ingest[1], single]) {
        const res = await fetch(`${server.url}/api/v1/write`, { method: 'POST', body: encodeRemoteWriteBody({ timeseries }), headers: { 'x-svc-api-key': KEY, 'content-type': 'application/x-protobuf' } });
        expect(res.status).toBe(204);
      }
      // The last minute, and the whole 100 minutes in many slices.
      const narrow = { q: `max_over_time(${name}[20s])`, s: String(to - 60_000), e: String(to), step: 10 };
      const wide = { q: `max_over_time(${name}[20s])`, s: String(from), e: String(to), step: 10 };
      // Waiting asks with other selectors: the measured queries below must not find chunks kept from it.
      const probe = { ...wide, q: `max_over_time(${name}{x=""}[20s])` };
      const probed = JSON.stringify(await results(single, '/api/v1/metrics/query', probe));
      await waitFor(async () => JSON.stringify(await results(queries[1], '/api/v1/metrics/query', probe)) === probed, 10_000);
      const before = await servedBytes();
      const narrowAnswer = await results(queries[1], '/api/v1/metrics/query', narrow);
      const afterNarrow = await servedBytes();
      const fetchesBefore = await headFetches(queries[1]);
      const wideAnswer = await results(queries[1], '/api/v1/metrics/query', wide);
      const afterWide = await servedBytes();
      const wideFetches = (await headFetches(queries[1])) - fetchesBefore;
      // Both answers are a single node's over the same data.
      expect(narrowAnswer).toEqual(await results(single, '/api/v1/metrics/query', narrow));
      expect(narrowAnswer).toHaveLength(7);
      expect(wideAnswer).toEqual(await results(single, '/api/v1/metrics/query', wide));
      expect(wideAnswer).toHaveLength(SAMPLES);
      // The wide query's many time slices share one fetch per ingester: the first slice asked for the whole query's range.
      expect(wideFetches).toBe(ingesters.length);
      const narrowBytes = afterNarrow - before;
      const wideBytes = afterWide - afterNarrow;
      // A cut took the series out of the heads before the wide query: its samples did not travel. Try again.
      if (wideBytes < SAMPLES * 16) continue;
      expect(narrowBytes).toBeGreaterThan(0);
      // The narrow query reads 380 s (the minute, its 20 s range and the 5 min lookback the
      // planner adds) of 100 minutes: 39 samples of 600, and the answers' headers.
      expect(narrowBytes * 4).toBeLessThan(wideBytes);
      return;
    }
    expect.unreachable('every attempt found its series cut to a segment before the wide query');
  }, 120_000);

  it('answers query_exemplars on every query process with the exemplars remote write sent through an ingest process', async () => {
    // Eight series with two exemplars each; the series spread over the partitions, so over both ingesters.
    const series = Array.from({ length: 8 }, (_, n) => ({
      labels: { __name__: 'fc_requests_total', route: `/r${n}` },
      samples: [{ value: n, timestamp: base + 1000 }, { value: n + 1, timestamp: base + 2000 }],
      exemplars: [
        { labels: { trace_id: `t${n}a` } as Record<string, string>, value: n + 0.5, timestamp: base + 1000 },
        { labels: { trace_id: `t${n}b`, span_id: `s${n}` }, value: n + 1.5, timestamp: base + 2000 },
      ],
    }));
    const pairs = (labels: Record<string, string>) => Object.entries(labels).map(([name, value]) => ({ name, value }));
    const body = snappyCompress(
      pbEncode(WriteRequest, {
        timeseries: series.map((s) => ({
          labels: pairs(s.labels),
          samples: s.samples.map((p) => ({ value: p.value, timestamp: String(p.timestamp) })),
          exemplars: s.exemplars.map((e) => ({ labels: pairs(e.labels), value: e.value, timestamp: String(e.timestamp) })),
        })),
      }),
    );
    for (const server of [ingest[0], single]) {
      const res = await fetch(`${server.url}/api/v1/write`, { method: 'POST', body, headers: { 'x-svc-api-key': KEY, 'content-type': 'application/x-protobuf', 'content-encoding': 'snappy' } });
      expect(res.status).toBe(204);
      expect(res.headers.get('x-prometheus-remote-write-exemplars-written')).toBe('16');
    }
    const clusterOrg = (await (await fetch(`${queries[0].url}/api/v1/ping`, { headers: { 'x-svc-api-key': KEY } })).json()) as { org: string };
    const owners = await cluster.partitionOwners();
    const holdersOfSeries = new Set(series.map((s) => owners.find((o) => o.partition === partitionOf(clusterOrg.org, labelsKey(sortLabels(s.labels)), PARTITIONS))?.ownerId));
    expect(holdersOfSeries.size, 'the series are held by both ingesters').toBe(2);

    const params = new URLSearchParams({ query: 'sum(rate(fc_requests_total{route=~"/r.*"}[5m]))', start: String((base - 60_000) / 1000), end: String((base + 60_000) / 1000) });
    const exemplars = async (server: ChildServer) => {
      const res = await fetch(`${server.url}/prometheus/api/v1/query_exemplars?${params}`, { headers: { 'x-svc-api-key': KEY } });
      expect(res.status).toBe(200);
      const answer = (await res.json()) as { status: string; data: Array<{ seriesLabels: Record<string, string>; exemplars: unknown[] }>; warnings?: string[] };
      // Series order follows arrival, which differs between holders: compare them sorted.
      return { ...answer, data: [...answer.data].sort((a, b) => a.seriesLabels.route.localeCompare(b.seriesLabels.route)) };
    };
    const want = await exemplars(single);
    expect(want.data).toHaveLength(8);
    expect(want.data.flatMap((s) => s.exemplars)).toHaveLength(16);
    expect(want.data[3]).toEqual({
      seriesLabels: { __name__: 'fc_requests_total', route: '/r3' },
      exemplars: [
        { labels: { trace_id: 't3a' }, value: '3.5', timestamp: (base + 1000) / 1000 },
        { labels: { span_id: 's3', trace_id: 't3b' }, value: '4.5', timestamp: (base + 2000) / 1000 },
      ],
    });
    // Each query process sees them within a second or so of the acknowledgement (the ingesters read the log).
    for (const q of queries) {
      let got = await exemplars(q);
      await waitFor(async () => JSON.stringify((got = await exemplars(q))) === JSON.stringify(want), 5000).catch(() => undefined);
      expect(got, q.url).toEqual(want);
    }

    // The ingesters' internal endpoint takes only the cluster token, and answers bad requests with the JSON error body.
    const ask = (token: string | undefined, request: unknown) =>
      fetch(`${ingesters[0].url}/internal/v1/exemplars`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(token !== undefined ? { authorization: `Bearer ${token}` } : {}) },
        body: JSON.stringify(request),
      });
    const selectors = [[{ name: '__name__', type: '=', value: 'fc_requests_total' }]];
    expect((await ask(undefined, { org: clusterOrg.org, selectors })).status).toBe(401);
    expect((await ask('wrong-token-wrong-token-wrong-token-0000', { org: clusterOrg.org, selectors })).status).toBe(401);
    const refused = await ask(CLUSTER_INTERNAL_TOKEN, { org: clusterOrg.org, selectors: [[{ name: 'x', type: '=~', value: '(' }]] });
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({ status: 400, code: 'VALIDATION_FAILED' });
    const direct = await ask(CLUSTER_INTERNAL_TOKEN, { org: clusterOrg.org, selectors, minMs: base, maxMs: base + 1000 });
    expect(direct.status).toBe(200);
    const held = ((await direct.json()) as { series: Array<{ exemplars: Array<{ timestampMs: number }> }> }).series;
    // This ingester holds some of the series, not all, and the range keeps their first exemplar only.
    expect(held.length).toBeGreaterThan(0);
    expect(held.length).toBeLessThan(8);
    expect(held.every((s) => s.exemplars.length === 1 && s.exemplars[0].timestampMs === base + 1000)).toBe(true);
  }, 60_000);

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
    const victimId = await cluster.ownerIdOf(victim);
    expect(victimId).toBeDefined();
    victim.proc.kill('SIGKILL');
    await victim.exit;
    // After the lease period the survivor holds every partition; the writes go on meanwhile.
    await waitFor(async () => {
      const held = await cluster.partitionOwners();
      return held.length === PARTITIONS && held.every((o) => o.ownerId !== victimId);
    }, 20_000);
    await new Promise((r) => setTimeout(r, 1000));
    writing = false;
    await writers;
    expect(acked.length).toBeGreaterThan(10);
    // Merges ran under the queries: the catalog holds segments written by the compactor, with their inputs' writers.
    // The compactor works on its own period: give a slow machine a few of its rounds to get there.
    const mergedCount = async () =>
      (await backends.pg.query<{ n: number }>(cluster.database, `SELECT count(*)::int AS n FROM catalog_segments WHERE catalog = 'default' AND meta->'writers' IS NOT NULL`)).rows[0].n;
    await waitFor(async () => (await mergedCount()) > 0, 20_000).catch(() => undefined);
    expect(await mergedCount()).toBeGreaterThan(0);
    const all = [...Array.from({ length: 33 }, (_, i) => `e${i}`), ...acked];
    // The survivor replays the taken partitions from their recorded positions; then every record is there once.
    for (const q of queries) await records.expectEachOnce(q, all, 15_000);
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
