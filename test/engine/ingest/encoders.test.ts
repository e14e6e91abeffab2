import { describe, expect, it } from 'vitest';
import {
  AGGREGATION_TEMPORALITY,
  decodeLokiPush,
  decodeOtlpLogs,
  decodeOtlpMetrics,
  decodeRemoteWrite,
  encodeExportLogsServiceRequest,
  encodeExportMetricsServiceRequest,
  encodeExportResponse,
  encodeLokiPushBody,
  encodePushRequest,
  encodeRemoteWriteBody,
  encodeWriteRequest,
  exportResponseJson,
  formatStreamSelector,
  lokiPushJson,
  ProtoWriter,
  snappyDecompress,
} from '../../../engine/ingest/index.js';
import type { ExportLogsServiceRequestInput, ExportMetricsServiceRequestInput } from '../../../engine/ingest/index.js';
import {
  ExportLogsServiceRequest,
  ExportLogsServiceResponse,
  ExportMetricsServiceRequest,
  ExportMetricsServiceResponse,
  pbDecode,
  PushRequest,
  WriteRequest,
} from './protoTypes.js';

const NOW_MS = Date.UTC(2024, 4, 1, 12, 0, 0);
const T_NS = BigInt(NOW_MS - 1000) * 1_000_000n + 42n;

const logsRequest: ExportLogsServiceRequestInput = {
  resourceLogs: [
    {
      resource: { attributes: [{ key: 'service.name', value: { stringValue: 'gen' } }] },
      scopeLogs: [
        {
          scope: { name: 'sluice-gen', version: '0.1.0' },
          logRecords: [
            {
              timeUnixNano: T_NS,
              observedTimeUnixNano: T_NS + 5n,
              severityNumber: 13,
              severityText: 'WARN',
              body: { stringValue: 'é'.repeat(100) },
              attributes: [
                { key: 'count', value: { intValue: -7 } },
                { key: 'big', value: { intValue: 2n ** 62n } },
                { key: 'ok', value: { boolValue: true } },
                { key: 'ratio', value: { doubleValue: 0.5 } },
                { key: 'list', value: { arrayValue: { values: [{ stringValue: 'a' }] } } },
                { key: 'map', value: { kvlistValue: { values: [{ key: 'k', value: { stringValue: 'v' } }] } } },
                { key: 'bin', value: { bytesValue: new Uint8Array([255, 0]) } },
              ],
              traceId: new Uint8Array(16).fill(0xab),
              spanId: new Uint8Array(8).fill(0xcd),
              flags: 1,
              eventName: 'evt',
            },
          ],
        },
      ],
    },
  ],
};

describe('OTLP logs encoder', () => {
  it('produces bytes protobufjs decodes to the same request', () => {
    const bytes = encodeExportLogsServiceRequest(logsRequest);
    const decoded = pbDecode(ExportLogsServiceRequest, bytes) as {
      resourceLogs: Array<{ scopeLogs: Array<{ scope: unknown; logRecords: Array<Record<string, unknown>> }> }>;
    };
    const rec = decoded.resourceLogs[0].scopeLogs[0].logRecords[0];
    expect(decoded.resourceLogs[0].scopeLogs[0].scope).toEqual({ name: 'sluice-gen', version: '0.1.0' });
    expect(rec.timeUnixNano).toBe(T_NS.toString());
    expect(rec.observedTimeUnixNano).toBe((T_NS + 5n).toString());
    expect(rec.severityNumber).toBe(13);
    expect(rec.severityText).toBe('WARN');
    expect(rec.body).toEqual({ stringValue: 'é'.repeat(100) });
    expect(rec.attributes).toEqual([
      { key: 'count', value: { intValue: '-7' } },
      { key: 'big', value: { intValue: (2n ** 62n).toString() } },
      { key: 'ok', value: { boolValue: true } },
      { key: 'ratio', value: { doubleValue: 0.5 } },
      { key: 'list', value: { arrayValue: { values: [{ stringValue: 'a' }] } } },
      { key: 'map', value: { kvlistValue: { values: [{ key: 'k', value: { stringValue: 'v' } }] } } },
      { key: 'bin', value: { bytesValue: Buffer.from([255, 0]).toString('base64') } },
    ]);
    expect(rec.traceId).toBe(Buffer.alloc(16, 0xab).toString('base64'));
    expect(rec.spanId).toBe(Buffer.alloc(8, 0xcd).toString('base64'));
    expect(rec.flags).toBe(1);
    expect(rec.eventName).toBe('evt');
  });

  it('round-trips through the decoder', () => {
    const result = decodeOtlpLogs(encodeExportLogsServiceRequest(logsRequest), 'application/x-protobuf', { nowMs: NOW_MS });
    expect(result.records).toEqual([
      {
        timestampNs: T_NS,
        message: 'é'.repeat(100),
        level: 'warn',
        tags: {
          service_name: 'gen',
          scope_name: 'sluice-gen',
          scope_version: '0.1.0',
          count: '-7',
          big: (2n ** 62n).toString(),
          ok: 'true',
          ratio: '0.5',
          list: '["a"]',
          map_k: 'v',
          bin: '/wA=',
          trace_id: 'ab'.repeat(16),
          span_id: 'cd'.repeat(8),
          event_name: 'evt',
        },
      },
    ]);
  });
});

