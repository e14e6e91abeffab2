import { randomBytes } from 'node:crypto';
import { mkdtemp } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startChildServer, stopChildServer, type ChildServer } from '../support/child.js';
import { waitFor } from '../support/server.js';
import { query, readSse } from '../support/sse.js';

const KEY = 'slow-reader-test-key-0123456789abcdef0123456789';
const MB = 1024 * 1024;

/**
 * The raw query's window is cut into 8 slices of 400 s (two workers, four slices each). The
 * first six hold SMALL_ROWS lines each (3 MB), the last two BULK_ROWS (360 MB each): the client
 * stalls a few megabytes in, once the socket buffers are full, with only small slices in
 * flight, and what the server must not hold for it, about 700 MiB of events, lies in the two
 * bulk slices it never reaches.
 */
const SLICES = 8;
const SLICE_MS = 400_000;
const SMALL_SLICES = 6;
const SMALL_ROWS = 375;
const BULK_ROWS = 45_000;
const LINE_BYTES = 8000;
/** PUSH_ROWS lines of LINE_BYTES make a Loki push of about 12 MB, under the 16 MiB body limit. */
const PUSH_ROWS = 1500;

/**
 * RSS_BOUND is the growth of the server's resident memory allowed while the slow client is
 * connected. What the server may hold for it is the slice being sent and the one finished
 * ahead of it (3 MB of lines each, kept as worker output, tags and event text) plus one piece
 * in uWS; measured growth is 20-30 MiB. The unread rest is over ten times the bound, so a
 * server that buffered for the client, or went on dispatching slices while it was behind,
 * would exceed it whichever slice it stopped in.
 */
const RSS_BOUND = 64 * MB;
/**
 * BUFFER_BOUND: what the stream reports holding for its client, the worker result being
 * delivered plus the text uWS holds, stays within SVC_SSE_BUFFER_BYTES (4 MiB by default), with
 * room for the piece being written.
 */
const BUFFER_BOUND = 4 * MB + 256 * 1024;
/**
 * SLOW_READ_SECONDS covers, with room, the 8 s stall timeout (and uWS' ~10 s send timeout): at
 * 1 KB/s the client never drains the megabytes of socket buffer ahead of it enough for the
 * socket to turn writable.
 */
const SLOW_READ_SECONDS = 16;

const NOW = Math.floor(Date.now() / 1000) * 1000;
const START = NOW - SLICES * SLICE_MS;

function metricValue(text: string, pattern: RegExp): number {
  const m = pattern.exec(text);
  return m ? Number(m[1]) : 0;
}

const RSS = /^sluice_process_resident_memory_bytes (\S+)$/m;
const BUFFERED = /^sluice_sse_buffered_bytes (\S+)$/m;
const OPEN_STREAMS = /^sluice_open_streams (\S+)$/m;
const RAW_499 = /^sluice_http_requests_total\{route="\/api\/v1\/logs\/query",method="POST",status="499"\} (\S+)$/m;
const RAW_CLIENT_STALLED = /^sluice_queries_total\{endpoint="logs_raw",outcome="client_stalled"\} (\S+)$/m;

