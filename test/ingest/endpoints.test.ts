import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { snappyCompress } from '../../engine/ingest/index.js';
import { encodeLokiPushBody } from '../../engine/ingest/encode/lokiPush.js';
import { encodeRemoteWriteBody } from '../../engine/ingest/encode/remoteWrite.js';
import { ExportLogsServiceRequest, ExportLogsServiceResponse, ExportMetricsServiceRequest, pbDecode, pbEncode, PushRequest } from '../engine/ingest/protoTypes.js';
import { startTestServer, type TestServer } from '../support/server.js';

const ALL_NS = [-(2n ** 63n), 2n ** 63n - 1n] as const;
const NOW_NS = BigInt(Date.now()) * 1_000_000n;
const NOW_MS = Math.floor(Date.now() / 1000) * 1000;

describe('ingest endpoints', () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startTestServer({ SVC_MAX_BODY_BYTES: '1MiB' });
  });
  afterAll(async () => {
    await srv.stop();
  });

  const post = (path: string, body: Uint8Array | string, headers: Record<string, string>, key = srv.key) =>
    fetch(`${srv.url}${path}`, { method: 'POST', body, headers: { 'x-svc-api-key': key, ...headers } });
  const logsOf = (org: string, service: string) =>
    srv.service.storage.logs(org).select([{ name: 'service_name', type: '=', value: service }], ...ALL_NS);

  it('stores OTLP/JSON logs with the naming conventions, gzip accepted', async () => {
    const request = {
      resourceLogs: [
        {
          resource: { attributes: [{ key: 'service.name', value: { stringValue: 'checkout' } }, { key: 'k8s.pod.name', value: { stringValue: 'checkout-7d9' } }] },
          scopeLogs: [
            {
              scope: { name: 'app.logger', version: '1.2' },
              logRecords: [
                { timeUnixNano: String(NOW_NS), severityText: 'WARNING', body: { stringValue: 'disk almost full' }, attributes: [{ key: 'disk.id', value: { stringValue: 'sda' } }] },
                { timeUnixNano: String(NOW_NS + 1n), severityNumber: 17, body: { stringValue: 'payment failed' } },
              ],
            },
          ],
        },
      ],
    };
    const res = await post('/v1/logs', gzipSync(JSON.stringify(request)), { 'content-type': 'application/json', 'content-encoding': 'gzip' });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({});
    const streams = logsOf(srv.orgId, 'checkout');
    const warn = streams.find((s) => s.tags.level === 'warn')!;
    expect(warn.messages).toEqual(['disk almost full']);
    expect(warn.tags).toMatchObject({ service_name: 'checkout', k8s_pod_name: 'checkout-7d9', disk_id: 'sda', scope_name: 'app.logger', scope_version: '1.2' });
    expect(streams.find((s) => s.tags.level === 'error')!.messages).toEqual(['payment failed']);
  });

  it('stores OTLP protobuf logs encoded independently, and answers partial success in protobuf', async () => {
    const body = pbEncode(ExportLogsServiceRequest, {
      resourceLogs: [
        {
          resource: { attributes: [{ key: 'service.name', value: { stringValue: 'pb-svc' } }] },
          scopeLogs: [
            {
              logRecords: [
                { timeUnixNano: String(NOW_NS), severityNumber: 9, body: { stringValue: 'hello from protobuf' } },
                { timeUnixNano: String(NOW_NS), severityNumber: 9, body: { stringValue: 'x'.repeat(300 * 1024) } },
              ],
            },
          ],
        },
      ],
    });
    const res = await post('/v1/logs', body, { 'content-type': 'application/x-protobuf' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/x-protobuf');
    const answer = pbDecode(ExportLogsServiceResponse, new Uint8Array(await res.arrayBuffer())) as { partialSuccess?: { rejectedLogRecords: string; errorMessage: string } };
    expect(answer.partialSuccess?.rejectedLogRecords).toBe('1');
    expect(answer.partialSuccess?.errorMessage).toMatch(/\S/);
    expect(logsOf(srv.orgId, 'pb-svc').flatMap((s) => s.messages)).toEqual(['hello from protobuf']);
  });

  it('stores OTLP metrics converted to Prometheus naming, with metadata', async () => {
    const body = pbEncode(ExportMetricsServiceRequest, {
      resourceMetrics: [
        {
          resource: { attributes: [{ key: 'service.name', value: { stringValue: 'api' } }, { key: 'service.instance.id', value: { stringValue: 'i-1' } }] },
          scopeMetrics: [
            {
              metrics: [
                {
                  name: 'http.server.duration',
                  unit: 'ms',
                  description: 'Request time.',
                  histogram: {
                    aggregationTemporality: 2,
                    dataPoints: [{ timeUnixNano: String(NOW_NS), count: '3', sum: 60, bucketCounts: ['1', '2', '0'], explicitBounds: [10, 100] }],
                  },
                },
                {
                  name: 'requests',
                  sum: { aggregationTemporality: 2, isMonotonic: true, dataPoints: [{ timeUnixNano: String(NOW_NS), asInt: '42' }] },
                },
              ],
            },
          ],
        },
      ],
    });
    const res = await post('/v1/metrics', body, { 'content-type': 'application/x-protobuf' });
    expect(res.status).toBe(200);
    const q = srv.service.storage.metrics(srv.orgId);
    const buckets = q.select([{ name: '__name__', type: '=', value: 'http_server_duration_milliseconds_bucket' }], -Infinity, Infinity);
    expect(buckets.map((s) => [s.labels.le, s.values[0]]).sort()).toEqual([['+Inf', 3], ['10', 1], ['100', 3]]);
    expect(buckets[0].labels).toMatchObject({ job: 'api', instance: 'i-1' });
    const total = q.select([{ name: '__name__', type: '=', value: 'requests_total' }], -Infinity, Infinity);
    expect(total[0].values[0]).toBe(42);
    expect(srv.service.storage.metricMetadata(srv.orgId).get('http_server_duration_milliseconds')).toMatchObject({ type: 'histogram', help: 'Request time.' });
  });

  it('stores Prometheus remote write with metadata and answers 204', async () => {
    const body = encodeRemoteWriteBody({
      timeseries: [
        { labels: [{ name: '__name__', value: 'node_load1' }, { name: 'instance', value: 'h1' }], samples: [{ value: 0.5, timestamp: NOW_MS - 15_000 }, { value: 0.75, timestamp: NOW_MS }] },
      ],
      metadata: [{ type: 'gauge', metricFamilyName: 'node_load1', help: '1m load average.' }],
    });
    const res = await post('/api/v1/write', body, { 'content-type': 'application/x-protobuf', 'content-encoding': 'snappy', 'x-prometheus-remote-write-version': '0.1.0' });
    expect(res.status).toBe(204);
    const [series] = srv.service.storage.metrics(srv.orgId).select([{ name: '__name__', type: '=', value: 'node_load1' }], -Infinity, Infinity);
    expect([...series.values]).toEqual([0.5, 0.75]);
    expect(srv.service.storage.metricMetadata(srv.orgId).get('node_load1')).toMatchObject({ type: 'gauge' });
  });

  it('stores valid remote-write series and names the rejected ones with 400', async () => {
    const body = encodeRemoteWriteBody({
      timeseries: [
        { labels: [{ name: '__name__', value: 'good_metric' }], samples: [{ value: 1, timestamp: NOW_MS }] },
        { labels: [{ name: 'no_name', value: 'x' }], samples: [{ value: 1, timestamp: NOW_MS }] },
      ],
    });
    const res = await post('/api/v1/write', body, { 'content-type': 'application/x-protobuf' });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ code: 'BAD_REQUEST', message: expect.stringMatching(/^1 of 2 samples rejected \(invalid_labels: 1; series \{no_name="x"\}: missing metric name/) });
    expect(srv.service.storage.metrics(srv.orgId).select([{ name: '__name__', type: '=', value: 'good_metric' }], -Infinity, Infinity)).toHaveLength(1);
  });

  it('stores Loki push in JSON and snappy protobuf with structured metadata', async () => {
    const json = { streams: [{ stream: { service_name: 'loki-json', level: 'error' }, values: [[String(NOW_NS), 'json line', { trace_id: 'abc' }]] }] };
    expect((await post('/loki/api/v1/push', JSON.stringify(json), { 'content-type': 'application/json' })).status).toBe(204);
    const [stream] = logsOf(srv.orgId, 'loki-json');
    expect(stream.messages).toEqual(['json line']);
    expect(stream.tags).toMatchObject({ level: 'error', trace_id: 'abc' });

    const independent = snappyCompress(
      pbEncode(PushRequest, { streams: [{ labels: '{service_name="loki-pb", env="prod"}', entries: [{ timestamp: { seconds: String(NOW_NS / 1_000_000_000n), nanos: 5 }, line: 'protobuf line' }] }] }),
    );
    expect((await post('/loki/api/v1/push', independent, { 'content-type': 'application/x-protobuf' })).status).toBe(204);
    const ours = encodeLokiPushBody({ streams: [{ labels: { service_name: 'loki-pb', env: 'prod' }, entries: [{ timestampNs: NOW_NS + 10n, line: 'second', structuredMetadata: { user: 'u1' } }] }] });
    expect((await post('/loki/api/v1/push', ours, { 'content-type': 'application/x-protobuf' })).status).toBe(204);
    const lines = logsOf(srv.orgId, 'loki-pb').flatMap((s) => s.messages);
    expect(lines.sort()).toEqual(['protobuf line', 'second']);
  });

  it('rejects undecodable bodies with 400 and stores nothing', async () => {
    const before = srv.service.storage.metrics(srv.orgId).select([], -Infinity, Infinity).length;
    for (const [path, type, body] of [
      ['/v1/logs', 'application/x-protobuf', new Uint8Array([0x0a, 0xff, 0xff])],
      ['/v1/logs', 'application/json', '{"resourceLogs": [}'],
      ['/v1/metrics', 'application/json', 'nope'],
      ['/api/v1/write', 'application/x-protobuf', new Uint8Array([1, 2, 3, 4, 5])],
      ['/loki/api/v1/push', 'application/json', '{"streams": 5}'],
    ] as const) {
      const res = await post(path, body, { 'content-type': type });
      expect(res.status, path).toBe(400);
      expect(((await res.json()) as { code: string }).code).toBe('BAD_REQUEST');
    }
    const gzipBomb = gzipSync(Buffer.alloc(20 * 1024 * 1024));
    const bomb = await post('/v1/logs', gzipBomb, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
    expect(bomb.status).toBe(413);
    expect(srv.service.storage.metrics(srv.orgId).select([], -Infinity, Infinity).length).toBe(before);
  });

  it('keeps two orgs with identical data apart', async () => {
    const other = await srv.admin.createOrg('other-org');
    const { key } = await srv.admin.createKey(other.id);
    await new Promise((r) => setTimeout(r, 50));
    const body = (v: number) =>
      encodeRemoteWriteBody({ timeseries: [{ labels: [{ name: '__name__', value: 'shared_name' }, { name: 'a', value: 'b' }], samples: [{ value: v, timestamp: NOW_MS }] }] });
    expect((await post('/api/v1/write', body(1), {})).status).toBe(204);
    expect((await post('/api/v1/write', body(2), {}, key)).status).toBe(204);
    const sel = [{ name: '__name__', type: '=' as const, value: 'shared_name' }];
    expect(srv.service.storage.metrics(srv.orgId).select(sel, -Infinity, Infinity).map((s) => s.values[0])).toEqual([1]);
    expect(srv.service.storage.metrics(other.id).select(sel, -Infinity, Infinity).map((s) => s.values[0])).toEqual([2]);
  });

  it('refuses ingestion with the system key, which has no org', async () => {
    const sys = await startTestServer({ SVC_MCP_API_KEY: 'system-key-for-ingest-tests-0123456789abcdef' });
    try {
      const res = await fetch(`${sys.url}/loki/api/v1/push`, { method: 'POST', body: '{"streams":[]}', headers: { 'x-svc-api-key': 'system-key-for-ingest-tests-0123456789abcdef', 'content-type': 'application/json' } });
      expect(res.status).toBe(403);
    } finally {
      await sys.stop();
    }
  });
});