const metricsRequest: ExportMetricsServiceRequestInput = {
  resourceMetrics: [
    {
      resource: { attributes: [{ key: 'service.name', value: { stringValue: 'gen' } }] },
      scopeMetrics: [
        {
          scope: { name: 'gen' },
          metrics: [
            { name: 'g', unit: 'By', gauge: { dataPoints: [{ timeUnixNano: T_NS, asInt: -5, attributes: [{ key: 'a', value: { stringValue: 'b' } }] }] } },
            {
              name: 'c',
              sum: {
                aggregationTemporality: AGGREGATION_TEMPORALITY.CUMULATIVE,
                isMonotonic: true,
                dataPoints: [{ startTimeUnixNano: T_NS - 10n, timeUnixNano: T_NS, asDouble: 2.5 }],
              },
            },
            {
              name: 'h',
              histogram: {
                aggregationTemporality: AGGREGATION_TEMPORALITY.CUMULATIVE,
                dataPoints: [{ timeUnixNano: T_NS, count: 3, sum: 0, bucketCounts: [1, 2], explicitBounds: [0.5], min: 0, max: 1 }],
              },
            },
            {
              name: 'e',
              exponentialHistogram: {
                aggregationTemporality: AGGREGATION_TEMPORALITY.CUMULATIVE,
                dataPoints: [
                  {
                    timeUnixNano: T_NS,
                    count: 4,
                    scale: -1,
                    zeroCount: 1,
                    zeroThreshold: 0.001,
                    positive: { offset: -2, bucketCounts: [1, 1] },
                    negative: { offset: 3, bucketCounts: [1] },
                  },
                ],
              },
            },
            {
              name: 's',
              summary: { dataPoints: [{ timeUnixNano: T_NS, count: 2, sum: 3, quantileValues: [{ quantile: 0.5, value: 1 }], flags: 1 }] },
            },
          ],
        },
      ],
    },
  ],
};