describe('a client reading a large raw log stream at 1 KB/s', () => {
  let server: ChildServer;
  let dataDir = '';

  const scrape = async (): Promise<string> => (await fetch(`${server.url}/metrics`)).text();

  async function push(service: string, values: Array<[string, string]>): Promise<void> {
    const res = await fetch(`${server.url}/loki/api/v1/push`, {
      method: 'POST',
      body: JSON.stringify({ streams: [{ stream: { service_name: service }, values }] }),
      headers: { 'x-svc-api-key': KEY, 'content-type': 'application/json' },
    });
    expect(res.status).toBe(204);
  }

  /** pushSlice spreads `rows` lines evenly over slice `slice`, keeping clear of its edges. */
  async function pushSlice(slice: number, rows: number, filler: string, firstId: number): Promise<void> {
    const from = START + slice * SLICE_MS + 10_000;
    const span = SLICE_MS - 20_000;
    for (let done = 0; done < rows; done += PUSH_ROWS) {
      const n = Math.min(PUSH_ROWS, rows - done);
      const values = Array.from({ length: n }, (_, i): [string, string] => {
        const row = done + i;
        const ns = BigInt(from + Math.floor((row * span) / rows)) * 1_000_000n + BigInt(row % 1000);
        return [String(ns), `row-${firstId + row} ${filler}`];
      });
      await push('bulk', values);
    }
  }

  /** webQuery is the other client's query: 200 known lines of another service, oldest first. */
  async function webQuery(): Promise<void> {
    const res = await readSse(await query(server.url, '/api/v1/logs/query', KEY, { q: '{service_name="web"}', s: String(START), e: String(NOW), limit: 1000 }));
    expect(res.status).toBe(200);
    const messages = res.events.filter((e) => e.type === 'result').map((e) => (e.data.tags as Record<string, string>).message);
    expect(messages).toEqual(Array.from({ length: 200 }, (_, i) => `web line ${i}`));
    expect(res.events.at(-1)).toEqual({ type: 'done', data: { status: 'ok' } });
  }

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'sluice-slow-reader-'));
    server = await startChildServer({
      SVC_DATA_DIR: dataDir,
      SVC_BOOTSTRAP_ORG: 'slow',
      SVC_BOOTSTRAP_API_KEY: KEY,
      SVC_QUERY_WORKERS: '2',
      // Everything stays in the in-memory head: no segment cut or compaction moves memory mid-test.
      SVC_HEAD_MAX_BYTES: '2GiB',
    });
    const filler = randomBytes(LINE_BYTES).toString('base64').slice(0, LINE_BYTES - 12);
    let id = 0;
    for (let slice = 0; slice < SLICES; slice++) {
      const rows = slice < SMALL_SLICES ? SMALL_ROWS : BULK_ROWS;
      await pushSlice(slice, rows, filler, id);
      id += rows;
    }
    await push('web', Array.from({ length: 200 }, (_, i): [string, string] => [String(BigInt(NOW - 60_000 + i * 10) * 1_000_000n), `web line ${i}`]));
  }, 120_000);

  afterAll(() => stopChildServer(server, dataDir));

  it('keeps the server memory bounded, serves other clients, and ends the stream of a client that stays behind', async () => {
    // Warm up the paths the measurement crosses (workers, small slices, other clients), not the bulk.
    const early = await readSse(await query(server.url, '/api/v1/logs/query', KEY, { q: '{service_name="bulk"}', s: String(START), e: String(START + SMALL_SLICES * SLICE_MS - 1), limit: 100_000 }));
    expect(early.events.filter((e) => e.type === 'result')).toHaveLength(SMALL_SLICES * SMALL_ROWS);
    for (let i = 0; i < 3; i++) await webQuery();
    await new Promise((r) => setTimeout(r, 1000));
    const baseline = metricValue(await scrape(), RSS);
    expect(baseline).toBeGreaterThan(0);

    const body = JSON.stringify({ q: '{service_name="bulk"}', s: String(START), e: String(NOW), limit: 100_000 });
    const url = new URL(server.url);
    const socket = net.connect(Number(url.port), url.hostname);
    socket.on('error', () => {});
    await new Promise((r) => socket.once('connect', r));
    socket.pause();
    socket.write(
      `POST /api/v1/logs/query HTTP/1.1\r\nHost: ${url.host}\r\nx-svc-api-key: ${KEY}\r\nContent-Type: application/json\r\n` +
        `Accept: text/event-stream\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );

    let received = '';
    let peakRss = baseline;
    let peakBuffered = 0;
    let openSeen = false;
    for (let second = 0; second < SLOW_READ_SECONDS; second++) {
      await new Promise((r) => setTimeout(r, 1000));
      const chunk = socket.read(1024) as Buffer | null;
      if (chunk) received += chunk.toString('latin1');
      const text = await scrape();
      peakRss = Math.max(peakRss, metricValue(text, RSS));
      peakBuffered = Math.max(peakBuffered, metricValue(text, BUFFERED));
      openSeen ||= metricValue(text, OPEN_STREAMS) === 1;
      await webQuery();
    }

    // The client read a well-formed beginning of the stream at its own pace.
    expect(received.length).toBeGreaterThanOrEqual(8 * 1024);
    expect(received).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(received).toContain('content-type: text/event-stream');
    expect(received).toContain('data: {"type":"result","data":{"timestamp":');
    expect(received).toContain('"message":"row-0 ');

    expect(openSeen).toBe(true);
    expect(peakBuffered, `peak sluice_sse_buffered_bytes ${peakBuffered}`).toBeGreaterThan(0);
    expect(peakBuffered, `peak sluice_sse_buffered_bytes ${peakBuffered}`).toBeLessThan(BUFFER_BOUND);
    const growth = peakRss - baseline;
    expect(growth, `server RSS grew by ${(growth / MB).toFixed(1)} MiB over ${(baseline / MB).toFixed(0)} MiB`).toBeLessThan(RSS_BOUND);

    // A stream whose socket takes nothing for SVC_SSE_STALL_TIMEOUT_MS (8 s, under uWS' own ~10 s)
    // is dropped by the server, recorded as stalled and cancelled.
    await waitFor(async () => metricValue(await scrape(), RAW_499) === 1, 30_000);
    const after = await scrape();
    expect(metricValue(after, RAW_CLIENT_STALLED)).toBe(1);
    expect(metricValue(after, OPEN_STREAMS)).toBe(0);
    expect(metricValue(after, BUFFERED)).toBe(0);
    socket.destroy();

    // The server stays healthy.
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    await webQuery();
    expect(server.proc.exitCode).toBeNull();
  }, 120_000);
});
