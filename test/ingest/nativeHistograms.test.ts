import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { snappyCompress } from '../../engine/ingest/index.js';
import { loadConfig } from '../../src/config.js';
import { KeyAdmin } from '../../src/auth/apiKeys.js';
import { startService, type RunningService } from '../../src/service.js';
import { ExportMetricsServiceRequest, pbEncode, WriteRequest, WriteRequestV2 } from '../engine/ingest/protoTypes.js';
import { SeededRandom } from '../support/seededRandom.js';
import { LogCapture } from '../support/server.js';
import { query, readSse } from '../support/sse.js';

/**
 * Native histograms from the wire to the answer, against the real server over a data
 * directory that outlives it. The payloads are encoded with protobufjs from the upstream
 * .proto files, from observations this test records itself: the buckets, counts and sums every
 * answer is checked against are computed here, not by the server's code. Covered: remote write
 * 1.0 and 2.0 (integer, float and custom-bucket histograms) read back exactly through the
 * Prometheus API and SSE, a restart (WAL replay), a segment cut and a compaction; OTLP
 * exponential histograms answering histogram_quantile as the test's own computation does.
 */

const V2_TYPE = 'application/x-protobuf;proto=io.prometheus.write.v2.Request';
const NOW_MS = Math.floor(Date.now() / 60_000) * 60_000;
const T0 = NOW_MS - 30 * 60_000;
const STEP_MS = 15_000;
const SAMPLES = 12;

/** Expected is one histogram sample as this test computes it from its observations. */
interface Expected {
  timestampMs: number;
  count: number;
  sum: number;
  /** ascending [lower, upper, count] of populated buckets (upper inclusive) */
  buckets: Array<[number, number, number]>;
}

/** observations draws n latencies in eighths of a millisecond unit, so sums stay exact in binary. */
function observations(rand: () => number, n: number): number[] {
  return Array.from({ length: n }, () => (1 + Math.floor(rand() * 8000)) / 8);
}

/** bucketIndex is the native bucket of a positive value at `schema`: (2^((i-1)/2^s), 2^(i/2^s)]. */
function bucketIndex(v: number, schema: number): number {
  let i = Math.ceil(Math.log2(v) * 2 ** schema);
  // Guard the float log at bucket edges with the exact bound comparison.
  while (2 ** (i / 2 ** schema) < v) i++;
  while (2 ** ((i - 1) / 2 ** schema) >= v) i--;
  return i;
}

/** ExpSeries is a cumulative exponential histogram series built sample by sample from observations. */
interface ExpSeries {
  schema: number;
  samples: Array<{ timestampMs: number; counts: Map<number, number>; count: number; sum: number }>;
}

function exponentialSeries(seed: number, schema: number): ExpSeries {
  const random = new SeededRandom(seed);
  const rand = () => random.next();
  const counts = new Map<number, number>();
  let count = 0;
  let sum = 0;
  const samples: ExpSeries['samples'] = [];
  for (let k = 0; k < SAMPLES; k++) {
    for (const v of observations(rand, 20 + Math.floor(rand() * 30))) {
      const i = bucketIndex(v, schema);
      counts.set(i, (counts.get(i) ?? 0) + 1);
      count++;
      sum += v;
    }
    samples.push({ timestampMs: T0 + k * STEP_MS, counts: new Map(counts), count, sum });
  }
  return { schema, samples };
}

function expectedOf(s: ExpSeries, scale = 1): Expected[] {
  return s.samples.map((p) => ({
    timestampMs: p.timestampMs,
    count: p.count * scale,
    sum: p.sum * scale,
    buckets: [...p.counts.entries()]
      .sort((a, b) => a[0] - b[0])
      .map(([i, c]) => [2 ** ((i - 1) / 2 ** s.schema), 2 ** (i / 2 ** s.schema), c * scale]),
  }));
}

/** spansOf writes sorted bucket indexes as wire spans. */
function spansOf(indexes: number[]): Array<{ offset: number; length: number }> {
  const spans: Array<{ offset: number; length: number }> = [];
  let next = 0;
  for (const i of indexes) {
    if (spans.length > 0 && i === next) spans[spans.length - 1].length++;
    else spans.push({ offset: spans.length === 0 ? i : i - next, length: 1 });
    next = i + 1;
  }
  return spans;
}

