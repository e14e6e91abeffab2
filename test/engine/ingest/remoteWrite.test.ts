import { describe, expect, it } from 'vitest';
import { decodeRemoteWrite, decodeWriteRequest, IngestError, snappyCompress } from '../../../engine/ingest/index.js';
import type { MetricSeries } from '../../../engine/ingest/index.js';
import { pbEncode, WriteRequest } from './protoTypes.js';

const NOW_MS = Date.UTC(2024, 4, 1, 12, 0, 0);
const T = NOW_MS - 30_000;
/** MARKER is a value no test uses otherwise, replaced by the staleness bits after encoding. */
const MARKER = 987654.321;

const label = (name: string, value: string) => ({ name, value });

/** withStaleMarkers rewrites every MARKER double in `bytes` to 0x7ff0000000000002. */
function withStaleMarkers(bytes: Uint8Array): Uint8Array {
  const probe = new Uint8Array(new Float64Array([MARKER]).buffer);
  const out = bytes.slice();
  for (let i = 0; i + 8 <= out.length; i++) {
    let match = true;
    for (let k = 0; k < 8 && match; k++) match = out[i + k] === probe[k];
    if (match) out.set([0x02, 0, 0, 0, 0, 0, 0xf0, 0x7f], i);
  }
  return out;
}

function realistic(): Record<string, unknown> {
  return {
    timeseries: [
      {
        labels: [label('__name__', 'http_requests_total'), label('job', 'api'), label('instance', 'a:9090'), label('code', '200')],
        samples: [
          { value: 10, timestamp: String(T) },
          { value: 12, timestamp: String(T + 15_000) },
          { value: MARKER, timestamp: String(T + 30_000) },
        ],
        exemplars: [{ labels: [label('trace_id', 'abc')], value: 1, timestamp: String(T) }],
      },
      {
        labels: [label('__name__', 'go_goroutines'), label('job', 'api'), label('empty', '')],
        samples: [{ value: -0.5, timestamp: String(T) }, { value: NaN, timestamp: String(T + 1) }],
      },
      {
        labels: [label('__name__', 'rpc_duration_seconds'), label('job', 'api')],
        histograms: [{ countInt: '3', sum: 1.5, schema: 3, timestamp: String(T) }],
      },
      {
        labels: [label('__name__', 'late_first'), label('job', 'api')],
        samples: [{ value: 2, timestamp: String(T + 10) }, { value: 1, timestamp: String(T) }],
      },
      {
        labels: [label('__name__', 'ancient'), label('job', 'api')],
        samples: [{ value: 1, timestamp: '-1000' }],
      },
    ],
    metadata: [
      { type: 1, metricFamilyName: 'http_requests_total', help: 'Requests.', unit: '' },
      { type: 2, metricFamilyName: 'go_goroutines', help: 'Goroutines.' },
      { type: 3, metricFamilyName: 'rpc_duration_seconds', unit: 'seconds' },
      { type: 4, metricFamilyName: 'gh' },
      { type: 5, metricFamilyName: 's' },
      { type: 6, metricFamilyName: 'i' },
      { type: 7, metricFamilyName: 'st' },
      { type: 0, metricFamilyName: 'u' },
    ],
  };
}

function encodeBody(request: Record<string, unknown>, verify = true): Uint8Array {
  return snappyCompress(withStaleMarkers(pbEncode(WriteRequest, request, verify)));
}

