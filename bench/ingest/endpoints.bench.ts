import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { encodeExportLogsServiceRequest, type LogRecordInput } from '../../engine/index.js';
import { cpuSeconds } from '../peers/procStats.js';
import { runWhenDirect } from '../runDirect.js';
import { drive, remoteWriteBatch, startBenchServer, type BatchShape } from './remoteWriteLoad.js';

/**
 * End-to-end ingest throughput: the real server in its own process, fed over loopback by
 * concurrent clients sending remote-write batches (1,000 series x 10 samples) and OTLP log
 * batches (2,000 lines), as collectors do. Every request is durable (WAL fsync) before it is
 * answered. Prints samples/s and lines/s against the targets of 500k and 100k.
 *
 * It also prints the server's CPU time per sample or line (Linux /proc), which the rest of the
 * machine disturbs less than the rate. `BENCH_SECONDS` sets each phase's length (8), `BENCH_ONLY=metrics` skips the logs phase, and
 * `BENCH_CPU_PROF=DIR` writes the server's V8 CPU profile there when it stops.
 */
const KEY = 'bench-ingest-key-0123456789abcdef0123456789';
const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const CLIENTS = 8;
/** The batch: 1,000 series over 100 distinct label sets per shard (instance and route cycle together), 10 samples each. */
const SHAPE: BatchShape = { series: 1000, samples: 10, routes: 20 };

function otlpLogBatch(seed: number, baseNs: bigint): Uint8Array {
  const logRecords: LogRecordInput[] = Array.from({ length: 2000 }, (_, i) => ({
    timeUnixNano: baseNs + BigInt(i) * 1_000_000n,
    severityNumber: i % 10 === 0 ? 17 : 9,
    body: { stringValue: `level=${i % 10 === 0 ? 'error' : 'info'} msg="request served" route=/r/${i % 20} status=${i % 10 === 0 ? 500 : 200} duration=${i % 97}ms client=${seed}` },
    attributes: [{ key: 'http.route', value: { stringValue: `/r/${i % 20}` } }],
  }));
  return encodeExportLogsServiceRequest({
    resourceLogs: [{ resource: { attributes: [{ key: 'service.name', value: { stringValue: `svc-${seed % 4}` } }] }, scopeLogs: [{ logRecords }] }],
  });
}

export async function main(): Promise<void> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'sluice-ingest-bench-'));
  const profileDir = process.env.BENCH_CPU_PROF;
  const server = await startBenchServer(KEY, { SVC_DATA_DIR: dataDir }, profileDir === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${profileDir}`]);
  try {
    const nowMs = Date.now() - 3_600_000;
    const metricBodies = Array.from({ length: 16 }, (_, i) => remoteWriteBatch(SHAPE, i, nowMs + i * 150_000));
    const logBodies = Array.from({ length: 16 }, (_, i) => otlpLogBatch(i, BigInt(nowMs + i * 2_000) * 1_000_000n));
    for (const [name, bodies, pathName, type, perRequest, target] of [
      ['remote write samples', metricBodies, '/api/v1/write', 'application/x-protobuf', SHAPE.series * SHAPE.samples, 500_000],
      ['OTLP log lines', logBodies, '/v1/logs', 'application/x-protobuf', 2_000, 100_000],
    ] as const) {
      if (process.env.BENCH_ONLY === 'metrics' && pathName !== '/api/v1/write') continue;
      const started = performance.now();
      const cpuBefore = cpuSeconds(server.pid);
      const until = started + SECONDS * 1000;
      const counts = await Promise.all(Array.from({ length: CLIENTS }, () => drive(server.url, KEY, bodies, pathName, type, until)));
      const seconds = (performance.now() - started) / 1000;
      const items = counts.reduce((a, b) => a + b, 0) * perRequest;
      const rate = items / seconds;
      // The server's own CPU per item: steadier than the rate on a machine others load too.
      const cpuMicros = ((cpuSeconds(server.pid) - cpuBefore) * 1e6) / items;
      console.log(`${name}: ${Math.round(rate).toLocaleString('en')}/s with ${CLIENTS} clients (target ${target.toLocaleString('en')}/s, ratio ${(rate / target).toFixed(2)}), server CPU ${cpuMicros.toFixed(2)} µs each`);
    }
  } finally {
    await server.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

runWhenDirect(import.meta.url, main);
