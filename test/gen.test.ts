import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Generator } from '../src/gen/generator.js';
import { Sender, backfill } from '../src/gen/sender.js';
import { startTestServer, type TestServer } from './support/server.js';

describe('demo telemetry generator', () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startTestServer();
  });
  afterAll(async () => {
    await srv.stop();
  });

  it('is deterministic for a seed and differs across seeds', () => {
    const t = Date.UTC(2026, 0, 1, 12);
    const a = new Generator({ seed: 7 }).scrape(t);
    const b = new Generator({ seed: 7 }).scrape(t);
    const c = new Generator({ seed: 8 }).scrape(t);
    expect(JSON.stringify(a, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v))).toBe(JSON.stringify(b, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v)));
    expect(JSON.stringify(a.metrics)).not.toBe(JSON.stringify(c.metrics));
  });

  it('writes counters, histograms, gauges and three log styles through the ingest endpoints', async () => {
    const now = Date.now();
    const stats = await backfill(new Generator({ seed: 1, logsPerSecond: 50 }), new Sender(srv.url, srv.key), now - 25 * 60_000, now);
    expect(stats.samples).toBeGreaterThan(1000);
    expect(stats.logLines).toBeGreaterThan(100);
    const metrics = srv.service.storage.metrics(srv.orgId);
    const names = metrics.labelValues('__name__', [], -Infinity, Infinity);
    expect(names).toEqual(expect.arrayContaining(['http_requests_total', 'http_request_duration_seconds_bucket', 'process_resident_memory_bytes', 'up']));
    expect(metrics.labelValues('service_name', [], -Infinity, Infinity)).toEqual(['catalog', 'checkout', 'frontend', 'inventory', 'payments']);
    const errors = metrics.select([{ name: '__name__', type: '=', value: 'http_requests_total' }, { name: 'code', type: '=~', value: '5..' }], -Infinity, Infinity);
    expect(errors.length).toBeGreaterThan(0);
    const lines = srv.service.storage.logs(srv.orgId).select([], -(2n ** 63n), 2n ** 63n - 1n).flatMap((s) => s.messages);
    expect(lines.some((l) => l.startsWith('{"level":'))).toBe(true);
    expect(lines.some((l) => l.startsWith('level='))).toBe(true);
    expect(lines.some((l) => /^(INFO|DEBUG|WARN|ERROR) \//.test(l))).toBe(true);
    const levels = new Set(srv.service.storage.logs(srv.orgId).select([], -(2n ** 63n), 2n ** 63n - 1n).map((s) => s.tags.level));
    expect(levels).toContain('error');
    expect(levels).toContain('info');
  });
});
