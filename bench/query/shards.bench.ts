import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { KeyAdmin } from '../../src/auth/apiKeys.js';
import { loadConfig } from '../../src/config.js';
import { startService, type RunningService } from '../../src/service.js';
import { runWhenDirect } from '../runDirect.js';
import { DiscardLog } from '../harness/discardLog.js';

/**
 * Series sharding: queries with a single step over many series cannot be cut into time
 * slices, so without shards one worker does all the work. This benchmark stores 20,000 series
 * for one hour (4.8M samples, in a segment as they would be in service), then times one-step
 * dashboard queries through the real server and SSE, with sharding off and on, in one run;
 * likewise a one-step LogQL count over a million log lines, and range queries ending in topk
 * (shards select among their series, the merge among their choices) and in a sum over a
 * binary operation between vectors (series placed by the labels the operation matches on),
 * and queries finished at the merge (shards evaluate the aggregations over all series, the
 * query front the rest): a latency panel's `histogram_quantile` over `sum by (le)` and an SLO
 * ratio of two sums, each over 1 h at a 1 m step and at one step over a 1 h window (a one-step
 * query reads enough to be split only with a window that long: the sharded server here splits
 * from 1M samples).
 */
const SERIES = 20_000;
const STEP_MS = 15_000;
const RUNS = 5;
const LOG_LINES = 1_000_000;
const QUERIES = [
  { path: '/api/v1/metrics/query', q: 'sum by (job) (rate(requests_total[1h]))' },
  { path: '/api/v1/metrics/query', q: 'avg(max_over_time(requests_total[1h]))' },
  { path: '/api/v1/metrics/query', q: 'max by (zone) (deriv(requests_total[30m]))' },
  { path: '/api/v1/metrics/query', q: 'rate(requests_total[5m]) > 1000000' },
  { path: '/api/v1/logs/query', q: 'sum by (level) (count_over_time({service_name=~".+"} |= "timeout" [1h]))' },
  { path: '/api/v1/metrics/query', q: 'topk(5, sum by (instance) (rate(requests_total[5m])))', rangeMs: 3_600_000 },
  { path: '/api/v1/metrics/query', q: 'sum(rate(requests_total[5m]) / rate(requests_total[10m]))', rangeMs: 3_600_000 },
  { path: '/api/v1/metrics/query', q: 'histogram_quantile(0.99, sum by (le) (rate(request_seconds_bucket[5m])))', rangeMs: 3_600_000 },
  { path: '/api/v1/metrics/query', q: 'histogram_quantile(0.99, sum by (le) (rate(request_seconds_bucket[1h])))' },
  { path: '/api/v1/metrics/query', q: 'sum(rate(requests_total{zone="z1"}[5m])) / sum(rate(requests_total[5m]))', rangeMs: 3_600_000 },
  { path: '/api/v1/metrics/query', q: 'sum(rate(requests_total{zone="z1"}[1h])) / sum(rate(requests_total[1h]))' },
];

/** HISTOGRAM_INSTANCES each have a classic histogram of BUCKET_BOUNDS.length bucket series. */
const HISTOGRAM_INSTANCES = 1_000;
const BUCKET_BOUNDS = ['0.005', '0.01', '0.025', '0.05', '0.1', '0.25', '0.5', '1', '2.5', '+Inf'];

async function serve(dataDir: string, shardMinSamples: number): Promise<RunningService> {
  const config = loadConfig({
    SVC_PORT: '0',
    SVC_HOST: '127.0.0.1',
    SVC_DATA_DIR: dataDir,
    SVC_LOG_LEVEL: 'warn',
    SVC_QUERY_SHARD_MIN_SAMPLES: String(shardMinSamples),
    SVC_MAX_SERIES_PER_ORG: String(SERIES * 2 + HISTOGRAM_INSTANCES * BUCKET_BOUNDS.length),
  });
  return startService(config, { logDestination: new DiscardLog(), announce: () => {} });
}

