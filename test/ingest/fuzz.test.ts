import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeLokiPushBody, encodeRemoteWriteBody, snappyCompress } from '../../engine/ingest/index.js';
import { ExportLogsServiceRequest, ExportMetricsServiceRequest, pbEncode, WriteRequest, WriteRequestV2 } from '../engine/ingest/protoTypes.js';
import { push } from '../support/ingest.js';
import { startTestServer, type TestServer } from '../support/server.js';

/**
 * Property test of the ingest endpoints: random and malformed bodies of every format (random
 * bytes, truncated or mutated protobuf, wrong snappy, varints of ten 0xff bytes, random JSON
 * shapes, deeply nested JSON and protobuf) sent to the real server must never get a 5xx and
 * never hang; afterwards the server is healthy and still stores a valid push. The seed is
 * fixed so a failure reproduces; FUZZ_SEED and FUZZ_RUNS explore further.
 */
const SEED = Number(process.env.FUZZ_SEED ?? 20261125);
const RUNS = Number(process.env.FUZZ_RUNS ?? 40);
/** Generous: the machine running the suite may be busy; a hang is minutes, not seconds. */
const CASE_DEADLINE_MS = 15_000;
const NOW = Date.now();
const NOW_NS = String(BigInt(NOW) * 1_000_000n);

interface Endpoint {
  path: string;
  contentType: string;
  /** a valid body to truncate and mutate */
  valid: Uint8Array;
  /** for snappy formats: a protobuf (any record kind, stored or refused) to mutate inside valid snappy */
  inner?: Uint8Array;
}

const enc = (text: string): Uint8Array => new TextEncoder().encode(text);

const otlpLogs = {
  resourceLogs: [
    {
      resource: { attributes: [{ key: 'service.name', value: { stringValue: 'fuzz' } }] },
      scopeLogs: [{ logRecords: [{ timeUnixNano: NOW_NS, body: { stringValue: 'hello' }, attributes: [{ key: 'k', value: { kvlistValue: { values: [{ key: 'a', value: { intValue: '1' } }] } } }] }] }],
    },
  ],
};
const otlpMetrics = {
  resourceMetrics: [
    {
      scopeMetrics: [
        {
          metrics: [
            { name: 'g', gauge: { dataPoints: [{ timeUnixNano: NOW_NS, asDouble: 1 }] } },
            { name: 'h', histogram: { aggregationTemporality: 2, dataPoints: [{ timeUnixNano: NOW_NS, count: '2', bucketCounts: ['1', '1'], explicitBounds: [1] }] } },
          ],
        },
      ],
    },
  ],
};
const histogram = { countInt: '3', sum: 1, schema: 2, zeroCountInt: '1', positiveSpans: [{ offset: -1, length: 2 }], positiveDeltas: ['1', '0'], timestamp: String(NOW) };
const remoteWrite1 = (withHistograms: boolean) =>
  pbEncode(WriteRequest, {
    timeseries: [
      {
        labels: [{ name: '__name__', value: 'fuzz_total' }, { name: 'a', value: 'b' }],
        samples: [{ value: 1, timestamp: String(NOW) }],
        exemplars: [{ labels: [{ name: 'trace_id', value: 'abc' }], value: 1, timestamp: String(NOW) }],
        histograms: withHistograms ? [histogram] : [],
      },
    ],
    metadata: [{ type: 1, metricFamilyName: 'fuzz_total', help: 'Fuzz.' }],
  });
const remoteWrite2 = (withHistograms: boolean) =>
  pbEncode(WriteRequestV2, {
    symbols: ['', '__name__', 'fuzz2_total', 'a', 'b', 'trace_id', 'abc', 'Fuzz.'],
    timeseries: [
      {
        labelsRefs: [1, 2, 3, 4],
        samples: [{ value: 1, timestamp: String(NOW), startTimestamp: String(NOW - 1000) }],
        exemplars: [{ labelsRefs: [5, 6], value: 1, timestamp: String(NOW) }],
        histograms: withHistograms ? [histogram] : [],
        metadata: { type: 1, helpRef: 7 },
      },
    ],
  });
const lokiJson = { streams: [{ stream: { service_name: 'fuzz' }, values: [[NOW_NS, 'line', { trace_id: 'x' }]] }] };

