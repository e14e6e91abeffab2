import http from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { encodeRemoteWriteBody, type TimeSeriesInput } from '../../engine/ingest/encode/remoteWrite.js';
import { metricValue } from '../support/metrics.js';
import { startTestServer, waitFor, type TestServer } from '../support/server.js';
import { LEND_SLOT_AFTER_MS } from '../../src/query/stream.js';
import { query, readSse, type SseResponse } from '../support/sse.js';

const NOW = Math.floor(Date.now() / 1000) * 1000;
const HOUR_MS = 3_600_000;
/** HEAVY_QUERY keeps a worker busy for a while: a median-absolute-deviation over 30 minutes of 1 s samples, every 2 s for an hour. */
const HEAVY_QUERY = { q: 'mad_over_time(busy[30m])', s: String(NOW - HOUR_MS), e: String(NOW), step: 2 };
/** WIDE_SERIES series of WIDE_QUERY make an answer of tens of megabytes, far more than the socket buffers hold. */
const WIDE_SERIES = 400;
const WIDE_QUERY = { q: 'wide', s: String(NOW - HOUR_MS), e: String(NOW), step: 5 };
/** SMALL_QUERY is answered at once: one series, a few points. */
const SMALL_QUERY = { q: 'busy', s: String(NOW - 60_000), e: String(NOW), step: 15 };

async function remoteWrite(srv: TestServer, timeseries: TimeSeriesInput[], key = srv.key): Promise<void> {
  const res = await fetch(`${srv.url}/api/v1/write`, {
    method: 'POST',
    body: encodeRemoteWriteBody({ timeseries }),
    headers: { 'x-svc-api-key': key, 'content-type': 'application/x-protobuf' },
  });
  expect(res.status).toBe(204);
}

async function writeBusySeries(srv: TestServer, key = srv.key): Promise<void> {
  const n = 2 * 3_600;
  const samples = Array.from({ length: n }, (_, i) => ({ value: Math.sin(i / 100), timestamp: NOW - (n - i) * 1000 }));
  await remoteWrite(srv, [{ labels: [{ name: '__name__', value: 'busy' }], samples }], key);
}

async function writeWideSeries(srv: TestServer): Promise<void> {
  const samples = Array.from({ length: 720 }, (_, i) => ({ value: i * 1.25, timestamp: NOW - HOUR_MS + i * 5000 }));
  for (let from = 0; from < WIDE_SERIES; from += 100) {
    const timeseries = Array.from({ length: 100 }, (_, k) => ({
      labels: [
        { name: '__name__', value: 'wide' },
        { name: 'instance', value: `host-with-a-fairly-long-name-${from + k}` },
        { name: 'job', value: 'evaluation-cap-test' },
      ],
      samples,
    }));
    await remoteWrite(srv, timeseries);
  }
}

/**
 * PausedAnswer is a query whose client has taken the response headers and reads nothing until
 * `readAll`: node:http stops reading the socket once its small buffer is full, so the server
 * meets a client that is behind (fetch would keep reading ahead into memory).
 */
interface PausedAnswer {
  status: number;
  readAll(): Promise<string>;
}