async function timeQuery(url: string, key: string, query: (typeof QUERIES)[number], atMs: number): Promise<number> {
  const { path: route, q } = query;
  const fromMs = atMs - ('rangeMs' in query ? (query.rangeMs ?? 0) : 0);
  const started = performance.now();
  const res = await fetch(`${url}${route}`, {
    method: 'POST',
    body: JSON.stringify({ q, s: String(fromMs), e: String(atMs), step: 60 }),
    headers: { 'x-svc-api-key': key, 'content-type': 'application/json' },
  });
  const text = await res.text();
  if (res.status !== 200 || !text.includes('"status":"ok"')) throw new Error(`${q}: ${res.status} ${text.slice(-200)}`);
  return performance.now() - started;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

export async function main(): Promise<void> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'sluice-bench-shards-'));
  try {
    let service = await serve(dataDir, 0);
    const [org] = await service.store.listOrgs();
    const { key } = await new KeyAdmin(service.store).createKey(org.id, 'bench');
    const endMs = Math.floor(Date.now() / STEP_MS) * STEP_MS;
    const startMs = endMs - 3_600_000;
    for (let from = 0; from < SERIES; from += 1000) {
      const batch = [];
      for (let i = from; i < from + 1000; i++) {
        const n = (endMs - startMs) / STEP_MS + 1;
        const ts = new Float64Array(n);
        const values = new Float64Array(n);
        for (let j = 0; j < n; j++) {
          ts[j] = startMs + j * STEP_MS;
          values[j] = j * ((i % 13) + 1) + (i % 7);
        }
        batch.push({ labels: { __name__: 'requests_total', job: `job${i % 20}`, zone: `z${i % 3}`, instance: `host-${i}` }, timestampsMs: ts, values });
      }
      await service.storage.appendMetrics(org.id, batch, []);
    }
    for (let instance = 0; instance < HISTOGRAM_INSTANCES; instance++) {
      const n = (endMs - startMs) / STEP_MS + 1;
      const ts = Float64Array.from({ length: n }, (_, j) => startMs + j * STEP_MS);
      const batch = BUCKET_BOUNDS.map((le, b) => ({
        labels: { __name__: 'request_seconds_bucket', le, job: `job${instance % 20}`, instance: `host-${instance}` },
        timestampsMs: ts,
        values: Float64Array.from({ length: n }, (_, j) => j * (b + 1) * ((instance % 5) + 1) + (j % (b + 2))),
      }));
      await service.storage.appendMetrics(org.id, batch, []);
    }
    const levels = ['info', 'info', 'info', 'warn', 'error'];
    for (let from = 0; from < LOG_LINES; from += 10_000) {
      const batch = [];
      for (let i = from; i < from + 10_000; i++) {
        batch.push({
          timestampNs: BigInt(startMs + Math.floor((i / LOG_LINES) * 3_600_000)) * 1_000_000n + BigInt(i % 1000),
          level: levels[i % levels.length],
          message: `request ${i} ${i % 7 === 0 ? 'timeout' : 'ok'} after ${i % 300} ms`,
          tags: { service_name: `svc-${i % 8}`, k8s_pod_name: `pod-${i % 40}` },
        });
      }
      await service.storage.appendLogs(org.id, batch);
    }
    await service.storage.cut();
    console.log(`${SERIES} series and ${HISTOGRAM_INSTANCES * BUCKET_BOUNDS.length} buckets x ${3_600_000 / STEP_MS + 1} samples and ${LOG_LINES} log lines in ${service.storage.segments().length} segment(s); ${os.availableParallelism()} cores`);
    const rows: Record<string, Record<string, string>> = {};
    for (const shardMinSamples of [0, 1_000_000]) {
      if (shardMinSamples > 0) {
        await service.stop();
        service = await serve(dataDir, shardMinSamples);
      }
      const label = shardMinSamples === 0 ? 'unsharded ms' : 'sharded ms';
      const url = `http://127.0.0.1:${service.port}`;
      for (const query of QUERIES) {
        await timeQuery(url, key, query, endMs); // warm-up: worker start, segment decode, JIT
        const times: number[] = [];
        for (let r = 0; r < RUNS; r++) times.push(await timeQuery(url, key, query, endMs));
        const name = 'rangeMs' in query ? `${query.q} · 1 h` : query.q;
        rows[name] ??= {};
        rows[name][label] = median(times).toFixed(1);
      }
    }
    for (const row of Object.values(rows)) row['speed-up'] = (Number(row['unsharded ms']) / Number(row['sharded ms'])).toFixed(2);
    console.table(rows);
    await service.stop();
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
}

runWhenDirect(import.meta.url, main);
