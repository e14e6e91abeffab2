import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { snappyCompress } from '../../engine/ingest/index.js';
import { loadConfig } from '../../src/config.js';
import { startService } from '../../src/service.js';
import { pbEncode, WriteRequest, WriteRequestV2 } from '../engine/ingest/protoTypes.js';
import { rejectedCount } from '../support/ingest.js';
import { LogCapture, startTestServer, type TestServer } from '../support/server.js';

/**
 * Remote write 2.0 against the real server: payloads encoded independently with protobufjs
 * from the message's .proto, negotiated by Content-Type. A 1.0 sender and a 2.0 sender writing
 * the same series, samples, metadata and exemplars into two orgs get the same answers from the
 * Prometheus API; native histograms are stored and counted; the written-counts headers
 * come back with both versions; exemplars survive a restart.
 */

const V2_TYPE = 'application/x-protobuf;proto=io.prometheus.write.v2.Request';
const NOW_MS = Math.floor(Date.now() / 1000) * 1000;
const T0 = NOW_MS - 120_000;

interface SeriesData {
  labels: Record<string, string>;
  samples: Array<{ value: number; timestamp: number }>;
  exemplars: Array<{ labels: Record<string, string>; value: number; timestamp: number }>;
  metadata: { type: string; help: string; unit: string };
}

/** SERIES is the data both senders write: two counters with exemplars and a gauge, metadata for each family. */
const SERIES: SeriesData[] = [
  {
    labels: { __name__: 'http_requests_total', job: 'api', code: '200' },
    samples: [10, 15, 21, 30].map((v, i) => ({ value: v, timestamp: T0 + i * 15_000 })),
    exemplars: [
      { labels: { trace_id: 'aaaa' }, value: 1, timestamp: T0 + 15_000 },
      { labels: { trace_id: 'bbbb', span_id: 's1' }, value: 1, timestamp: T0 + 45_000 },
    ],
    metadata: { type: 'counter', help: 'Requests served.', unit: '' },
  },
  {
    labels: { __name__: 'http_requests_total', job: 'api', code: '500' },
    samples: [1, 1, 2, 2].map((v, i) => ({ value: v, timestamp: T0 + i * 15_000 })),
    exemplars: [{ labels: { trace_id: 'cccc' }, value: 1, timestamp: T0 + 30_000 }],
    metadata: { type: 'counter', help: 'Requests served.', unit: '' },
  },
  {
    labels: { __name__: 'queue_depth_bytes', job: 'worker' },
    samples: [5, 3, 8, 13].map((v, i) => ({ value: v, timestamp: T0 + i * 15_000 })),
    exemplars: [],
    metadata: { type: 'gauge', help: 'Bytes waiting.', unit: 'bytes' },
  },
];

const METRIC_TYPES: Record<string, number> = { unknown: 0, counter: 1, gauge: 2, histogram: 3 };

const pairs = (labels: Record<string, string>) => Object.entries(labels).map(([name, value]) => ({ name, value }));

/** v1Body is SERIES as a 1.0 WriteRequest, metadata as its per-family entries. */
function v1Body(): Uint8Array {
  return snappyCompress(
    pbEncode(WriteRequest, {
      timeseries: SERIES.map((s) => ({
        labels: pairs(s.labels),
        samples: s.samples.map((p) => ({ value: p.value, timestamp: String(p.timestamp) })),
        exemplars: s.exemplars.map((e) => ({ labels: pairs(e.labels), value: e.value, timestamp: String(e.timestamp) })),
      })),
      metadata: [
        { type: 1, metricFamilyName: 'http_requests_total', help: 'Requests served.' },
        { type: 2, metricFamilyName: 'queue_depth_bytes', help: 'Bytes waiting.', unit: 'bytes' },
      ],
    }),
  );
}

/** Symbols builds a 2.0 symbols table, the empty string first as the specification requires. */
class Symbols {
  readonly table: string[] = [''];
  ref(text: string): number {
    let i = this.table.indexOf(text);
    if (i < 0) i = this.table.push(text) - 1;
    return i;
  }
  refs(labels: Record<string, string>): number[] {
    return Object.keys(labels)
      .sort()
      .flatMap((name) => [this.ref(name), this.ref(labels[name])]);
  }
}

