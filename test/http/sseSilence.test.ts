import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HttpResponse, TemplatedApp, us_listen_socket } from 'uWebSockets.js';
import { DEFAULT_SSE_STALL_TIMEOUT_MS } from '../../src/config.js';
import { Responder } from '../../src/http/responder.js';
import { SseStream, type SseOptions } from '../../src/http/sse.js';

const require = createRequire(import.meta.url);
const uWS = require('uWebSockets.js') as typeof import('uWebSockets.js');

/** ANSWER_BYTES is far beyond the socket buffers, so the client falls behind while it pauses. */
const ANSWER_BYTES = 8 * 1024 * 1024;
/** SILENCE_MS is longer than uWebSockets' own 10 s send timeout. */
const SILENCE_MS = 12_000;
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** bigAnswer is the events of one large answer, about ANSWER_BYTES framed. */
function bigAnswer(): Array<{ type: string; data: unknown }> {
  const payload = 'v'.repeat(1000);
  return Array.from({ length: ANSWER_BYTES / 1024 }, (_, i) => ({ type: 'row', data: { i, payload } }));
}

interface Served {
  stream: SseStream;
  /** sending is the big answer being written, started as the request arrives. */
  sending: Promise<void>;
  stalled: boolean;
  aborted: boolean;
}

/**
 * These tests run an SseStream over a real uWebSockets response, because what they check is how
 * the stream and uWS' fixed socket timeout interact: a quiet stream must stay open, and a
 * client that reads nothing must be dropped by the stream's own timer (counted as stalled).
 */
describe('SSE streams over uWebSockets and its 10 s send timeout', () => {
  let app: TemplatedApp;
  let listenSocket: us_listen_socket;
  let base = '';
  const served = new Map<string, Served>();
  const optionsFor = new Map<string, Partial<SseOptions>>();

  beforeAll(async () => {
    app = uWS.App();
    app.get('/stream/:name', (res: HttpResponse, req) => {
      const name = req.getParameter(0) ?? '';
      const responder = new Responder(res, name, () => {});
      res.onAborted(() => responder.markAborted());
      const entry = { stalled: false, aborted: false } as Served;
      responder.onAbort(() => (entry.aborted = true));
      entry.stream = new SseStream(responder, { heartbeatMs: 60_000, ...optionsFor.get(name), onStall: () => (entry.stalled = true) });
      served.set(name, entry);
      entry.stream.open();
      entry.sending = entry.stream.sendAll(bigAnswer());
    });
    const port = await new Promise<number>((resolve, reject) => {
      app.listen('127.0.0.1', 0, (socket) => {
        if (!socket) return reject(new Error('listen failed'));
        listenSocket = socket;
        resolve(uWS.us_socket_local_port(socket));
      });
    });
    base = `http://127.0.0.1:${port}`;
  });

  afterAll(() => uWS.us_listen_socket_close(listenSocket));

  async function readAll(body: ReadableStream<Uint8Array>): Promise<string> {
    const decoder = new TextDecoder();
    let text = '';
    for await (const chunk of body) text += decoder.decode(chunk, { stream: true });
    return text;
  }

  it.concurrent('keeps a stream open through 12 s of server silence after its client fell behind and caught up', async () => {
    const response = await fetch(`${base}/stream/quiet`);
    const served1 = served.get('quiet');
    expect(served1).toBeDefined();
    const stream = served1!.stream;
    // The client reads nothing for 3 s: uWS holds what the socket did not take and arms its timer.
    await sleep(3000);
    expect(stream.writable).toBe(false);
    const reading = readAll(response.body!);
    await served1!.sending;
    expect(stream.writable).toBe(true);
    // Everything is taken; the server now has nothing to say for longer than uWS' timeout.
    await sleep(SILENCE_MS);
    expect(served1!.aborted).toBe(false);
    stream.end({ type: 'done', data: { status: 'success' } });
    const text = await reading;
    const events = text.split('\n\n').filter((e) => e !== '');
    expect(events).toHaveLength(ANSWER_BYTES / 1024 + 1);
    expect(JSON.parse(events[1234]!.slice('data: '.length))).toEqual({ type: 'row', data: { i: 1234, payload: 'v'.repeat(1000) } });
    expect(JSON.parse(events.at(-1)!.slice('data: '.length))).toEqual({ type: 'done', data: { status: 'success' } });
  }, 30_000);

  it.concurrent('drops a client that reads nothing by the stream timer at the default setting, before uWS does', async () => {
    expect(DEFAULT_SSE_STALL_TIMEOUT_MS).toBeLessThan(10_000);
    optionsFor.set('dead', { stallTimeoutMs: DEFAULT_SSE_STALL_TIMEOUT_MS });
    const response = await fetch(`${base}/stream/dead`);
    const entry = served.get('dead')!;
    const started = Date.now();
    while (!entry.aborted && Date.now() - started < 20_000) await sleep(100);
    expect(entry.aborted).toBe(true);
    // Dropped by the stream's timer (the query is cancelled as stalled), not first by the socket layer.
    expect(entry.stalled).toBe(true);
    await response.body!.cancel().catch(() => {});
  }, 30_000);
});