/** wireHistogram is one sample as a remote write Histogram message: integer (deltas) or float (counts times `scale`). */
function wireHistogram(s: ExpSeries, k: number, float: boolean, scale = 1): Record<string, unknown> {
  const p = s.samples[k];
  const indexes = [...p.counts.keys()].sort((a, b) => a - b);
  const base = { sum: p.sum * scale, schema: s.schema, zeroThreshold: 2 ** -128, positiveSpans: spansOf(indexes), timestamp: String(p.timestampMs) };
  if (float) return { ...base, countFloat: p.count * scale, zeroCountFloat: 0, positiveCounts: indexes.map((i) => p.counts.get(i)! * scale) };
  let last = 0;
  const deltas = indexes.map((i) => {
    const d = p.counts.get(i)! - last;
    last = p.counts.get(i)!;
    return String(d);
  });
  return { ...base, countInt: String(p.count), zeroCountInt: '0', positiveDeltas: deltas };
}

/** CUSTOM_BOUNDS and customSeries: a custom-bucket (NHCB) float series, bounds in the same unit. */
const CUSTOM_BOUNDS = [10, 50, 100, 500];

function customSeries(seed: number): { wire: Array<Record<string, unknown>>; expected: Expected[] } {
  const random = new SeededRandom(seed);
  const rand = () => random.next();
  const counts = new Array<number>(CUSTOM_BOUNDS.length + 1).fill(0);
  let count = 0;
  let sum = 0;
  const wire: Array<Record<string, unknown>> = [];
  const expected: Expected[] = [];
  for (let k = 0; k < SAMPLES; k++) {
    for (const v of observations(rand, 10)) {
      let b = CUSTOM_BOUNDS.findIndex((u) => v <= u);
      if (b < 0) b = CUSTOM_BOUNDS.length;
      counts[b] += 0.5;
      count += 0.5;
      sum += v / 2;
    }
    const t = T0 + k * STEP_MS;
    wire.push({ countFloat: count, sum, schema: -53, positiveSpans: [{ offset: 0, length: counts.length }], positiveCounts: [...counts], customValues: CUSTOM_BOUNDS, timestamp: String(t) });
    const bounds = [-Infinity, ...CUSTOM_BOUNDS, Infinity];
    // Prometheus lists the lowest custom bucket from 0 when its bound is positive... as a bucket [lower, upper] it keeps -Inf.
    expected.push({ timestampMs: t, count, sum, buckets: counts.map((c, i) => [bounds[i], bounds[i + 1], c] as [number, number, number]).filter((b) => b[2] > 0) });
  }
  return { wire, expected };
}

const INT_SERIES = exponentialSeries(1, 1);
const FLOAT_SERIES = exponentialSeries(2, 3);
const CUSTOM = customSeries(3);

const pairs = (labels: Record<string, string>) => Object.entries(labels).map(([name, value]) => ({ name, value }));

function v1Body(src: string, from: number, to: number): Uint8Array {
  const range = Array.from({ length: to - from }, (_, i) => from + i);
  return snappyCompress(
    pbEncode(WriteRequest, {
      timeseries: [
        { labels: pairs({ __name__: 'rpc_latency', kind: 'int', src }), histograms: range.map((k) => wireHistogram(INT_SERIES, k, false)) },
        { labels: pairs({ __name__: 'rpc_latency', kind: 'float', src }), histograms: range.map((k) => wireHistogram(FLOAT_SERIES, k, true, 0.25)) },
        { labels: pairs({ __name__: 'rpc_latency_custom', src }), histograms: range.map((k) => CUSTOM.wire[k]) },
      ],
    }),
  );
}

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

function v2Body(src: string, from: number, to: number): Uint8Array {
  const symbols = new Symbols();
  const range = Array.from({ length: to - from }, (_, i) => from + i);
  const timeseries = [
    { labelsRefs: symbols.refs({ __name__: 'rpc_latency', kind: 'int', src }), histograms: range.map((k) => wireHistogram(INT_SERIES, k, false)), metadata: { type: 3 } },
    { labelsRefs: symbols.refs({ __name__: 'rpc_latency', kind: 'float', src }), histograms: range.map((k) => wireHistogram(FLOAT_SERIES, k, true, 0.25)), metadata: { type: 3 } },
    { labelsRefs: symbols.refs({ __name__: 'rpc_latency_custom', src }), histograms: range.map((k) => CUSTOM.wire[k]), metadata: { type: 3 } },
  ];
  return snappyCompress(pbEncode(WriteRequestV2, { symbols: symbols.table, timeseries }));
}

/** Server is the service over one data directory, restartable. */
class Server {
  service!: RunningService;
  key = '';
  org = '';
  readonly logs = new LogCapture();

  constructor(readonly dataDir: string) {}

