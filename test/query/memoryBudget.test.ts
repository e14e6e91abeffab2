import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectMcp, textOf } from '../support/mcpClient.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { query, readSse, type SseResponse } from '../support/sse.js';

const END_MS = Math.floor(Date.now() / 60_000) * 60_000;
const START_MS = END_MS - 40 * 60_000;
const NS = 1_000_000n;

/**
 * Queries whose templates multiply their input, run against a server whose per-query memory
 * budget is 4 MiB: each must end with the budget's error, quickly and without taking the
 * memory first, and the server must go on answering.
 */
describe('the per-query memory budget', () => {
  let srv: TestServer;

  async function push(streams: Array<{ stream: Record<string, string>; values: Array<[string, string]> }>): Promise<void> {
    const res = await fetch(`${srv.url}/loki/api/v1/push`, { method: 'POST', body: JSON.stringify({ streams }), headers: { 'x-svc-api-key': srv.key, 'content-type': 'application/json' } });
    expect(res.status).toBe(204);
  }

  beforeAll(async () => {
    srv = await startTestServer({ SVC_QUERY_WORKERS: '1', SVC_QUERY_MEMORY_BYTES: '4MiB' });
    // app="x": 200 short lines over the first half of the window. app="late": short lines
    // early, and one 8 KB line in the last quarter, which only a template bomb makes too big.
    const ts = (ms: number): string => String(BigInt(ms) * NS);
    await push([
      { stream: { service_name: 'bomb', app: 'x' }, values: Array.from({ length: 200 }, (_, i): [string, string] => [ts(START_MS + i * 6000), `line ${i} of x`]) },
      {
        stream: { service_name: 'bomb', app: 'late' },
        values: [
          ...Array.from({ length: 50 }, (_, i): [string, string] => [ts(START_MS + i * 1000), `early ${i}`]),
          [ts(END_MS - 60_000), 'L'.repeat(8000)],
        ],
      },
      // app="wide": 1,000 lines of 8 KB, 8 MB in all: fine to stream, too much to hold at once.
      { stream: { service_name: 'wide' }, values: Array.from({ length: 1000 }, (_, i): [string, string] => [ts(START_MS + i * 1000), `${i} ${'W'.repeat(8000)}`]) },
    ]);
  });
  afterAll(async () => {
    await srv.stop();
  });

  const window = { s: String(START_MS), e: String(END_MS) };
  const run = async (path: string, body: Record<string, unknown>): Promise<SseResponse> => readSse(await query(srv.url, path, srv.key, body));

  function expectBudgetError(res: SseResponse, what: string): void {
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toContain('application/json');
    expect(res.body).toEqual({ status: 400, code: 'VALIDATION_FAILED', message: expect.stringContaining('memory budget of 4 MiB') });
    expect(res.body!.message).toContain(what);
  }

  it('stops label_format doubling a label 40 times (2^40 times its size) at the budget, before the stream', async () => {
    const q = `{app="x"} | label_format a="{{__line__}}"${' | label_format a="{{.a}}{{.a}}"'.repeat(40)}`;
    const started = Date.now();
    const res = await run('/api/v1/logs/query', { q, ...window, limit: 10 });
    expectBudgetError(res, 'label_format output');
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('stops line_format doubling the line 30 times at the budget', async () => {
    const q = `{app="x"}${' | line_format "{{__line__}}{{__line__}}"'.repeat(30)}`;
    expectBudgetError(await run('/api/v1/logs/query', { q, ...window, limit: 10 }), 'line_format output');
  });

  it('refuses a single template call whose result would pass the budget before making it', async () => {
    expectBudgetError(await run('/api/v1/logs/query', { q: '{app="x"} | line_format "{{ repeat 1000000000 __line__ }}"', ...window }), 'line_format output');
    expectBudgetError(await run('/api/v1/logs/query', { q: '{app="x"} | line_format "{{ printf \\"%900000000d\\" 1 }}"', ...window }), 'line_format output');
  });

  it('counts label_format output grown into series labels in a metric query', async () => {
    const q = `sum by (a) (count_over_time({app="x"} | label_format a="{{__line__}}"${' | label_format a="{{.a}}{{.a}}"'.repeat(40)} [1m]))`;
    expectBudgetError(await run('/api/v1/logs/query', { q, ...window, step: 60 }), 'label_format output');
  });

  it('ends a stream that already sent results with done status error when a later line passes the budget', async () => {
    // Ten doublings: 8 bytes of an early line become 8 KiB, the 8 KB line 8 MB.
    const q = `{app="late"}${' | line_format "{{__line__}}{{__line__}}"'.repeat(10)}`;
    const res = await run('/api/v1/logs/query', { q, ...window, limit: 1000 });
    expect(res.status).toBe(200);
    const results = res.events.filter((e) => e.type === 'result');
    expect(results).toHaveLength(50);
    expect((results[0].data.tags as Record<string, string>).message).toBe('early 0'.repeat(1024));
    expect(res.events.at(-1)).toEqual({ type: 'done', data: { status: 'error', code: 'VALIDATION_FAILED', message: expect.stringContaining('memory budget of 4 MiB') } });
  });

  it('answers queries within the budget, also after refusing the bombs', async () => {
    const res = await run('/api/v1/logs/query', { q: '{app="x"} | line_format "{{__line__}}{{__line__}}"', ...window, limit: 1000 });
    expect(res.status).toBe(200);
    const results = res.events.filter((e) => e.type === 'result');
    expect(results).toHaveLength(200);
    expect((results[7].data.tags as Record<string, string>).message).toBe('line 7 of xline 7 of x');
    expect(res.events.at(-1)).toEqual({ type: 'done', data: { status: 'ok' } });
  });

  it('bounds what the tool gateway collects for an answer by the same budget, while the stream serves it', async () => {
    const client = await connectMcp(srv.url, srv.orgId, 'telemetry', srv.key);
    try {
      const held = await client.callTool({ name: 'query_logs', arguments: { query: '{service_name="wide"}', limit: 2000, start: 'now-1h' } });
      expect(held.isError).toBe(true);
      expect(textOf(held)).toContain('memory budget of 4 MiB');
      expect(textOf(held)).toContain('log lines collected for the answer');
      const small = await client.callTool({ name: 'query_logs', arguments: { query: '{service_name="wide"}', limit: 20, start: 'now-1h' } });
      expect(small.isError).toBeFalsy();
    } finally {
      await client.close();
    }
    const streamed = await run('/api/v1/logs/query', { q: '{service_name="wide"}', ...window, limit: 1000 });
    expect(streamed.events.filter((e) => e.type === 'result')).toHaveLength(1000);
    expect(streamed.events.at(-1)).toEqual({ type: 'done', data: { status: 'ok' } });
  });
});
