import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, waitFor, type TestServer } from '../support/server.js';

/**
 * Live tailing over a real WebSocket (the `ws` client): lines pushed after the client connected
 * arrive within a second as Loki tail frames, the session stops when the client closes, and a
 * refused request closes the socket with the reason.
 */

/** TailSocket is the part of the `ws` client these tests use (the package ships no types here). */
interface TailSocket {
  on(event: 'message', listener: (data: Buffer) => void): void;
  on(event: 'open', listener: () => void): void;
  on(event: 'close', listener: (code: number, reason: Buffer) => void): void;
  on(event: 'unexpected-response', listener: (req: unknown, res: { statusCode: number }) => void): void;
  on(event: 'error', listener: (err: Error) => void): void;
  close(): void;
}
const { WebSocket } = createRequire(import.meta.url)('ws') as { WebSocket: new (url: string, options: { headers: Record<string, string> }) => TailSocket };

interface TailFrame {
  streams: Array<{ stream: Record<string, string>; values: Array<[string, string]> }>;
  dropped_entries: null;
}

describe('Loki tail over a WebSocket', () => {
  let srv: TestServer;

  beforeAll(async () => {
    srv = await startTestServer();
    // The query workers start on first use; one query first, so latencies below are steady-state ones.
    const warm = await fetch(`${srv.url}/loki/api/v1/query_range?${new URLSearchParams({ query: '{service_name="warm"}' })}`, { headers: { 'x-svc-api-key': srv.key } });
    expect(warm.status).toBe(200);
  });

  afterAll(async () => {
    await srv?.stop();
  });

  const push = async (service: string, line: string): Promise<void> => {
    const body = { streams: [{ stream: { service_name: service }, values: [[String(BigInt(Date.now()) * 1_000_000n), line]] }] };
    const res = await fetch(`${srv.url}/loki/api/v1/push`, { method: 'POST', body: JSON.stringify(body), headers: { 'x-svc-api-key': srv.key, 'content-type': 'application/json' } });
    expect(res.status).toBe(204);
  };

  const connect = (query: string, key = srv.key): TailSocket => {
    const url = `${srv.url.replace('http', 'ws')}/loki/api/v1/tail?${new URLSearchParams({ query, start: String(BigInt(Date.now()) * 1_000_000n) })}`;
    return new WebSocket(url, { headers: { authorization: `Basic ${Buffer.from(`grafana:${key}`).toString('base64')}` } });
  };

  it('delivers lines pushed after connecting within a second, filtered by the query, and stops on close', async () => {
    const socket = connect('{service_name="tailed"} |= "keep"');
    const received: Array<{ line: string; atMs: number }> = [];
    socket.on('message', (data) => {
      const frame = JSON.parse(data.toString('utf8')) as TailFrame;
      expect(frame.dropped_entries).toBeNull();
      for (const s of frame.streams) {
        expect(s.stream.service_name).toBe('tailed');
        for (const [ns, line] of s.values) {
          expect(ns).toMatch(/^\d{19}$/);
          received.push({ line, atMs: Date.now() });
        }
      }
    });
    await new Promise<void>((resolve) => socket.on('open', resolve));
    const pushedAt = Date.now();
    await push('tailed', 'keep one');
    await push('tailed', 'drop this');
    await push('other', 'keep other service');
    await waitFor(() => received.length >= 1, 2000);
    expect(received[0].line).toBe('keep one');
    expect(received[0].atMs - pushedAt).toBeLessThan(1000);
    const secondAt = Date.now();
    await push('tailed', 'keep two');
    await waitFor(() => received.length >= 2, 2000);
    expect(received[1].atMs - secondAt).toBeLessThan(1000);
    expect(received.map((r) => r.line)).toEqual(['keep one', 'keep two']);

    const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    socket.close();
    await closed;
    await push('tailed', 'keep three');
    await new Promise((r) => setTimeout(r, 600));
    expect(received).toHaveLength(2);
  });

  it('closes with the reason on a bad query, and refuses an upgrade without a key', async () => {
    const socket = connect('{service_name="tailed"');
    const [code, reason] = await new Promise<[number, string]>((resolve) => socket.on('close', (c, r) => resolve([c, r.toString('utf8')])));
    expect(code).toBe(1008);
    expect(reason.length).toBeGreaterThan(5);

    const unauthorized = connect('{service_name="tailed"}', 'not-a-key');
    const status = await new Promise<number>((resolve) => {
      unauthorized.on('unexpected-response', (_req, res) => resolve(res.statusCode));
      unauthorized.on('error', () => {});
    });
    expect(status).toBe(401);
  });
});
