/**
 * Ingestion decoder benchmarks: OTLP log lines per second (protobuf and JSON), remote-write
 * samples per second (snappy included), Loki push lines per second, and the hand-written
 * protobuf decoding against protobufjs on the same payloads. Payloads are built with Sluice's
 * own encoders, shaped like what an OpenTelemetry Collector, Prometheus and Promtail send.
 *
 * Run: npx tsc -p tsconfig.json && node dist/bench/ingest/ingest.bench.js
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import protobuf from 'protobufjs';
import { Bench } from 'tinybench';
import {
  decodeLokiPush,
  decodeOtlpLogs,
  decodeOtlpMetrics,
  decodeRemoteWrite,
  decodeWriteRequest,
  SeriesLabelCache,
  encodeExportLogsServiceRequest,
  encodeExportMetricsServiceRequest,
  encodeLokiPushBody,
  encodeRemoteWriteBody,
  encodeWriteRequest,
  snappyCompress,
  snappyDecompress,
  AGGREGATION_TEMPORALITY,
} from '../../engine/ingest/index.js';
import type {
  ExportLogsServiceRequestInput,
  ExportMetricsServiceRequestInput,
  LogRecordInput,
  PushRequestInput,
  WriteRequestInput,
} from '../../engine/ingest/index.js';
import { runWhenDirect } from '../runDirect.js';
import { taskHz } from '../taskResult.js';

const LOG_LINES = 5000;
const RW_SERIES = 2000;
const RW_SAMPLES_PER_SERIES = 10;
const NOW_MS = Date.UTC(2024, 4, 1, 12, 0, 0);
const BASE_NS = BigInt(NOW_MS - 60_000) * 1_000_000n;
const LEVELS = ['INFO', 'INFO', 'INFO', 'DEBUG', 'WARN', 'ERROR'];
const ROUTES = ['/api/v1/items', '/api/v1/cart', '/healthz', '/api/v1/checkout', '/login'];

/** logsRequest is a collector-shaped batch: 5 services, 1000 records each. */
function logsRequest(): ExportLogsServiceRequestInput {
  const perService = LOG_LINES / 5;
  return {
    resourceLogs: Array.from({ length: 5 }, (_, s) => ({
      resource: {
        attributes: [
          { key: 'service.name', value: { stringValue: `svc-${s}` } },
          { key: 'service.namespace', value: { stringValue: 'shop' } },
          { key: 'k8s.pod.name', value: { stringValue: `svc-${s}-7d9f8b6c4-x2k${s}q` } },
          { key: 'k8s.namespace.name', value: { stringValue: 'prod' } },
          { key: 'host.name', value: { stringValue: `node-${s % 3}` } },
        ],
      },
      scopeLogs: [
        {
          scope: { name: 'io.opentelemetry.logback', version: '2.1.0' },
          logRecords: Array.from({ length: perService }, (_, i): LogRecordInput => {
            const n = s * perService + i;
            return {
              timeUnixNano: BASE_NS + BigInt(n) * 1_000_000n,
              observedTimeUnixNano: BASE_NS + BigInt(n) * 1_000_000n + 5000n,
              severityText: LEVELS[n % LEVELS.length],
              severityNumber: 9,
              body: {
                stringValue: `GET ${ROUTES[n % ROUTES.length]}?page=${n % 50} completed with status ${200 + (n % 3)} in ${n % 900}ms user=u-${n % 1000}`,
              },
              attributes: [
                { key: 'http.request.method', value: { stringValue: 'GET' } },
                { key: 'http.route', value: { stringValue: ROUTES[n % ROUTES.length] } },
                { key: 'http.response.status_code', value: { intValue: 200 + (n % 3) } },
                { key: 'thread.name', value: { stringValue: `worker-${n % 16}` } },
              ],
              traceId: new Uint8Array(16).map((_, k) => (n * 31 + k) & 0xff),
              spanId: new Uint8Array(8).map((_, k) => (n * 17 + k) & 0xff),
              flags: 1,
            };
          }),
        },
      ],
    })),
  };
}

const hex = (b: Uint8Array | undefined) => (b ? Buffer.from(b).toString('hex') : undefined);

/** logsJson renders the same batch in OTLP/JSON. */
function logsJson(req: ExportLogsServiceRequestInput): Uint8Array {
  const text = JSON.stringify(req, (key, value: unknown) => {
    if (typeof value === 'bigint') return value.toString();
    if (value instanceof Uint8Array) return key === 'traceId' || key === 'spanId' ? hex(value) : Buffer.from(value).toString('base64');
    return value;
  });
  return new TextEncoder().encode(text);
}