  async start(): Promise<void> {
    const config = loadConfig({ SVC_PORT: '0', SVC_HOST: '127.0.0.1', SVC_DATA_DIR: this.dataDir, SVC_LOG_LEVEL: 'warn', SVC_QUERY_WORKERS: '1' });
    this.service = await startService(config, { logDestination: this.logs, announce: () => undefined });
    if (this.key === '') {
      const admin = new KeyAdmin(this.service.store);
      const org = await admin.createOrg('histograms');
      this.org = org.id;
      this.key = (await admin.createKey(org.id, 'test')).key;
    }
  }

  get url(): string {
    return `http://127.0.0.1:${this.service.port}`;
  }

  write(body: Uint8Array, contentType: string): Promise<Response> {
    return fetch(`${this.url}/api/v1/write`, { method: 'POST', body, headers: { 'x-svc-api-key': this.key, 'content-type': contentType, 'content-encoding': 'snappy' } });
  }

  async prom(pathName: string, params: Record<string, string>): Promise<PromBody> {
    const res = await fetch(`${this.url}/prometheus/api/v1/${pathName}?${new URLSearchParams(params)}`, { headers: { 'x-svc-api-key': this.key } });
    const body = (await res.json()) as PromBody;
    expect(res.status, JSON.stringify(body)).toBe(200);
    return body;
  }
}

interface PromHistogram {
  count: string;
  sum: string;
  buckets?: Array<[number, string, string, string]>;
}

interface PromBody {
  status: string;
  data: { resultType: string; result: Array<{ metric: Record<string, string>; values?: Array<[number, string]>; histograms?: Array<[number, PromHistogram]>; value?: [number, string]; histogram?: [number, PromHistogram] }> };
}

/** promText is how Prometheus prints a float in its API (Go's 'f', -1; infinities signed). */
function promText(x: number): string {
  if (x === Infinity) return '+Inf';
  if (x === -Infinity) return '-Inf';
  return String(x);
}

/** asProm renders an expected sample as the Prometheus API must: strings, boundary rule 0 for exponential, 3/0 for custom. */
function asProm(e: Expected, custom: boolean): [number, PromHistogram] {
  const buckets = e.buckets.map(([lower, upper, count]): [number, string, string, string] => {
    // Exponential buckets are (lower, upper]; the lowest custom bucket, from -Inf, is [lower, upper] in Prometheus' rendering.
    const rule = custom && lower === -Infinity ? 3 : 0;
    return [rule, promText(lower), promText(upper), promText(count)];
  });
  return [e.timestampMs / 1000, { count: promText(e.count), sum: promText(e.sum), buckets }];
}

/**
 * rounded compares bucket bounds to 12 digits: the server computes 2^(i/2^s) as a power of two
 * times a fraction's power, this test in one step, and the two may differ in the last bit.
 * Counts and sums are compared exactly.
 */
function rounded(samples: Array<[number, PromHistogram]> | undefined): unknown {
  return samples?.map(([t, h]) => [t, { ...h, buckets: h.buckets?.map(([rule, lower, upper, count]) => [rule, bound(lower), bound(upper), count]) }]);
}

function bound(text: string | number): string {
  const x = Number(text);
  return Number.isFinite(x) ? x.toPrecision(12) : String(text);
}

const RANGE = { start: String(T0 / 1000), end: String((T0 + (SAMPLES - 1) * STEP_MS) / 1000), step: String(STEP_MS / 1000) };

/** checkStored asserts that every series of `src` reads back exactly, through the Prometheus API and SSE. */
async function checkStored(srv: Server, src: string): Promise<void> {
  const expected: Record<string, Expected[]> = {
    int: expectedOf(INT_SERIES),
    float: expectedOf(FLOAT_SERIES, 0.25),
  };
  const latency = await srv.prom('query_range', { query: `rpc_latency{src="${src}"}`, ...RANGE });
  expect(latency.data.result.map((r) => r.metric.kind).sort()).toEqual(['float', 'int']);
  for (const r of latency.data.result) {
    expect(r.values).toBeUndefined();
    expect(rounded(r.histograms)).toEqual(rounded(expected[r.metric.kind].map((e) => asProm(e, false))));
  }
  const custom = await srv.prom('query_range', { query: `rpc_latency_custom{src="${src}"}`, ...RANGE });
  expect(custom.data.result).toHaveLength(1);
  expect(rounded(custom.data.result[0].histograms)).toEqual(rounded(CUSTOM.expected.map((e) => asProm(e, true))));

  // The same samples as SSE events: a `histogram` field in place of `value`, numbers as numbers.
  const sse = await readSse(await query(srv.url, '/api/v1/metrics/query', srv.key, { q: `rpc_latency{src="${src}",kind="int"}`, s: String(T0), e: String(T0 + (SAMPLES - 1) * STEP_MS), step: STEP_MS / 1000 }));
  expect(sse.status).toBe(200);
  const points = sse.events.filter((e) => e.type === 'result').map((e) => e.data);
  expect(points).toHaveLength(SAMPLES);
  points.forEach((p, k) => {
    const e = expected.int[k];
    expect(p.value).toBeUndefined();
    expect(p.timestamp).toBe(e.timestampMs);
    const h = p.histogram as { count: number; sum: number; buckets: Array<[number, number, number, number]> };
    expect({ ...h, buckets: h.buckets.map(([rule, lower, upper, count]) => [rule, bound(lower), bound(upper), count]) }).toEqual({
      count: e.count,
      sum: e.sum,
      buckets: e.buckets.map(([lower, upper, count]) => [0, bound(lower), bound(upper), count]),
    });
  });
}

