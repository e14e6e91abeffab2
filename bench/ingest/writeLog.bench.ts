import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { encodeRemoteWriteBody, type TimeSeriesInput } from '../../engine/index.js';
import { natsAvailable, startNatsCluster } from '../../test/support/natsCluster.js';
import { runWhenDirect } from '../runDirect.js';

/**
 * Remote write throughput through the two durable steps, in one run on one machine: the
 * embedded WAL (fsync, group commit) and a 3-node NATS JetStream cluster on loopback
 * (SVC_WRITE_LOG=jetstream, 3 replicas, 16 partitions). Each configuration gets the same
 * server, the same batches (500 series x 10 samples) and the same concurrent clients; the
 * result is the JetStream rate as a ratio of the WAL rate (the NATS servers share the cores).
 *
 *   npm run build && node dist/bench/ingest/writeLog.bench.js
 */
const KEY = 'bench-writelog-key-0123456789abcdef0123456789';
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CLIENTS = 4;
const SERIES = 500;
const SAMPLES = 10;

function batch(seed: number, baseMs: number): Uint8Array {
  const timeseries: TimeSeriesInput[] = [];
  for (let s = 0; s < SERIES; s++) {
    timeseries.push({
      labels: [
        { name: '__name__', value: 'bench_requests_total' },
        { name: 'instance', value: `host-${s % 50}` },
        { name: 'route', value: `/r/${s}` },
        { name: 'shard', value: String(seed) },
      ],
      samples: Array.from({ length: SAMPLES }, (_, i) => ({ value: s * 10 + i, timestamp: baseMs + i * 15_000 })),
    });
  }
  return encodeRemoteWriteBody({ timeseries });
}

async function startServer(env: Record<string, string>): Promise<{ url: string; stop: () => Promise<void> }> {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
  const proc = spawn(process.execPath, [path.join(root, 'src', 'cli', 'main.js'), 'serve'], {
    env: { ...process.env, SVC_PORT: '0', SVC_HOST: '127.0.0.1', SVC_BOOTSTRAP_ORG: 'bench', SVC_BOOTSTRAP_API_KEY: KEY, SVC_LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  const port = await new Promise<string>((resolve, reject) => {
    proc.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /"port":(\d+)[^\n]*sluice listening/.exec(out);
      if (m) resolve(m[1]);
    });
    proc.on('exit', () => reject(new Error(`server exited:\n${out}`)));
  });
  proc.stdout.resume();
  return {
    url: `http://127.0.0.1:${port}`,
    stop: () =>
      new Promise((resolve) => {
        proc.on('exit', () => resolve());
        proc.kill('SIGTERM');
      }),
  };
}

async function drive(url: string, bodies: Uint8Array[], until: number): Promise<number> {
  let requests = 0;
  for (let i = 0; performance.now() < until; i++) {
    const res = await fetch(`${url}/api/v1/write`, { method: 'POST', body: bodies[i % bodies.length], headers: { 'x-svc-api-key': KEY, 'content-type': 'application/x-protobuf' } });
    if (res.status >= 300) throw new Error(`remote write: ${res.status} ${await res.text()}`);
    await res.arrayBuffer();
    requests++;
  }
  return requests;
}

/** samplesPerSecond runs one server configuration under the clients for SECONDS. */
async function samplesPerSecond(env: Record<string, string>): Promise<number> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'sluice-writelog-bench-'));
  const server = await startServer({ SVC_DATA_DIR: dataDir, ...env });
  try {
    const baseMs = Date.now() - 3_600_000;
    const bodies = Array.from({ length: 16 }, (_, i) => batch(i, baseMs + i * 150_000));
    await drive(server.url, bodies, performance.now() + 500); // warm-up
    const started = performance.now();
    const counts = await Promise.all(Array.from({ length: CLIENTS }, () => drive(server.url, bodies, started + SECONDS * 1000)));
    const seconds = (performance.now() - started) / 1000;
    return (counts.reduce((a, b) => a + b, 0) * SERIES * SAMPLES) / seconds;
  } finally {
    await server.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

export async function main(): Promise<void> {
  if (!natsAvailable('the write log benchmark')) return;
  const cluster = await startNatsCluster();
  try {
    const wal = await samplesPerSecond({ SVC_WRITE_LOG: 'wal' });
    const jetstream = await samplesPerSecond({
      SVC_WRITE_LOG: 'jetstream',
      SVC_NATS_URLS: cluster.urls.join(','),
      SVC_NATS_STREAM: `BENCH_${process.pid}`,
      SVC_NATS_REPLICAS: '3',
      SVC_WRITE_LOG_PARTITIONS: '16',
    });
    console.log(`remote write through the JetStream log (3 replicas, 16 partitions) vs the embedded WAL, ${CLIENTS} clients, ${SERIES}x${SAMPLES} samples per request:`);
    console.log(`  ratio jetstream/wal = ${(jetstream / wal).toFixed(2)}`);
  } finally {
    await cluster.close();
  }
}

runWhenDirect(import.meta.url, main);
