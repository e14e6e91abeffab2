import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { encodeRemoteWriteBody } from '../../engine/ingest/encode/remoteWrite.js';
import { startTestServer, waitFor, type TestServer } from '../support/server.js';
import { metricValue } from '../support/metrics.js';
import { query, readSse } from '../support/sse.js';

const NOW = Math.floor(Date.now() / 1000) * 1000;
/** SLOW_QUERY costs about two seconds of CPU: a median-absolute-deviation over a day of 1 s samples, at every second of an hour. */
const SLOW_QUERY = { q: 'mad_over_time(busy[1d])', s: String(NOW - 3_600_000), e: String(NOW), step: 1 };
/** VERY_SLOW_QUERY is the same over eight hours: about eight times the work, far longer than a short deadline. */
const VERY_SLOW_QUERY = { ...SLOW_QUERY, s: String(NOW - 8 * 3_600_000) };

async function writeBusySeries(srv: TestServer): Promise<void> {
  const n = 100_000;
  const samples = Array.from({ length: n }, (_, i) => ({ value: Math.sin(i / 100), timestamp: NOW - (n - i) * 1000 }));
  const res = await fetch(`${srv.url}/api/v1/write`, {
    method: 'POST',
    body: encodeRemoteWriteBody({ timeseries: [{ labels: [{ name: '__name__', value: 'busy' }], samples }] }),
    headers: { 'x-svc-api-key': srv.key, 'content-type': 'application/x-protobuf' },
  });
  expect(res.status).toBe(204);
}

/** BULK_LINES lines of 400 bytes: about 22 MB of raw results, more than socket buffers hold. */
const BULK_LINES = 50_000;
const BULK_QUERY = { q: '{service_name="bulk"}', s: String(NOW - 3_600_000), e: String(NOW), limit: BULK_LINES };

async function writeBulkLogs(srv: TestServer): Promise<void> {
  const line = 'x'.repeat(400);
  const base = BigInt(NOW - 3_000_000) * 1_000_000n;
  for (let batch = 0; batch < BULK_LINES / 10_000; batch++) {
    const values = Array.from({ length: 10_000 }, (_, i) => [String(base + BigInt((batch * 10_000 + i) * 50) * 1_000_000n), `${line} ${batch}-${i}`]);
    const res = await fetch(`${srv.url}/loki/api/v1/push`, {
      method: 'POST',
      body: JSON.stringify({ streams: [{ stream: { service_name: 'bulk' }, values }] }),
      headers: { 'x-svc-api-key': srv.key, 'content-type': 'application/json' },
    });
    expect(res.status).toBe(204);
  }
}

/** abandonAfterFirstRead asks a metrics query and disconnects once the first bytes of its stream arrive. */
async function abandonAfterFirstRead(srv: TestServer, body: object): Promise<void> {
  const controller = new AbortController();
  const res = await fetch(`${srv.url}/api/v1/metrics/query`, {
    method: 'POST',
    body: JSON.stringify(body),
    headers: { 'x-svc-api-key': srv.key, 'content-type': 'application/json' },
    signal: controller.signal,
  });
  await res.body!.getReader().read();
  controller.abort();
}