const ENDPOINTS: Endpoint[] = [
  {
    path: '/api/v1/write',
    contentType: 'application/x-protobuf',
    valid: encodeRemoteWriteBody({ timeseries: [{ labels: [{ name: '__name__', value: 'fuzz' }, { name: 'a', value: 'b' }], samples: [{ value: 1, timestamp: NOW }] }] }),
    inner: remoteWrite1(true),
  },
  { path: '/api/v1/write', contentType: 'application/x-protobuf;proto=io.prometheus.write.v2.Request', valid: snappyCompress(remoteWrite2(false)), inner: remoteWrite2(true) },
  {
    path: '/loki/api/v1/push',
    contentType: 'application/x-protobuf',
    valid: encodeLokiPushBody({ streams: [{ labels: '{service_name="fuzz"}', entries: [{ timestampNs: BigInt(NOW_NS), line: 'line' }] }] }),
  },
  { path: '/loki/api/v1/push', contentType: 'application/json', valid: enc(JSON.stringify(lokiJson)) },
  { path: '/v1/logs', contentType: 'application/x-protobuf', valid: pbEncode(ExportLogsServiceRequest, otlpLogs) },
  { path: '/v1/logs', contentType: 'application/json', valid: enc(JSON.stringify(otlpLogs)) },
  { path: '/v1/metrics', contentType: 'application/x-protobuf', valid: pbEncode(ExportMetricsServiceRequest, otlpMetrics) },
  { path: '/v1/metrics', contentType: 'application/json', valid: enc(JSON.stringify(otlpMetrics)) },
];

/** snappyFormat tells whether the endpoint's protobuf travels inside a snappy block. */
const snappyFormat = (e: Endpoint): boolean => e.contentType.includes('protobuf') && (e.path === '/api/v1/write' || e.path.startsWith('/loki'));

/** HUGE_VARINT is a ten-byte varint with every bit set: past 64 bits once decoded naively. */
const HUGE_VARINT = [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01];

/** nestedAnyValue wraps an OTLP AnyValue in `depth` kvlists, as JSON. */
function nestedAnyValueJson(depth: number): string {
  return '{"kvlistValue":{"values":[{"key":"k","value":'.repeat(depth) + '{"stringValue":"x"}' + '}]}}'.repeat(depth);
}

/** bodies is every kind of malformed body for one endpoint. */
function bodies(e: Endpoint): fc.Arbitrary<Uint8Array> {
  // A plain Uint8Array copy: encoders may hand back a Node Buffer, whose slice() is a view, so
  // flipping bytes of a "copy" would corrupt the body the final check sends.
  const valid = new Uint8Array(e.valid);
  const raw = snappyFormat(e) ? null : valid;
  const kinds: Array<fc.Arbitrary<Uint8Array>> = [
    fc.uint8Array({ maxLength: 2048 }),
    // truncated at any byte
    fc.integer({ min: 0, max: valid.length - 1 }).map((cut) => valid.subarray(0, cut)),
    // a few bytes flipped
    fc.array(fc.tuple(fc.nat(valid.length - 1), fc.integer({ min: 1, max: 255 })), { minLength: 1, maxLength: 8 }).map((flips) => {
      const out = new Uint8Array(valid);
      for (const [at, x] of flips) out[at] ^= x;
      return out;
    }),
    // a huge varint spliced in at a random place (length or tag position)
    fc.nat(valid.length).map((at) => new Uint8Array([...valid.subarray(0, at), ...HUGE_VARINT, ...valid.subarray(at)])),
    // a field whose length prefix claims far more than the body holds
    fc.integer({ min: 1, max: 15 }).map((field) => new Uint8Array([(field << 3) | 2, ...HUGE_VARINT, 1, 2, 3])),
  ];
  if (snappyFormat(e)) {
    // valid snappy around random or truncated protobuf, and a snappy header promising more than follows
    kinds.push(fc.uint8Array({ maxLength: 512 }).map((b) => snappyCompress(b)));
    kinds.push(fc.nat(200).map((n) => snappyCompress(new Uint8Array([0x0a, ...HUGE_VARINT, ...new Uint8Array(n)]))));
    kinds.push(fc.integer({ min: 1, max: 0x7fffffff }).map((len) => new Uint8Array([0x80 | (len & 0x7f), 0x80 | ((len >> 7) & 0x7f), 0x80 | ((len >> 14) & 0x7f), (len >> 21) & 0x7f, 0x00])));
  }
  if (e.inner !== undefined) {
    // the protobuf itself truncated, flipped or with a huge varint, inside valid snappy
    const inner = new Uint8Array(e.inner);
    kinds.push(fc.integer({ min: 0, max: inner.length - 1 }).map((cut) => snappyCompress(inner.subarray(0, cut))));
    kinds.push(
      fc.array(fc.tuple(fc.nat(inner.length - 1), fc.integer({ min: 1, max: 255 })), { minLength: 1, maxLength: 8 }).map((flips) => {
        const out = new Uint8Array(inner);
        for (const [at, x] of flips) out[at] ^= x;
        return snappyCompress(out);
      }),
    );
    kinds.push(fc.nat(inner.length).map((at) => snappyCompress(new Uint8Array([...inner.subarray(0, at), ...HUGE_VARINT, ...inner.subarray(at)]))));
  }
  if (e.contentType.includes('json')) {
    kinds.push(fc.json({ depthSize: 'medium' }).map(enc));
    kinds.push(fc.jsonValue().map((v) => enc(JSON.stringify({ streams: v, resourceLogs: v, resourceMetrics: v }))));
    kinds.push(fc.integer({ min: 1, max: 200_000 }).map((depth) => enc('['.repeat(depth) + ']'.repeat(depth))));
    kinds.push(fc.integer({ min: 1, max: 50_000 }).map((depth) => enc(`{"streams":[{"stream":{"a":"b"},"values":${'['.repeat(depth)}${']'.repeat(depth)}}]}`)));
    kinds.push(
      fc.integer({ min: 100, max: 20_000 }).map((depth) =>
        enc(`{"resourceLogs":[{"scopeLogs":[{"logRecords":[{"body":${nestedAnyValueJson(depth)}}]}]}],"resourceMetrics":[]}`),
      ),
    );
  } else if (raw !== null) {
    // deeply nested OTLP AnyValue kvlists in protobuf
    kinds.push(
      fc.integer({ min: 100, max: 20_000 }).map((depth) => nestedAnyValueProto(depth)),
    );
  }
  return fc.oneof(...kinds);
}

