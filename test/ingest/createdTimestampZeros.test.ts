import { describe, expect, it } from 'vitest';
import { snappyCompress } from '../../engine/ingest/index.js';
import { loadConfig } from '../../src/config.js';
import { startService, type RunningService } from '../../src/service.js';
import { pbEncode, WriteRequestV2 } from '../engine/ingest/protoTypes.js';
import { LogCapture, startTestServer } from '../support/server.js';

/**
 * SVC_CREATED_TIMESTAMP_ZERO_INGESTION against what is already stored: remote write 2.0
 * requests (encoded with protobufjs from the upstream .proto) carry each sample's start
 * (created) timestamp. A zero is added only when that timestamp is newer than the series'
 * newest stored sample and older than the sample, for float counters and native histograms
 * alike; the same holds after a restart (the heads replayed from the WAL) and after a cut
 * (the data in segments). OTLP cumulative points do the same with their start time.
 */

const V2_TYPE = 'application/x-protobuf;proto=io.prometheus.write.v2.Request';
const NOW_MS = Math.floor(Date.now() / 1000) * 1000;
/** at(s) is s seconds before now. */
const at = (secondsAgo: number): number => NOW_MS - secondsAgo * 1000;

/** One sample of both series: the counter's value, and a custom-bucket histogram of that many observations. */
interface Point {
  secondsAgo: number;
  value: number;
  /** the created timestamp the sender attaches, in seconds ago */
  createdSecondsAgo: number;
}

/** body is one 2.0 request with a counter and a native histogram series sharing the points. */
function body(points: Point[]): Uint8Array {
  const symbols = ['', '__name__', 'jobs_total', 'job_seconds'];
  const histogram = (p: Point) => ({
    countFloat: p.value,
    sum: p.value / 2,
    schema: -53,
    positiveSpans: [{ offset: 0, length: 1 }],
    positiveCounts: [p.value],
    customValues: [1],
    timestamp: String(at(p.secondsAgo)),
    startTimestamp: String(at(p.createdSecondsAgo)),
  });
  return snappyCompress(
    pbEncode(WriteRequestV2, {
      symbols,
      timeseries: [
        { labelsRefs: [1, 2], samples: points.map((p) => ({ value: p.value, timestamp: String(at(p.secondsAgo)), startTimestamp: String(at(p.createdSecondsAgo)) })) },
        { labelsRefs: [1, 3], histograms: points.map(histogram) },
      ],
    }),
  );
}

async function write(port: number, key: string, points: Point[]): Promise<void> {
  const res = await fetch(`http://127.0.0.1:${port}/api/v1/write`, {
    method: 'POST',
    body: body(points),
    headers: { 'x-svc-api-key': key, 'content-type': V2_TYPE, 'content-encoding': 'snappy' },
  });
  expect(res.status).toBe(204);
  // Added zeros are never counted as written.
  expect(res.headers.get('x-prometheus-remote-write-samples-written')).toBe(String(points.length));
  expect(res.headers.get('x-prometheus-remote-write-histograms-written')).toBe(String(points.length));
}

/** stored reads both series back as [seconds ago, value] pairs (a histogram's value is its count). */
function stored(service: RunningService, org: string): { counter: number[][]; histogram: number[][] } {
  const metrics = service.storage.metrics(org);
  const [counter] = metrics.select([{ name: '__name__', type: '=', value: 'jobs_total' }], -Infinity, Infinity);
  const [hist] = metrics.select([{ name: '__name__', type: '=', value: 'job_seconds' }], -Infinity, Infinity);
  const ago = (t: number) => (NOW_MS - t) / 1000;
  return {
    counter: [...counter.timestampsMs].map((t, i) => [ago(t), counter.values[i]]),
    histogram: [...hist.timestampsMs].map((t, i) => [ago(t), hist.histograms?.[i]?.count ?? NaN]),
  };
}

/** resets asks the Prometheus API how many counter resets `series` shows over the last 5 minutes. */
async function resets(port: number, key: string, series: string): Promise<string[]> {
  const q = `resets(${series}[5m])`;
  const res = await fetch(`http://127.0.0.1:${port}/prometheus/api/v1/query?${new URLSearchParams({ query: q, time: String(NOW_MS / 1000) })}`, { headers: { 'x-svc-api-key': key } });
  const answer = (await res.json()) as { data: { result: Array<{ value: [number, string] }> } };
  return answer.data.result.map((r) => r.value[1]);
}

