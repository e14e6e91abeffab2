import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeRemoteWriteBody } from '../engine/index.js';
import { startTestServer, type TestServer } from './support/server.js';
import { query, readSse } from './support/sse.js';

const SYSTEM_KEY = randomBytes(24).toString('hex');
const DAY_MS = 86_400_000;
/** The probe data is five days old: inside the 30-day default, outside a retention of 2 days. */
const OLD_END_MS = Math.floor((Date.now() - 5 * DAY_MS) / 60_000) * 60_000;
const OLD_START_MS = OLD_END_MS - 60 * 60_000;
const STEP_S = 300;
const INSTANCES = ['a', 'b', 'c'];
/** One point per instance and step, each step having a sample within the lookback. */
const EXPECTED_POINTS = INSTANCES.length * ((OLD_END_MS - OLD_START_MS) / (STEP_S * 1000) + 1);
const LOG_LINES = 60;

interface Org {
  id: string;
  key: string;
}

/** writeOldData sends the same old hour of samples and log lines to the org of `key`. */
async function writeOldData(url: string, key: string): Promise<void> {
  const timeseries = INSTANCES.map((instance) => {
    const samples = [];
    for (let t = OLD_START_MS; t <= OLD_END_MS; t += 60_000) samples.push({ value: t / 60_000, timestamp: t });
    return { labels: [{ name: '__name__', value: 'signal_probe' }, { name: 'instance', value: instance }], samples };
  });
  const metrics = await fetch(`${url}/api/v1/write`, {
    method: 'POST',
    body: encodeRemoteWriteBody({ timeseries }),
    headers: { 'x-svc-api-key': key, 'content-type': 'application/x-protobuf' },
  });
  expect(metrics.status).toBe(204);
  const values = Array.from({ length: LOG_LINES }, (_, i) => [String(BigInt(OLD_START_MS + i * 60_000) * 1_000_000n), `probe line ${i}`]);
  const logs = await fetch(`${url}/loki/api/v1/push`, {
    method: 'POST',
    body: JSON.stringify({ streams: [{ stream: { service_name: 'signal-probe' }, values }] }),
    headers: { 'x-svc-api-key': key, 'content-type': 'application/json' },
  });
  expect(logs.status).toBe(204);
}

/** queried counts what the org's queries return over the probe window: metric points, log lines, and raw samples of a Prometheus-API range selector. */
async function queried(url: string, key: string): Promise<{ points: number; lines: number; rawSamples: number }> {
  const metrics = await readSse(await query(url, '/api/v1/metrics/query', key, { q: 'signal_probe', s: String(OLD_START_MS), e: String(OLD_END_MS), step: STEP_S }));
  const logs = await readSse(
    await query(url, '/api/v1/logs/query', key, { q: '{service_name="signal-probe"}', s: String(OLD_START_MS - 60_000), e: String(OLD_END_MS + 60_000), limit: 1000 }),
  );
  for (const res of [metrics, logs]) {
    expect(res.status).toBe(200);
    expect(res.events.at(-1)).toEqual({ type: 'done', data: { status: 'ok' } });
  }
  const params = new URLSearchParams({ query: 'signal_probe[1h]', time: String(OLD_END_MS / 1000) });
  const raw = await fetch(`${url}/prometheus/api/v1/query?${params}`, { headers: { 'x-svc-api-key': key } });
  expect(raw.status).toBe(200);
  const matrix = ((await raw.json()) as { data: { result: Array<{ values: unknown[] }> } }).data.result;
  return {
    points: metrics.events.filter((e) => e.type === 'result').length,
    lines: logs.events.filter((e) => e.type === 'result').length,
    rawSamples: matrix.reduce((n, s) => n + s.values.length, 0),
  };
}