/**
 * ownQuantile is histogram_quantile over one exponential histogram's buckets, computed here
 * from the observations' buckets: the bucket holding rank q·count, and within it Prometheus'
 * exponential interpolation 2^(log2(lower) + f·(log2(upper) − log2(lower))). As Prometheus 3
 * does, a quantile from 0.5 up counts its rank from the top bucket down, which differs from
 * counting up only where the rank falls exactly between two buckets with a gap between them.
 */
function ownQuantile(q: number, e: Expected): number {
  const at = (bucket: [number, number, number], withinFromBottom: number): number => {
    const [lower, upper, count] = bucket;
    return 2 ** (Math.log2(lower) + (withinFromBottom / count) * (Math.log2(upper) - Math.log2(lower)));
  };
  if (q < 0.5) {
    const rank = q * e.count;
    let below = 0;
    for (const b of e.buckets) {
      if (below + b[2] >= rank) return at(b, rank - below);
      below += b[2];
    }
    return NaN;
  }
  const rank = (1 - q) * e.count;
  let above = 0;
  for (let i = e.buckets.length - 1; i >= 0; i--) {
    const b = e.buckets[i];
    if (above + b[2] >= rank) return at(b, above + b[2] - rank);
    above += b[2];
  }
  return NaN;
}

describe('native histograms end to end', () => {
  let dataDir = '';
  let srv: Server;

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'sluice-histograms-'));
    srv = new Server(dataDir);
    await srv.start();
  });
  afterAll(async () => {
    await srv.service.stop().catch(() => undefined);
    await rm(dataDir, { recursive: true, force: true });
  });

  it('stores remote write 1.0 and 2.0 histograms and reads them back exactly; both senders answer alike', async () => {
    const one = await srv.write(v1Body('v1', 0, SAMPLES / 2), 'application/x-protobuf');
    expect(one.status).toBe(204);
    expect(one.headers.get('x-prometheus-remote-write-histograms-written')).toBe(String(3 * (SAMPLES / 2)));
    expect(one.headers.get('x-prometheus-remote-write-samples-written')).toBe('0');
    expect((await srv.write(v1Body('v1', SAMPLES / 2, SAMPLES), 'application/x-protobuf')).status).toBe(204);
    const two = await srv.write(v2Body('v2', 0, SAMPLES), V2_TYPE);
    expect(two.status).toBe(204);
    expect(two.headers.get('x-prometheus-remote-write-histograms-written')).toBe(String(3 * SAMPLES));
    await checkStored(srv, 'v1');
    await checkStored(srv, 'v2');
    const strip = (b: PromBody) => b.data.result.map((r) => ({ ...r, metric: { ...r.metric, src: '' } }));
    for (const q of ['histogram_quantile(0.9, rpc_latency{src="SRC"})', 'histogram_count(rate(rpc_latency{src="SRC"}[1m]))', 'sum(rpc_latency_custom{src="SRC"})']) {
      const a = await srv.prom('query_range', { query: q.replace('SRC', 'v1'), ...RANGE });
      const b = await srv.prom('query_range', { query: q.replace('SRC', 'v2'), ...RANGE });
      expect(a.data.result.length).toBeGreaterThan(0);
      expect(strip(b)).toEqual(strip(a));
    }
  });

  it('answers histogram_quantile as a computation over the recorded buckets does', async () => {
    const expected = expectedOf(INT_SERIES);
    const last = expected[SAMPLES - 1];
    for (const q of [0.1, 0.5, 0.9, 0.99]) {
      const body = await srv.prom('query', { query: `histogram_quantile(${q}, rpc_latency{src="v1",kind="int"})`, time: String(last.timestampMs / 1000) });
      expect(body.data.result).toHaveLength(1);
      const got = Number(body.data.result[0].value![1]);
      expect(Math.abs(got - ownQuantile(q, last)) / ownQuantile(q, last)).toBeLessThan(1e-12);
    }
    const vector = await srv.prom('query', { query: 'rpc_latency{src="v1",kind="int"}', time: String(last.timestampMs / 1000) });
    expect(vector.data.result[0].value).toBeUndefined();
    expect(rounded([vector.data.result[0].histogram!])).toEqual(rounded([asProm(last, false)]));
  });

  it('keeps them across a restart (WAL replay), a segment cut and a compaction', async () => {
    await srv.service.stop();
    await srv.start();
    await checkStored(srv, 'v1');
    await srv.service.storage.cut();
    await checkStored(srv, 'v2');
    // A second segment for the same series, then both merged into one.
    expect((await srv.write(v1Body('late', 0, SAMPLES / 2), 'application/x-protobuf')).status).toBe(204);
    await srv.service.storage.cut();
    expect((await srv.write(v1Body('late', SAMPLES / 2, SAMPLES), 'application/x-protobuf')).status).toBe(204);
    await srv.service.storage.cut();
    const before = srv.service.storage.segments().filter((s) => s.signal === 'metrics');
    expect(before.every((s) => s.formatVersion === 3)).toBe(true);
    await srv.service.storage.compact();
    const after = srv.service.storage.segments().filter((s) => s.signal === 'metrics');
    expect(after.length).toBeLessThan(before.length);
    for (const src of ['v1', 'v2', 'late']) await checkStored(srv, src);
    await srv.service.stop();
    await srv.start();
    await checkStored(srv, 'late');
  });

  it('turns OTLP exponential histograms into native histograms whose quantiles match the recorded buckets', async () => {
    // Scale 3 is a native schema as is; scale 10 is reduced to schema 8 by merging neighbours.
    for (const scale of [3, 10]) {
      const series = exponentialSeries(10 + scale, scale);
      const nativeSchema = Math.min(scale, 8);
      const points = series.samples.map((p) => {
        const indexes = [...p.counts.keys()].sort((a, b) => a - b);
        const offset = indexes[0] - 1;
        const bucketCounts = new Array<number>(indexes[indexes.length - 1] - indexes[0] + 1).fill(0);
        for (const i of indexes) bucketCounts[i - 1 - offset] = p.counts.get(i)!;
        return { timeUnixNano: String(BigInt(p.timestampMs) * 1_000_000n), startTimeUnixNano: String(BigInt(T0 - 60_000) * 1_000_000n), count: String(p.count), sum: p.sum, scale, zeroCount: '0', positive: { offset, bucketCounts: bucketCounts.map(String) }, negative: { offset: 0, bucketCounts: [] } };
      });
      const body = pbEncode(ExportMetricsServiceRequest, {
        resourceMetrics: [
          {
            resource: { attributes: [{ key: 'service.name', value: { stringValue: 'checkout' } }] },
            scopeMetrics: [{ metrics: [{ name: `otel.latency.s${scale}`, unit: 's', exponentialHistogram: { aggregationTemporality: 2, dataPoints: points } }] }],
          },
        ],
      });
      const res = await fetch(`${srv.url}/v1/metrics`, { method: 'POST', body, headers: { 'x-svc-api-key': srv.key, 'content-type': 'application/x-protobuf' } });
      expect(res.status).toBe(200);
      // The recorded buckets at the native schema: 2^(scale-8) neighbours merged above 8.
      const merged = new Map<number, number>();
      const last = series.samples[SAMPLES - 1];
      for (const [i, c] of last.counts) {
        const j = Math.floor((i - 1) / 2 ** (scale - nativeSchema)) + 1;
        merged.set(j, (merged.get(j) ?? 0) + c);
      }
      const e: Expected = {
        timestampMs: last.timestampMs,
        count: last.count,
        sum: last.sum,
        buckets: [...merged.entries()].sort((a, b) => a[0] - b[0]).map(([i, c]) => [2 ** ((i - 1) / 2 ** nativeSchema), 2 ** (i / 2 ** nativeSchema), c]),
      };
      const name = `otel_latency_s${scale}_seconds`;
      expect((await srv.prom('query', { query: `${name}_bucket`, time: String(e.timestampMs / 1000) })).data.result).toEqual([]);
      for (const q of [0.25, 0.5, 0.95]) {
        const got = await srv.prom('query', { query: `histogram_quantile(${q}, ${name})`, time: String(e.timestampMs / 1000) });
        expect(got.data.result).toHaveLength(1);
        const want = ownQuantile(q, e);
        expect(Math.abs(Number(got.data.result[0].value![1]) - want) / want).toBeLessThan(1e-12);
      }
    }
  });
});
