import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { encodeRemoteWriteBody, type TimeSeriesInput } from '../../engine/index.js';

/**
 * What the ingest benchmarks share: the server in its own process, remote-write batches shaped
 * as collectors send them, and clients that post batches back to back until a deadline. Every
 * request is answered only once durable, so a client's rate is the durable rate.
 */

/** BatchShape is a remote-write batch: `series` series (`routes` distinct routes, cycling) of `samples` samples 15 s apart. */
export interface BatchShape {
  series: number;
  samples: number;
  routes: number;
}

/** remoteWriteBatch encodes one batch; `seed` labels the batch's shard, so batches of different seeds are different series. */
export function remoteWriteBatch(shape: BatchShape, seed: number, baseMs: number): Uint8Array {
  const timeseries: TimeSeriesInput[] = [];
  for (let s = 0; s < shape.series; s++) {
    timeseries.push({
      labels: [
        { name: '__name__', value: 'bench_requests_total' },
        { name: 'instance', value: `host-${s % 50}` },
        { name: 'route', value: `/r/${s % shape.routes}` },
        { name: 'shard', value: String(seed) },
      ],
      samples: Array.from({ length: shape.samples }, (_, i) => ({ value: s * 10 + i, timestamp: baseMs + i * 15_000 })),
    });
  }
  return encodeRemoteWriteBody({ timeseries });
}

/** BenchServer is a running server: its address and how to stop it. */
export interface BenchServer {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

/**
 * startBenchServer starts `sluice serve` of this checkout's build with org `bench` and `key`,
 * on a free loopback port, with `env` over the defaults (SVC_DATA_DIR among them), and
 * `nodeArgs` before the script (for example `--cpu-prof`).
 */
export async function startBenchServer(key: string, env: Record<string, string>, nodeArgs: string[] = []): Promise<BenchServer> {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
  const proc = spawn(process.execPath, [...nodeArgs, path.join(root, 'src', 'cli', 'main.js'), 'serve'], {
    env: { ...process.env, SVC_PORT: '0', SVC_HOST: '127.0.0.1', SVC_BOOTSTRAP_ORG: 'bench', SVC_BOOTSTRAP_API_KEY: key, SVC_LOG_LEVEL: 'info', ...env },
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
    pid: proc.pid!,
    stop: () =>
      new Promise((resolve) => {
        proc.on('exit', () => resolve());
        proc.kill('SIGTERM');
      }),
  };
}

/** drive posts `bodies` in turn to `pathName` until `until` (performance.now()), one at a time, and returns how many were answered. */
export async function drive(url: string, key: string, bodies: readonly Uint8Array[], pathName: string, contentType: string, until: number): Promise<number> {
  let requests = 0;
  for (let i = 0; performance.now() < until; i++) {
    const res = await fetch(`${url}${pathName}`, { method: 'POST', body: bodies[i % bodies.length], headers: { 'x-svc-api-key': key, 'content-type': contentType } });
    if (res.status >= 300) throw new Error(`${pathName}: ${res.status} ${await res.text()}`);
    await res.arrayBuffer();
    requests++;
  }
  return requests;
}

/** driveRemoteWrite runs `clients` concurrent remote-write clients for `seconds` and returns the samples per second answered. */
export async function driveRemoteWrite(url: string, key: string, bodies: readonly Uint8Array[], samplesPerBody: number, clients: number, seconds: number): Promise<number> {
  const started = performance.now();
  const until = started + seconds * 1000;
  const counts = await Promise.all(Array.from({ length: clients }, () => drive(url, key, bodies, '/api/v1/write', 'application/x-protobuf', until)));
  const elapsed = (performance.now() - started) / 1000;
  return (counts.reduce((a, b) => a + b, 0) * samplesPerBody) / elapsed;
}