describe('retention per org and signal', () => {
  let srv: TestServer;
  let shortMetrics: Org;
  let steady: Org;

  /** storedSegments counts the segments the storage holds for one org and signal. */
  const storedSegments = (org: string, signal: 'metrics' | 'logs'): number =>
    srv.service.storage.segments().filter((s) => s.org === org && s.signal === signal).length;

  const patch = (org: string, body: unknown): Promise<Response> =>
    fetch(`${srv.url}/api/admin/orgs/${org}/settings`, {
      method: 'PATCH',
      headers: { 'x-svc-api-key': SYSTEM_KEY, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });

  beforeAll(async () => {
    // The background run is left to its 10-minute default: the test runs retention itself, at a known point.
    srv = await startTestServer({ SVC_MCP_API_KEY: SYSTEM_KEY, SVC_QUERY_WORKERS: '1' });
    shortMetrics = { id: srv.orgId, key: srv.key };
    const org = await srv.admin.createOrg('steady');
    steady = { id: org.id, key: (await srv.admin.createKey(org.id, 'steady')).key };
    await writeOldData(srv.url, shortMetrics.key);
    await writeOldData(srv.url, steady.key);
    await srv.service.storage.cut();
  }, 60_000);

  afterAll(async () => {
    await srv?.stop();
  });

  it('shortening one org\'s metrics retention hides and then deletes its metrics only', async () => {
    const everything = { points: EXPECTED_POINTS, lines: LOG_LINES, rawSamples: INSTANCES.length * 60 };
    expect(await queried(srv.url, shortMetrics.key)).toEqual(everything);
    expect(await queried(srv.url, steady.key)).toEqual(everything);
    expect(storedSegments(shortMetrics.id, 'metrics')).toBeGreaterThan(0);

    expect((await patch(shortMetrics.id, { retentionMetricsDays: 2 })).status).toBe(200);
    // Before any retention run: queries already stop at the org's retention for the signal.
    expect(await queried(srv.url, shortMetrics.key)).toEqual({ points: 0, lines: LOG_LINES, rawSamples: 0 });
    expect(storedSegments(shortMetrics.id, 'metrics')).toBeGreaterThan(0);

    const deleted = await srv.service.storage.applyRetention();
    expect(deleted.length).toBeGreaterThan(0);
    expect(deleted.every((s) => s.org === shortMetrics.id && s.signal === 'metrics')).toBe(true);
    expect(storedSegments(shortMetrics.id, 'metrics')).toBe(0);
    expect(storedSegments(shortMetrics.id, 'logs')).toBeGreaterThan(0);
    expect(storedSegments(steady.id, 'metrics')).toBeGreaterThan(0);
    expect(storedSegments(steady.id, 'logs')).toBeGreaterThan(0);

    // Returning the setting to its default cannot bring deleted data back, and leaves the logs as they were.
    expect((await patch(shortMetrics.id, { retentionMetricsDays: null })).status).toBe(200);
    expect(await queried(srv.url, shortMetrics.key)).toEqual({ points: 0, lines: LOG_LINES, rawSamples: 0 });
    expect(await queried(srv.url, steady.key)).toEqual(everything);
  });

  it('refuses samples older than the org\'s retention for their signal, naming the setting', async () => {
    expect((await patch(steady.id, { retentionLogsDays: 2 })).status).toBe(200);
    const nowMs = Date.now();
    const logs = await fetch(`${srv.url}/loki/api/v1/push`, {
      method: 'POST',
      body: JSON.stringify({ streams: [{ stream: { service_name: 'late' }, values: [[String(BigInt(nowMs - 3 * DAY_MS) * 1_000_000n), 'late line']] }] }),
      headers: { 'x-svc-api-key': steady.key, 'content-type': 'application/json' },
    });
    expect(logs.status).toBe(400);
    expect(((await logs.json()) as { message: string }).message).toContain("too_old (retention of 2 days: this org's retentionLogsDays)");
    // The same age of metric sample is inside the org's metrics retention (the 30-day default).
    const metrics = await fetch(`${srv.url}/api/v1/write`, {
      method: 'POST',
      body: encodeRemoteWriteBody({ timeseries: [{ labels: [{ name: '__name__', value: 'late_metric' }], samples: [{ value: 1, timestamp: nowMs - 3 * DAY_MS }] }] }),
      headers: { 'x-svc-api-key': steady.key, 'content-type': 'application/x-protobuf' },
    });
    expect(metrics.status).toBe(204);
    // The steady org's logs beyond two days are no longer answered; its metrics are.
    expect(await queried(srv.url, steady.key)).toEqual({ points: EXPECTED_POINTS, lines: 0, rawSamples: INSTANCES.length * 60 });
  });
});