/** v2Message is SERIES as a 2.0 Request, with `extra` series appended. */
function v2Message(extra: (symbols: Symbols) => Array<Record<string, unknown>> = () => []): Record<string, unknown> {
  const symbols = new Symbols();
  const timeseries: Array<Record<string, unknown>> = SERIES.map((s) => ({
    labelsRefs: symbols.refs(s.labels),
    samples: s.samples.map((p) => ({ value: p.value, timestamp: String(p.timestamp) })),
    exemplars: s.exemplars.map((e) => ({ labelsRefs: symbols.refs(e.labels), value: e.value, timestamp: String(e.timestamp) })),
    metadata: { type: METRIC_TYPES[s.metadata.type], helpRef: symbols.ref(s.metadata.help), unitRef: symbols.ref(s.metadata.unit) },
  }));
  timeseries.push(...extra(symbols));
  return { symbols: symbols.table, timeseries };
}

const v2Body = (message: Record<string, unknown>): Uint8Array => snappyCompress(pbEncode(WriteRequestV2, message));

function post(srv: TestServer, key: string, body: Uint8Array, contentType: string | undefined, encoding: string | undefined = 'snappy'): Promise<Response> {
  const headers: Record<string, string> = { 'x-svc-api-key': key };
  if (contentType !== undefined) headers['content-type'] = contentType;
  if (encoding !== undefined) headers['content-encoding'] = encoding;
  return fetch(`${srv.url}/api/v1/write`, { method: 'POST', body, headers });
}

function written(res: Response): Record<string, string | null> {
  return {
    samples: res.headers.get('x-prometheus-remote-write-samples-written'),
    histograms: res.headers.get('x-prometheus-remote-write-histograms-written'),
    exemplars: res.headers.get('x-prometheus-remote-write-exemplars-written'),
  };
}

async function promGet(srv: TestServer, key: string, path: string, params: Record<string, string>): Promise<unknown> {
  const res = await fetch(`${srv.url}/prometheus/api/v1/${path}?${new URLSearchParams(params)}`, { headers: { 'x-svc-api-key': key } });
  expect(res.status).toBe(200);
  return res.json();
}