export function remoteWriteRequest(): WriteRequestInput {
  return {
    timeseries: Array.from({ length: RW_SERIES }, (_, i) => ({
      labels: [
        { name: '__name__', value: i % 2 === 0 ? 'http_requests_total' : 'process_cpu_seconds_total' },
        { name: 'code', value: String(200 + (i % 5)) },
        { name: 'instance', value: `10.0.${i % 256}.${i % 7}:9100` },
        { name: 'job', value: 'node' },
        { name: 'path', value: ROUTES[i % ROUTES.length] },
      ],
      samples: Array.from({ length: RW_SAMPLES_PER_SERIES }, (_, k) => ({
        value: i * 100 + k * 1.5,
        timestamp: NOW_MS - 150_000 + k * 15_000,
      })),
    })),
  };
}

function lokiRequest(): PushRequestInput {
  return {
    streams: Array.from({ length: 50 }, (_, s) => ({
      labels: { app: `app-${s % 10}`, env: 'prod', namespace: 'shop', pod: `pod-${s}`, level: s % 5 === 0 ? 'error' : 'info' },
      entries: Array.from({ length: LOG_LINES / 50 }, (_, i) => ({
        timestampNs: BASE_NS + BigInt(s * 1000 + i) * 1_000_000n,
        line: `ts=2024-05-01T12:00:${String(i % 60).padStart(2, '0')}Z caller=handler.go:${i % 400} msg="request served" path=${ROUTES[i % ROUTES.length]} duration=${i % 900}ms`,
        structuredMetadata: i % 4 === 0 ? { trace_id: `t-${s}-${i}` } : undefined,
      })),
    })),
  };
}

function metricsRequest(): ExportMetricsServiceRequestInput {
  const t = BASE_NS;
  return {
    resourceMetrics: Array.from({ length: 10 }, (_, r) => ({
      resource: { attributes: [{ key: 'service.name', value: { stringValue: `svc-${r}` } }, { key: 'host.name', value: { stringValue: 'h' } }] },
      scopeMetrics: [
        {
          metrics: [
            {
              name: 'http.server.request.duration',
              unit: 's',
              histogram: {
                aggregationTemporality: AGGREGATION_TEMPORALITY.CUMULATIVE,
                dataPoints: ROUTES.map((route, i) => ({
                  timeUnixNano: t,
                  attributes: [{ key: 'http.route', value: { stringValue: route } }],
                  count: 100 + i,
                  sum: 12.5,
                  explicitBounds: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
                  bucketCounts: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 30 + i],
                })),
              },
            },
            {
              name: 'http.server.requests',
              sum: {
                aggregationTemporality: AGGREGATION_TEMPORALITY.CUMULATIVE,
                isMonotonic: true,
                dataPoints: ROUTES.map((route, i) => ({ timeUnixNano: t, asInt: 1000 + i, attributes: [{ key: 'http.route', value: { stringValue: route } }] })),
              },
            },
          ],
        },
      ],
    })),
  };
}

/** findFixtures locates the .proto fixtures from the source tree or from dist/. */
export function findFixtures(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    const candidate = path.join(dir, 'test', 'engine', 'ingest', 'fixtures');
    if (existsSync(candidate)) return candidate;
    dir = path.dirname(dir);
  }
  throw new Error('cannot find test/engine/ingest/fixtures');
}

function loadProtobufjsTypes(): { logs: protobuf.Type; write: protobuf.Type } {
  const fixtures = findFixtures();
  const root = new protobuf.Root();
  root.resolvePath = (_origin, target) => (path.isAbsolute(target) ? target : path.join(fixtures, target));
  root.loadSync(['opentelemetry/proto/collector/logs/v1/logs_service.proto', 'prometheus/remote.proto']);
  return {
    logs: root.lookupType('opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest'),
    write: root.lookupType('prometheus.WriteRequest'),
  };
}

function fmt(n: number): string {
  return n >= 1e6 ? `${(n / 1e6).toFixed(2)}M` : n >= 1e3 ? `${(n / 1e3).toFixed(1)}k` : n.toFixed(1);
}

