import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startChildServer, type ChildServer } from '../harness/childServer.js';
import { runWhenDirect } from '../runDirect.js';

/**
 * Adversarial queries against a real server run as a child process, reporting the child's
 * resident memory: its level before the attack, the peak sampled while it runs, and the
 * kernel's high-water mark. Two attacks:
 *
 * - a template bomb: label_format doubling a label 40 times (2^40 times its size) and
 *   line_format doubling the line 30 times, after a plain query over the same lines;
 * - 65 clients that send a raw log query over 200 MB of lines and never read the answer.
 *
 * Run from the package root after `npm run build`: `node dist/bench/adversarial/adversarial.bench.js`.
 * On a shared machine it scales down: BENCH_LINES (lines of 4 KB, default 50,000),
 * BENCH_STALLED (stalled clients, default 65) and BENCH_ONLY=stalled (skip the template bombs).
 */
const KEY = 'adversarial-bench-key-0123456789abcdef0123456789';
const MB = 1024 * 1024;
const STALLED_CLIENTS = Number(process.env.BENCH_STALLED ?? 65);
const LINES = Number(process.env.BENCH_LINES ?? 50_000);
const LINE_BYTES = 4000;

function rssOf(pid: number): { rss: number; hwm: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string): number => Number(new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(status)?.[1] ?? 0) * 1024;
  return { rss: kb('VmRSS'), hwm: kb('VmHWM') };
}

async function push(url: string, values: Array<[string, string]>): Promise<void> {
  const res = await fetch(`${url}/loki/api/v1/push`, {
    method: 'POST',
    body: JSON.stringify({ streams: [{ stream: { service_name: 'bulk', app: 'x' }, values }] }),
    headers: { 'x-svc-api-key': KEY, 'content-type': 'application/json' },
  });
  if (res.status !== 204) throw new Error(`push: ${res.status} ${await res.text()}`);
}

async function fill(url: string, fromMs: number): Promise<void> {
  const filler = randomBytes(LINE_BYTES).toString('base64').slice(0, LINE_BYTES - 12);
  for (let done = 0; done < LINES; done += 2000) {
    const values = Array.from({ length: Math.min(2000, LINES - done) }, (_, i): [string, string] => [String(BigInt(fromMs + done + i) * 1_000_000n), `row-${done + i} ${filler}`]);
    await push(url, values);
  }
}

/** sample polls the child's RSS every 50 ms until `work` settles, returning the highest value seen. */
async function sample(pid: number, work: Promise<unknown>): Promise<number> {
  let peak = 0;
  let settled = false;
  void work.finally(() => (settled = true)).catch(() => {});
  while (!settled) {
    try {
      peak = Math.max(peak, rssOf(pid).rss);
    } catch {
      break;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return peak;
}

async function queryText(url: string, q: string, s: number, e: number): Promise<string> {
  const res = await fetch(`${url}/api/v1/logs/query`, {
    method: 'POST',
    body: JSON.stringify({ q, s: String(s), e: String(e), limit: 1000 }),
    headers: { 'x-svc-api-key': KEY, 'content-type': 'application/json', accept: 'text/event-stream' },
  });
  const text = await res.text();
  return `${res.status} ${text.slice(-240).replace(/\s+/g, ' ')}`;
}

function stalledClient(url: URL, body: string): net.Socket {
  const socket = net.connect(Number(url.port), url.hostname);
  socket.on('error', () => {});
  socket.once('connect', () => {
    socket.pause();
    socket.write(
      `POST /api/v1/logs/query HTTP/1.1\r\nHost: ${url.host}\r\nx-svc-api-key: ${KEY}\r\nContent-Type: application/json\r\n` +
        `Accept: text/event-stream\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
  });
  return socket;
}

async function withServer(env: Record<string, string>, run: (server: ChildServer) => Promise<void>): Promise<void> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'sluice-adversarial-'));
  const server = await startChildServer({
    SVC_DATA_DIR: dataDir,
    SVC_BOOTSTRAP_ORG: 'adversarial',
    SVC_BOOTSTRAP_API_KEY: KEY,
    SVC_HEAD_MAX_BYTES: '2GiB',
    SVC_MAX_QUERIES_PER_ORG: '200',
    ...env,
  });
  try {
    await run(server);
  } finally {
    server.proc.kill('SIGTERM');
    await server.exit;
    await rm(dataDir, { recursive: true, force: true });
  }
}

const fmt = (bytes: number): string => `${(bytes / MB).toFixed(0)} MiB`;

export async function main(): Promise<void> {
  const rows: Record<string, Record<string, string>> = {};
  const now = Date.now();
  const from = now - 600_000;

  if (process.env.BENCH_ONLY !== 'stalled') await withServer({}, async (server) => {
    const pid = server.proc.pid!;
    await fill(server.url, from);
    // The plain query is the control: what any query over these lines costs (the head's copy for
    // the task, its decoding on the worker), against which the bombs' peaks are read.
    const bombs = {
      'plain line_format (control)': `{app="x"} | line_format "{{__line__}}"`,
      'label_format x40': `{app="x"} | label_format a="{{__line__}}"${' | label_format a="{{.a}}{{.a}}"'.repeat(40)}`,
      'line_format x30': `{app="x"}${' | line_format "{{__line__}}{{__line__}}"'.repeat(30)}`,
    };
    for (const [name, q] of Object.entries(bombs)) {
      const before = rssOf(pid).rss;
      const work = queryText(server.url, q, from, now);
      const peak = await sample(pid, work);
      const answer = await work.catch((err: unknown) => `failed: ${String(err)}`);
      rows[name] = { 'RSS before': fmt(before), 'peak RSS': fmt(peak), 'high-water': fmt(rssOf(pid).hwm), answer: answer.slice(0, 160) };
    }
  });

  await withServer({ SVC_QUERY_WORKERS: '2' }, async (server) => {
    const pid = server.proc.pid!;
    await fill(server.url, from);
    const before = rssOf(pid).rss;
    const body = JSON.stringify({ q: '{service_name="bulk"}', s: String(from), e: String(now), limit: LINES });
    const url = new URL(server.url);
    const sockets = Array.from({ length: STALLED_CLIENTS }, () => stalledClient(url, body));
    const started = Date.now();
    // A paused socket never sees its close; the server's own count of open streams does.
    const openStreams = async (): Promise<number> => Number(/^sluice_open_streams (\S+)$/m.exec(await (await fetch(`${server.url}/metrics`)).text())?.[1] ?? 0);
    let allClosed = false;
    const work = (async () => {
      await new Promise((r) => setTimeout(r, 2000));
      while (Date.now() - started < 90_000) {
        if ((await openStreams()) === 0) return void (allClosed = true);
        await new Promise((r) => setTimeout(r, 250));
      }
    })();
    const peak = await sample(pid, work);
    rows[`${STALLED_CLIENTS} stalled readers`] = {
      'RSS before': fmt(before),
      'peak RSS': fmt(peak),
      'high-water': fmt(rssOf(pid).hwm),
      answer: allClosed ? `all closed by the server after ${((Date.now() - started) / 1000).toFixed(0)} s` : 'still open after 90 s',
    };
    for (const s of sockets) s.destroy();
  });
  console.table(rows);
}

runWhenDirect(import.meta.url, main);