describe('OTLP metrics encoder', () => {
  it('produces bytes protobufjs decodes to the same request', () => {
    const decoded = pbDecode(ExportMetricsServiceRequest, encodeExportMetricsServiceRequest(metricsRequest)) as {
      resourceMetrics: Array<{ scopeMetrics: Array<{ metrics: Array<Record<string, unknown>> }> }>;
    };
    const [g, c, h, e, s] = decoded.resourceMetrics[0].scopeMetrics[0].metrics;
    const t = T_NS.toString();
    expect(g).toEqual({ name: 'g', unit: 'By', gauge: { dataPoints: [{ timeUnixNano: t, asInt: '-5', attributes: [{ key: 'a', value: { stringValue: 'b' } }] }] } });
    expect(c).toEqual({
      name: 'c',
      sum: { aggregationTemporality: 2, isMonotonic: true, dataPoints: [{ startTimeUnixNano: (T_NS - 10n).toString(), timeUnixNano: t, asDouble: 2.5 }] },
    });
    expect(h).toEqual({
      name: 'h',
      histogram: {
        aggregationTemporality: 2,
        dataPoints: [{ timeUnixNano: t, count: '3', sum: 0, bucketCounts: ['1', '2'], explicitBounds: [0.5], min: 0, max: 1 }],
      },
    });
    expect(e).toEqual({
      name: 'e',
      exponentialHistogram: {
        aggregationTemporality: 2,
        dataPoints: [
          {
            timeUnixNano: t,
            count: '4',
            scale: -1,
            zeroCount: '1',
            zeroThreshold: 0.001,
            positive: { offset: -2, bucketCounts: ['1', '1'] },
            negative: { offset: 3, bucketCounts: ['1'] },
          },
        ],
      },
    });
    expect(s).toEqual({ name: 's', summary: { dataPoints: [{ timeUnixNano: t, count: '2', sum: 3, quantileValues: [{ quantile: 0.5, value: 1 }], flags: 1 }] } });
  });

  it('round-trips through the decoder', () => {
    const result = decodeOtlpMetrics(encodeExportMetricsServiceRequest(metricsRequest), 'application/x-protobuf', { nowMs: NOW_MS, exponentialHistograms: 'classic' });
    const ms = NOW_MS - 1000;
    const byName = new Map(result.records.map((r) => [`${r.labels.__name__}|${r.labels.le ?? r.labels.quantile ?? ''}`, r]));
    expect(byName.get('g_bytes|')!.labels).toEqual({ __name__: 'g_bytes', a: 'b', job: 'gen' });
    expect(Array.from(byName.get('g_bytes|')!.values)).toEqual([-5]);
    expect(Array.from(byName.get('c_total|')!.values)).toEqual([2.5]);
    expect(Array.from(byName.get('h_bucket|0.5')!.values)).toEqual([1]);
    expect(Array.from(byName.get('h_bucket|+Inf')!.values)).toEqual([3]);
    expect(Array.from(byName.get('h_sum|')!.values)).toEqual([0]);
    // scale -1 (base 4): negative index 3 -> le -64; zero bucket le 0.001; positive -2, -1 -> le 1/4, 1
    expect(Array.from(byName.get('e_bucket|-64')!.values)).toEqual([1]);
    expect(Array.from(byName.get('e_bucket|0.001')!.values)).toEqual([2]);
    expect(Array.from(byName.get('e_bucket|0.25')!.values)).toEqual([3]);
    expect(Array.from(byName.get('e_bucket|1')!.values)).toEqual([4]);
    expect(byName.has('e_sum|')).toBe(false);
    expect(Array.from(byName.get('s|0.5')!.stale!)).toEqual([1]);
    expect(byName.get('s_count|')!.timestampsMs[0]).toBe(ms);
  });
});

describe('remote write encoder', () => {
  const request = {
    timeseries: [
      {
        labels: [{ name: '__name__', value: 'up' }, { name: 'job', value: 'gen' }],
        samples: [
          { value: 1, timestamp: NOW_MS - 2000 },
          { value: 0, timestamp: NOW_MS - 1000, stale: true },
        ],
      },
    ],
    metadata: [{ type: 'gauge' as const, metricFamilyName: 'up', help: 'Up.', unit: '' }],
  };

  it('produces a WriteRequest protobufjs decodes, with exact staleness bits', () => {
    const bytes = encodeWriteRequest(request);
    const decoded = pbDecode(WriteRequest, bytes) as { timeseries: Array<{ samples: Array<{ value: number; timestamp: string }> }> };
    expect(decoded.timeseries[0].samples[0]).toEqual({ value: 1, timestamp: String(NOW_MS - 2000) });
    expect(Number.isNaN(decoded.timeseries[0].samples[1].value)).toBe(true);
    expect(decoded).toMatchObject({ metadata: [{ type: 2, metricFamilyName: 'up', help: 'Up.' }] });
    const at = Buffer.from(bytes).indexOf(Buffer.from([0x02, 0, 0, 0, 0, 0, 0xf0, 0x7f]));
    expect(at).toBeGreaterThan(0);
  });

  it('round-trips through snappy and the decoder', () => {
    const body = encodeRemoteWriteBody(request);
    expect(snappyDecompress(body)).toEqual(encodeWriteRequest(request));
    const result = decodeRemoteWrite(body, { nowMs: NOW_MS });
    expect(result.records[0].labels).toEqual({ __name__: 'up', job: 'gen' });
    expect(Array.from(result.records[0].stale!)).toEqual([0, 1]);
    expect(result.metadata).toEqual([{ name: 'up', type: 'gauge', unit: '', help: 'Up.' }]);
  });
});