describe('created timestamp zeros against stored data', () => {
  it('adds a zero only after the newest stored sample, before and after a restart and a cut', async () => {
    const srv = await startTestServer({ SVC_CREATED_TIMESTAMP_ZERO_INGESTION: 'true' });
    let restarted: RunningService | undefined;
    try {
      const port = srv.service.port;
      // A counter started 120 s ago: the zero goes in front of its first samples.
      await write(port, srv.key, [
        { secondsAgo: 90, value: 5, createdSecondsAgo: 120 },
        { secondsAgo: 75, value: 8, createdSecondsAgo: 120 },
      ]);
      // A created timestamp older than the newest stored sample (75 s ago) adds nothing,
      // though nothing earlier in this request comes before it.
      await write(port, srv.key, [
        { secondsAgo: 60, value: 10, createdSecondsAgo: 80 },
        { secondsAgo: 45, value: 12, createdSecondsAgo: 80 },
      ]);
      // The counter restarted 30 s ago, after the newest stored sample: a zero there.
      await write(port, srv.key, [{ secondsAgo: 15, value: 2, createdSecondsAgo: 30 }]);
      const before = [
        [120, 0],
        [90, 5],
        [75, 8],
        [60, 10],
        [45, 12],
        [30, 0],
        [15, 2],
      ];
      expect(stored(srv.service, srv.orgId)).toEqual({ counter: before, histogram: before });

      // A clean stop; the new process replays the WAL into its heads, which answer as before.
      await srv.service.stop();
      restarted = await startService(loadConfig({ SVC_PORT: '0', SVC_HOST: '127.0.0.1', SVC_DATA_DIR: srv.dataDir, SVC_CREATED_TIMESTAMP_ZERO_INGESTION: 'true' }), {
        logDestination: new LogCapture(),
      });
      expect(stored(restarted, srv.orgId)).toEqual({ counter: before, histogram: before });
      await write(restarted.port, srv.key, [{ secondsAgo: 10, value: 3, createdSecondsAgo: 20 }]);
      // Cut to segments: the heads are empty and the segments' newest sample stands in.
      await restarted.storage.cut();
      await write(restarted.port, srv.key, [{ secondsAgo: 5, value: 4, createdSecondsAgo: 12 }]);
      await write(restarted.port, srv.key, [{ secondsAgo: 1, value: 1, createdSecondsAgo: 3 }]);
      const after = [...before, [10, 3], [5, 4], [3, 0], [1, 1]];
      expect(stored(restarted, srv.orgId)).toEqual({ counter: after, histogram: after });
      // Two restarts of the counter, at the two zeros after 12 and after 4; no zero went mid-series.
      expect(await resets(restarted.port, srv.key, 'jobs_total')).toEqual(['2']);
      expect(await resets(restarted.port, srv.key, 'job_seconds')).toEqual(['2']);
    } finally {
      if (restarted) await restarted.stop();
      await srv.stop().catch(() => undefined);
    }
  });
});

/** OtlpPoint is one point of each OTLP metric: a monotonic sum, an exponential histogram and a non-monotonic sum. */
interface OtlpPoint {
  secondsAgo: number;
  value: number;
  startSecondsAgo: number;
}

function otlpBody(p: OtlpPoint): string {
  const nanos = (secondsAgo: number) => String(BigInt(at(secondsAgo)) * 1_000_000n);
  const times = { timeUnixNano: nanos(p.secondsAgo), startTimeUnixNano: nanos(p.startSecondsAgo) };
  const metrics = [
    { name: 'otel.jobs', sum: { aggregationTemporality: 2, isMonotonic: true, dataPoints: [{ ...times, asDouble: p.value }] } },
    { name: 'otel.queue', sum: { aggregationTemporality: 2, isMonotonic: false, dataPoints: [{ ...times, asDouble: p.value }] } },
    {
      name: 'otel.lat',
      unit: 's',
      exponentialHistogram: {
        aggregationTemporality: 2,
        dataPoints: [{ ...times, count: String(p.value), sum: p.value, scale: 0, zeroCount: '0', positive: { offset: 0, bucketCounts: [String(p.value)] } }],
      },
    },
  ];
  return JSON.stringify({ resourceMetrics: [{ resource: { attributes: [{ key: 'service.name', value: { stringValue: 'batch' } }] }, scopeMetrics: [{ metrics }] }] });
}

describe('created timestamp zeros from OTLP start times', () => {
  it('adds a zero at a cumulative counter or histogram start only after the newest stored sample, never to a gauge', async () => {
    const srv = await startTestServer({ SVC_CREATED_TIMESTAMP_ZERO_INGESTION: 'true' });
    try {
      const send = async (p: OtlpPoint) => {
        const res = await fetch(`${srv.url}/v1/metrics`, { method: 'POST', body: otlpBody(p), headers: { 'x-svc-api-key': srv.key, 'content-type': 'application/json' } });
        expect(res.status).toBe(200);
      };
      await send({ secondsAgo: 90, value: 5, startSecondsAgo: 120 });
      // A start older than the newest stored point (90 s ago): nothing added.
      await send({ secondsAgo: 60, value: 7, startSecondsAgo: 100 });
      // The counter restarted 45 s ago.
      await send({ secondsAgo: 30, value: 1, startSecondsAgo: 45 });
      const metrics = srv.service.storage.metrics(srv.orgId);
      const read = (name: string) => {
        const [series] = metrics.select([{ name: '__name__', type: '=', value: name }], -Infinity, Infinity);
        return [...series.timestampsMs].map((t, i) => [(NOW_MS - t) / 1000, series.histograms?.[i]?.count ?? series.values[i]]);
      };
      const counter = [
        [120, 0],
        [90, 5],
        [60, 7],
        [45, 0],
        [30, 1],
      ];
      expect(read('otel_jobs_total')).toEqual(counter);
      expect(read('otel_lat_seconds')).toEqual(counter);
      // The zero of a native histogram keeps its schema.
      const [lat] = metrics.select([{ name: '__name__', type: '=', value: 'otel_lat_seconds' }], -Infinity, Infinity);
      expect(lat.histograms?.[3]).toMatchObject({ schema: 0, count: 0, sum: 0 });
      // A non-monotonic sum is a gauge: its start time adds nothing.
      expect(read('otel_queue')).toEqual([
        [90, 5],
        [60, 7],
        [30, 1],
      ]);
    } finally {
      await srv.stop();
    }
  });
});
