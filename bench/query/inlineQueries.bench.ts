import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../../src/config.js';
import { KeyAdmin } from '../../src/auth/apiKeys.js';
import { startService } from '../../src/service.js';
import type { Labels, LogEntry } from '../../engine/index.js';
import { announceServing, serveOrRun, startServingChild, stopServingChildren, threadCpuNs, type ServingChild } from '../harness/servingChild.js';
import { DiscardLog } from '../harness/discardLog.js';

/**
 * Small queries over recent data (the heads), evaluated on the answering thread
 * (SVC_QUERY_INLINE_MAX_SAMPLES and SVC_QUERY_INLINE_MAX_LINES, the defaults) against on a
 * worker (both 0), as a dashboard's stat panels and narrow graph panels, and an agent's tool
 * calls, ask them. Two child servers of this build hold the same hour of 1,000 counters, 200
 * histogram buckets and ten services' JSON log lines in their heads; queries alternate between
 * them with an idle pause before each, as requests arrive in practice (an idle process has to
 * wake its threads). Reported per query: whether it went inline, median latency, and the CPU
 * the whole process spent (/proc/<pid>/task/<tid>/schedstat, Linux only), with the ratio
 * inline / worker. The last rows are over the bound, on the workers in both servers: their
 * ratios show what runs of the same path differ by.
 *
 *   node dist/bench/query/inlineQueries.bench.js
 */
const COUNTERS = 1_000;
const BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, Infinity];
const STEP_MS = 15_000;
const RUNS = 60;
const PAUSE_MS = 30;
/** LOG_SERVICES each write a JSON line every LOG_EVERY_MS: 3,000 lines in 5 minutes over all of them. */
const LOG_SERVICES = 10;
const LOG_EVERY_MS = 1_000;
/** Query is a query to ask: its language, its text, and for a range query its hours back from the data's end and its step. */
interface Query {
  language: 'promql' | 'logql';
  q: string;
  range?: { hours: number; stepS: number };
}

const HOUR_AT_15S = { hours: 1, stepS: 15 };

/** QUERIES are PromQL over the metrics and LogQL over the lines; instant unless given a range. */
const QUERIES: Query[] = [
  { language: 'promql', q: 'vector(1)' },
  { language: 'promql', q: 'rate(requests_total{instance="host-7"}[5m])' },
  { language: 'promql', q: 'histogram_quantile(0.99, sum by (le, job) (rate(latency_seconds_bucket[5m])))' },
  { language: 'promql', q: 'sum by (job) (rate(requests_total[5m]))' },
  { language: 'promql', q: 'topk(5, rate(requests_total[5m]))' },
  { language: 'promql', q: 'rate(requests_total[5m])' },
  { language: 'logql', q: 'sum by (service_name) (count_over_time({env="bench"} |= "error" [5m]))' },
  { language: 'logql', q: 'sum by (route) (count_over_time({env="bench"} | json | status >= 500 [5m]))' },
  { language: 'promql', q: 'rate(requests_total{instance="host-7"}[5m])', range: HOUR_AT_15S },
  { language: 'promql', q: 'histogram_quantile(0.99, sum by (le) (rate(latency_seconds_bucket{job="job1"}[5m])))', range: HOUR_AT_15S },
  { language: 'promql', q: 'sum(rate(requests_total{job="job3"}[5m]))', range: HOUR_AT_15S },
  { language: 'promql', q: 'max_over_time(requests_total{job=~"job[1-4]"}[10m])', range: HOUR_AT_15S },
  { language: 'promql', q: 'sum by (job) (rate(requests_total[5m]))', range: { hours: 0.25, stepS: 15 } },
  { language: 'promql', q: 'sum by (job) (rate(requests_total[5m]))', range: HOUR_AT_15S },
];

/** series is the hour of data both servers hold: rising counters, and cumulative histogram buckets by job. */
function series(startMs: number, n: number): Array<{ labels: Labels; timestampsMs: Float64Array; values: Float64Array }> {
  const out = [];
  const column = (value: (j: number) => number) => {
    const timestampsMs = new Float64Array(n);
    const values = new Float64Array(n);
    for (let j = 0; j < n; j++) {
      timestampsMs[j] = startMs + j * STEP_MS;
      values[j] = value(j);
    }
    return { timestampsMs, values };
  };
  for (let i = 0; i < COUNTERS; i++) {
    out.push({ labels: { __name__: 'requests_total', job: `job${i % 20}`, instance: `host-${i}` }, ...column((j) => j * ((i % 13) + 1) + (i % 7)) });
  }
  for (let job = 0; job < 20; job++) {
    BUCKETS.forEach((le, b) => {
      out.push({ labels: { __name__: 'latency_seconds_bucket', job: `job${job}`, le: String(le === Infinity ? '+Inf' : le) }, ...column((j) => j * (b + 1) * (job + 1)) });
    });
  }
  return out;
}

/** logLines are the hour of lines both servers hold: each service's JSON request log. */
function logLines(startMs: number, endMs: number): LogEntry[] {
  const out: LogEntry[] = [];
  for (let t = startMs, n = 0; t <= endMs; t += LOG_EVERY_MS, n++) {
    for (let s = 0; s < LOG_SERVICES; s++) {
      const status = n % 17 === s ? 503 : 200;
      out.push({
        timestampNs: BigInt(t + s) * 1_000_000n,
        level: status >= 500 ? 'error' : 'info',
        tags: { service_name: `svc${s}`, env: 'bench' },
        message: JSON.stringify({ route: `/r${n % 5}`, status, latency_ms: (n * 7 + s) % 300, msg: status >= 500 ? 'upstream error' : 'ok' }),
      });
    }
  }
  return out;
}

