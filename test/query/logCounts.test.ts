import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/server.js';
import { query, readSse, type SseEventParsed } from '../support/sse.js';

/**
 * Count-only LogQL over the query API: the workers count lines in segments and head snapshots
 * (logCounts.ts), sharded or not; the same query with a line filter that keeps every line takes
 * the general path. Both must stream the same points, for range and instant queries.
 */

const STEP_MS = 30_000;
const END_MS = Math.floor(Date.now() / 60_000) * 60_000 - 60_000;
const START_MS = END_MS - 40 * 60_000;

/** points reads a query's streamed results as "labels@timestamp" to value. */
function points(events: SseEventParsed[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const e of events.filter((x) => x.type === 'result')) out.set(`${e.data.label as string}@${e.data.timestamp as number}`, e.data.value as number);
  return out;
}

describe('counting log lines through the query API', () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startTestServer({ SVC_QUERY_WORKERS: '2', SVC_QUERY_SHARD_MIN_SAMPLES: '1' });
    // Three pushes with a cut after each of the first two: two segments and a head, overlapping in time.
    for (const [round, fromMs] of [START_MS, START_MS + 10 * 60_000, START_MS + 20 * 60_000].entries()) {
      const streams = ['checkout', 'cart', 'search'].flatMap((service, k) =>
        ['info', 'error'].map((level) => ({
          stream: { service_name: service, level },
          // Lines every 6 s, and lines exactly on the minutes (step edges), over 18 minutes.
          values: Array.from({ length: 180 }, (_, i) => {
            const ms = i % 2 === 0 ? fromMs + i * 6_000 + k : fromMs + (Math.floor(i / 2) % 18) * 60_000;
            return [String(BigInt(ms) * 1_000_000n), `${service} ${level} round ${round} line ${i}`];
          }),
        })),
      );
      const push = await fetch(`${srv.url}/loki/api/v1/push`, { method: 'POST', body: JSON.stringify({ streams }), headers: { 'x-svc-api-key': srv.key, 'content-type': 'application/json' } });
      expect(push.status).toBe(204);
      if (round < 2) await srv.service.storage.cut();
    }
  });
  afterAll(async () => {
    await srv.stop();
  });

  const run = async (q: string, s: number, e: number): Promise<Map<string, number>> => {
    const res = await readSse(await query(srv.url, '/api/v1/logs/query', srv.key, { q, s: String(s), e: String(e), step: STEP_MS / 1000 }));
    expect(res.status, q).toBe(200);
    expect(res.events.at(-1), q).toEqual({ type: 'done', data: { status: 'ok' } });
    return points(res.events);
  };

  it('streams what the general path streams, for range and instant queries', async () => {
    for (const [counted, general] of [
      ['sum by (level) (count_over_time({service_name=~".+"}[1m]))', 'sum by (level) (count_over_time({service_name=~".+"} != "never there" [1m]))'],
      ['count_over_time({service_name="cart"}[90s] offset 30s)', 'count_over_time({service_name="cart"} != "never there" [90s] offset 30s)'],
      ['sum(rate({service_name=~"checkout|search", level="error"}[2m]))', 'sum(rate({service_name=~"checkout|search", level="error"} != "never there" [2m]))'],
    ]) {
      for (const [s, e] of [
        [START_MS, END_MS],
        [START_MS + 20 * 60_000, START_MS + 20 * 60_000],
        [END_MS, END_MS],
      ]) {
        const got = await run(counted, s, e);
        const want = await run(general, s, e);
        if (s !== END_MS) expect(want.size, `${counted} ${s}`).toBeGreaterThan(0);
        expect(got, `${counted} ${s}..${e}`).toEqual(want);
      }
    }
  });

  it('counts every line once across segments and the head', async () => {
    const all = await run('sum(count_over_time({service_name=~".+"}[2h]))', END_MS, END_MS);
    expect([...all.values()]).toEqual([3 * 6 * 180]);
  });
});
