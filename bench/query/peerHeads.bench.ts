import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { encodeRemoteWriteBody, type TimeSeriesInput } from '../../engine/index.js';
import { postgresAvailable, startTestPostgres } from '../cluster/postgres.js';
import { startTestS3 } from '../cluster/s3Server.js';
import { runWhenDirect } from '../runDirect.js';

/**
 * What reading the heads over the network costs a query process, in one run on one machine:
 * a process of role all holds a head of SERIES x SAMPLES samples (nothing cut), and a process
 * of role query reads it through the internal head endpoint. Reported as ratios only:
 *
 * - the same range query's time on the query process over its time on the holder (both
 *   without the results cache, alternating, median of ROUNDS);
 * - the bytes of a head fetch that names the chunks kept from the previous answer over one
 *   that names none, after one more sample per series.
 *
 *   npm run build && node dist/bench/query/peerHeads.bench.js
 */
const KEY = 'bench-peer-heads-key-0123456789abcdef01234567';
const TOKEN = 'bench-peer-heads-token-0123456789abcdef0123456';
const SERIES = 2000;
const SAMPLES = 120;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 15);

interface Server {
  url: string;
  proc: ChildProcess;
}

async function startServer(env: Record<string, string>): Promise<Server> {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
  const proc = spawn(process.execPath, [path.join(root, 'src', 'cli', 'main.js'), 'serve'], {
    env: { ...process.env, SVC_PORT: '0', SVC_HOST: '127.0.0.1', SVC_BOOTSTRAP_ORG: 'bench', SVC_BOOTSTRAP_API_KEY: KEY, SVC_LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  const port = await new Promise<string>((resolve, reject) => {
    proc.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /"port":(\d+)[^\n]*sluice listening/.exec(out);
      if (m) resolve(m[1]);
    });
    proc.on('exit', () => reject(new Error(`server exited:\n${out}`)));
  });
  proc.stdout!.resume();
  return { url: `http://127.0.0.1:${port}`, proc };
}

async function stop(server: Server | undefined): Promise<void> {
  if (server === undefined || server.proc.exitCode !== null) return;
  const exited = new Promise((resolve) => server.proc.once('exit', resolve));
  server.proc.kill('SIGTERM');
  await exited;
}

function batch(fromSeries: number, count: number, baseMs: number, samples: number): Uint8Array {
  const timeseries: TimeSeriesInput[] = [];
  for (let s = fromSeries; s < fromSeries + count; s++) {
    timeseries.push({
      labels: [
        { name: '__name__', value: 'bench_requests_total' },
        { name: 'instance', value: `host-${s % 50}` },
        { name: 'route', value: `/r/${s}` },
      ],
      samples: Array.from({ length: samples }, (_, i) => ({ value: s + i, timestamp: baseMs + i * 15_000 })),
    });
  }
  return encodeRemoteWriteBody({ timeseries });
}

async function write(url: string, body: Uint8Array): Promise<void> {
  const res = await fetch(`${url}/api/v1/write`, { method: 'POST', body, headers: { 'x-svc-api-key': KEY, 'content-type': 'application/x-protobuf' } });
  if (res.status !== 204) throw new Error(`remote write: ${res.status} ${await res.text()}`);
}

async function timedQuery(url: string, body: string): Promise<number> {
  const started = performance.now();
  const res = await fetch(`${url}/api/v1/metrics/query`, { method: 'POST', body, headers: { 'x-svc-api-key': KEY, 'content-type': 'application/json' } });
  const text = await res.text();
  if (res.status !== 200 || !text.includes('"status":"ok"')) throw new Error(`query: ${res.status} ${text.slice(-300)}`);
  return performance.now() - started;
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** headFetch asks the holder's endpoint directly and returns the answer's size and the chunk ids it named. */
async function headFetch(url: string, org: string, have: string[]): Promise<{ bytes: number; ids: string[] }> {
  const res = await fetch(`${url}/internal/v1/head`, {
    method: 'POST',
    body: JSON.stringify({ org, signals: ['metrics'], have }),
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
  });
  const body = Buffer.from(await res.arrayBuffer());
  if (res.status !== 200) throw new Error(`head fetch: ${res.status} ${body.toString()}`);
  const header = JSON.parse(body.toString('utf8', 9, 9 + body.readUInt32LE(5))) as { metrics: Array<Array<{ id: string }>> };
  return { bytes: body.length, ids: header.metrics.flat().map((c) => c.id) };
}

export async function main(): Promise<void> {
  if (!postgresAvailable('the peer heads benchmark')) return;
  const [pg, s3] = await Promise.all([startTestPostgres(), startTestS3()]);
  const dirs = [await mkdtemp(path.join(tmpdir(), 'sluice-peer-bench-')), await mkdtemp(path.join(tmpdir(), 'sluice-peer-bench-'))];
  let holder: Server | undefined;
  let replica: Server | undefined;
  try {
    const database = await pg.createDatabase('bench');
    const shared = { ...pg.env(database, { catalog: true }), ...s3.env('bench/'), SVC_INTERNAL_TOKEN: TOKEN, SVC_QUERY_WORKERS: '1', SVC_RESULTS_CACHE: 'false' };
    holder = await startServer({ ...shared, SVC_DATA_DIR: dirs[0], SVC_HEAD_MAX_BYTES: '1GiB' });
    replica = await startServer({ ...shared, SVC_DATA_DIR: dirs[1], SVC_ROLE: 'query', SVC_INGESTER_URLS: holder.url });
    const baseMs = Date.now() - 40 * 60_000;
    for (let s = 0; s < SERIES; s += 250) await write(holder.url, batch(s, 250, baseMs, SAMPLES));
    const body = JSON.stringify({ q: 'sum by (instance) (rate(bench_requests_total[5m]))', s: String(baseMs), e: String(baseMs + SAMPLES * 15_000), step: 60 });
    await timedQuery(holder.url, body);
    await timedQuery(replica.url, body);
    const onHolder: number[] = [];
    const onReplica: number[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      onHolder.push(await timedQuery(holder.url, body));
      onReplica.push(await timedQuery(replica.url, body));
    }
    const orgs = (await (await fetch(`${holder.url}/api/v1/ping`, { headers: { 'x-svc-api-key': KEY } })).json()) as { org: string };
    const cold = await headFetch(holder.url, orgs.org, []);
    await write(holder.url, batch(0, SERIES, baseMs + SAMPLES * 15_000, 1));
    const warm = await headFetch(holder.url, orgs.org, cold.ids);
    const fresh = await headFetch(holder.url, orgs.org, []);
    console.log(`query process reading a head of ${SERIES} x ${SAMPLES} samples from its holder (role all), ${ROUNDS} rounds:`);
    console.log(`  range query time, query process / holder (median) = ${(median(onReplica) / median(onHolder)).toFixed(2)}`);
    console.log(`  head fetch bytes after one more sample per series, naming kept chunks / naming none = ${(warm.bytes / fresh.bytes).toFixed(3)}`);
  } finally {
    await stop(replica);
    await stop(holder);
    await Promise.all([pg.close(), s3.close()]);
    for (const d of dirs) await rm(d, { recursive: true, force: true });
  }
}

runWhenDirect(import.meta.url, main);
