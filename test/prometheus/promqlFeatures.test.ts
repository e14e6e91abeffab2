import { describe, expect, it } from 'vitest';
import { encodeRemoteWriteBody } from '../../engine/ingest/encode/remoteWrite.js';
import { startTestServer, type TestServer } from '../support/server.js';

/**
 * SVC_PROMQL_FEATURES over HTTP: a server with a flag on answers the experimental syntax it
 * admits; one left at the defaults answers Prometheus' parse error, with its position, in the
 * API's error envelope.
 */

const NOW_MS = Math.floor(Date.now() / 60_000) * 60_000;

async function writeCounter(srv: TestServer): Promise<void> {
  // c_total rises by 60 a minute for ten minutes, with a reset at the sixth.
  const values = [0, 60, 120, 180, 240, 30, 90, 150, 210, 270, 330];
  const samples = values.map((value, i) => ({ value, timestamp: NOW_MS - (values.length - 1 - i) * 60_000 }));
  const res = await fetch(`${srv.url}/api/v1/write`, {
    method: 'POST',
    headers: { 'x-svc-api-key': srv.key, 'content-type': 'application/x-protobuf' },
    body: encodeRemoteWriteBody({
      timeseries: [
        { labels: [{ name: '__name__', value: 'c_total' }, { name: 'job', value: 'a' }], samples },
        { labels: [{ name: '__name__', value: 'other' }, { name: 'job', value: 'b' }], samples: [{ value: 5, timestamp: NOW_MS }] },
      ],
    }),
  });
  expect(res.status).toBe(204);
}

async function query(srv: TestServer, q: string): Promise<{ status: number; body: Record<string, any> }> {
  const res = await fetch(`${srv.url}/prometheus/api/v1/query?query=${encodeURIComponent(q)}&time=${NOW_MS / 1000}`, {
    headers: { 'x-svc-api-key': srv.key },
  });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

describe('PromQL feature flags', () => {
  it('admits the syntax of the flags turned on', async () => {
    const srv = await startTestServer({ SVC_PROMQL_FEATURES: 'promql-extended-range-selectors,promql-binop-fill-modifiers,promql-duration-expr' });
    try {
      await writeCounter(srv);
      // Anchored: from the sample at the window's start (90 at -4m) to the last one, no extrapolation.
      const anchored = await query(srv, 'increase(c_total[4m] anchored)');
      expect(anchored.status).toBe(200);
      expect(anchored.body.data.result).toEqual([{ metric: { job: 'a' }, value: [NOW_MS / 1000, String(330 - 90)] }]);
      // From 240 at -6m, across the reset to 30.
      const reset = await query(srv, 'increase(c_total[6m] anchored)');
      expect(reset.body.data.result[0].value[1]).toBe(String(330 - 240 + 240));
      const filled = await query(srv, 'sum by (job) (c_total) + on(job) fill(0) sum by (job) (other)');
      expect(filled.body.data.result).toEqual([
        { metric: { job: 'a' }, value: [NOW_MS / 1000, '330'] },
        { metric: { job: 'b' }, value: [NOW_MS / 1000, '5'] },
      ]);
      const durations = await query(srv, 'count_over_time(c_total[2m*2+30s])');
      expect(durations.body.data.result[0].value[1]).toBe('5');
    } finally {
      await srv.stop();
    }
  });

  it("answers Prometheus' parse error, with its position, for a flag left off", async () => {
    const srv = await startTestServer();
    try {
      const res = await query(srv, 'increase(c_total[5m] smoothed)');
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ status: 'error', errorType: 'bad_data' });
      expect(res.body.error).toContain('1:10: parse error: smoothed modifier is experimental and not enabled');
      const fill = await query(srv, 'a + fill_left(1) b');
      expect(fill.body.error).toContain('1:1: parse error: binop fill modifiers are experimental and not enabled');
      // Duration expressions are on by default, as in Prometheus 3.
      expect((await query(srv, 'c_total offset (1m*2)')).status).toBe(200);
    } finally {
      await srv.stop();
    }
  });

  it('refuses an unknown flag at start-up', async () => {
    await expect(startTestServer({ SVC_PROMQL_FEATURES: 'promql-teleportation' })).rejects.toThrow(/SVC_PROMQL_FEATURES has unknown features: promql-teleportation/);
  });
});
