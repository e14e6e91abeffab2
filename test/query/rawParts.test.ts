import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { iterateLogQuery } from '../../engine/logql/eval/index.js';
import { parseLogQL } from '../../engine/logql/index.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { tasksCompleted } from '../support/metrics.js';
import { query, readSse } from '../support/sse.js';

const END_MS = Math.floor(Date.now() / 60_000) * 60_000;
const START_MS = END_MS - 20 * 60_000;
const NS = 1_000_000n;

/**
 * Lines in three streams with bursts: seven lines of one stream at one instant, and instants
 * shared by several streams, so parts of a slice end inside and at the edge of an instant.
 */
async function writeLogs(srv: TestServer, fromMinute: number, toMinute: number): Promise<void> {
  const streams: Array<{ stream: Record<string, string>; values: string[][] }> = ['a', 'b', 'c'].map((app) => ({ stream: { app, service_name: 'shop' }, values: [] }));
  for (let m = fromMinute; m < toMinute; m++) {
    const base = BigInt(START_MS + m * 60_000) * NS;
    streams.forEach((s, k) => {
      for (let i = 0; i < 4; i++) s.values.push([String(base + BigInt(i * 1_000_000_000)), `minute ${m} line ${i} from ${s.stream.app}`]);
      if (m % 3 === k) for (let j = 0; j < 7; j++) s.values.push([String(base + 5_000_000_000n), `minute ${m} burst ${j} from ${s.stream.app}`]);
    });
  }
  const res = await fetch(`${srv.url}/loki/api/v1/push`, { method: 'POST', body: JSON.stringify({ streams }), headers: { 'x-svc-api-key': srv.key, 'content-type': 'application/json' } });
  expect(res.status).toBe(204);
}

describe('raw log slices answered in parts', () => {
  let srv: TestServer;
  beforeAll(async () => {
    // Three rows per task: every slice is answered in many parts, bursts of seven lines included.
    srv = await startTestServer({ SVC_QUERY_WORKERS: '2', SVC_QUERY_RAW_TASK_ROWS: '3' });
    await writeLogs(srv, 0, 10);
    await srv.service.storage.cut();
    await writeLogs(srv, 10, 20);
  });
  afterAll(async () => {
    await srv.stop();
  });

  it('stream exactly the rows, in the order, of one evaluation over the whole window', async () => {
    const cases = [
      { q: '{service_name="shop"}', limit: 1000, reverse: false },
      { q: '{service_name="shop"}', limit: 1000, reverse: true },
      { q: '{service_name="shop"} |= "burst"', limit: 1000, reverse: false },
      { q: '{service_name="shop"}', limit: 23, reverse: false },
      { q: '{app=~"a|c"} != "line 2"', limit: 41, reverse: true },
      { q: '{service_name="shop"}', limit: 1000, reverse: false, fields: ['app'] },
    ];
    const tasksBefore = await tasksCompleted(srv.url);
    for (const c of cases) {
      const res = await readSse(await query(srv.url, '/api/v1/logs/query', srv.key, { q: c.q, s: String(START_MS), e: String(END_MS), limit: c.limit, reverse: c.reverse, fields: c.fields }));
      const context = JSON.stringify(c);
      expect(res.events.at(-1), context).toEqual({ type: 'done', data: { status: 'ok' } });
      const got = res.events.filter((e) => e.type === 'result').map((e) => ({ ms: e.data.timestamp, tags: e.data.tags }));
      const direct = [
        ...iterateLogQuery(parseLogQL(c.q), srv.service.storage.logs(srv.orgId), {
          startNs: BigInt(START_MS) * NS,
          endNs: BigInt(END_MS) * NS + (NS - 1n),
          limit: c.limit,
          direction: c.reverse ? 'backward' : 'forward',
          fields: c.fields,
        }),
      ].flat();
      expect(direct.length, context).toBeGreaterThan(20);
      expect(got.length, context).toBe(direct.length);
      expect(got.map((g) => g.tags), context).toEqual(direct.map((r) => r.tags));
      expect(got.map((g) => g.ms), context).toEqual(direct.map((r) => Number(r.timestampNs / NS)));
    }
    // Eight slices per query, but far more tasks: the slices were answered three rows at a time.
    expect((await tasksCompleted(srv.url)) - tasksBefore).toBeGreaterThan(cases.length * 8 * 3);
  });
});
