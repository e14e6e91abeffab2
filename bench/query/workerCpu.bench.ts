import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { announceServing, serveOrRun, startServingChild, stopServingChildren, threadCpuNs, type ServingChild } from '../harness/servingChild.js';
import { DiscardLog } from '../harness/discardLog.js';

/**
 * CPU per query of the thread that evaluates an unsharded one-step query, for this build and
 * for another checkout's build (SLUICE_BASELINE_ROOT, its dist/ already built), with the data
 * of shards.bench.ts (20,000 series x 1 h in a segment). Each build serves from its own child
 * process; queries alternate between them, and each query's cost is read from the server's
 * threads' CPU time (/proc/<pid>/task/<tid>/schedstat, Linux only), which other load on the
 * machine does not inflate the way it does wall time. The busiest thread is the worker that
 * evaluated; "process" adds the main thread and V8's helper threads.
 *
 *   SLUICE_BASELINE_ROOT=/path/to/other/checkout node dist/bench/query/workerCpu.bench.js
 */
const SERIES = 20_000;
const STEP_MS = 15_000;
const ROUNDS = 3;
const RUNS = 8;
const QUERIES = [
  'sum by (job) (rate(requests_total[1h]))',
  'max by (zone) (deriv(requests_total[30m]))',
  'rate(requests_total[5m]) > 1000000',
  'avg(max_over_time(requests_total[1h]))',
];

/** serve runs in the child: loads `root`'s build, stores the data, prints where it listens, and stops when stdin closes. */
async function serve(root: string): Promise<void> {
  const load = (p: string): Promise<Record<string, unknown>> => import(pathToFileURL(path.join(root, 'dist', p)).href) as Promise<Record<string, unknown>>;
  // Another build's modules: their types are that build's, so they are read untyped here.
  const { KeyAdmin } = (await load('src/auth/apiKeys.js')) as any;
  const { loadConfig } = (await load('src/config.js')) as any;
  const { startService } = (await load('src/service.js')) as any;
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'sluice-bench-workercpu-'));
  const config = loadConfig({ SVC_PORT: '0', SVC_HOST: '127.0.0.1', SVC_DATA_DIR: dataDir, SVC_LOG_LEVEL: 'warn', SVC_QUERY_SHARD_MIN_SAMPLES: '0', SVC_RESULTS_CACHE: 'false', SVC_MAX_SERIES_PER_ORG: String(SERIES * 2) });
  const service = await startService(config, { logDestination: new DiscardLog(), announce: () => {} });
  const [org] = await service.store.listOrgs();
  const { key } = await new KeyAdmin(service.store).createKey(org.id, 'bench');
  const endMs = Math.floor(Date.now() / STEP_MS) * STEP_MS;
  const startMs = endMs - 3_600_000;
  const n = (endMs - startMs) / STEP_MS + 1;
  for (let from = 0; from < SERIES; from += 1000) {
    const batch = [];
    for (let i = from; i < from + 1000; i++) {
      const timestampsMs = new Float64Array(n);
      const values = new Float64Array(n);
      for (let j = 0; j < n; j++) {
        timestampsMs[j] = startMs + j * STEP_MS;
        values[j] = j * ((i % 13) + 1) + (i % 7);
      }
      batch.push({ labels: { __name__: 'requests_total', job: `job${i % 20}`, zone: `z${i % 3}`, instance: `host-${i}` }, timestampsMs, values });
    }
    await service.storage.appendMetrics(org.id, batch, []);
  }
  await service.storage.cut();
  announceServing({ port: service.port, key, endMs }, () => service.stop().then(() => rm(dataDir, { recursive: true, force: true })));
}

function start(root: string): Promise<ServingChild> {
  return startServingChild(root, fileURLToPath(import.meta.url), ['--serve', root]);
}

/** cost runs one query and returns the CPU its busiest thread and the whole process spent, in ms. */
async function cost(s: ServingChild, q: string): Promise<{ busiest: number; process: number }> {
  const before = threadCpuNs(s.child.pid!);
  const res = await fetch(`http://127.0.0.1:${s.port}/api/v1/metrics/query`, {
    method: 'POST',
    body: JSON.stringify({ q, s: String(s.endMs), e: String(s.endMs), step: 60 }),
    headers: { 'x-svc-api-key': s.key, 'content-type': 'application/json' },
  });
  const text = await res.text();
  if (res.status !== 200 || !text.includes('"status":"ok"')) throw new Error(`${s.label} ${q}: ${res.status} ${text.slice(-200)}`);
  let busiest = 0;
  let total = 0;
  for (const [tid, ns] of threadCpuNs(s.child.pid!)) {
    const d = ns - (before.get(tid) ?? 0);
    total += d;
    busiest = Math.max(busiest, d);
  }
  return { busiest: busiest / 1e6, process: total / 1e6 };
}

export async function main(): Promise<void> {
  const baseline = process.env.SLUICE_BASELINE_ROOT;
  if (baseline === undefined || process.platform !== 'linux') {
    console.log('workerCpu: set SLUICE_BASELINE_ROOT to another checkout with dist/ built (Linux only); skipped');
    return;
  }
  const here = path.resolve(fileURLToPath(new URL('../../..', import.meta.url)));
  const servers = [await start(path.resolve(baseline)), await start(here)];
  try {
    for (const s of servers) for (const q of QUERIES) await cost(s, q); // warm-up: decode, JIT
    const rows: Record<string, Record<string, string>> = {};
    for (const q of QUERIES) {
      const sums = servers.map(() => ({ busiest: 0, process: 0 }));
      for (let r = 0; r < ROUNDS * RUNS; r++) {
        for (let i = 0; i < servers.length; i++) {
          const c = await cost(servers[i], q);
          sums[i].busiest += c.busiest;
          sums[i].process += c.process;
        }
      }
      rows[q] = {
        'baseline worker ms': (sums[0].busiest / (ROUNDS * RUNS)).toFixed(0),
        'this worker ms': (sums[1].busiest / (ROUNDS * RUNS)).toFixed(0),
        'worker ratio': (sums[1].busiest / sums[0].busiest).toFixed(2),
        'process ratio': (sums[1].process / sums[0].process).toFixed(2),
      };
    }
    console.log(`baseline ${baseline}; ${ROUNDS * RUNS} alternated runs per query`);
    console.table(rows);
  } finally {
    stopServingChildren(servers);
  }
}

serveOrRun(import.meta.url, serve, main);
