import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evaluateLogQLRange } from '../../engine/logql/eval/index.js';
import { parseLogQL } from '../../engine/logql/index.js';
import { formatLabels } from '../../engine/storage/labels.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { query, readSse, type SseResponse } from '../support/sse.js';

const END_MS = Math.floor(Date.now() / 60_000) * 60_000;
const START_MS = END_MS - 30 * 60_000;
const NS = 1_000_000n;

/** Thirty minutes of lines, one every 20 s, every fifth an error, in JSON and logfmt. */
async function writeLogs(srv: TestServer): Promise<Array<{ ns: bigint; line: string; level: string }>> {
  const rows: Array<{ ns: bigint; line: string; level: string }> = [];
  for (let i = 0; i < 90; i++) {
    const level = i % 5 === 0 ? 'error' : 'info';
    const ns = BigInt(START_MS + i * 20_000) * NS + 123_456n;
    const line = i % 2 === 0 ? JSON.stringify({ level, msg: `request ${i}`, status: level === 'error' ? 500 : 200 }) : `level=${level} msg="request ${i}" status=${level === 'error' ? 500 : 200}`;
    rows.push({ ns, line, level });
  }
  const body = {
    streams: [
      { stream: { service_name: 'api', level: 'info' }, values: rows.filter((r) => r.level === 'info').map((r) => [String(r.ns), r.line]) },
      { stream: { service_name: 'api', level: 'error' }, values: rows.filter((r) => r.level === 'error').map((r) => [String(r.ns), r.line]) },
      { stream: { service_name: 'web', level: 'info' }, values: [[String(BigInt(END_MS - 1000) * NS), 'web line']] },
    ],
  };
  const res = await fetch(`${srv.url}/loki/api/v1/push`, { method: 'POST', body: JSON.stringify(body), headers: { 'x-svc-api-key': srv.key, 'content-type': 'application/json' } });
  expect(res.status).toBe(204);
  return rows;
}

describe('POST /api/v1/logs/query', () => {
  let srv: TestServer;
  let rows: Array<{ ns: bigint; line: string; level: string }>;
  beforeAll(async () => {
    srv = await startTestServer({ SVC_QUERY_WORKERS: '2', SVC_DEFAULT_LOG_LIMIT: '50' });
    rows = await writeLogs(srv);
  });
  afterAll(async () => {
    await srv.stop();
  });

  const run = async (body: Record<string, unknown>): Promise<SseResponse> => readSse(await query(srv.url, '/api/v1/logs/query', srv.key, body));
  const results = (r: SseResponse) => r.events.filter((e) => e.type === 'result').map((e) => e.data);
  const window = { s: String(START_MS), e: String(END_MS) };

  it('streams raw rows oldest first with exact nanosecond timestamps and message tags', async () => {
    const res = await run({ q: '{service_name="api"} |= "request 1"', ...window, limit: 100 });
    expect(res.status).toBe(200);
    const got = results(res);
    const want = rows.filter((r) => r.line.includes('request 1'));
    expect(got.map((g) => g.tags)).toEqual(want.map((w) => expect.objectContaining({ message: w.line, level: w.level, service_name: 'api' })));
    expect(res.raw).toContain(`"timestamp_ns":${want[0].ns}`);
    expect(got[0].timestamp).toBe(Number(want[0].ns / NS));
    expect(res.events.at(-1)).toEqual({ type: 'done', data: { status: 'ok' } });
  });

  it('honours limit, the server default for 0, reverse and fields', async () => {
    const limited = results(await run({ q: '{service_name="api"}', ...window, limit: 7 }));
    expect(limited.map((r) => (r.tags as Record<string, string>).message)).toEqual(rows.slice(0, 7).map((r) => r.line));
    expect(results(await run({ q: '{service_name="api"}', ...window, limit: 0 }))).toHaveLength(50);
    const reversed = results(await run({ q: '{service_name="api"}', ...window, limit: 5, reverse: true }));
    expect(reversed.map((r) => (r.tags as Record<string, string>).message)).toEqual(rows.slice(-5).reverse().map((r) => r.line));
    const narrow = results(await run({ q: '{service_name="api"} | json', ...window, limit: 2, fields: ['level', 'status'] }));
    expect(narrow[0]).toEqual({ timestamp: expect.any(Number), timestamp_ns: expect.any(Number), tags: { level: 'error', status: '500' } });
  });

  it('survives many queries that stop at their limit while slices are still running', async () => {
    // Each stops after 3 rows and aborts the slices still in flight; a worker answering an
    // aborted task at the same moment must not disturb the service.
    for (let round = 0; round < 3; round++) {
      const runs = await Promise.all(Array.from({ length: 10 }, () => run({ q: '{service_name="api"}', ...window, limit: 3 })));
      for (const r of runs) expect(results(r)).toHaveLength(3);
    }
    expect((await fetch(`${srv.url}/healthz`)).status).toBe(200);
  });

  it('runs the pipeline: parsers, label filters and line_format', async () => {
    const res = results(await run({ q: '{service_name="api"} | logfmt | status >= 500 | line_format "{{.msg}} failed"', ...window, limit: 100 }));
    const want = rows.filter((r, i) => i % 2 === 1 && r.level === 'error');
    expect(res.map((r) => (r.tags as Record<string, string>).message)).toEqual(want.map((w) => `${/msg="([^"]+)"/.exec(w.line)![1]} failed`));
  });

  it('streams aggregates like metrics points, matching a single evaluation', async () => {
    const q = 'sum by (level) (count_over_time({service_name="api"}[5m]))';
    const res = await run({ q, ...window, step: 60 });
    const got = new Map(results(res).map((r) => [`${r.label as string}@${r.timestamp as number}`, r.value as number]));
    const direct = evaluateLogQLRange(parseLogQL(q), srv.service.storage.logs(srv.orgId), START_MS, END_MS, 60_000);
    const want = new Map<string, number>();
    for (const s of direct.series) s.timestampsMs.forEach((t, i) => want.set(`${formatLabels(s.labels)}@${t}`, s.values[i]));
    expect(got.size).toBeGreaterThan(0);
    expect(got).toEqual(want);
    expect(results(res)[0].tags).toEqual({ level: expect.stringMatching(/error|info/) });
  });

  it('answers parse and compile errors before the stream, with positions', async () => {
    const bad = await run({ q: '{service_name="api"} |= ' });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ code: 'INVALID_EXPR', position: expect.any(Object) });
    const semantic = await run({ q: 'sum_over_time({service_name="api"}[5m])' });
    expect(semantic.status).toBe(422);
    expect(semantic.body).toMatchObject({ code: 'COMPILE_ERROR' });
    expect((await run({ q: '{a="b"}', s: 'now', e: 'now-1h' })).body).toMatchObject({ code: 'VALIDATION_FAILED' });
    expect((await run({ q: '{a="b"}', limit: -1 })).body).toMatchObject({ code: 'BAD_REQUEST' });
    expect((await run({ q: '{a="b"}', fields: 'level' })).body).toMatchObject({ code: 'BAD_REQUEST' });
  });
});
