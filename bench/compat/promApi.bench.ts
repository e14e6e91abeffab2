import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { KeyAdmin } from '../../src/auth/apiKeys.js';
import { loadConfig } from '../../src/config.js';
import { Generator } from '../../src/gen/generator.js';
import { Sender, backfill } from '../../src/gen/sender.js';
import { startService, type RunningService } from '../../src/service.js';
import { runWhenDirect } from '../runDirect.js';
import { DiscardLog } from '../harness/discardLog.js';

/**
 * What Prometheus JSON costs: the same dashboard queries over the same window, once through the
 * SSE endpoint (points streamed as events) and once through /prometheus/api/v1/query_range (the
 * whole result collected, then rendered as one JSON body), each read to its end by a real HTTP
 * client. The ratio is the price of the compatible wire format; the aim is at most 1.2.
 */
const HOURS = 6;
const RUNS = 5;

const QUERIES: Array<{ name: string; q: string; step: number }> = [
  { name: 'error rate by service', q: 'sum by (service_name) (rate(http_requests_total{code=~"5.."}[5m]))', step: 15 },
  { name: 'p99 latency by service', q: 'histogram_quantile(0.99, sum by (service_name, le) (rate(http_request_duration_seconds_bucket[5m])))', step: 15 },
  { name: 'all request series', q: 'rate(http_requests_total[1m])', step: 60 },
];

/** readAll reads a response to its end and returns its size. */
async function readAll(res: Response): Promise<number> {
  const reader = res.body!.getReader();
  let bytes = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return bytes;
    bytes += value.length;
  }
}

async function viaSse(url: string, key: string, q: string, startMs: number, endMs: number, step: number): Promise<number> {
  const res = await fetch(`${url}/api/v1/metrics/query`, {
    method: 'POST',
    body: JSON.stringify({ q, s: String(startMs), e: String(endMs), step }),
    headers: { 'x-svc-api-key': key, 'content-type': 'application/json', accept: 'text/event-stream' },
  });
  if (res.status !== 200) throw new Error(`SSE ${res.status}: ${await res.text()}`);
  return readAll(res);
}

async function viaPrometheus(url: string, key: string, q: string, startMs: number, endMs: number, step: number): Promise<number> {
  const params = new URLSearchParams({ query: q, start: String(startMs / 1000), end: String(endMs / 1000), step: String(step) });
  const res = await fetch(`${url}/prometheus/api/v1/query_range?${params.toString()}`, { headers: { 'x-svc-api-key': key } });
  if (res.status !== 200) throw new Error(`query_range ${res.status}: ${await res.text()}`);
  return readAll(res);
}

/** medianMs runs `once` RUNS times and returns the median wall time and the last size. */
async function medianMs(once: () => Promise<number>): Promise<{ ms: number; bytes: number }> {
  const times: number[] = [];
  let bytes = 0;
  for (let i = 0; i < RUNS; i++) {
    const started = performance.now();
    bytes = await once();
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return { ms: times[Math.floor(RUNS / 2)], bytes };
}

async function serve(dataDir: string): Promise<RunningService> {
  const config = loadConfig({ SVC_PORT: '0', SVC_HOST: '127.0.0.1', SVC_DATA_DIR: dataDir, SVC_LOG_LEVEL: 'warn', SVC_MAX_POINTS_PER_SERIES: '100000' });
  return startService(config, { logDestination: new DiscardLog(), announce: () => {} });
}

export async function main(): Promise<void> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'sluice-bench-'));
  try {
    const service = await serve(dataDir);
    const [org] = await service.store.listOrgs();
    const { key } = await new KeyAdmin(service.store).createKey(org.id, 'bench');
    const url = `http://127.0.0.1:${service.port}`;
    const endMs = Math.floor(Date.now() / 60_000) * 60_000;
    const startMs = endMs - HOURS * 3_600_000;
    const stats = await backfill(new Generator({ seed: 7, logsPerSecond: 1 }), new Sender(url, key), startMs, endMs);
    await service.storage.cut();
    console.log(`loaded ${stats.samples} samples over ${HOURS} h; ${RUNS} runs each, medians`);
    const rows: Record<string, Record<string, string>> = {};
    for (const { name, q, step } of QUERIES) {
      // One unmeasured run of each warms the segment cache and the workers alike.
      await viaSse(url, key, q, startMs, endMs, step);
      await viaPrometheus(url, key, q, startMs, endMs, step);
      const sse = await medianMs(() => viaSse(url, key, q, startMs, endMs, step));
      const prom = await medianMs(() => viaPrometheus(url, key, q, startMs, endMs, step));
      rows[name] = {
        'SSE ms': sse.ms.toFixed(1),
        'SSE KiB': (sse.bytes / 1024).toFixed(0),
        'query_range ms': prom.ms.toFixed(1),
        'query_range KiB': (prom.bytes / 1024).toFixed(0),
        'ratio (query_range / SSE)': (prom.ms / sse.ms).toFixed(2),
      };
    }
    console.table(rows);
    await service.stop();
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
}

runWhenDirect(import.meta.url, main);