describe('decodeRemoteWrite', () => {
  it('decodes a snappy-compressed WriteRequest encoded by protobufjs', () => {
    const result = decodeRemoteWrite(encodeBody(realistic()), { nowMs: NOW_MS });
    // A timestamp before 1970 is refused on its own, as out of bounds.
    expect(result.rejected).toBe(1);
    expect(result.discarded).toEqual({ invalid_timestamp: 1 });
    expect(result.errors).toEqual(['series {__name__="ancient", job="api"}: 1 sample rejected: timestamp 1969-12-31T23:59:59.000Z is before 1970']);
    expect(result.histogramsSent).toBe(1);
    expect(result.histogramSamples).toBe(1);
    expect(result.exemplarsSent).toBe(1);
    expect(result.exemplars).toEqual([{ seriesLabels: { __name__: 'http_requests_total', code: '200', instance: 'a:9090', job: 'api' }, exemplars: [{ labels: { trace_id: 'abc' }, value: 1, timestampMs: T }] }]);
    expect(result.records).toHaveLength(4);
    const [requests, goroutines, rpc, lateFirst] = result.records;
    // The native histogram is kept as a sample of its series with its histogram beside it.
    expect(rpc.labels).toEqual({ __name__: 'rpc_duration_seconds', job: 'api' });
    expect(Array.from(rpc.timestampsMs)).toEqual([T]);
    expect(rpc.histograms).toMatchObject([{ count: 3, sum: 1.5, schema: 3 }]);
    expect(requests.labels).toEqual({ __name__: 'http_requests_total', code: '200', instance: 'a:9090', job: 'api' });
    expect(Object.keys(requests.labels)).toEqual(['__name__', 'code', 'instance', 'job']);
    expect(Array.from(requests.timestampsMs)).toEqual([T, T + 15_000, T + 30_000]);
    expect(Array.from(requests.values.subarray(0, 2))).toEqual([10, 12]);
    expect(Number.isNaN(requests.values[2])).toBe(true);
    expect(Array.from(requests.stale!)).toEqual([0, 0, 1]);
    // an empty label value is the same as no label; a plain NaN is a value, not a staleness marker
    expect(goroutines.labels).toEqual({ __name__: 'go_goroutines', job: 'api' });
    expect(goroutines.values[0]).toBe(-0.5);
    expect(Number.isNaN(goroutines.values[1])).toBe(true);
    expect(goroutines.stale).toBeUndefined();
    // samples are returned in time order
    expect(Array.from(lateFirst.timestampsMs)).toEqual([T, T + 10]);
    expect(Array.from(lateFirst.values)).toEqual([1, 2]);
    expect(result.metadata).toEqual([
      { name: 'http_requests_total', type: 'counter', unit: '', help: 'Requests.' },
      { name: 'go_goroutines', type: 'gauge', unit: '', help: 'Goroutines.' },
      { name: 'rpc_duration_seconds', type: 'histogram', unit: 'seconds', help: '' },
      { name: 'gh', type: 'gaugehistogram', unit: '', help: '' },
      { name: 's', type: 'summary', unit: '', help: '' },
      { name: 'i', type: 'info', unit: '', help: '' },
      { name: 'st', type: 'stateset', unit: '', help: '' },
      { name: 'u', type: 'unknown', unit: '', help: '' },
    ]);
  });

  it('rejects invalid series, counting their samples, and keeps the valid ones', () => {
    const two = [{ value: 1, timestamp: String(T) }, { value: 2, timestamp: String(T + 1) }];
    const request = {
      timeseries: [
        { labels: [label('job', 'api')], samples: two },
        { labels: [label('__name__', 'x'), label('job', 'a'), label('job', 'b')], samples: two },
        { labels: [label('__name__', 'x'), label('', 'v')], samples: two },
        { labels: [label('__name__', 'ok'), label('zone', 'eu'), label('az', '1')], samples: two },
        { labels: [label('__name__', 'x'), label('job', 'a'), label('job', '')], samples: two },
        { labels: [label('__name__', 'x'), label('v', 'y'.repeat(17000))], samples: two },
        {
          labels: [label('__name__', 'mixed')],
          samples: [
            { value: 1, timestamp: String(T) },
            { value: 2, timestamp: String(NOW_MS + 3_600_000) },
            { value: 3, timestamp: String(NOW_MS + 7_200_000) },
          ],
        },
        { labels: [label('__name__', 'service.requests'), label('http.method', 'GET')], samples: two },
        { labels: [label('__name__', 'odd'), label('__proto__', 'kept')], samples: two },
      ],
    };
    const result = decodeRemoteWrite(encodeBody(request), { nowMs: NOW_MS });
    expect(result.records.map((s) => s.labels)).toEqual([
      { __name__: 'ok', az: '1', zone: 'eu' },
      { __name__: 'mixed' },
      { __name__: 'service.requests', 'http.method': 'GET' },
      JSON.parse('{"__name__":"odd","__proto__":"kept"}'),
    ]);
    expect(Object.keys(result.records[3].labels)).toEqual(['__name__', '__proto__']);
    expect(Array.from(result.records[1].values)).toEqual([1]);
    expect(result.rejected).toBe(12);
    expect(result.discarded).toEqual({ invalid_labels: 8, label_value_too_long: 2, too_far_in_future: 2 });
    expect(result.errors).toEqual([
      'series {job="api"}: missing metric name (__name__ label)',
      'series {__name__="x", job="b"}: duplicate label name "job"',
      'series {__name__="x", ="v"}: empty label name',
      'series {__name__="x", job=""}: duplicate label name "job"',
      expect.stringMatching(/^series \{__name__="x", v="y{60}"…\}: value of label "v" is 17000 characters long/),
      'series {__name__="mixed"}: 2 samples rejected, the first because: timestamp 2024-05-01T13:00:00.000Z is too new: 3600s in the future, over the allowed skew of 600s',
    ]);
  });

  it('rejects labels that are not valid UTF-8', () => {
    // Built by hand: protobufjs would re-encode strings as valid UTF-8.
    const name = [0x0a, 0x08, ...new TextEncoder().encode('__name__'), 0x12, 0x02, 0x6f, 0x6b];
    const bad = [0x0a, 0x01, 0x78, 0x12, 0x02, 0xc3, 0x28];
    const sample = [0x09, ...new Uint8Array(new Float64Array([1]).buffer), 0x10, 0x01];
    const series = [0x0a, name.length, ...name, 0x0a, bad.length, ...bad, 0x12, sample.length, ...sample];
    const body = new Uint8Array([0x0a, series.length, ...series]);
    const result = decodeWriteRequest(body, { nowMs: NOW_MS });
    expect(result.records).toEqual([]);
    expect(result.rejected).toBe(1);
    expect(result.errors[0]).toMatch(/label name or value is not valid UTF-8/);
  });

  it('accepts many series with many samples', () => {
    const timeseries = Array.from({ length: 200 }, (_, i) => ({
      labels: [label('__name__', 'load'), label('host', `h${i}`)],
      samples: Array.from({ length: 300 }, (_, k) => ({ value: i + k / 1000, timestamp: String(T - 300_000 + k * 1000) })),
    }));
    const result = decodeRemoteWrite(encodeBody({ timeseries }, false), { nowMs: NOW_MS });
    expect(result.records).toHaveLength(200);
    const last: MetricSeries = result.records[199];
    expect(last.labels).toEqual({ __name__: 'load', host: 'h199' });
    expect(last.values.length).toBe(300);
    expect(last.values[299]).toBe(199.299);
    expect(last.timestampsMs[299]).toBe(T - 1000);
  });

  it('throws BAD_REQUEST for bodies that are not snappy or not a WriteRequest', () => {
    const raw = pbEncode(WriteRequest, realistic());
    expect(() => decodeRemoteWrite(raw, { nowMs: NOW_MS })).toThrow(/^invalid remote write body: snappy: /);
    const truncated = snappyCompress(raw.subarray(0, raw.length - 5));
    try {
      decodeRemoteWrite(truncated, { nowMs: NOW_MS });
      throw new Error('expected failure');
    } catch (err) {
      expect(err).toBeInstanceOf(IngestError);
      expect((err as IngestError).code).toBe('BAD_REQUEST');
      expect((err as Error).message).toMatch(/^invalid remote write WriteRequest protobuf: protobuf: /);
    }
  });

  it('refuses bodies that decompress past the limit', () => {
    const body = encodeBody(realistic());
    try {
      decodeRemoteWrite(body, { nowMs: NOW_MS, maxDecompressedBytes: 64 });
      throw new Error('expected failure');
    } catch (err) {
      expect((err as IngestError).code).toBe('PAYLOAD_TOO_LARGE');
    }
  });
});
