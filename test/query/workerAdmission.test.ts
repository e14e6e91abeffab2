import { afterEach, describe, expect, it } from 'vitest';
import { encodeRemoteWriteBody } from '../../engine/ingest/encode/remoteWrite.js';
import { metricValue } from '../support/metrics.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { query, readSse, type SseResponse } from '../support/sse.js';

const NOW = Math.floor(Date.now() / 1000) * 1000;
const HOUR_MS = 3_600_000;
/** HEAVY_QUERY keeps a worker busy for a while: a median-absolute-deviation over 30 minutes of 1 s samples, every 10 s for an hour. */
const HEAVY_QUERY = { q: 'mad_over_time(busy[30m])', s: String(NOW - HOUR_MS), e: String(NOW), step: 10 };

async function writeBusySeries(srv: TestServer): Promise<void> {
  const n = 2 * 3_600;
  const samples = Array.from({ length: n }, (_, i) => ({ value: Math.sin(i / 100), timestamp: NOW - (n - i) * 1000 }));
  const res = await fetch(`${srv.url}/api/v1/write`, {
    method: 'POST',
    body: encodeRemoteWriteBody({ timeseries: [{ labels: [{ name: '__name__', value: 'busy' }], samples }] }),
    headers: { 'x-svc-api-key': srv.key, 'content-type': 'application/x-protobuf' },
  });
  expect(res.status).toBe(204);
}

function admissions(srv: TestServer, outcome: string): Promise<number> {
  return metricValue(srv.url, new RegExp(`sluice_query_worker_admissions_total\\{outcome="${outcome}"\\} (\\d+)`));
}

describe('admission while the query workers are saturated', () => {
  let srv: TestServer | undefined;
  afterEach(async () => {
    await srv?.stop();
    srv = undefined;
  });

  it('queues concurrent heavy queries above the pool capacity and answers every one in full', async () => {
    // One worker that counts as saturated from one waiting task: any two queries at once are over capacity.
    // The identical queries must each reach the workers, so the results cache (which would
    // answer them once) is off.
    srv = await startTestServer({ SVC_QUERY_WORKERS: '1', SVC_QUERY_BACKLOG_PER_WORKER: '1', SVC_MAX_QUERIES_PER_ORG: '100', SVC_RESULTS_CACHE: 'false' });
    await writeBusySeries(srv);
    const alone = await readSse(await query(srv.url, '/api/v1/metrics/query', srv.key, HEAVY_QUERY));
    expect(alone.events.at(-1)).toEqual({ type: 'done', data: { status: 'ok' } });
    const s = srv;
    const answers: SseResponse[] = await Promise.all(Array.from({ length: 12 }, async () => readSse(await query(s.url, '/api/v1/metrics/query', s.key, HEAVY_QUERY))));
    for (const answer of answers) {
      expect(answer.status).toBe(200);
      expect(answer.events.filter((e) => e.type !== 'heartbeat')).toEqual(alone.events.filter((e) => e.type !== 'heartbeat'));
    }
    expect(await admissions(s, 'queued')).toBeGreaterThan(0);
    expect(await admissions(s, 'refused')).toBe(0);
  });

  it('answers 429 with Retry-After once the wait queue is full', async () => {
    srv = await startTestServer({
      SVC_QUERY_WORKERS: '1',
      SVC_QUERY_BACKLOG_PER_WORKER: '1',
      SVC_MAX_QUERIES_PER_ORG: '100',
      SVC_MAX_QUERIES_WAITING_FOR_WORKERS: '0',
      SVC_RESULTS_CACHE: 'false',
    });
    await writeBusySeries(srv);
    const s = srv;
    const answers = await Promise.all(Array.from({ length: 8 }, async () => readSse(await query(s.url, '/api/v1/metrics/query', s.key, HEAVY_QUERY))));
    const refused = answers.filter((a) => a.status === 429);
    expect(refused.length).toBeGreaterThan(0);
    for (const r of refused) {
      expect(r.headers.get('retry-after')).toBe('2');
      expect(r.body).toMatchObject({ code: 'RATE_LIMITED', status: 429 });
      expect(String(r.body?.message)).toMatch(/SVC_MAX_QUERIES_WAITING_FOR_WORKERS/);
    }
    for (const a of answers.filter((x) => x.status !== 429)) expect(a.events.at(-1)).toEqual({ type: 'done', data: { status: 'ok' } });
    expect(await admissions(s, 'refused')).toBe(refused.length);
  });
});
