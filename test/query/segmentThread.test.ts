import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeRemoteWriteBody } from '../../engine/ingest/encode/remoteWrite.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { query, readSse } from '../support/sse.js';

/**
 * The service's cuts and compaction encode on the query pool's segment thread: what a query
 * answers is the same before a cut, after it and after the segments are merged, and no cut
 * or merge fell back to the main thread (which it logs).
 */

const STEP_MS = 15_000;
const END_MS = Math.floor(Date.now() / 60_000) * 60_000;
const NS = 1_000_000n;

async function write(srv: TestServer, startMs: number, endMs: number): Promise<void> {
  const timeseries = [];
  for (let s = 0; s < 6; s++) {
    const samples = [];
    for (let t = startMs, i = 0; t < endMs; t += STEP_MS, i++) samples.push({ value: i * (s + 1) + 0.25, timestamp: t });
    timeseries.push({ labels: [{ name: '__name__', value: 'cut_total' }, { name: 'shard', value: String(s) }], samples });
  }
  const res = await fetch(`${srv.url}/api/v1/write`, {
    method: 'POST',
    body: encodeRemoteWriteBody({ timeseries }),
    headers: { 'x-svc-api-key': srv.key, 'content-type': 'application/x-protobuf' },
  });
  expect(res.status).toBe(204);
  const values: string[][] = [];
  for (let t = startMs, i = 0; t < endMs; t += 10_000, i++) values.push([String(BigInt(t) * NS + BigInt(i)), `level=${i % 3 === 0 ? 'warn' : 'info'} msg="line ${t} ✓"`]);
  const push = await fetch(`${srv.url}/loki/api/v1/push`, {
    method: 'POST',
    body: JSON.stringify({ streams: [{ stream: { service_name: 'cut' }, values }] }),
    headers: { 'x-svc-api-key': srv.key, 'content-type': 'application/json' },
  });
  expect(push.status).toBe(204);
}

/** answers are the metric and log answers every step of the test must keep giving. */
async function answers(srv: TestServer): Promise<unknown> {
  const window = { s: String(END_MS - 3_600_000), e: String(END_MS) };
  const metrics = await readSse(await query(srv.url, '/api/v1/metrics/query', srv.key, { q: 'cut_total', ...window, step: 60 }));
  const counts = await readSse(await query(srv.url, '/api/v1/logs/query', srv.key, { q: 'sum by (level) (count_over_time({service_name="cut"} | logfmt [1h]))', ...window, step: 600 }));
  const lines = await readSse(await query(srv.url, '/api/v1/logs/query', srv.key, { q: '{service_name="cut"}', ...window, limit: 1000 }));
  const results = (r: Awaited<ReturnType<typeof readSse>>) => r.events.filter((e) => e.type === 'result').map((e) => JSON.stringify(e.data)).sort();
  return { metrics: results(metrics), counts: results(counts), lines: results(lines) };
}

describe('segment encoding on the pool', () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startTestServer();
  });
  afterAll(async () => {
    await srv?.stop();
  });

  it('cuts and merges on the segment thread, answering the same at every step', async () => {
    const storage = srv.service.storage;
    await write(srv, END_MS - 3_600_000, END_MS - 1_800_000);
    const first = await answers(srv);
    expect((first as { lines: string[] }).lines).toHaveLength(180);
    const cut = await storage.cut();
    expect(cut.segments.map((s) => s.signal).sort()).toEqual(['logs', 'metrics']);
    expect(await answers(srv)).toEqual(first);

    await write(srv, END_MS - 1_800_000, END_MS);
    const second = await answers(srv);
    await storage.cut();
    expect(storage.segments()).toHaveLength(4);
    expect(await answers(srv)).toEqual(second);
    const compacted = await storage.compact();
    expect(compacted.merged.map((m) => m.inputs.length)).toEqual([2, 2]);
    expect(storage.segments()).toHaveLength(2);
    expect(await answers(srv)).toEqual(second);

    expect(srv.logs.text()).toContain('cut heads into segments');
    expect(srv.logs.text()).not.toMatch(/off the main thread failed/);
  });
});