describe('remote write 2.0', () => {
  let srv: TestServer;
  let v2Key: string;
  let v2Org: string;

  beforeAll(async () => {
    srv = await startTestServer({ SVC_QUERY_WORKERS: '1' });
    const org = await srv.admin.createOrg('rw2-sender');
    v2Org = org.id;
    v2Key = (await srv.admin.createKey(org.id, 'rw2')).key;
  });
  afterAll(async () => {
    await srv.stop();
  });

  it('stores what a 1.0 and a 2.0 sender write alike: queries, metadata and exemplars answer the same', async () => {
    const one = await post(srv, srv.key, v1Body(), 'application/x-protobuf');
    expect(one.status).toBe(204);
    expect(written(one)).toEqual({ samples: '12', histograms: '0', exemplars: '3' });
    const two = await post(srv, v2Key, v2Body(v2Message()), V2_TYPE);
    expect(two.status).toBe(204);
    expect(written(two)).toEqual({ samples: '12', histograms: '0', exemplars: '3' });

    const range = { start: String((T0 - 60_000) / 1000), end: String(NOW_MS / 1000), step: '15' };
    for (const query of ['http_requests_total', 'sum by (code) (rate(http_requests_total[1m]))', 'queue_depth_bytes * 2']) {
      const fromV1 = await promGet(srv, srv.key, 'query_range', { query, ...range });
      const fromV2 = await promGet(srv, v2Key, 'query_range', { query, ...range });
      expect((fromV1 as { data: { result: unknown[] } }).data.result.length).toBeGreaterThan(0);
      expect(fromV2).toEqual(fromV1);
    }

    const metadataV1 = await promGet(srv, srv.key, 'metadata', {});
    expect(await promGet(srv, v2Key, 'metadata', {})).toEqual(metadataV1);
    expect(metadataV1).toMatchObject({
      data: {
        http_requests_total: [{ type: 'counter', help: 'Requests served.', unit: '' }],
        queue_depth_bytes: [{ type: 'gauge', help: 'Bytes waiting.', unit: 'bytes' }],
      },
    });

    const exemplarParams = { query: 'http_requests_total{code="200"}', start: String(T0 / 1000), end: String(NOW_MS / 1000) };
    const exemplarsV1 = await promGet(srv, srv.key, 'query_exemplars', exemplarParams);
    expect(await promGet(srv, v2Key, 'query_exemplars', exemplarParams)).toEqual(exemplarsV1);
    expect(exemplarsV1).toEqual({
      status: 'success',
      data: [
        {
          seriesLabels: { __name__: 'http_requests_total', code: '200', job: 'api' },
          exemplars: [
            { labels: { trace_id: 'aaaa' }, value: '1', timestamp: (T0 + 15_000) / 1000 },
            { labels: { span_id: 's1', trace_id: 'bbbb' }, value: '1', timestamp: (T0 + 45_000) / 1000 },
          ],
        },
      ],
    });
  });

  it('filters exemplars by every selector of the query and by the time range, and resends count as duplicates', async () => {
    const late = { start: String((T0 + 20_000) / 1000), end: String(NOW_MS / 1000) };
    const both = (await promGet(srv, v2Key, 'query_exemplars', { query: 'rate(http_requests_total{code="500"}[5m]) / ignoring(code) queue_depth_bytes or http_requests_total{code="200"}', ...late })) as {
      data: Array<{ seriesLabels: Record<string, string>; exemplars: Array<{ labels: Record<string, string> }> }>;
    };
    expect(both.data.map((s) => [s.seriesLabels.code, s.exemplars.map((e) => e.labels.trace_id)])).toEqual(
      expect.arrayContaining([
        ['500', ['cccc']],
        ['200', ['bbbb']],
      ]),
    );
    expect(both.data).toHaveLength(2);
    expect(await promGet(srv, v2Key, 'query_exemplars', { query: 'queue_depth_bytes' })).toEqual({ status: 'success', data: [] });
    // Prometheus resends a batch after a timeout: the same exemplars are not kept twice.
    const again = await post(srv, v2Key, v2Body(v2Message()), V2_TYPE);
    expect(written(again).exemplars).toBe('0');
    expect(srv.service.storage.metrics(v2Org).select([{ name: '__name__', type: '=', value: 'http_requests_total' }], -Infinity, Infinity)).toHaveLength(2);
  });

  it('stores native histograms, integer and custom-bucket float, and counts them in the histograms header', async () => {
    const message = v2Message((symbols) => [
      {
        labelsRefs: symbols.refs({ __name__: 'rpc_latency_seconds', job: 'api' }),
        histograms: [
          { countInt: '5', sum: 2.5, schema: 1, zeroThreshold: 1e-128, zeroCountInt: '1', positiveSpans: [{ offset: 0, length: 2 }], positiveDeltas: ['2', '0'], timestamp: String(T0), resetHint: 2 },
          { countFloat: 6, sum: 3, schema: -53, positiveSpans: [{ offset: 0, length: 2 }], positiveCounts: [4, 2], customValues: [0.1], timestamp: String(T0 + 15_000) },
        ],
        metadata: { type: 3, helpRef: symbols.ref('RPC latency.') },
      },
    ]);
    const res = await post(srv, v2Key, v2Body(message), V2_TYPE);
    expect(res.status).toBe(204);
    expect(written(res)).toEqual({ samples: '12', histograms: '2', exemplars: '0' });
    const stored = srv.service.storage.metrics(v2Org).select([{ name: '__name__', type: '=~', value: 'rpc_latency_seconds.*' }], -Infinity, Infinity);
    expect(stored).toHaveLength(1);
    expect(Array.from(stored[0].timestampsMs)).toEqual([T0, T0 + 15_000]);
    expect(stored[0].histograms).toMatchObject([
      { schema: 1, count: 5, sum: 2.5, zeroCount: 1, zeroThreshold: 1e-128 },
      { schema: -53, count: 6, sum: 3 },
    ]);
    expect(Array.from(stored[0].histograms![0]!.posCount)).toEqual([2, 2]);
    expect(Array.from(stored[0].histograms![1]!.customValues!)).toEqual([0.1]);
  });

  it('answers 415 to a message or encoding it does not take, and reads 1.0 without a Content-Type', async () => {
    const unknown = await post(srv, v2Key, v2Body(v2Message()), 'application/x-protobuf;proto=io.prometheus.write.v3.Request');
    expect(unknown.status).toBe(415);
    expect(await unknown.json()).toMatchObject({ code: 'UNSUPPORTED_MEDIA_TYPE', message: expect.stringMatching(/io\.prometheus\.write\.v3\.Request/) });
    expect((await post(srv, v2Key, v2Body(v2Message()), V2_TYPE, 'gzip')).status).toBe(415);
    expect((await post(srv, v2Key, v2Body(v2Message()), 'application/json')).status).toBe(415);
    const bare = await post(srv, v2Key, v1Body(), undefined, undefined);
    expect(bare.status).toBe(204);
    expect(written(bare).samples).toBe('12');
    const explicit = await post(srv, v2Key, v1Body(), 'application/x-protobuf; proto=prometheus.WriteRequest');
    expect(explicit.status).toBe(204);
  });

  it('validates 2.0 series as 1.0: bad labels and symbol references are rejected per series, the rest stored', async () => {
    const message = v2Message((symbols) => [
      { labelsRefs: [symbols.ref('job'), symbols.ref('x')], samples: [{ value: 1, timestamp: String(NOW_MS) }] },
      { labelsRefs: [symbols.ref('__name__'), 9999], samples: [{ value: 1, timestamp: String(NOW_MS) }] },
      { labelsRefs: [symbols.ref('__name__')], samples: [{ value: 1, timestamp: String(NOW_MS) }] },
      { labelsRefs: symbols.refs({ __name__: 'future_metric' }), samples: [{ value: 1, timestamp: String(NOW_MS + 3_600_000) }] },
      { labelsRefs: symbols.refs({ __name__: 'fine_metric' }), samples: [{ value: 1, timestamp: String(NOW_MS) }] },
    ]);
    const res = await post(srv, v2Key, v2Body(message), V2_TYPE);
    expect(res.status).toBe(400);
    const { message: text } = (await res.json()) as { message: string };
    expect(text).toMatch(/^4 of 17 samples rejected \(invalid_labels: 3, too_far_in_future: 1;/);
    expect(text).toContain('missing metric name');
    expect(text).toContain('label reference 9999 is outside the symbols table');
    expect(text).toContain('odd number (1) of label references');
    expect(written(res).samples).toBe('13');
    expect(srv.service.storage.metrics(v2Org).select([{ name: '__name__', type: '=', value: 'fine_metric' }], -Infinity, Infinity)).toHaveLength(1);
  });
});

describe('remote write created timestamps and exemplar persistence', () => {
  it('adds a zero at created timestamps when asked, and exemplars outlive a restart', async () => {
    const srv = await startTestServer({ SVC_CREATED_TIMESTAMP_ZERO_INGESTION: 'true', SVC_MAX_EXEMPLARS_PER_ORG: '2' });
    let restarted: Awaited<ReturnType<typeof startService>> | undefined;
    try {
      const symbols = new Symbols();
      const ct = NOW_MS - 60_000;
      const body = v2Body({
        symbols: symbols.table,
        timeseries: [
          {
            labelsRefs: symbols.refs({ __name__: 'jobs_total' }),
            samples: [
              { value: 4, timestamp: String(NOW_MS - 30_000), startTimestamp: String(ct) },
              { value: 6, timestamp: String(NOW_MS - 15_000), startTimestamp: String(ct) },
            ],
            exemplars: ['t1', 't2', 't3'].map((id, i) => ({ labelsRefs: symbols.refs({ trace_id: id }), value: i, timestamp: String(NOW_MS - 30_000 + i * 1000) })),
          },
        ],
      });
      const res = await post(srv, srv.key, body, V2_TYPE);
      expect(res.status).toBe(204);
      // The zero is stored but not counted as written: the sender did not send it.
      expect(written(res)).toEqual({ samples: '2', histograms: '0', exemplars: '3' });
      const [series] = srv.service.storage.metrics(srv.orgId).select([{ name: '__name__', type: '=', value: 'jobs_total' }], -Infinity, Infinity);
      expect([...series.timestampsMs]).toEqual([ct, NOW_MS - 30_000, NOW_MS - 15_000]);
      expect([...series.values]).toEqual([0, 4, 6]);

      // Two fit the org's ring: the oldest was overwritten. A clean stop writes them to the side file.
      await srv.service.stop();
      restarted = await startService(loadConfig({ SVC_PORT: '0', SVC_HOST: '127.0.0.1', SVC_DATA_DIR: srv.dataDir, SVC_MAX_EXEMPLARS_PER_ORG: '2' }), { logDestination: new LogCapture() });
      const url = `http://127.0.0.1:${restarted.port}/prometheus/api/v1/query_exemplars?${new URLSearchParams({ query: 'jobs_total' })}`;
      const answer = (await (await fetch(url, { headers: { 'x-svc-api-key': srv.key } })).json()) as { data: Array<{ exemplars: Array<{ labels: Record<string, string> }> }> };
      expect(answer.data.flatMap((s) => s.exemplars.map((e) => e.labels.trace_id))).toEqual(['t2', 't3']);
    } finally {
      if (restarted) await restarted.stop();
      await srv.stop().catch(() => undefined);
    }
  });

  it('adds an empty histogram at a native histogram series\' created timestamp, and a float zero at the series-level one', async () => {
    const srv = await startTestServer({ SVC_CREATED_TIMESTAMP_ZERO_INGESTION: 'true' });
    try {
      const symbols = new Symbols();
      const ct = NOW_MS - 60_000;
      const legacyCt = NOW_MS - 90_000;
      const custom = (countFloat: number, timestamp: number) => ({
        countFloat,
        sum: countFloat / 2,
        schema: -53,
        positiveSpans: [{ offset: 0, length: 2 }],
        positiveCounts: [countFloat - 1, 1],
        customValues: [0.1],
        timestamp: String(timestamp),
        startTimestamp: String(ct),
      });
      const body = v2Body({
        symbols: symbols.table,
        timeseries: [
          { labelsRefs: symbols.refs({ __name__: 'req_seconds', job: 'api' }), histograms: [custom(3, NOW_MS - 30_000), custom(5, NOW_MS - 15_000)] },
          // 2.0's release candidates sent the created timestamp once per series (field 6).
          { labelsRefs: symbols.refs({ __name__: 'legacy_total' }), samples: [{ value: 7, timestamp: String(NOW_MS - 45_000) }], createdTimestamp: String(legacyCt) },
        ],
      });
      const res = await post(srv, srv.key, body, V2_TYPE);
      expect(res.status).toBe(204);
      // The zeros are stored but not counted as written, in either header.
      expect(written(res)).toEqual({ samples: '1', histograms: '2', exemplars: '0' });
      const metrics = srv.service.storage.metrics(srv.orgId);
      const [hist] = metrics.select([{ name: '__name__', type: '=', value: 'req_seconds' }], -Infinity, Infinity);
      expect([...hist.timestampsMs]).toEqual([ct, NOW_MS - 30_000, NOW_MS - 15_000]);
      expect(hist.histograms?.map((h) => h?.count)).toEqual([0, 3, 5]);
      // The zero keeps the samples' layout (no schema change in the series); the head sets hints as for any sample.
      expect(hist.histograms?.[0]).toMatchObject({ schema: -53, sum: 0, zeroCount: 0 });
      expect([...hist.histograms![0]!.customValues!]).toEqual([0.1]);
      const [legacy] = metrics.select([{ name: '__name__', type: '=', value: 'legacy_total' }], -Infinity, Infinity);
      expect([...legacy.timestampsMs]).toEqual([legacyCt, NOW_MS - 45_000]);
      expect([...legacy.values]).toEqual([0, 7]);
      // The whole rise from the created zero is seen: 5 observations since ct.
      const url = `${srv.url}/prometheus/api/v1/query?${new URLSearchParams({ query: 'histogram_count(req_seconds)', time: String((ct + 1000) / 1000) })}`;
      const answer = (await (await fetch(url, { headers: { 'x-svc-api-key': srv.key } })).json()) as { data: { result: Array<{ value: [number, string] }> } };
      expect(answer.data.result.map((r) => r.value[1])).toEqual(['0']);
    } finally {
      await srv.stop();
    }
  });
});
