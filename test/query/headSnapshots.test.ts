import { randomBytes } from 'node:crypto';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { metricValue, tasksCompleted } from '../support/metrics.js';
import { startTestServer, waitFor, type TestServer } from '../support/server.js';
import { query, readSse } from '../support/sse.js';

const MIB = 1024 * 1024;
/** 3000 lines of 4 KB: about 12 MB of head, two snapshot chunks (one sealed at 8 MiB, one tail). */
const LINES = 3000;
const LINE_BYTES = 4000;
const STALLED = 16;

const NOW = Math.floor(Date.now() / 1000) * 1000;
const START = NOW - 600_000;

/** stalledClient sends a raw query over all lines and never reads a byte of the answer. */
function stalledClient(srv: TestServer): net.Socket {
  const url = new URL(srv.url);
  const body = JSON.stringify({ q: '{service_name="bulk"}', s: String(START), e: String(NOW), limit: LINES });
  const socket = net.connect(Number(url.port), url.hostname);
  socket.on('error', () => {});
  socket.once('connect', () => {
    socket.pause();
    socket.write(
      `POST /api/v1/logs/query HTTP/1.1\r\nHost: ${url.host}\r\nx-svc-api-key: ${srv.key}\r\nContent-Type: application/json\r\n` +
        `Accept: text/event-stream\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
  });
  return socket;
}

describe('raw log queries over an unchanged head', () => {
  let srv: TestServer;
  const sockets: net.Socket[] = [];
  beforeAll(async () => {
    srv = await startTestServer({
      SVC_QUERY_WORKERS: '1',
      SVC_SSE_BUFFER_BYTES: String(MIB),
      // Long enough that every stalled query is still open while the test looks.
      SVC_SSE_STALL_TIMEOUT_MS: '60000',
      SVC_HEAD_MAX_BYTES: '1GiB',
      SVC_MAX_QUERIES_PER_ORG: '100',
      // Every stalled query must get to run its tasks; the evaluation cap (2 with one worker)
      // would hold most of them in the queue, which is its own test's business.
      SVC_MAX_CONCURRENT_QUERIES: '32',
    });
    const filler = randomBytes(LINE_BYTES).toString('base64').slice(0, LINE_BYTES - 12);
    for (let done = 0; done < LINES; done += 1000) {
      const values = Array.from({ length: 1000 }, (_, i): [string, string] => [String(BigInt(START + (done + i) * 50) * 1_000_000n), `row-${done + i} ${filler}`]);
      const res = await fetch(`${srv.url}/loki/api/v1/push`, {
        method: 'POST',
        body: JSON.stringify({ streams: [{ stream: { service_name: 'bulk' }, values }] }),
        headers: { 'x-svc-api-key': srv.key, 'content-type': 'application/json' },
      });
      expect(res.status).toBe(204);
    }
  }, 60_000);
  afterAll(async () => {
    for (const s of sockets) s.destroy();
    await srv?.stop();
  });

  it('share one packed snapshot of the head, however many queries hold tasks over it', async () => {
    // One query that reads everything packs the head.
    const first = await readSse(await query(srv.url, '/api/v1/logs/query', srv.key, { q: '{service_name="bulk"}', s: String(START), e: String(NOW), limit: LINES }));
    expect(first.events.at(-1)).toEqual({ type: 'done', data: { status: 'ok' } });
    const packed = srv.service.storage.stats();
    const textBytes = LINES * LINE_BYTES;
    expect(packed.logChunksPacked).toBeGreaterThan(0);
    expect(packed.logSnapshotBytes).toBeGreaterThan(textBytes);
    expect(packed.logSnapshotBytes).toBeLessThan(textBytes * 1.2);

    const completedBefore = await tasksCompleted(srv.url);
    // Sixteen open streams are ordinary load: the server must not warn of a listener leak.
    const warnings: string[] = [];
    const onWarning = (warning: Error): void => void warnings.push(`${warning.name}: ${warning.message}`);
    process.on('warning', onWarning);
    for (let i = 0; i < STALLED; i++) sockets.push(stalledClient(srv));
    // Every stalled query has run tasks over the head and holds their answers for a client that reads nothing.
    await waitFor(async () => (await metricValue(srv.url, /^sluice_open_streams (\S+)$/m)) === STALLED, 30_000);
    await waitFor(async () => (await tasksCompleted(srv.url)) - completedBefore >= STALLED, 60_000);

    // Not one more chunk was packed for them, and the head's shared memory did not grow.
    const after = srv.service.storage.stats();
    expect(after.logChunksPacked).toBe(packed.logChunksPacked);
    expect(after.logSnapshotBytes).toBe(packed.logSnapshotBytes);
    process.off('warning', onWarning);
    expect(warnings.filter((w) => w.startsWith('MaxListenersExceededWarning'))).toEqual([]);
  }, 120_000);
});