/**
 * nestedAnyValueProto is an OTLP logs request whose record body is `depth` nested kvlists, in
 * protobuf. Each level's prefix depends only on the length of what it wraps, so the prefixes
 * are computed inside out and the bytes written once (copying the growing value per level
 * would be quadratic and take the test minutes at 20,000 levels).
 */
function nestedAnyValueProto(depth: number): Uint8Array {
  const innermost = [0x0a, 0x01, 0x78];
  const prefixes: number[][] = [];
  let valueLength = innermost.length;
  for (let i = 0; i < depth; i++) {
    const kvLength = 3 + 1 + varint(valueLength).length + valueLength;
    const listLength = 1 + varint(kvLength).length + kvLength;
    const prefix = [0x32, ...varint(listLength), 0x0a, ...varint(kvLength), 0x0a, 0x01, 0x6b, 0x12, ...varint(valueLength)];
    prefixes.push(prefix);
    valueLength += prefix.length;
  }
  const recordLength = valueLength + 1 + varint(valueLength).length;
  const scopeLength = recordLength + 1 + varint(recordLength).length;
  const resourceLength = scopeLength + 1 + varint(scopeLength).length;
  const head = [0x0a, ...varint(resourceLength), 0x12, ...varint(scopeLength), 0x12, ...varint(recordLength), 0x2a, ...varint(valueLength)];
  const out = new Uint8Array(head.length + valueLength);
  out.set(head, 0);
  let at = head.length;
  for (let i = prefixes.length - 1; i >= 0; i--) {
    out.set(prefixes[i], at);
    at += prefixes[i].length;
  }
  out.set(innermost, at);
  return out;
}

function varint(n: number): number[] {
  const out: number[] = [];
  while (n > 0x7f) {
    out.push((n & 0x7f) | 0x80);
    n >>>= 7;
  }
  out.push(n);
  return out;
}

describe('ingest endpoints under random and malformed bodies', () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startTestServer({ SVC_MAX_BODY_BYTES: '4MiB' });
  });
  afterAll(async () => {
    await srv.stop();
  });

  for (const endpoint of ENDPOINTS) {
    it(`${endpoint.path} (${endpoint.contentType}) never answers 5xx nor hangs`, async () => {
      await fc.assert(
        fc.asyncProperty(bodies(endpoint), async (body) => {
          const res = await fetch(`${srv.url}${endpoint.path}`, {
            method: 'POST',
            body,
            headers: { 'x-svc-api-key': srv.key, 'content-type': endpoint.contentType },
            signal: AbortSignal.timeout(CASE_DEADLINE_MS),
          });
          const text = await res.text();
          if (res.status >= 500) throw new Error(`status ${res.status}: ${text.slice(0, 300)}`);
          expect([200, 204, 400, 413, 415]).toContain(res.status);
        }),
        { seed: SEED, numRuns: RUNS },
      );
    }, 300_000);
  }

  it('stays healthy and keeps storing valid data afterwards', async () => {
    expect((await fetch(`${srv.url}/healthz`)).status).toBe(200);
    for (const endpoint of ENDPOINTS) {
      const res = await push(srv, endpoint.path, endpoint.valid, endpoint.contentType);
      expect([200, 204], `${endpoint.path} ${endpoint.contentType}: ${res.status} ${await res.clone().text()}`).toContain(res.status);
    }
  });
});
