import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import {
  decodeContentEncoding,
  decodeOtlpMetrics,
  DeltaAccumulator,
  IngestError,
} from '../../../engine/ingest/index.js';
import type { DecodeResult, MetricSeries } from '../../../engine/ingest/index.js';
import { ExportMetricsServiceRequest, pbEncode } from './protoTypes.js';

const NOW_MS = Date.UTC(2024, 4, 1, 12, 0, 0);
const T_MS = NOW_MS - 60_000;
const PROTO = 'application/x-protobuf';
const ns = (ms: number) => String(BigInt(ms) * 1_000_000n + 123_456n);
const str = (stringValue: string) => ({ stringValue });
const attrs = (o: Record<string, string>) => Object.entries(o).map(([key, v]) => ({ key, value: str(v) }));

/** seriesText renders a series' identity as `name{a="b",...}` for compact assertions. */
function seriesText(s: MetricSeries): string {
  const { __name__, ...rest } = s.labels;
  const names = Object.keys(rest);
  return `${__name__}{${names.map((n) => `${n}="${rest[n]}"`).join(',')}}`;
}

/** byIdentity maps each series' identity to its [time, value] samples. */
function byIdentity(result: DecodeResult<MetricSeries>): Record<string, Array<[number, number]>> {
  const out: Record<string, Array<[number, number]>> = {};
  for (const s of result.records) {
    out[seriesText(s)] = Array.from(s.timestampsMs, (t, i) => [t, s.values[i]]);
  }
  return out;
}

const resource = {
  attributes: [
    ...attrs({
      'service.name': 'checkout',
      'service.namespace': 'shop',
      'service.instance.id': 'pod-1',
      'host.name': 'node-a',
    }),
    { key: 'host.cpus', value: { intValue: '4' } },
  ],
};

function fullRequest(): Record<string, unknown> {
  return {
    resourceMetrics: [
      {
        resource,
        scopeMetrics: [
          {
            scope: { name: 'otel-js', version: '1.0' },
            metrics: [
              {
                name: 'system.memory.usage',
                unit: 'By',
                description: 'Memory in use',
                gauge: { dataPoints: [{ attributes: attrs({ state: 'used' }), timeUnixNano: ns(T_MS), asInt: '1024' }] },
              },
              {
                name: 'http.server.requests',
                unit: '{request}',
                description: 'Requests served',
                sum: {
                  aggregationTemporality: 2,
                  isMonotonic: true,
                  dataPoints: [
                    { attributes: attrs({ 'http.route': '/a' }), startTimeUnixNano: ns(T_MS - 1000), timeUnixNano: ns(T_MS), asDouble: 10 },
                    { attributes: attrs({ 'http.route': '/b' }), timeUnixNano: ns(T_MS), asDouble: 3 },
                    { attributes: attrs({ 'http.route': '/a' }), timeUnixNano: ns(T_MS - 500), asDouble: 7 },
                  ],
                },
              },
              {
                name: 'queue.length',
                unit: '1',
                sum: { aggregationTemporality: 2, isMonotonic: false, dataPoints: [{ timeUnixNano: ns(T_MS), asInt: '-3' }] },
              },
              {
                name: 'cpu.utilization',
                unit: '1',
                gauge: { dataPoints: [{ timeUnixNano: ns(T_MS), asDouble: 0.5 }] },
              },
              {
                name: 'http.server.request.duration',
                unit: 's',
                description: 'Duration of HTTP server requests',
                histogram: {
                  aggregationTemporality: 2,
                  dataPoints: [
                    {
                      attributes: attrs({ method: 'GET' }),
                      timeUnixNano: ns(T_MS),
                      count: '10',
                      sum: 12.5,
                      bucketCounts: ['1', '2', '3', '4'],
                      explicitBounds: [0.005, 0.1, 1],
                      min: 0.001,
                      max: 4,
                    },
                  ],
                },
              },
              {
                name: 'rpc.latency',
                unit: 'ms',
                exponentialHistogram: {
                  aggregationTemporality: 2,
                  dataPoints: [
                    {
                      timeUnixNano: ns(T_MS),
                      count: '7',
                      sum: 3.5,
                      scale: 0,
                      zeroCount: '1',
                      positive: { offset: 0, bucketCounts: ['1', '2'] },
                      negative: { offset: 1, bucketCounts: ['3'] },
                    },
                  ],
                },
              },
              {
                name: 'rpc.duration',
                unit: 'ms',
                summary: {
                  dataPoints: [
                    {
                      timeUnixNano: ns(T_MS),
                      count: '20',
                      sum: 100,
                      quantileValues: [
                        { quantile: 0.5, value: 1.5 },
                        { quantile: 0.99, value: 9 },
                      ],
                    },
                  ],
                },
              },
              {
                name: 'jobs.active',
                gauge: { dataPoints: [{ timeUnixNano: ns(T_MS + 1000), asDouble: 5, flags: 1 }] },
              },
            ],
          },
        ],
      },
      {
        resource: { attributes: attrs({ 'service.name': 'cart' }) },
        scopeMetrics: [{ metrics: [{ name: 'up', gauge: { dataPoints: [{ timeUnixNano: ns(T_MS), asDouble: 1 }] } }] }],
      },
    ],
  };
}

