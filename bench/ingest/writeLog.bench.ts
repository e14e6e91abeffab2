import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { natsAvailable, startNatsCluster } from '../cluster/natsCluster.js';
import { runWhenDirect } from '../runDirect.js';
import { drive, driveRemoteWrite, remoteWriteBatch, startBenchServer, type BatchShape } from './remoteWriteLoad.js';

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
/** The batch: 500 distinct series, 10 samples each. */
const SHAPE: BatchShape = { series: 500, samples: 10, routes: 500 };

/** samplesPerSecond runs one server configuration under the clients for SECONDS. */
async function samplesPerSecond(env: Record<string, string>): Promise<number> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'sluice-writelog-bench-'));
  const server = await startBenchServer(KEY, { SVC_DATA_DIR: dataDir, ...env });
  try {
    const baseMs = Date.now() - 3_600_000;
    const bodies = Array.from({ length: 16 }, (_, i) => remoteWriteBatch(SHAPE, i, baseMs + i * 150_000));
    await drive(server.url, KEY, bodies, '/api/v1/write', 'application/x-protobuf', performance.now() + 500); // warm-up
    return await driveRemoteWrite(server.url, KEY, bodies, SHAPE.series * SHAPE.samples, CLIENTS, SECONDS);
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
    console.log(`remote write through the JetStream log (3 replicas, 16 partitions) vs the embedded WAL, ${CLIENTS} clients, ${SHAPE.series}x${SHAPE.samples} samples per request:`);
    console.log(`  ratio jetstream/wal = ${(jetstream / wal).toFixed(2)}`);
  } finally {
    await cluster.close();
  }
}

runWhenDirect(import.meta.url, main);
