import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { encodeExportLogsServiceRequest, encodeRemoteWriteBody, type LogRecordInput, type TimeSeriesInput } from '../../engine/index.js';
import { runWhenDirect } from '../runDirect.js';

/**
 * End-to-end ingest throughput: the real server in its own process, fed over loopback by
 * concurrent clients sending remote-write batches (1,000 series x 10 samples) and OTLP log
 * batches (2,000 lines), as collectors do. Every request is durable (WAL fsync) before it is
 * answered. Prints samples/s and lines/s against the targets of 500k and 100k.
 */
const KEY = 'bench-ingest-key-0123456789abcdef0123456789';
const SECONDS = 8;
const CLIENTS = 8;

function remoteWriteBatch(seed: number, baseMs: number): Uint8Array {
  const timeseries: TimeSeriesInput[] = [];
  for (let s = 0; s < 1000; s++) {
    timeseries.push({
      labels: [
        { name: '__name__', value: 'bench_requests_total' },
        { name: 'instance', value: `host-${s % 50}` },
        { name: 'route', value: `/r/${s % 20}` },
        { name: 'shard', value: String(seed) },
      ],
      samples: Array.from({ length: 10 }, (_, i) => ({ value: s * 10 + i, timestamp: baseMs + i * 15_000 })),
    });
  }
  return encodeRemoteWriteBody({ timeseries });
}

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

async function drive(url: string, bodies: Uint8Array[], pathName: string, contentType: string, until: number): Promise<number> {
  let requests = 0;
  let i = 0;
  while (performance.now() < until) {
    const res = await fetch(`${url}${pathName}`, { method: 'POST', body: bodies[i++ % bodies.length], headers: { 'x-svc-api-key': KEY, 'content-type': contentType } });
    if (res.status >= 300) throw new Error(`${pathName}: ${res.status} ${await res.text()}`);
    await res.arrayBuffer();
    requests++;
  }
  return requests;
}

async function startServer(dataDir: string): Promise<{ url: string; stop: () => Promise<void> }> {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
  const proc = spawn(process.execPath, [path.join(root, 'src', 'cli', 'main.js'), 'serve'], {
    env: { ...process.env, SVC_PORT: '0', SVC_HOST: '127.0.0.1', SVC_DATA_DIR: dataDir, SVC_BOOTSTRAP_ORG: 'bench', SVC_BOOTSTRAP_API_KEY: KEY, SVC_LOG_LEVEL: 'info' },
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

export async function main(): Promise<void> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'sluice-ingest-bench-'));
  const server = await startServer(dataDir);
  try {
    const nowMs = Date.now() - 3_600_000;
    const metricBodies = Array.from({ length: 16 }, (_, i) => remoteWriteBatch(i, nowMs + i * 150_000));
    const logBodies = Array.from({ length: 16 }, (_, i) => otlpLogBatch(i, BigInt(nowMs + i * 2_000) * 1_000_000n));
    for (const [name, bodies, pathName, type, perRequest, target] of [
      ['remote write samples', metricBodies, '/api/v1/write', 'application/x-protobuf', 10_000, 500_000],
      ['OTLP log lines', logBodies, '/v1/logs', 'application/x-protobuf', 2_000, 100_000],
    ] as const) {
      const started = performance.now();
      const until = started + SECONDS * 1000;
      const counts = await Promise.all(Array.from({ length: CLIENTS }, () => drive(server.url, bodies, pathName, type, until)));
      const seconds = (performance.now() - started) / 1000;
      const rate = (counts.reduce((a, b) => a + b, 0) * perRequest) / seconds;
      console.log(`${name}: ${Math.round(rate).toLocaleString('en')}/s with ${CLIENTS} clients (target ${target.toLocaleString('en')}/s, ratio ${(rate / target).toFixed(2)})`);
    }
  } finally {
    await server.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

runWhenDirect(import.meta.url, main);