const ID = 'instance="pod-1",job="shop/checkout"';

function expectFull(result: DecodeResult<MetricSeries>): void {
  expect(result.errors).toEqual([]);
  expect(result.rejected).toBe(0);
  const T = T_MS;
  expect(byIdentity(result)).toEqual({
    [`system_memory_usage_bytes{${ID},state="used"}`]: [[T, 1024]],
    [`http_server_requests_total{http_route="/a",${ID}}`]: [[T - 500, 7], [T, 10]],
    [`http_server_requests_total{http_route="/b",${ID}}`]: [[T, 3]],
    [`queue_length{${ID}}`]: [[T, -3]],
    [`cpu_utilization_ratio{${ID}}`]: [[T, 0.5]],
    [`http_server_request_duration_seconds_bucket{${ID},le="0.005",method="GET"}`]: [[T, 1]],
    [`http_server_request_duration_seconds_bucket{${ID},le="0.1",method="GET"}`]: [[T, 3]],
    [`http_server_request_duration_seconds_bucket{${ID},le="1",method="GET"}`]: [[T, 6]],
    [`http_server_request_duration_seconds_bucket{${ID},le="+Inf",method="GET"}`]: [[T, 10]],
    [`http_server_request_duration_seconds_sum{${ID},method="GET"}`]: [[T, 12.5]],
    [`http_server_request_duration_seconds_count{${ID},method="GET"}`]: [[T, 10]],
    [`rpc_latency_milliseconds_bucket{${ID},le="-2"}`]: [[T, 3]],
    [`rpc_latency_milliseconds_bucket{${ID},le="0"}`]: [[T, 4]],
    [`rpc_latency_milliseconds_bucket{${ID},le="2"}`]: [[T, 5]],
    [`rpc_latency_milliseconds_bucket{${ID},le="4"}`]: [[T, 7]],
    [`rpc_latency_milliseconds_bucket{${ID},le="+Inf"}`]: [[T, 7]],
    [`rpc_latency_milliseconds_sum{${ID}}`]: [[T, 3.5]],
    [`rpc_latency_milliseconds_count{${ID}}`]: [[T, 7]],
    [`rpc_duration_milliseconds{${ID},quantile="0.5"}`]: [[T, 1.5]],
    [`rpc_duration_milliseconds{${ID},quantile="0.99"}`]: [[T, 9]],
    [`rpc_duration_milliseconds_sum{${ID}}`]: [[T, 100]],
    [`rpc_duration_milliseconds_count{${ID}}`]: [[T, 20]],
    [`jobs_active{${ID}}`]: [[T + 1000, NaN]],
    [`target_info{host_cpus="4",host_name="node-a",${ID}}`]: [[T + 1000, 1]],
    ['up{job="cart"}']: [[T, 1]],
  });
  const stale = result.records.find((s) => s.labels.__name__ === 'jobs_active')!;
  expect(Array.from(stale.stale!)).toEqual([1]);
  expect(result.records.filter((s) => s.stale !== undefined)).toHaveLength(1);
  // labels objects are built in sorted order
  for (const s of result.records) {
    const names = Object.keys(s.labels);
    expect(names).toEqual([...names].sort());
  }
  expect(result.metadata).toEqual([
    { name: 'system_memory_usage_bytes', type: 'gauge', unit: 'bytes', help: 'Memory in use' },
    { name: 'http_server_requests_total', type: 'counter', unit: '', help: 'Requests served' },
    { name: 'queue_length', type: 'gauge', unit: '', help: '' },
    { name: 'cpu_utilization_ratio', type: 'gauge', unit: '', help: '' },
    { name: 'http_server_request_duration_seconds', type: 'histogram', unit: 'seconds', help: 'Duration of HTTP server requests' },
    { name: 'rpc_latency_milliseconds', type: 'histogram', unit: 'milliseconds', help: '' },
    { name: 'rpc_duration_milliseconds', type: 'summary', unit: 'milliseconds', help: '' },
    { name: 'jobs_active', type: 'gauge', unit: '', help: '' },
    { name: 'target_info', type: 'gauge', unit: '', help: 'Target metadata' },
    { name: 'up', type: 'gauge', unit: '', help: '' },
  ]);
}