function pausedQuery(srv: TestServer, body: unknown, key = srv.key): Promise<PausedAnswer> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      `${srv.url}/api/v1/metrics/query`,
      { method: 'POST', headers: { 'x-svc-api-key': key, 'content-type': 'application/json', accept: 'text/event-stream' } },
      (res) => {
        res.pause();
        resolve({
          status: res.statusCode ?? 0,
          readAll: () =>
            new Promise((done, failed) => {
              const chunks: Buffer[] = [];
              res.on('data', (c: Buffer) => chunks.push(c));
              res.on('end', () => done(Buffer.concat(chunks).toString('utf8')));
              res.on('error', failed);
              res.resume();
            }),
        });
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

function gauge(srv: TestServer, name: string): Promise<number> {
  return metricValue(srv.url, new RegExp(`^${name} (\\S+)$`, 'm'));
}

const DONE_OK = { type: 'done', data: { status: 'ok' } };

/** expectWholeWideAnswer checks a raw SSE answer to WIDE_QUERY: every series, every point, in order, ending ok. */
function expectWholeWideAnswer(raw: string): void {
  const events = raw
    .split('\n\n')
    .filter((block) => block.startsWith('data: '))
    .map((block) => JSON.parse(block.slice(6)) as { type: string; data: Record<string, unknown> });
  expect(events.at(-1)).toEqual(DONE_OK);
  const results = events.filter((e) => e.type === 'result');
  expect(new Set(results.map((e) => JSON.stringify(e.data.tags))).size).toBe(WIDE_SERIES);
  expect(results.length).toBe(WIDE_SERIES * 721);
  // wide's value is 1.25 × its sample's index, the same in every series; the last step (at e)
  // sees the last sample, 5 s before it.
  const wrong = results.filter((r) => r.data.value !== Math.min((Number(r.data.timestamp) - (NOW - HOUR_MS)) / 5000, 719) * 1.25);
  expect(wrong.slice(0, 3)).toEqual([]);
}

describe('the global cap on queries evaluating at once', () => {
  let srv: TestServer | undefined;
  afterEach(async () => {
    await srv?.stop();
    srv = undefined;
  });

  it('finishes the first queries while later ones wait their turn, first come first served', async () => {
    // One evaluation at a time; the identical queries must each be evaluated, so the results cache is off.
    srv = await startTestServer({ SVC_QUERY_WORKERS: '1', SVC_MAX_CONCURRENT_QUERIES: '1', SVC_MAX_QUERIES_PER_ORG: '100', SVC_RESULTS_CACHE: 'false' });
    await writeBusySeries(srv);
    const s = srv;
    const alone = await readSse(await query(s.url, '/api/v1/metrics/query', s.key, HEAVY_QUERY));
    expect(alone.events.at(-1)).toEqual(DONE_OK);
    // Timed once warm: the first query also pays for compiling and reading the data cold, and
    // arrivals spaced by its time (250 ms against 20-40 warm) did not overlap at all.
    const aloneStarted = performance.now();
    await readSse(await query(s.url, '/api/v1/metrics/query', s.key, HEAVY_QUERY));
    const aloneMs = performance.now() - aloneStarted;
    // Arrivals apart by a small part of one query's time: their order is known, and each
    // arrives while the first still evaluates.
    const gapMs = Math.min(30, aloneMs / 8);
    const order: number[] = [];
    const headersAt: number[] = [];
    const firstEventAt: number[] = [];
    const clients: Promise<SseResponse>[] = [];
    // The waiting gauge is watched all along, not at chosen moments: on a fast machine a query
    // may wait only briefly.
    let sawWaiting = 0;
    let watching = true;
    const watcher = (async () => {
      while (watching) {
        sawWaiting = Math.max(sawWaiting, await gauge(s, 'sluice_query_admission_waiting'));
        await new Promise((r) => setTimeout(r, 2));
      }
    })();
    for (let i = 0; i < 4; i++) {
      clients.push(
        (async () => {
          const res = await query(s.url, '/api/v1/metrics/query', s.key, HEAVY_QUERY);
          headersAt[i] = performance.now();
          const answer = await readSse(res, (e) => {
            if (e.type !== 'heartbeat' && firstEventAt[i] === undefined) firstEventAt[i] = performance.now();
          });
          order.push(i);
          return answer;
        })(),
      );
      await new Promise((r) => setTimeout(r, gapMs));
    }
    const answers = await Promise.all(clients);
    watching = false;
    await watcher;
    for (const answer of answers) {
      expect(answer.status).toBe(200);
      expect(answer.events.filter((e) => e.type !== 'heartbeat')).toEqual(alone.events.filter((e) => e.type !== 'heartbeat'));
    }
    expect(order).toEqual([0, 1, 2, 3]);
    // Each was answered (headers) in its turn, and the last got no answer at all until the
    // first's results were on their way: it waited instead of sharing the worker. (Not until
    // the test had read the first to its end: a slot is lent on while its client reads, so
    // on a loaded machine the server may be two answers ahead of this reader.)
    expect(headersAt[1]).toBeGreaterThanOrEqual(headersAt[0]);
    expect(headersAt[2]).toBeGreaterThanOrEqual(headersAt[1]);
    expect(headersAt[3]).toBeGreaterThanOrEqual(headersAt[2]);
    expect(headersAt[3]).toBeGreaterThanOrEqual(firstEventAt[0]);
    expect(sawWaiting).toBeGreaterThan(0);
    expect(await metricValue(s.url, /sluice_query_worker_admissions_total\{outcome="queued"\} (\d+)/)).toBeGreaterThanOrEqual(3);
    expect(await metricValue(s.url, /^sluice_query_admission_wait_seconds_count (\d+)$/m)).toBeGreaterThanOrEqual(5);
    expect(await gauge(s, 'sluice_queries_evaluating')).toBe(0);
    expect(await gauge(s, 'sluice_query_admission_waiting')).toBe(0);
  });

  it('answers 429 with Retry-After to a query beyond the wait queue', async () => {
    srv = await startTestServer({
      SVC_QUERY_WORKERS: '1',
      SVC_MAX_CONCURRENT_QUERIES: '1',
      SVC_MAX_QUERIES_WAITING_FOR_WORKERS: '1',
      SVC_MAX_QUERIES_PER_ORG: '100',
      SVC_RESULTS_CACHE: 'false',
    });
    await writeBusySeries(srv);
    const s = srv;
    const answers = await Promise.all(Array.from({ length: 4 }, async () => readSse(await query(s.url, '/api/v1/metrics/query', s.key, HEAVY_QUERY))));
    const refused = answers.filter((a) => a.status === 429);
    const answered = answers.filter((a) => a.status === 200);
    // One evaluates, one waits; the others find the queue full.
    expect(answered.length).toBeGreaterThanOrEqual(2);
    expect(refused.length).toBeGreaterThanOrEqual(1);
    expect(refused.length + answered.length).toBe(4);
    for (const r of refused) {
      expect(r.headers.get('retry-after')).toBe('2');
      expect(r.body).toMatchObject({ code: 'RATE_LIMITED', status: 429 });
      expect(String(r.body?.message)).toMatch(/all 1 evaluation slots are busy \(SVC_MAX_CONCURRENT_QUERIES\) and the wait queue is full .*SVC_MAX_QUERIES_WAITING_FOR_WORKERS/);
    }
    for (const a of answered) expect(a.events.at(-1)).toEqual(DONE_OK);
    expect(await metricValue(s.url, /sluice_query_worker_admissions_total\{outcome="refused"\} (\d+)/)).toBe(refused.length);
  });

  it('lends a slow reader\'s slot to other queries while its client is behind', async () => {
    srv = await startTestServer({ SVC_QUERY_WORKERS: '1', SVC_MAX_CONCURRENT_QUERIES: '1', SVC_MAX_QUERIES_PER_ORG: '100', SVC_RESULTS_CACHE: 'false', SVC_SSE_STALL_TIMEOUT_MS: '60000' });
    await writeBusySeries(srv);
    await writeWideSeries(srv);
    const s = srv;
    // The slow client takes its headers and then reads nothing for a while: the server fills
    // the socket buffers and has to wait for it (uncompressed: node:http asks for no encoding).
    const slow = await pausedQuery(s, WIDE_QUERY);
    expect(slow.status).toBe(200);
    await new Promise((r) => setTimeout(r, LEND_SLOT_AFTER_MS + 500));
    // Its query has been stuck behind its client for longer than the grace, so it lent its slot: none is held.
    expect(await gauge(s, 'sluice_queries_evaluating')).toBe(0);
    const fast = await readSse(await query(s.url, '/api/v1/metrics/query', s.key, SMALL_QUERY));
    expect(fast.status).toBe(200);
    expect(fast.events.at(-1)).toEqual(DONE_OK);
    expect(fast.events.filter((e) => e.type === 'result').length).toBeGreaterThan(0);
    // Now the slow client reads everything: its answer is whole.
    expectWholeWideAnswer(await slow.readAll());
    expect(await gauge(s, 'sluice_queries_evaluating')).toBe(0);
  });

  it('keeps one org\'s stalled clients from holding another org\'s query, and gives each stalled client its whole answer once it reads', async () => {
    srv = await startTestServer({ SVC_QUERY_WORKERS: '1', SVC_MAX_CONCURRENT_QUERIES: '1', SVC_MAX_QUERIES_PER_ORG: '100', SVC_RESULTS_CACHE: 'false', SVC_SSE_STALL_TIMEOUT_MS: '120000' });
    await writeWideSeries(srv);
    const other = await srv.admin.createOrg('other');
    const { key: otherKey } = await srv.admin.createKey(other.id);
    await writeBusySeries(srv, otherKey);
    const s = srv;
    // Two clients of the first org take their headers and read nothing. Each query gives its
    // slot up once its client has been behind for the grace, which lets the next one in. They
    // stay stalled only seconds: uWS drops a client that takes nothing for about 10 s of its
    // own accord (see SseStream), so this test needs a machine that is not starved for that long.
    const stalled = [await pausedQuery(s, WIDE_QUERY)];
    stalled.push(await pausedQuery(s, WIDE_QUERY));
    for (const a of stalled) expect(a.status).toBe(200);
    // A third query of the same org: with more paused queries than the cap (1), the org's
    // new queries wait until one of its readers catches up.
    const third = pausedQuery(s, WIDE_QUERY);
    await waitFor(async () => (await gauge(s, 'sluice_query_admission_waiting')) === 1 && (await gauge(s, 'sluice_queries_evaluating')) === 0, 20_000);
    // The other org's query is not behind any of them: it is answered in full while the
    // stalled clients still read nothing and the first org's third query still waits.
    const started = performance.now();
    const fast = await readSse(await query(s.url, '/api/v1/metrics/query', otherKey, SMALL_QUERY));
    const fastMs = performance.now() - started;
    expect(fast.status).toBe(200);
    expect(fast.events.at(-1)).toEqual(DONE_OK);
    expect(fast.events.filter((e) => e.type === 'result').length).toBe(5);
    expect(await gauge(s, 'sluice_query_admission_waiting')).toBe(1);
    // Far within the stall timeout the old behaviour made it wait for.
    expect(fastMs).toBeLessThan(60_000);
    // The stalled clients read now: each answer is whole and right, and so is the third's,
    // let in once the first org's readers took their queries back.
    // All read at once (the third as soon as it is answered) and are checked only afterwards,
    // so none stays stalled while another's answer is checked.
    const reads = stalled.map((a, i) => a.readAll().catch((err: unknown) => Promise.reject(new Error(`stalled client ${i}: ${String(err)}`))));
    let thirdStatus = 0;
    const lateRead = third.then((late) => {
      thirdStatus = late.status;
      return late.readAll().catch((err: unknown) => Promise.reject(new Error(`third client: ${String(err)}`)));
    });
    const raws = await Promise.all([...reads, lateRead]);
    expect(thirdStatus).toBe(200);
    for (const raw of raws) expectWholeWideAnswer(raw);
    expect(await gauge(s, 'sluice_queries_evaluating')).toBe(0);
    expect(await gauge(s, 'sluice_query_admission_waiting')).toBe(0);
  }, 240_000);
});
