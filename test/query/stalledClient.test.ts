import { randomBytes } from 'node:crypto';
import { mkdtemp } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startChildServer, stopChildServer, type ChildServer } from '../support/child.js';
import { waitFor } from '../support/server.js';
import { query, readSse } from '../support/sse.js';

const KEY = 'stalled-client-test-key-0123456789abcdef012345678';
const MIB = 1024 * 1024;

/** BUFFER_BYTES is the server's SVC_SSE_BUFFER_BYTES: what one stream may hold for its client. */
const BUFFER_BYTES = 1 * MIB;
/** STALL_MS is the server's SVC_SSE_STALL_TIMEOUT_MS, well under uWS' own ~10 s send timeout. */
const STALL_MS = 1500;
/** 6000 lines of 8 KB: about 48 MB of answer, far beyond the buffer and the socket buffers. */
const LINES = 6000;
const LINE_BYTES = 8000;

const NOW = Math.floor(Date.now() / 1000) * 1000;
const START = NOW - 600_000;

const BUFFERED = /^sluice_sse_buffered_bytes (\S+)$/m;
const OPEN_STREAMS = /^sluice_open_streams (\S+)$/m;
const STALLED = /^sluice_queries_total\{endpoint="logs_raw",outcome="client_stalled"\} (\S+)$/m;
const RAW_499 = /^sluice_http_requests_total\{route="\/api\/v1\/logs\/query",method="POST",status="499"\} (\S+)$/m;

function metricValue(text: string, pattern: RegExp): number {
  const m = pattern.exec(text);
  return m ? Number(m[1]) : 0;
}

describe('a client that sends a query and never reads the answer', () => {
  let server: ChildServer;
  let dataDir = '';
  const scrape = async (): Promise<string> => (await fetch(`${server.url}/metrics`)).text();

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'sluice-stalled-'));
    server = await startChildServer({
      SVC_DATA_DIR: dataDir,
      SVC_BOOTSTRAP_ORG: 'stalled',
      SVC_BOOTSTRAP_API_KEY: KEY,
      SVC_QUERY_WORKERS: '1',
      SVC_SSE_BUFFER_BYTES: String(BUFFER_BYTES),
      SVC_SSE_STALL_TIMEOUT_MS: String(STALL_MS),
      SVC_HEAD_MAX_BYTES: '1GiB',
    });
    const filler = randomBytes(LINE_BYTES).toString('base64').slice(0, LINE_BYTES - 12);
    for (let done = 0; done < LINES; done += 1500) {
      const values = Array.from({ length: 1500 }, (_, i): [string, string] => [String(BigInt(START + (done + i) * 50) * 1_000_000n), `row-${done + i} ${filler}`]);
      const res = await fetch(`${server.url}/loki/api/v1/push`, {
        method: 'POST',
        body: JSON.stringify({ streams: [{ stream: { service_name: 'bulk' }, values }] }),
        headers: { 'x-svc-api-key': KEY, 'content-type': 'application/json' },
      });
      expect(res.status).toBe(204);
    }
  }, 60_000);

  afterAll(() => stopChildServer(server, dataDir));

  it('holds at most the stream buffer for it, then cancels its query after the stall timeout', async () => {
    const body = JSON.stringify({ q: '{service_name="bulk"}', s: String(START), e: String(NOW), limit: LINES });
    const url = new URL(server.url);
    const socket = net.connect(Number(url.port), url.hostname);
    socket.on('error', () => {});
    await new Promise((r) => socket.once('connect', r));
    socket.pause();
    socket.write(
      `POST /api/v1/logs/query HTTP/1.1\r\nHost: ${url.host}\r\nx-svc-api-key: ${KEY}\r\nContent-Type: application/json\r\n` +
        `Accept: text/event-stream\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
    const sent = Date.now();

    let peakBuffered = 0;
    let openSeen = false;
    let cancelledAfterMs = -1;
    while (Date.now() - sent < 20_000) {
      const text = await scrape();
      peakBuffered = Math.max(peakBuffered, metricValue(text, BUFFERED));
      openSeen ||= metricValue(text, OPEN_STREAMS) === 1;
      if (metricValue(text, STALLED) === 1) {
        cancelledAfterMs = Date.now() - sent;
        break;
      }
      await new Promise((r) => setTimeout(r, 20));
    }

    expect(openSeen).toBe(true);
    expect(peakBuffered, `peak sluice_sse_buffered_bytes ${peakBuffered}`).toBeGreaterThan(0);
    // The stream's own buffer, a rendered piece and one row over it.
    expect(peakBuffered, `peak sluice_sse_buffered_bytes ${peakBuffered}`).toBeLessThanOrEqual(BUFFER_BYTES + 256 * 1024);
    // Cancelled by the stall timer, well before uWS' own send timeout would have closed it.
    expect(cancelledAfterMs, 'the query was cancelled as stalled').toBeGreaterThan(0);
    expect(cancelledAfterMs).toBeLessThan(9000);

    await waitFor(async () => metricValue(await scrape(), OPEN_STREAMS) === 0, 5000);
    const after = await scrape();
    expect(metricValue(after, RAW_499)).toBe(1);
    expect(metricValue(after, BUFFERED)).toBe(0);
    socket.destroy();

    // The server goes on answering.
    const res = await readSse(await query(server.url, '/api/v1/logs/query', KEY, { q: '{service_name="bulk"} |= "row-5999 "', s: String(START), e: String(NOW) }));
    expect(res.events.filter((e) => e.type === 'result')).toHaveLength(1);
    expect(res.events.at(-1)).toEqual({ type: 'done', data: { status: 'ok' } });
  }, 60_000);
});
