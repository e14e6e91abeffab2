import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { KeyAdmin } from '../../src/auth/apiKeys.js';
import { loadConfig } from '../../src/config.js';
import { Generator } from '../../src/gen/generator.js';
import { Sender, backfill } from '../../src/gen/sender.js';
import { startService } from '../../src/service.js';
import { spawn } from 'node:child_process';
import { runWhenDirect } from '../runDirect.js';
import { DiscardLog } from '../harness/discardLog.js';

/**
 * Responsiveness under load: while 16 heavy queries stream at once, how long do the probes
 * (/healthz, /api/v1/ping) take? The same probes are timed on the idle server first, so the
 * printed ratio says how much the query load delays the event loop. Any work left on the main
 * thread (planning over large catalogs, merging, encoding) shows here. The server runs as its
 * own process, so the load generator's HTTP client does not share its event loop;
 * BENCH_SERVER_NODE_OPTIONS passes flags to it (for example `--cpu-prof`).
 */
const HOURS = Number(process.env.BENCH_HOURS ?? 6);
const CONCURRENT = 16;

const HEAVY: Array<{ path: string; body: Record<string, unknown> }> = [
  { path: '/api/v1/metrics/query', body: { q: 'rate(http_requests_total[1m])', s: `now-${HOURS}h`, step: 15 } },
  { path: '/api/v1/metrics/query', body: { q: 'sum by (service_name, le) (rate(http_request_duration_seconds_bucket[5m]))', s: `now-${HOURS}h`, step: 15 } },
  { path: '/api/v1/logs/query', body: { q: '{service_name=~".+"}', s: `now-${HOURS}h`, limit: 100000 } },
  { path: '/api/v1/logs/query', body: { q: 'sum by (level, service_name) (count_over_time({service_name=~".+"}[1m]))', s: `now-${HOURS}h`, step: 15 } },
];

async function drain(url: string, key: string, q: (typeof HEAVY)[number]): Promise<number> {
  const res = await fetch(`${url}${q.path}`, { method: 'POST', body: JSON.stringify(q.body), headers: { 'x-svc-api-key': key, 'content-type': 'application/json' } });
  if (res.status !== 200) throw new Error(`${q.body.q}: ${res.status} ${await res.text()}`);
  let bytes = 0;
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) bytes += chunk.length;
  return bytes;
}

interface ProbeStats {
  n: number;
  p50: number;
  p99: number;
  max: number;
}

async function probe(url: string, until: () => boolean, minSamples: number): Promise<ProbeStats> {
  const times: number[] = [];
  while (!until() || times.length < minSamples) {
    for (const p of ['/healthz', '/api/v1/ping']) {
      const t = performance.now();
      const res = await fetch(`${url}${p}`);
      await res.arrayBuffer();
      times.push(performance.now() - t);
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  times.sort((a, b) => a - b);
  const at = (q: number): number => times[Math.min(times.length - 1, Math.floor(q * times.length))];
  return { n: times.length, p50: at(0.5), p99: at(0.99), max: times[times.length - 1] };
}

/** serveChild runs `sluice serve` over dataDir as its own process and resolves with its URL. */
async function serveChild(dataDir: string): Promise<{ url: string; stop: () => Promise<void> }> {
  const cli = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../../src/cli/main.js');
  const flags = (process.env.BENCH_SERVER_NODE_OPTIONS ?? '').split(' ').filter((f) => f !== '');
  const proc = spawn(process.execPath, [...flags, cli, 'serve'], {
    env: { ...process.env, SVC_PORT: '0', SVC_HOST: '127.0.0.1', SVC_DATA_DIR: dataDir, SVC_LOG_LEVEL: 'info', SVC_MAX_QUERIES_PER_ORG: String(CONCURRENT), SVC_MAX_POINTS_PER_SERIES: '100000' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => proc.on('exit', () => resolve()));
  let out = '';
  const port = await new Promise<string>((resolve, reject) => {
    proc.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /"port":(\d+)[^\n]*listening/.exec(out);
      if (m) resolve(m[1]);
    });
    proc.on('exit', (code) => reject(new Error(`server exited with ${code}: ${out}`)));
  });
  proc.stdout!.resume();
  return {
    url: `http://127.0.0.1:${port}`,
    stop: async () => {
      proc.kill('SIGTERM');
      await exited;
    },
  };
}

export async function main(): Promise<void> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'sluice-bench-'));
  let server: { url: string; stop: () => Promise<void> } | undefined;
  try {
    const config = loadConfig({ SVC_PORT: '0', SVC_HOST: '127.0.0.1', SVC_DATA_DIR: dataDir, SVC_LOG_LEVEL: 'warn' });
    const loader = await startService(config, { logDestination: new DiscardLog(), announce: () => {} });
    const [org] = await loader.store.listOrgs();
    const { key } = await new KeyAdmin(loader.store).createKey(org.id, 'bench');
    const now = Date.now();
    const stats = await backfill(new Generator({ seed: 7, logsPerSecond: 20 }), new Sender(`http://127.0.0.1:${loader.port}`, key), now - HOURS * 3_600_000, now);
    await loader.storage.cut();
    console.log(`${stats.samples} samples, ${stats.logLines} log lines over ${HOURS} h in ${loader.storage.segments().length} segments`);
    await loader.stop();
    server = await serveChild(dataDir);
    const url = server.url;
    for (const q of HEAVY) await drain(url, key, q); // warm-up
    const idle = await probe(url, () => true, 50);
    let running = CONCURRENT;
    let streamed = 0;
    const started = performance.now();
    const queries = Array.from({ length: CONCURRENT }, (_, i) =>
      drain(url, key, HEAVY[i % HEAVY.length]).then((b) => {
        streamed += b;
        running--;
      }),
    );
    const loaded = await probe(url, () => running === 0, 10);
    await Promise.all(queries);
    const wallS = (performance.now() - started) / 1000;
    const row = (s: ProbeStats) => ({ probes: s.n, 'p50 ms': s.p50.toFixed(1), 'p99 ms': s.p99.toFixed(1), 'max ms': s.max.toFixed(1) });
    console.table({ idle: row(idle), [`${CONCURRENT} heavy queries`]: row(loaded) });
    console.log(`${CONCURRENT} queries streamed ${(streamed / 1e6).toFixed(1)} MB in ${wallS.toFixed(1)} s; probe p99 under load / idle: ${(loaded.p99 / idle.p99).toFixed(1)}x, max ${loaded.max.toFixed(0)} ms (target: every probe under 100 ms)`);
  } finally {
    await server?.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

runWhenDirect(import.meta.url, main);
