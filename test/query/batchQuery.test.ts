import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeRemoteWriteBody } from '../../engine/ingest/encode/remoteWrite.js';
import { expandCompact } from '../support/compactSse.js';
import { metricValue } from '../support/metrics.js';
import { startTestServer, waitFor, type TestServer } from '../support/server.js';
import { query, readSse, type SseEventParsed } from '../support/sse.js';

const STEP_MS = 15_000;
const END_MS = Math.floor(Date.now() / 60_000) * 60_000;
const START_MS = END_MS - 3_600_000;
const NS = 1_000_000n;
const BATCH = '/api/v1/query/batch';

async function writeData(srv: TestServer): Promise<void> {
  const timeseries = [];
  for (let s = 0; s < 12; s++) {
    const samples = [];
    for (let t = START_MS, i = 0; t <= END_MS; t += STEP_MS, i++) samples.push({ value: i * (s + 1), timestamp: t });
    timeseries.push({ labels: [{ name: '__name__', value: 'batch_total' }, { name: 'shard', value: String(s) }, { name: 'tier', value: s % 2 === 0 ? 'even' : 'odd' }], samples });
  }
  const write = await fetch(`${srv.url}/api/v1/write`, {
    method: 'POST',
    body: encodeRemoteWriteBody({ timeseries }),
    headers: { 'x-svc-api-key': srv.key, 'content-type': 'application/x-protobuf' },
  });
  expect(write.status).toBe(204);
  const values: string[][] = [];
  for (let t = START_MS, i = 0; t <= END_MS; t += 10_000, i++) values.push([String(BigInt(t) * NS + BigInt(i)), `level=${i % 4 === 0 ? 'error' : 'info'} msg="line ${i}"`]);
  const push = await fetch(`${srv.url}/loki/api/v1/push`, {
    method: 'POST',
    body: JSON.stringify({ streams: [{ stream: { service_name: 'batch' }, values }] }),
    headers: { 'x-svc-api-key': srv.key, 'content-type': 'application/json' },
  });
  expect(push.status).toBe(204);
}

/** withoutId drops the batch's tag, so an event compares with what the query's own endpoint sent. */
function withoutId(e: SseEventParsed): SseEventParsed {
  const { id: _id, ...rest } = e as SseEventParsed & { id?: string };
  return rest;
}

const QUERIES = [
  { id: 'rate', kind: 'metrics', path: '/api/v1/metrics/query', body: { q: 'sum by (tier) (rate(batch_total[5m]))', s: START_MS, e: END_MS, step: 60 } },
  { id: 'compact', kind: 'metrics', path: '/api/v1/metrics/query', body: { q: 'batch_total', s: START_MS, e: END_MS, step: 120, format: 'compact' } },
  { id: 'lines', kind: 'logs', path: '/api/v1/logs/query', body: { q: '{service_name="batch"} |= "error"', s: START_MS, e: END_MS, limit: 50, reverse: true } },
  { id: 'volume', kind: 'logs', path: '/api/v1/logs/query', body: { q: 'sum by (level) (count_over_time({service_name="batch"} | logfmt [5m]))', s: START_MS, e: END_MS, step: 300 } },
] as const;