/** toJson renders the fixture the way an OTLP/JSON exporter would. */
function toJson(value: unknown): string {
  return JSON.stringify(value);
}

describe('decodeOtlpMetrics', () => {
  it('converts a protobufjs-encoded request like the Prometheus OTLP receiver', () => {
    expectFull(decodeOtlpMetrics(pbEncode(ExportMetricsServiceRequest, fullRequest()), PROTO, { nowMs: NOW_MS, exponentialHistograms: 'classic' }));
  });

  it('stores exponential histograms as native histograms by default: schema from the scale, indexes shifted by one', () => {
    const result = decodeOtlpMetrics(pbEncode(ExportMetricsServiceRequest, fullRequest()), PROTO, { nowMs: NOW_MS });
    const names = result.records.map((r) => r.labels.__name__);
    expect(names).toContain('rpc_latency_milliseconds');
    expect(names.filter((n) => n.startsWith('rpc_latency_milliseconds_'))).toEqual([]);
    const rpc = result.records.find((r) => r.labels.__name__ === 'rpc_latency_milliseconds')!;
    expect(Array.from(rpc.timestampsMs)).toEqual([T_MS]);
    const h = rpc.histograms![0]!;
    expect(h).toMatchObject({ schema: 0, count: 7, sum: 3.5, zeroCount: 1, zeroThreshold: 2 ** -128, customValues: null });
    // OTLP bucket i is (2^i, 2^(i+1)], the native bucket i+1 is the same range.
    expect([...h.posIndex]).toEqual([1, 2]);
    expect([...h.posCount]).toEqual([1, 2]);
    expect([...h.negIndex]).toEqual([2]);
    expect([...h.negCount]).toEqual([3]);
    expect(result.metadata).toContainEqual(expect.objectContaining({ name: 'rpc_latency_milliseconds', type: 'histogram' }));
  });

  it('gives the same result for the OTLP/JSON encoding and for gzip bodies', () => {
    expectFull(decodeOtlpMetrics(new TextEncoder().encode(toJson(fullRequest())), 'application/json', { nowMs: NOW_MS, exponentialHistograms: 'classic' }));
    const gz = gzipSync(pbEncode(ExportMetricsServiceRequest, fullRequest()));
    expectFull(decodeOtlpMetrics(decodeContentEncoding(gz, 'gzip', 1 << 22), PROTO, { nowMs: NOW_MS, exponentialHistograms: 'classic' }));
  });

  it('joins attributes that sanitize to the same label name, in key order, and drops empty values', () => {
    const body = pbEncode(ExportMetricsServiceRequest, {
      resourceMetrics: [
        {
          scopeMetrics: [
            {
              metrics: [
                {
                  name: 'm',
                  gauge: {
                    dataPoints: [
                      {
                        timeUnixNano: ns(T_MS),
                        asDouble: 1,
                        attributes: [
                          { key: 'a_b', value: str('2') },
                          { key: 'a.b', value: str('1') },
                          { key: 'empty', value: str('') },
                          { key: 'n', value: { doubleValue: 1e21 } },
                          { key: 'list', value: { arrayValue: { values: [str('x'), { intValue: '1' }] } } },
                        ],
                      },
                    ],
                  },
                },
              ],
            },
          ],
        },
      ],
    });
    const result = decodeOtlpMetrics(body, PROTO, { nowMs: NOW_MS });
    expect(result.records[0].labels).toEqual({ __name__: 'm', a_b: '1;2', list: '["x",1]', n: '1000000000000000000000' });
  });

  it('rejects points that break limits and keeps the rest', () => {
    const many = Object.fromEntries(Array.from({ length: 70 }, (_, i) => [`k${i}`, 'v']));
    const body = pbEncode(ExportMetricsServiceRequest, {
      resourceMetrics: [
        {
          scopeMetrics: [
            {
              metrics: [
                {
                  name: 'm',
                  gauge: {
                    dataPoints: [
                      { timeUnixNano: ns(T_MS), asDouble: 1, attributes: attrs({ ok: 'yes' }) },
                      { timeUnixNano: ns(NOW_MS + 3_600_000), asDouble: 2 },
                      { timeUnixNano: ns(T_MS), asDouble: 3, attributes: attrs(many) },
                      { asDouble: 4 },
                      { timeUnixNano: ns(T_MS), asDouble: 5, attributes: attrs({ v: 'x'.repeat(20000) }) },
                    ],
                  },
                },
                { name: '!!!', gauge: { dataPoints: [{ timeUnixNano: ns(T_MS), asDouble: 1 }] } },
              ],
            },
          ],
        },
      ],
    });
    const result = decodeOtlpMetrics(body, PROTO, { nowMs: NOW_MS });
    expect(byIdentity(result)).toEqual({ 'm{ok="yes"}': [[T_MS, 1]] });
    expect(result.rejected).toBe(5);
    expect(result.discarded).toEqual({ too_far_in_future: 1, max_label_names_per_series: 1, invalid_timestamp: 1, label_value_too_long: 1, invalid_labels: 1 });
    expect(result.errors).toEqual([
      expect.stringMatching(/^metric m\{\}: timestamp .* is too new: 3600s in the future/),
      expect.stringMatching(/^metric m\{k0="v", .*: 71 labels, over the limit of 30$/),
      'metric m{}: timeUnixNano is missing',
      expect.stringMatching(/^metric m\{v="x{60}"…\}: value of label "v" is 20000 characters long, over the limit of 2048$/),
      'metric "!!!": name has no valid Prometheus characters',
    ]);
  });

  it('rejects a JSON point whose time is not an unsigned 64-bit integer on its own', () => {
    const times: unknown[] = ['soon', -1, 1.5, 'NaN', '18446744073709551616', '9000000000000000000000'];
    const dataPoints = [{ timeUnixNano: ns(T_MS), asDouble: 1 }, ...times.map((t) => ({ timeUnixNano: t, asDouble: 2 }))];
    dataPoints.push({ timeUnixNano: ns(T_MS + 1), startTimeUnixNano: 'early', asDouble: 3 } as never);
    const body = JSON.stringify({ resourceMetrics: [{ scopeMetrics: [{ metrics: [{ name: 'm', gauge: { dataPoints } }] }] }] });
    const result = decodeOtlpMetrics(new TextEncoder().encode(body), 'application/json', { nowMs: NOW_MS });
    expect(byIdentity(result)).toEqual({ 'm{}': [[T_MS, 1]] });
    expect(result.rejected).toBe(times.length + 1);
    expect(result.discarded).toEqual({ invalid_timestamp: times.length + 1 });
    expect(result.errors[0]).toBe('metric m{}: timeUnixNano: expected an unsigned 64-bit integer of nanoseconds (decimal string), got string "soon"');
    expect(result.errors.at(-1)).toMatch(/^metric m\{\}: startTimeUnixNano: .* got string "early"$/);
  });

  it('rejects points out of the time bounds on their own: too old, and far beyond the future', () => {
    const body = pbEncode(ExportMetricsServiceRequest, {
      resourceMetrics: [
        {
          scopeMetrics: [
            {
              metrics: [
                {
                  name: 'm',
                  gauge: {
                    dataPoints: [
                      { timeUnixNano: ns(T_MS), asDouble: 1 },
                      { timeUnixNano: '18446744073709551615', asDouble: 2 },
                      { timeUnixNano: ns(NOW_MS - 2 * 86_400_000), asDouble: 3 },
                    ],
                  },
                },
              ],
            },
          ],
        },
      ],
    });
    const result = decodeOtlpMetrics(body, PROTO, { nowMs: NOW_MS, limits: { maxSampleAgeMs: 86_400_000 } });
    expect(byIdentity(result)).toEqual({ 'm{}': [[T_MS, 1]] });
    expect(result.discarded).toEqual({ too_far_in_future: 1, too_old: 1 });
    expect(result.errors[0]).toMatch(/^metric m\{\}: timestamp 2554-07-21T23:34:33\.709Z is too new/);
    expect(result.errors[1]).toMatch(/^metric m\{\}: timestamp .* is too old: the oldest accepted is .* \(1 day before now\)$/);
  });

  it('rejects delta points without an accumulator and unspecified temporality', () => {
    const body = pbEncode(ExportMetricsServiceRequest, {
      resourceMetrics: [
        {
          scopeMetrics: [
            {
              metrics: [
                { name: 'd', sum: { aggregationTemporality: 1, isMonotonic: true, dataPoints: [{ timeUnixNano: ns(T_MS), asInt: '1' }] } },
                { name: 'u', sum: { isMonotonic: true, dataPoints: [{ timeUnixNano: ns(T_MS), asInt: '1' }, { timeUnixNano: ns(T_MS), asInt: '2' }] } },
              ],
            },
          ],
        },
      ],
    });
    const result = decodeOtlpMetrics(body, PROTO, { nowMs: NOW_MS });
    expect(result.records).toEqual([]);
    expect(result.rejected).toBe(3);
    expect(result.errors).toEqual([
      'metric d_total: delta temporality is not accepted here (no delta accumulator)',
      'metric u_total: aggregation temporality 0 is not cumulative or delta',
    ]);
  });

  it('rejects histograms whose bucket counts do not match their bounds', () => {
    const body = pbEncode(ExportMetricsServiceRequest, {
      resourceMetrics: [
        {
          scopeMetrics: [
            {
              metrics: [
                {
                  name: 'h',
                  histogram: {
                    aggregationTemporality: 2,
                    dataPoints: [
                      { timeUnixNano: ns(T_MS), count: '3', bucketCounts: ['1', '2'], explicitBounds: [1, 2] },
                      { timeUnixNano: ns(T_MS), count: '4', attributes: attrs({ x: 'no buckets' }) },
                    ],
                  },
                },
              ],
            },
          ],
        },
      ],
    });
    const result = decodeOtlpMetrics(body, PROTO, { nowMs: NOW_MS });
    expect(result.errors).toEqual(['metric h{}: histogram has 2 bucket counts for 2 bounds (expected 3)']);
    // a point without buckets has only +Inf and _count (and no _sum, since sum is unset)
    expect(byIdentity(result)).toEqual({
      'h_bucket{le="+Inf",x="no buckets"}': [[T_MS, 4]],
      'h_count{x="no buckets"}': [[T_MS, 4]],
    });
  });

  it('throws BAD_REQUEST for truncated protobuf and mistyped JSON', () => {
    const body = pbEncode(ExportMetricsServiceRequest, fullRequest());
    expect(() => decodeOtlpMetrics(body.subarray(0, body.length - 3), PROTO, { nowMs: NOW_MS })).toThrow(
      /^invalid OTLP ExportMetricsServiceRequest protobuf: protobuf: /,
    );
    const json = '{"resourceMetrics":[{"scopeMetrics":[{"metrics":[{"name":"x","gauge":{"dataPoints":[{"asDouble":"lots"}]}}]}]}]}';
    try {
      decodeOtlpMetrics(new TextEncoder().encode(json), 'application/json', { nowMs: NOW_MS });
      throw new Error('expected failure');
    } catch (err) {
      expect(err).toBeInstanceOf(IngestError);
      expect((err as Error).message).toBe(
        'invalid OTLP/JSON metrics request: resourceMetrics[0].scopeMetrics[0].metrics[0].gauge.dataPoints[0].asDouble: expected a number, got string "lots"',
      );
    }
  });
});

describe('delta temporality through DeltaAccumulator', () => {
  function deltaRequest(timeMs: number, sum: number, hist: { counts: string[]; count: string; sum: number }): Uint8Array {
    return pbEncode(ExportMetricsServiceRequest, {
      resourceMetrics: [
        {
          resource: { attributes: attrs({ 'service.name': 'worker' }) },
          scopeMetrics: [
            {
              metrics: [
                {
                  name: 'jobs.processed',
                  sum: {
                    aggregationTemporality: 1,
                    isMonotonic: true,
                    dataPoints: [{ startTimeUnixNano: ns(timeMs - 10_000), timeUnixNano: ns(timeMs), asInt: String(sum) }],
                  },
                },
                {
                  name: 'job.duration',
                  unit: 's',
                  histogram: {
                    aggregationTemporality: 1,
                    dataPoints: [
                      { timeUnixNano: ns(timeMs), count: hist.count, sum: hist.sum, bucketCounts: hist.counts, explicitBounds: [1, 10] },
                    ],
                  },
                },
              ],
            },
          ],
        },
      ],
    });
  }

  it('accumulates sums and histograms across two requests and refuses a retry', () => {
    const acc = new DeltaAccumulator();
    const t1 = T_MS;
    const t2 = T_MS + 10_000;
    const first = decodeOtlpMetrics(deltaRequest(t1, 5, { counts: ['1', '1', '0'], count: '2', sum: 3 }), PROTO, {
      nowMs: NOW_MS,
      deltaAccumulator: acc,
    });
    expect(first.rejected).toBe(0);
    expect(byIdentity(first)).toEqual({
      'jobs_processed_total{job="worker"}': [[t1, 5]],
      'job_duration_seconds_bucket{job="worker",le="1"}': [[t1, 1]],
      'job_duration_seconds_bucket{job="worker",le="10"}': [[t1, 2]],
      'job_duration_seconds_bucket{job="worker",le="+Inf"}': [[t1, 2]],
      'job_duration_seconds_sum{job="worker"}': [[t1, 3]],
      'job_duration_seconds_count{job="worker"}': [[t1, 2]],
    });
    const secondBody = deltaRequest(t2, 3, { counts: ['0', '2', '1'], count: '3', sum: 4 });
    const second = decodeOtlpMetrics(secondBody, PROTO, { nowMs: NOW_MS, deltaAccumulator: acc });
    expect(byIdentity(second)).toEqual({
      'jobs_processed_total{job="worker"}': [[t2, 8]],
      'job_duration_seconds_bucket{job="worker",le="1"}': [[t2, 1]],
      'job_duration_seconds_bucket{job="worker",le="10"}': [[t2, 4]],
      'job_duration_seconds_bucket{job="worker",le="+Inf"}': [[t2, 5]],
      'job_duration_seconds_sum{job="worker"}': [[t2, 7]],
      'job_duration_seconds_count{job="worker"}': [[t2, 5]],
    });
    expect(acc.size).toBe(2);
    const retry = decodeOtlpMetrics(secondBody, PROTO, { nowMs: NOW_MS, deltaAccumulator: acc });
    expect(retry.records.filter((s) => s.labels.__name__ !== 'target_info')).toEqual([]);
    expect(retry.rejected).toBe(2);
    expect(retry.errors[0]).toMatch(/^metric jobs_processed_total\{job="worker"\}: delta point at .* is not after the last accumulated point/);
    // the totals were not disturbed by the retry
    const third = decodeOtlpMetrics(deltaRequest(t2 + 10_000, 1, { counts: ['0', '0', '0'], count: '0', sum: 0 }), PROTO, {
      nowMs: NOW_MS,
      deltaAccumulator: acc,
    });
    expect(byIdentity(third)['jobs_processed_total{job="worker"}']).toEqual([[t2 + 10_000, 9]]);
    expect(acc.prune(t2 + 10_001)).toBe(2);
    expect(acc.size).toBe(0);
  });

  it('keeps separate totals per accumulator (per org) and bounds the state', () => {
    const small = new DeltaAccumulator({ maxSeries: 1 });
    const result = decodeOtlpMetrics(deltaRequest(T_MS, 5, { counts: ['1', '0', '0'], count: '1', sum: 1 }), PROTO, {
      nowMs: NOW_MS,
      deltaAccumulator: small,
    });
    expect(result.rejected).toBe(1);
    expect(result.errors[0]).toMatch(/delta temporality state is full \(1 series\)/);
    const other = new DeltaAccumulator();
    const fresh = decodeOtlpMetrics(deltaRequest(T_MS, 5, { counts: ['1', '0', '0'], count: '1', sum: 1 }), PROTO, {
      nowMs: NOW_MS,
      deltaAccumulator: other,
    });
    expect(byIdentity(fresh)['jobs_processed_total{job="worker"}']).toEqual([[T_MS, 5]]);
  });

  it('takes back a rolled-back request, so its retry is accumulated once, and keeps a committed one', () => {
    const acc = new DeltaAccumulator();
    const t1 = T_MS;
    const t2 = T_MS + 10_000;
    const request = (t: number, n: number) => deltaRequest(t, n, { counts: ['1', '0', '0'], count: '1', sum: 0.5 });
    acc.begin();
    expect(decodeOtlpMetrics(request(t1, 5), PROTO, { nowMs: NOW_MS, deltaAccumulator: acc }).rejected).toBe(0);
    acc.rollback();
    expect(acc.size).toBe(0);
    const retried = decodeOtlpMetrics(request(t1, 5), PROTO, { nowMs: NOW_MS, deltaAccumulator: acc });
    expect(retried.rejected).toBe(0);
    expect(byIdentity(retried)['jobs_processed_total{job="worker"}']).toEqual([[t1, 5]]);

    // A rolled-back change to an existing series restores its totals and last time.
    acc.begin();
    expect(byIdentity(decodeOtlpMetrics(request(t2, 7), PROTO, { nowMs: NOW_MS, deltaAccumulator: acc }))['jobs_processed_total{job="worker"}']).toEqual([[t2, 12]]);
    acc.rollback();
    acc.begin();
    const again = decodeOtlpMetrics(request(t2, 7), PROTO, { nowMs: NOW_MS, deltaAccumulator: acc });
    acc.commit();
    expect(again.rejected).toBe(0);
    expect(byIdentity(again)['jobs_processed_total{job="worker"}']).toEqual([[t2, 12]]);
    expect(byIdentity(again)['job_duration_seconds_count{job="worker"}']).toEqual([[t2, 2]]);
    acc.rollback();
    // Committed: the same points again are a retry of accepted data.
    expect(decodeOtlpMetrics(request(t2, 7), PROTO, { nowMs: NOW_MS, deltaAccumulator: acc }).rejected).toBeGreaterThan(0);
  });

  it('accumulates delta exponential histograms across a scale change', () => {
    const acc = new DeltaAccumulator();
    const point = (timeMs: number, scale: number, offset: number, counts: string[], zero: string) =>
      pbEncode(ExportMetricsServiceRequest, {
        resourceMetrics: [
          {
            scopeMetrics: [
              {
                metrics: [
                  {
                    name: 'lat',
                    exponentialHistogram: {
                      aggregationTemporality: 1,
                      dataPoints: [
                        {
                          timeUnixNano: ns(timeMs),
                          scale,
                          count: String(counts.reduce((a, c) => a + Number(c), Number(zero))),
                          sum: 10,
                          zeroCount: zero,
                          positive: { offset, bucketCounts: counts },
                        },
                      ],
                    },
                  },
                ],
              },
            ],
          },
        ],
      });
    // scale 1: buckets (1, 1.414], (1.414, 2]; then scale 0: bucket (2, 4]
    decodeOtlpMetrics(point(T_MS, 1, 0, ['1', '2'], '1'), PROTO, { nowMs: NOW_MS, exponentialHistograms: 'classic', deltaAccumulator: acc });
    const result = decodeOtlpMetrics(point(T_MS + 1000, 0, 1, ['4'], '0'), PROTO, { nowMs: NOW_MS, exponentialHistograms: 'classic', deltaAccumulator: acc });
    const T = T_MS + 1000;
    expect(byIdentity(result)).toEqual({
      'lat_bucket{le="0"}': [[T, 1]],
      'lat_bucket{le="2"}': [[T, 4]],
      'lat_bucket{le="4"}': [[T, 8]],
      'lat_bucket{le="+Inf"}': [[T, 8]],
      'lat_sum{}': [[T, 20]],
      'lat_count{}': [[T, 8]],
    });
  });
});

describe('decodeOtlpMetrics request shape errors', () => {
  it('names top-level fields without a leading dot', () => {
    const body = new TextEncoder().encode('{"resourceMetrics": {}}');
    expect(() => decodeOtlpMetrics(body, 'application/json', { nowMs: NOW_MS })).toThrow(
      'invalid OTLP/JSON metrics request: resourceMetrics: expected an array, got an object',
    );
  });
});