/** main runs the benchmarks and prints throughput per format. */
export async function main(): Promise<void> {
  const logs = logsRequest();
  const otlpProto = encodeExportLogsServiceRequest(logs);
  const otlpJson = logsJson(logs);
  const rwRequest = remoteWriteRequest();
  const rwRaw = encodeWriteRequest(rwRequest);
  const rwBody = encodeRemoteWriteBody(rwRequest);
  const lokiBody = encodeLokiPushBody(lokiRequest());
  const metricsBody = encodeExportMetricsServiceRequest(metricsRequest());
  const pbjs = loadProtobufjsTypes();
  const opts = { nowMs: NOW_MS };
  // A sender repeats its series in every request: the cache is warm after the first.
  const cachedOpts = { nowMs: NOW_MS, labelCache: new SeriesLabelCache() };

  // Sanity: every payload decodes fully before it is timed.
  const checks: Array<[string, number, number]> = [
    ['otlp protobuf', decodeOtlpLogs(otlpProto, 'application/x-protobuf', opts).records.length, LOG_LINES],
    ['otlp json', decodeOtlpLogs(otlpJson, 'application/json', opts).records.length, LOG_LINES],
    ['remote write', decodeRemoteWrite(rwBody, opts).records.length, RW_SERIES],
    ['loki', decodeLokiPush(lokiBody, 'application/x-protobuf', opts).records.length, LOG_LINES],
  ];
  for (const [name, got, want] of checks) if (got !== want) throw new Error(`${name}: decoded ${got}, expected ${want}`);

  const bench = new Bench({ time: 1500, warmupTime: 300 });
  bench
    .add('otlp logs protobuf', () => void decodeOtlpLogs(otlpProto, 'application/x-protobuf', opts))
    .add('otlp logs json', () => void decodeOtlpLogs(otlpJson, 'application/json', opts))
    .add('protobufjs otlp logs decode', () => void pbjs.logs.decode(otlpProto))
    .add('remote write (snappy + decode)', () => void decodeRemoteWrite(rwBody, opts))
    .add('remote write decode only', () => void decodeWriteRequest(rwRaw, opts))
    .add('remote write decode only, labels cached', () => void decodeWriteRequest(rwRaw, cachedOpts))
    .add('protobufjs remote write decode', () => void pbjs.write.decode(rwRaw))
    .add('snappy decompress (remote write)', () => void snappyDecompress(rwBody))
    .add('snappy compress (remote write)', () => void snappyCompress(rwRaw))
    .add('loki push protobuf (snappy + decode)', () => void decodeLokiPush(lokiBody, 'application/x-protobuf', opts))
    .add('otlp metrics protobuf', () => void decodeOtlpMetrics(metricsBody, 'application/x-protobuf', opts));
  await bench.run();

  const samples = RW_SERIES * RW_SAMPLES_PER_SERIES;
  const rows = [
    ['OTLP logs, protobuf', `${fmt(taskHz(bench, 'otlp logs protobuf') * LOG_LINES)} lines/s`, `${otlpProto.length} B/request`],
    ['OTLP logs, JSON', `${fmt(taskHz(bench, 'otlp logs json') * LOG_LINES)} lines/s`, `${otlpJson.length} B/request`],
    ['Remote write (snappy + decode)', `${fmt(taskHz(bench, 'remote write (snappy + decode)') * samples)} samples/s`, `${rwBody.length} B/request`],
    ['Remote write (decode only)', `${fmt(taskHz(bench, 'remote write decode only') * samples)} samples/s`, `${rwRaw.length} B raw`],
    ['Remote write (labels cached)', `${fmt(taskHz(bench, 'remote write decode only, labels cached') * samples)} samples/s`, 'series repeated from an earlier request'],
    ['Snappy decompress', `${fmt((taskHz(bench, 'snappy decompress (remote write)') * rwRaw.length) / 1e6)} MB/s out`, ''],
    ['Snappy compress', `${fmt((taskHz(bench, 'snappy compress (remote write)') * rwRaw.length) / 1e6)} MB/s in`, `ratio ${(rwRaw.length / rwBody.length).toFixed(2)}`],
    ['Loki push, protobuf', `${fmt(taskHz(bench, 'loki push protobuf (snappy + decode)') * LOG_LINES)} lines/s`, `${lokiBody.length} B/request`],
    ['OTLP metrics, protobuf', `${fmt(taskHz(bench, 'otlp metrics protobuf'))} requests/s`, `${metricsBody.length} B/request`],
  ];
  console.log('\nIngestion decoders');
  for (const [name, rate, note] of rows) console.log(`  ${name.padEnd(32)} ${rate.padStart(18)}   ${note}`);

  const otlpRatio = taskHz(bench, 'otlp logs protobuf') / taskHz(bench, 'protobufjs otlp logs decode');
  const rwRatio = taskHz(bench, 'remote write decode only') / taskHz(bench, 'protobufjs remote write decode');
  console.log('\nHand-written reader vs protobufjs (same bytes; ours also normalizes and validates)');
  console.log(`  OTLP logs request     ours/protobufjs = ${otlpRatio.toFixed(2)}x`);
  console.log(`  remote write request  ours/protobufjs = ${rwRatio.toFixed(2)}x`);
  const cachedRatio = taskHz(bench, 'remote write decode only') / taskHz(bench, 'remote write decode only, labels cached');
  console.log(`  remote write, labels cached: time against uncached = ${cachedRatio.toFixed(2)}x`);
  console.log('');
  console.table(bench.table());
}

runWhenDirect(import.meta.url, main);
