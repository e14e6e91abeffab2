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
 * The query macro benchmark: a real server on loopback over six hours of the demo world,
 * queried by a real streaming HTTP client. For each dashboard-style query it prints the time
 * to the first event and to `done`, and the rate of result events, once with one worker and
 * once with the whole pool, so the ratio shows what parallel slices buy on this machine.
 */
const HOURS = 6;

const QUERIES: Array<{ name: string; path: string; body: Record<string, unknown> }> = [
  { name: 'error rate by service', path: '/api/v1/metrics/query', body: { q: 'sum by (service_name) (rate(http_requests_total{code=~"5.."}[5m]))', s: `now-${HOURS}h`, step: 15 } },
  { name: 'p99 latency by service', path: '/api/v1/metrics/query', body: { q: 'histogram_quantile(0.99, sum by (service_name, le) (rate(http_request_duration_seconds_bucket[5m])))', s: `now-${HOURS}h`, step: 15 } },
  { name: 'all request series', path: '/api/v1/metrics/query', body: { q: 'rate(http_requests_total[1m])', s: `now-${HOURS}h`, step: 60 } },
  { name: 'log lines by level', path: '/api/v1/logs/query', body: { q: 'sum by (level) (count_over_time({service_name=~".+"}[1m]))', s: `now-${HOURS}h`, step: 60 } },
  { name: 'raw error logs', path: '/api/v1/logs/query', body: { q: '{service_name="payments"} |= "error"', s: `now-${HOURS}h`, limit: 5000 } },
  { name: 'newest 100 lines', path: '/api/v1/logs/query', body: { q: '{service_name=~".+"}', s: `now-${HOURS}h`, limit: 100, reverse: true } },
  { name: 'raw logs, all (events/s)', path: '/api/v1/logs/query', body: { q: '{service_name=~".+"}', s: `now-${HOURS}h`, limit: 100000 } },
];

async function measure(url: string, key: string, q: (typeof QUERIES)[number]): Promise<{ firstMs: number; totalMs: number; events: number; bytes: number }> {
  const started = performance.now();
  const res = await fetch(`${url}${q.path}`, { method: 'POST', body: JSON.stringify(q.body), headers: { 'x-svc-api-key': key, 'content-type': 'application/json' } });
  if (res.status !== 200) throw new Error(`${q.name}: ${res.status} ${await res.text()}`);
  const reader = res.body!.getReader();
  let firstMs = -1;
  let events = 0;
  let bytes = 0;
  let previous = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (firstMs < 0) firstMs = performance.now() - started;
    bytes += value.length;
    // Count event terminators (a blank line), including one split across two chunks.
    for (let i = 0; i < value.length; i++) {
      if (value[i] === 10 && previous === 10) events++;
      previous = value[i];
    }
  }
  return { firstMs, totalMs: performance.now() - started, events, bytes };
}

async function serve(dataDir: string, workers: number): Promise<RunningService> {
  const config = loadConfig({ SVC_PORT: '0', SVC_HOST: '127.0.0.1', SVC_DATA_DIR: dataDir, SVC_LOG_LEVEL: 'warn', SVC_QUERY_WORKERS: String(workers), SVC_MAX_POINTS_PER_SERIES: '100000', SVC_HTTP_COMPRESSION: process.env.SVC_HTTP_COMPRESSION ?? 'true' });
  return startService(config, { logDestination: new DiscardLog(), announce: () => {} });
}

export async function main(): Promise<void> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'sluice-bench-'));
  try {
    let service = await serve(dataDir, 1);
    const [org] = await service.store.listOrgs();
    const { key } = await new KeyAdmin(service.store).createKey(org.id, 'bench');
    await new Promise((r) => setTimeout(r, 50));
    const t0 = performance.now();
    const now = Date.now();
    const stats = await backfill(new Generator({ seed: 7, logsPerSecond: 20 }), new Sender(`http://127.0.0.1:${service.port}`, key), now - HOURS * 3_600_000, now);
    const loadS = (performance.now() - t0) / 1000;
    console.log(`loaded ${stats.samples} samples and ${stats.logLines} log lines in ${loadS.toFixed(1)} s through the ingest endpoints (${Math.round(stats.samples / loadS)} samples/s, ${Math.round(stats.logLines / loadS)} lines/s alongside)`);
    // Six hours is past the head's age limit: in service, nearly all of it would be in segments.
    await service.storage.cut();
    console.log(`cut into ${service.storage.segments().length} segments; queries read them on the workers from shared memory`);
    const results: Record<string, Record<string, string>> = {};
    for (const workers of [1, 0]) {
      if (workers === 0) {
        await service.stop();
        service = await serve(dataDir, Math.max(1, (await import('node:os')).availableParallelism()));
      }
      const label = workers === 1 ? '1 worker' : 'pool';
      const url = `http://127.0.0.1:${service.port}`;
      for (const q of QUERIES) {
        await measure(url, key, q); // warm-up: worker start, segment decode, JIT
        const runs = [await measure(url, key, q), await measure(url, key, q), await measure(url, key, q)];
        // The run with the median total time, so one GC pause or scheduler hiccup does not decide the row.
        const r = runs.sort((a, b) => a.totalMs - b.totalMs)[1];
        results[q.name] ??= {};
        results[q.name][`${label} first ms`] = r.firstMs.toFixed(0);
        results[q.name][`${label} total ms`] = r.totalMs.toFixed(0);
        results[q.name][`${label} events/s`] = String(Math.round(r.events / (r.totalMs / 1000)));
        results[q.name].events = String(r.events);
      }
    }
    for (const row of Object.values(results)) {
      row['speed-up'] = (Number(row['1 worker total ms']) / Number(row['pool total ms'])).toFixed(2);
    }
    console.table(results);
    await service.stop();
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
}

runWhenDirect(import.meta.url, main);
