import { randomBytes } from 'node:crypto';
import { encodeRemoteWriteBody } from '../../engine/ingest/encode/remoteWrite.js';
import { startSluice, type RunningSystem } from '../peers/peers.js';
import { temporaryDirectory } from '../peers/processes.js';
import { cpuSeconds } from '../peers/procStats.js';
import { runWhenDirect } from '../runDirect.js';

/**
 * A 10-panel dashboard over the last hour, refreshed in a loop by a few viewers, against two
 * real servers loaded with the same data: one with the results cache off, one with it on.
 * Rounds alternate between them; queries per second and CPU per query (the server process,
 * workers included, from /proc) are reported as ratios of cache on to cache off.
 * `node dist/bench/query/resultsCache.bench.js`; BENCH_SERIES (default 500), BENCH_VIEWERS
 * (default 5), BENCH_SECONDS per round (default 5), BENCH_ROUNDS (default 3) and
 * BENCH_CPU_PROF (a directory: both servers write V8 CPU profiles there on exit).
 */
const SERIES = Number(process.env.BENCH_SERIES ?? 500);
const VIEWERS = Number(process.env.BENCH_VIEWERS ?? 5);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const SCRAPE_MS = 15_000;
const HOUR_MS = 3_600_000;
const STEP_S = 15;

const PANELS = [
  'sum by (job) (rate(http_requests_total[5m]))',
  'sum(rate(http_requests_total[1m]))',
  'max by (job) (http_requests_total)',
  'avg by (code) (rate(http_requests_total[5m]))',
  'count(http_requests_total)',
  'topk(5, rate(http_requests_total[5m]))',
  'sum by (instance) (increase(http_requests_total{job="job1"}[10m]))',
  'histogram_quantile(0.9, sum by (le) (rate(http_requests_total[5m])))',
  'sum by (code) (rate(http_requests_total[5m])) / ignoring(code) group_left sum(rate(http_requests_total[5m]))',
  'max_over_time(http_requests_total{job="job2"}[15m])',
];

async function load(sys: RunningSystem, endMs: number): Promise<void> {
  const startMs = endMs - 2 * HOUR_MS;
  for (let from = 0; from < SERIES; from += 50) {
    const timeseries = Array.from({ length: Math.min(50, SERIES - from) }, (_, k) => {
      const i = from + k;
      const samples = [];
      for (let t = startMs; t <= endMs; t += SCRAPE_MS) samples.push({ value: Math.floor((t - startMs) / SCRAPE_MS) * (1 + (i % 7)), timestamp: t });
      return {
        labels: [
          { name: '__name__', value: 'http_requests_total' },
          { name: 'code', value: String(200 + 100 * (i % 4)) },
          { name: 'instance', value: `host-${i}:9100` },
          { name: 'job', value: `job${i % 8}` },
          { name: 'le', value: String(2 ** (i % 6)) },
        ],
        samples,
      };
    });
    const res = await fetch(`${sys.url}/api/v1/write`, {
      method: 'POST',
      body: encodeRemoteWriteBody({ timeseries }),
      headers: { 'x-svc-api-key': sys.key, 'content-type': 'application/x-protobuf' },
    });
    if (res.status !== 204) throw new Error(`write: ${res.status} ${await res.text()}`);
  }
}

async function panel(sys: RunningSystem, q: string): Promise<void> {
  // Grafana aligns a dashboard's window to the step, so consecutive refreshes share a step phase.
  const endMs = Math.floor(Date.now() / (STEP_S * 1000)) * STEP_S * 1000;
  const res = await fetch(`${sys.url}/api/v1/metrics/query`, {
    method: 'POST',
    body: JSON.stringify({ q, s: String(endMs - HOUR_MS), e: String(endMs), step: STEP_S }),
    headers: { 'x-svc-api-key': sys.key, 'content-type': 'application/json', accept: 'text/event-stream' },
  });
  const text = await res.text();
  if (res.status !== 200 || !text.includes('"status":"ok"')) throw new Error(`${q}: ${res.status} ${text.slice(-300)}`);
}

/** round refreshes the dashboard with VIEWERS viewers for SECONDS and returns queries and server CPU seconds. */
async function round(sys: RunningSystem): Promise<{ queries: number; seconds: number; cpu: number }> {
  const cpuBefore = cpuSeconds(sys.process.pid);
  const started = performance.now();
  const deadline = Date.now() + SECONDS * 1000;
  let queries = 0;
  await Promise.all(
    Array.from({ length: VIEWERS }, async () => {
      while (Date.now() < deadline) {
        await Promise.all(PANELS.map((q) => panel(sys, q)));
        queries += PANELS.length;
      }
    }),
  );
  return { queries, seconds: (performance.now() - started) / 1000, cpu: cpuSeconds(sys.process.pid) - cpuBefore };
}

export async function main(): Promise<void> {
  const nodeArgs = process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [];
  const key = `slk_bench_${randomBytes(24).toString('hex')}`;
  const off = await startSluice(temporaryDirectory('sluice-cache-off-'), key, { resultsCache: false, nodeArgs });
  const on = await startSluice(temporaryDirectory('sluice-cache-on-'), key, { resultsCache: true, nodeArgs });
  try {
    const endMs = Date.now();
    await load(off, endMs);
    await load(on, endMs);
    // One refresh each first, so both have their head snapshots packed and workers warm.
    for (const sys of [off, on]) await Promise.all(PANELS.map((q) => panel(sys, q)));
    const totals = { off: { queries: 0, seconds: 0, cpu: 0 }, on: { queries: 0, seconds: 0, cpu: 0 } };
    for (let r = 0; r < ROUNDS; r++) {
      for (const [name, sys] of [['off', off], ['on', on]] as const) {
        const got = await round(sys);
        totals[name].queries += got.queries;
        totals[name].seconds += got.seconds;
        totals[name].cpu += got.cpu;
        process.stdout.write(`round ${r + 1} cache ${name}: ${got.queries} queries\n`);
      }
    }
    const qps = (t: { queries: number; seconds: number }): number => t.queries / t.seconds;
    const cpuPerQuery = (t: { queries: number; cpu: number }): number => t.cpu / t.queries;
    process.stdout.write(
      `${SERIES} series, ${PANELS.length} panels over the last hour at ${STEP_S} s, ${VIEWERS} viewers, ${ROUNDS} rounds of ${SECONDS} s each\n` +
        `queries/s: cache on ${(qps(totals.on) / qps(totals.off)).toFixed(2)}x cache off\n` +
        `server CPU per query: cache on ${(cpuPerQuery(totals.on) / cpuPerQuery(totals.off)).toFixed(2)}x cache off\n`,
    );
  } finally {
    await on.process.stop();
    await off.process.stop();
  }
}

runWhenDirect(import.meta.url, main);