describe('query streams over time', () => {
  let srv: TestServer | undefined;
  afterEach(async () => {
    await srv?.stop();
    srv = undefined;
  });

  it('sends heartbeats while a query is still working', async () => {
    srv = await startTestServer({ SVC_HEARTBEAT_MS: '50', SVC_QUERY_WORKERS: '1' });
    await writeBusySeries(srv);
    const res = await readSse(await query(srv.url, '/api/v1/metrics/query', srv.key, SLOW_QUERY));
    expect(res.status).toBe(200);
    const types = res.events.map((e) => e.type);
    expect(types[0]).toBe('heartbeat');
    expect(res.events[0]).toEqual({ type: 'heartbeat', data: { status: 'waiting' } });
    expect(types).toContain('result');
    expect(res.events.at(-1)).toEqual({ type: 'done', data: { status: 'ok' } });
  });

  it('answers 504 DEADLINE_EXCEEDED when the deadline passes before the stream starts', async () => {
    srv = await startTestServer({ SVC_QUERY_TIMEOUT_MS: '100', SVC_QUERY_WORKERS: '1', SVC_MAX_POINTS_PER_SERIES: '100000' });
    await writeBusySeries(srv);
    const res = await readSse(await query(srv.url, '/api/v1/metrics/query', srv.key, VERY_SLOW_QUERY));
    expect(res.status).toBe(504);
    expect(res.body).toMatchObject({ status: 504, code: 'DEADLINE_EXCEEDED' });
  });

  it('ends with done status error when the deadline passes mid-stream, keeping earlier results', async () => {
    // The client reads the first results and then stops reading: the rest of the stream waits
    // behind it, so the deadline passes mid-stream on any machine, however fast.
    srv = await startTestServer({
      SVC_QUERY_TIMEOUT_MS: '8000',
      SVC_HEARTBEAT_MS: '30',
      SVC_QUERY_WORKERS: '2',
      SVC_SSE_BUFFER_BYTES: '65536',
      SVC_QUERY_RAW_TASK_ROWS: '1000',
      // Compressed, the whole answer would fit in the socket's buffers and never wait for the client.
      SVC_HTTP_COMPRESSION: 'false',
    });
    await writeBulkLogs(srv);
    const res = await query(srv.url, '/api/v1/logs/query', srv.key, BULK_QUERY);
    expect(res.status).toBe(200);
    const s = srv;
    await waitFor(async () => (await metricValue(s.url, /sluice_queries_total\{endpoint="logs_raw",outcome="deadline"\} (\d+)/)) === 1, 20_000);
    const read = await readSse(res);
    expect(read.events.at(-1)).toMatchObject({ type: 'done', data: { status: 'error', code: 'DEADLINE_EXCEEDED' } });
    const results = read.events.filter((e) => e.type === 'result').length;
    expect(results).toBeGreaterThan(0);
    expect(results).toBeLessThan(BULK_LINES);
  });

  it('aborts the worker tasks of a query whose client disconnects, and records 499', async () => {
    srv = await startTestServer({ SVC_HEARTBEAT_MS: '30', SVC_QUERY_WORKERS: '2' });
    await writeBusySeries(srv);
    await abandonAfterFirstRead(srv, SLOW_QUERY);
    const s = srv;
    await waitFor(async () => (await metricValue(s.url, /sluice_query_tasks_total\{outcome="aborted"\} (\d+)/)) > 0, 5000);
    await waitFor(async () => (await metricValue(s.url, /sluice_http_requests_total\{route="\/api\/v1\/metrics\/query",method="POST",status="499"\} (\d+)/)) === 1, 5000);
    expect(await metricValue(srv.url, /sluice_open_streams (\d+)/)).toBe(0);
    expect(srv.logs.text()).toContain('client closed request');
  });

  it('lets a task its query abandoned finish instead of replacing the worker, unless it runs past the grace period', async () => {
    // Points enough for VERY_SLOW_QUERY's eight hours at one a second.
    srv = await startTestServer({ SVC_HEARTBEAT_MS: '30', SVC_QUERY_WORKERS: '1', SVC_MAX_POINTS_PER_SERIES: '100000' });
    await writeBusySeries(srv);
    const s = srv;
    // One worker evaluates the query as one task; over five minutes it takes a fraction of a
    // second, so it is still running when the first heartbeat arrives and ends within the grace.
    // Asked once in full first, so the worker has loaded the engine and the task starts at once.
    const short = { ...SLOW_QUERY, s: String(NOW - 300_000) };
    expect((await readSse(await query(s.url, '/api/v1/metrics/query', s.key, short))).events.at(-1)).toMatchObject({ type: 'done', data: { status: 'ok' } });
    await abandonAfterFirstRead(s, short);
    await waitFor(async () => (await metricValue(s.url, /sluice_query_tasks_abandoned_total\{ending="finished"\} (\d+)/)) >= 1, 10_000);
    expect(await metricValue(s.url, /sluice_query_tasks_abandoned_total\{ending="stopped"\} (\d+)/)).toBe(0);
    // A task of seconds is stopped once the grace is over: eight hours of steps, several times
    // the grace even on a fast machine (the hour of SLOW_QUERY took 1.0-1.6 s, too near it).
    await abandonAfterFirstRead(s, VERY_SLOW_QUERY);
    await waitFor(async () => (await metricValue(s.url, /sluice_query_tasks_abandoned_total\{ending="stopped"\} (\d+)/)) >= 1, 10_000);
    // The pool still answers with the thread that replaced the stopped one.
    const after = await readSse(await query(s.url, '/api/v1/metrics/query', s.key, { q: 'vector(1)' }));
    expect(after.events.at(-1)).toMatchObject({ type: 'done', data: { status: 'ok' } });
  });

  it('queues a query over the org limit until a slot frees, instead of refusing it', async () => {
    srv = await startTestServer({ SVC_MAX_QUERIES_PER_ORG: '1', SVC_QUERY_WORKERS: '1' });
    await writeBusySeries(srv);
    let firstDone = false;
    const first = query(srv.url, '/api/v1/metrics/query', srv.key, SLOW_QUERY)
      .then(readSse)
      .finally(() => (firstDone = true));
    const s = srv;
    await waitFor(async () => (await metricValue(s.url, /sluice_open_streams (\d+)/)) === 1);
    let secondDone = false;
    const second = query(srv.url, '/api/v1/metrics/query', srv.key, { q: 'vector(1)' })
      .then(readSse)
      .finally(() => (secondDone = true));
    await new Promise((r) => setTimeout(r, 300));
    // While the slow query holds the org's one slot, the quick one waits in the queue.
    if (!firstDone && (await metricValue(srv.url, /sluice_open_streams (\d+)/)) === 1) expect(secondDone).toBe(false);
    const [slow, quick] = await Promise.all([first, second]);
    expect(slow.status).toBe(200);
    expect(quick.status).toBe(200);
    expect(quick.events.at(-1)).toEqual({ type: 'done', data: { status: 'ok' } });
  });

  it('limits concurrent queries per org with 429 once its queue is full, leaving other orgs alone', async () => {
    srv = await startTestServer({ SVC_MAX_QUERIES_PER_ORG: '1', SVC_MAX_QUEUED_QUERIES_PER_ORG: '0', SVC_QUERY_WORKERS: '1' });
    await writeBusySeries(srv);
    const first = query(srv.url, '/api/v1/metrics/query', srv.key, SLOW_QUERY);
    const s = srv;
    await waitFor(async () => (await metricValue(s.url, /sluice_open_streams (\d+)/)) === 1);
    const second = await readSse(await query(srv.url, '/api/v1/metrics/query', srv.key, { q: 'busy' }));
    expect(second.status).toBe(429);
    expect(second.body).toMatchObject({ code: 'RATE_LIMITED' });
    const other = await srv.admin.createOrg('other');
    const { key } = await srv.admin.createKey(other.id);
    await new Promise((r) => setTimeout(r, 50));
    expect((await readSse(await query(srv.url, '/api/v1/metrics/query', key, { q: 'vector(1)' }))).status).toBe(200);
    expect((await readSse(await first)).status).toBe(200);
  });

  it('pauses dispatch for a client that stops reading, while other clients are served', async () => {
    srv = await startTestServer({ SVC_QUERY_WORKERS: '2' });
    await writeBulkLogs(srv);
    const url = new URL(srv.url);
    const body = JSON.stringify(BULK_QUERY);
    const socket = net.connect(Number(url.port), url.hostname);
    await new Promise((r) => socket.once('connect', r));
    socket.pause();
    socket.write(`POST /api/v1/logs/query HTTP/1.1\r\nHost: x\r\nx-svc-api-key: ${srv.key}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`);
    const s = srv;
    await waitFor(async () => (await metricValue(s.url, /sluice_open_streams (\d+)/)) === 1);
    await new Promise((r) => setTimeout(r, 1000));
    const completedWhileStalled = await metricValue(srv.url, /sluice_query_tasks_total\{outcome="completed"\} (\d+)/);
    // 8 slices exist; a stalled client lets only the first few through before dispatch stops.
    expect(completedWhileStalled).toBeLessThan(8);
    const started = Date.now();
    const other = await readSse(await query(srv.url, '/api/v1/logs/query', srv.key, { q: '{service_name="bulk"} |= "0-1"', limit: 5 }));
    expect(other.events.filter((e) => e.type === 'result')).toHaveLength(5);
    // Blocked behind the stalled client it would never finish; generous so machine load cannot fail it.
    expect(Date.now() - started).toBeLessThan(15_000);
    socket.destroy();
    await waitFor(async () => (await metricValue(s.url, /sluice_open_streams (\d+)/)) === 0, 5000);
  });
});