describe('POST /api/v1/query/batch', () => {
  let srv: TestServer;

  beforeAll(async () => {
    srv = await startTestServer();
    await writeData(srv);
  });
  afterAll(async () => {
    await srv.stop();
  });

  it('answers every query in one stream, tagged with its id, as its own endpoint answers it', async () => {
    const batch = await readSse(await query(srv.url, BATCH, srv.key, { queries: QUERIES.map((q) => ({ id: q.id, kind: q.kind, ...q.body })) }));
    expect(batch.status).toBe(200);
    expect(batch.headers.get('content-type')).toBe('text/event-stream');
    // The batch ends with one untagged done, after every query's own terminal event.
    const last = batch.events.at(-1) as SseEventParsed & { id?: string };
    expect(last).toEqual({ type: 'done', data: { status: 'ok' } });
    const tagged = batch.events.slice(0, -1) as Array<SseEventParsed & { id?: string }>;
    expect(tagged.every((e) => typeof e.id === 'string')).toBe(true);
    for (const q of QUERIES) {
      const alone = await readSse(await query(srv.url, q.path, srv.key, q.body));
      expect(alone.status).toBe(200);
      const mine = tagged.filter((e) => e.id === q.id).map(withoutId).filter((e) => e.type !== 'heartbeat');
      expect(mine.length, q.id).toBeGreaterThan(1);
      if (q.id === 'compact') {
        // The results cache may cut the same columns into other events: compare the points they carry.
        const points = (raw: string): string[] => expandCompact(raw).results.sort();
        expect(points(mine.map((e) => `data: ${JSON.stringify(e)}\n\n`).join('')), q.id).toEqual(points(alone.raw));
      } else {
        expect(mine, q.id).toEqual(alone.events.filter((e) => e.type !== 'heartbeat'));
      }
      expect(mine.at(-1), q.id).toEqual({ type: 'done', data: { status: 'ok' } });
    }
  });

  it('fails one bad query alone with its error body as an event, and runs the others', async () => {
    const res = await query(srv.url, BATCH, srv.key, {
      queries: [
        { id: 'bad', kind: 'metrics', q: 'sum(rate(batch_total[5m])', s: START_MS, e: END_MS },
        { id: 'range', kind: 'metrics', q: 'batch_total[5m]', s: START_MS, e: END_MS },
        { id: 'good', kind: 'metrics', q: 'count(batch_total)', s: START_MS, e: END_MS, step: 300 },
        { id: 'nolimit', kind: 'logs', q: '{service_name="batch"}', limit: -1 },
      ],
    });
    const batch = await readSse(res);
    expect(batch.status).toBe(200);
    const byId = (id: string): SseEventParsed[] => (batch.events as Array<SseEventParsed & { id?: string }>).filter((e) => e.id === id).map(withoutId);
    const bad = byId('bad');
    expect(bad).toHaveLength(1);
    expect(bad[0]!.type).toBe('error');
    expect(bad[0]!.data).toMatchObject({ status: 400, code: 'INVALID_EXPR' });
    expect(bad[0]!.data.position).toBeDefined();
    expect(byId('range')[0]!.data).toMatchObject({ status: 422, code: 'COMPILE_ERROR' });
    expect(byId('nolimit')[0]!.data).toMatchObject({ status: 400, code: 'BAD_REQUEST' });
    const good = byId('good');
    expect(good.filter((e) => e.type === 'result').length).toBeGreaterThan(5);
    expect(good.at(-1)).toEqual({ type: 'done', data: { status: 'ok' } });
    expect(batch.events.at(-1)).toEqual({ type: 'done', data: { status: 'ok' } });
  });

  it('refuses a malformed batch as a whole with the JSON error body', async () => {
    const cases: Array<[unknown, number, string]> = [
      [[], 400, 'BAD_REQUEST'],
      [{ queries: [] }, 400, 'BAD_REQUEST'],
      [{ queries: [{ kind: 'metrics', q: 'up' }] }, 400, 'BAD_REQUEST'],
      [{ queries: [{ id: 'a b', kind: 'metrics', q: 'up' }] }, 400, 'BAD_REQUEST'],
      [{ queries: [{ id: 'a', kind: 'traces', q: 'up' }] }, 400, 'BAD_REQUEST'],
      [{ queries: [{ id: 'a', kind: 'metrics', q: 'up' }, { id: 'a', kind: 'logs', q: '{a="b"}' }] }, 400, 'BAD_REQUEST'],
      [{ queries: Array.from({ length: 101 }, (_, i) => ({ id: `q${i}`, kind: 'metrics', q: 'up' })) }, 400, 'VALIDATION_FAILED'],
    ];
    for (const [body, status, code] of cases) {
      const res = await query(srv.url, BATCH, srv.key, body);
      expect(res.status, JSON.stringify(body).slice(0, 80)).toBe(status);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(await res.json()).toMatchObject({ status, code });
    }
    const refused = await query(srv.url, BATCH, srv.key, { queries: [{ id: 'a', kind: 'metrics', q: 'up' }] }, { accept: 'application/json' });
    expect(refused.status).toBe(406);
    const anonymous = await fetch(`${srv.url}${BATCH}`, { method: 'POST', body: '{"queries":[]}', headers: { 'content-type': 'application/json' } });
    expect(anonymous.status).toBe(401);
  });

  it('compresses the shared stream once and keeps every tagged event intact', async () => {
    const queries = QUERIES.map((q) => ({ id: q.id, kind: q.kind, ...q.body }));
    const res = await query(srv.url, BATCH, srv.key, { queries }, { 'accept-encoding': 'gzip' });
    expect(res.headers.get('content-encoding')).toBe('gzip');
    const batch = await readSse(res);
    const ids = new Set((batch.events as Array<SseEventParsed & { id?: string }>).map((e) => e.id).filter((id) => id !== undefined));
    expect([...ids].sort()).toEqual(QUERIES.map((q) => q.id).sort());
    const done = (batch.events as Array<SseEventParsed & { id?: string }>).filter((e) => e.type === 'done' && e.id !== undefined);
    expect(done).toHaveLength(QUERIES.length);
  });

  it('cancels every running query when the client leaves mid-batch', async () => {
    // Every sample of every series, several times over: far more than one read takes.
    const queries = Array.from({ length: 8 }, (_, i) => ({ id: `big${i}`, kind: 'metrics', q: `batch_total * ${i + 1}`, s: START_MS, e: END_MS, step: 1 }));
    const res = await query(srv.url, BATCH, srv.key, { queries });
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value)).toMatch(/^data: \{"id":"big\d"/);
    await reader.cancel();
    await waitFor(async () => (await metricValue(srv.url, /sluice_queries_total\{endpoint="metrics",outcome="client_closed"\} (\d+)/)) > 0, 10_000);
    await waitFor(async () => (await metricValue(srv.url, /sluice_http_requests_total\{route="\/api\/v1\/query\/batch",method="POST",status="499"\} (\d+)/)) === 1, 10_000);
    // The org's slots were given back: a new batch runs to its end.
    const next = await readSse(await query(srv.url, BATCH, srv.key, { queries: [{ id: 'after', kind: 'metrics', q: 'count(batch_total)', s: START_MS, e: END_MS, step: 300 }] }));
    expect(next.events.at(-1)).toEqual({ type: 'done', data: { status: 'ok' } });
    expect(next.events.filter((e) => e.type === 'result').length).toBeGreaterThan(5);
  });
});