/** serve runs in the child: stores the hour in the heads (no cut), prints where it listens, and stops when stdin closes. */
async function serve(inline: string): Promise<void> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'sluice-bench-inline-'));
  const config = loadConfig({ SVC_PORT: '0', SVC_HOST: '127.0.0.1', SVC_DATA_DIR: dataDir, SVC_LOG_LEVEL: 'warn', SVC_RESULTS_CACHE: 'false', ...(inline === 'off' ? { SVC_QUERY_INLINE_MAX_SAMPLES: '0', SVC_QUERY_INLINE_MAX_LINES: '0' } : {}) });
  const service = await startService(config, { logDestination: new DiscardLog(), announce: () => {} });
  const [org] = await service.store.listOrgs();
  const { key } = await new KeyAdmin(service.store).createKey(org.id, 'bench');
  const endMs = Math.floor(Date.now() / STEP_MS) * STEP_MS;
  await service.storage.appendMetrics(org.id, series(endMs - 3_600_000, 3_600_000 / STEP_MS + 1), []);
  await service.storage.appendLogs(org.id, logLines(endMs - 3_600_000, endMs));
  announceServing({ port: service.port, key, endMs }, () => service.stop().then(() => rm(dataDir, { recursive: true, force: true })));
}

function start(label: string, inline: 'on' | 'off'): Promise<ServingChild> {
  return startServingChild(label, fileURLToPath(import.meta.url), ['--serve', inline]);
}

/** processCpuNs is the CPU time every thread of a process has used so far, in nanoseconds. */
function processCpuNs(pid: number): number {
  let total = 0;
  for (const ns of threadCpuNs(pid).values()) total += ns;
  return total;
}

/** ask runs one query to the end of its answer: its latency and the server's CPU, in ms. */
async function ask(s: ServingChild, { language, q, range }: Query): Promise<{ ms: number; cpuMs: number }> {
  const window = range === undefined ? { s: String(s.endMs), e: String(s.endMs) } : { s: String(s.endMs - range.hours * 3_600_000), e: String(s.endMs), step: range.stepS };
  const before = processCpuNs(s.child.pid!);
  const t0 = performance.now();
  const res = await fetch(`http://127.0.0.1:${s.port}/api/v1/${language === 'logql' ? 'logs' : 'metrics'}/query`, {
    method: 'POST',
    body: JSON.stringify({ q, ...window }),
    headers: { 'x-svc-api-key': s.key, 'content-type': 'application/json', accept: 'text/event-stream' },
  });
  const text = await res.text();
  const ms = performance.now() - t0;
  if (res.status !== 200 || !text.includes('"status":"ok"')) throw new Error(`${s.label} ${q}: ${res.status} ${text.slice(-200)}`);
  return { ms, cpuMs: (processCpuNs(s.child.pid!) - before) / 1e6 };
}

function median(xs: number[]): number {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[sorted.length >> 1];
}

/** inlineCount reads how many tasks a server evaluated inline, to show which queries took that path. */
async function inlineCount(s: ServingChild): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${s.port}/metrics`)).text();
  return Number(/^sluice_query_tasks_inline_total (\S+)$/m.exec(text)?.[1] ?? 0);
}

export async function main(): Promise<void> {
  if (process.platform !== 'linux') {
    console.log('inlineQueries: reads /proc for CPU time (Linux only); skipped');
    return;
  }
  const servers = [await start('worker', 'off'), await start('inline', 'on')];
  try {
    for (const s of servers) for (const q of QUERIES) for (let i = 0; i < 20; i++) await ask(s, q); // warm-up: JIT
    const rows: Record<string, Record<string, string>> = {};
    for (const query of QUERIES) {
      const inlineBefore = await inlineCount(servers[1]);
      const runs = servers.map(() => ({ ms: [] as number[], cpuMs: [] as number[] }));
      for (let r = 0; r < RUNS; r++) {
        for (let i = 0; i < servers.length; i++) {
          await new Promise((resolve) => setTimeout(resolve, PAUSE_MS));
          const { ms, cpuMs } = await ask(servers[i], query);
          runs[i].ms.push(ms);
          runs[i].cpuMs.push(cpuMs);
        }
      }
      const [worker, inline] = runs.map((r) => ({ ms: median(r.ms), cpuMs: r.cpuMs.reduce((a, b) => a + b, 0) / r.cpuMs.length }));
      rows[`${query.q}${query.range ? ` (${query.range.hours * 60} min at ${query.range.stepS} s)` : ''}`] = {
        inline: (await inlineCount(servers[1])) > inlineBefore ? 'yes' : 'no',
        'worker ms': worker.ms.toFixed(2),
        'inline ms': inline.ms.toFixed(2),
        'latency ratio': (inline.ms / worker.ms).toFixed(2),
        'worker cpu ms': worker.cpuMs.toFixed(2),
        'inline cpu ms': inline.cpuMs.toFixed(2),
        'cpu ratio': (inline.cpuMs / worker.cpuMs).toFixed(2),
      };
    }
    console.log(`queries (instant, or a range as marked) over an hour of ${COUNTERS} counters, ${BUCKETS.length * 20} buckets and ${LOG_SERVICES} services' log lines (one a second each) in the heads; ${RUNS} alternated runs each, ${PAUSE_MS} ms idle before each; latency median, CPU mean over the server's threads`);
    console.table(rows);
  } finally {
    stopServingChildren(servers);
  }
}

serveOrRun(import.meta.url, serve, main);