describe('Loki push encoder', () => {
  const request = {
    streams: [
      {
        labels: { app: 'gen', 'service.name': 'a "quoted" name' },
        entries: [
          { timestampNs: 1714564740123456789n, line: 'hello', structuredMetadata: { trace_id: 't' } },
          { timestampNs: 1714564741000000000n, line: 'world' },
        ],
      },
    ],
  };

  it('formats selectors the strict parser reads back', () => {
    expect(formatStreamSelector(request.streams[0].labels)).toBe('{app="gen", "service.name"="a \\"quoted\\" name"}');
  });

  it('produces a PushRequest protobufjs decodes', () => {
    const decoded = pbDecode(PushRequest, encodePushRequest(request));
    expect(decoded).toEqual({
      streams: [
        {
          labels: '{app="gen", "service.name"="a \\"quoted\\" name"}',
          entries: [
            { timestamp: { seconds: '1714564740', nanos: 123456789 }, line: 'hello', structuredMetadata: [{ name: 'trace_id', value: 't' }] },
            { timestamp: { seconds: '1714564741' }, line: 'world' },
          ],
        },
      ],
    });
  });

  it('round-trips protobuf and JSON forms through the decoder', () => {
    const expected = [
      { timestampNs: 1714564740123456789n, message: 'hello', level: 'unknown', tags: { app: 'gen', service_name: 'a "quoted" name', trace_id: 't', detected_level: 'unknown' } },
      { timestampNs: 1714564741000000000n, message: 'world', level: 'unknown', tags: { app: 'gen', service_name: 'a "quoted" name', detected_level: 'unknown' } },
    ];
    expect(decodeLokiPush(encodeLokiPushBody(request), 'application/x-protobuf', { nowMs: NOW_MS }).records).toEqual(expected);
    const json = new TextEncoder().encode(lokiPushJson(request));
    expect(decodeLokiPush(json, 'application/json', { nowMs: NOW_MS }).records).toEqual(expected);
  });
});

describe('OTLP partial-success responses', () => {
  it('encode in protobuf and JSON', () => {
    expect(pbDecode(ExportLogsServiceResponse, encodeExportResponse(3, 'bad records'))).toEqual({
      partialSuccess: { rejectedLogRecords: '3', errorMessage: 'bad records' },
    });
    expect(pbDecode(ExportMetricsServiceResponse, encodeExportResponse(2, 'x'))).toEqual({
      partialSuccess: { rejectedDataPoints: '2', errorMessage: 'x' },
    });
    expect(encodeExportResponse(0, '')).toEqual(new Uint8Array(0));
    expect(exportResponseJson('logs', 3, 'm')).toEqual({ partialSuccess: { rejectedLogRecords: '3', errorMessage: 'm' } });
    expect(exportResponseJson('metrics', 0, '')).toEqual({});
  });
});

describe('ProtoWriter', () => {
  it('writes canonical lengths for nested messages of every size', () => {
    for (const size of [0, 1, 127, 128, 16383, 16384, 200_000]) {
      const w = new ProtoWriter(8);
      w.message(1, () => w.tag(2, 2).bytes(new Uint8Array(size)));
      const bytes = w.finish();
      const inner = size + 1 + (size < 128 ? 1 : size < 16384 ? 2 : 3);
      const outerLen = inner < 128 ? 1 : inner < 16384 ? 2 : 3;
      expect(bytes.length).toBe(1 + outerLen + inner);
    }
  });

  it('writes short strings whose UTF-8 form needs a two-byte length', () => {
    const text = '€'.repeat(100);
    const w = new ProtoWriter(4);
    w.message(1, () => w.tag(1, 2).string(text));
    const bytes = w.finish();
    expect(bytes.length).toBe(1 + 2 + 1 + 2 + 300);
    expect(pbDecode(PushRequest, bytes)).toEqual({ streams: [{ labels: text }] });
  });
});
