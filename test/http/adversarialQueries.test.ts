import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_EXPRESSION_DEPTH } from '../../engine/common/depth.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { query, readSse } from '../support/sse.js';

/**
 * Hostile query bodies over the real server: deep nesting, huge expressions, quadratic lexer
 * input and absurd steps all get a quick JSON 400 (with the position for expression errors),
 * never a 500 or a frozen process, and the server keeps serving afterwards.
 */
describe('hostile query bodies', () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startTestServer();
  });
  afterAll(async () => {
    await srv.stop();
  });

  const timed = async (path: string, body: Record<string, unknown>) => {
    const t0 = performance.now();
    const res = await query(srv.url, path, srv.key, body);
    const json = (await res.json()) as { status: number; code: string; message: string; position?: { start: number; end: number } };
    return { status: res.status, json, ms: performance.now() - t0 };
  };

  const stillServing = async () => {
    const res = await query(srv.url, '/api/v1/promql/validate', srv.key, { q: 'up' });
    expect(res.status).toBe(200);
  };

  it('answers nesting past the limit with 400 INVALID_EXPR and its position, on both query routes', async () => {
    const depth = MAX_EXPRESSION_DEPTH + 100;
    const cases: Array<[string, string]> = [
      ['/api/v1/metrics/query', '('.repeat(depth) + 'up' + ')'.repeat(depth)],
      ['/api/v1/metrics/query', 'abs('.repeat(depth) + 'up' + ')'.repeat(depth)],
      ['/api/v1/metrics/query', 'up' + ' + up'.repeat(10_000)],
      ['/api/v1/logs/query', 'sum('.repeat(depth) + 'count_over_time({a="b"}[1m])' + ')'.repeat(depth)],
      ['/api/v1/logs/query', '{a="b"} | ' + '('.repeat(depth) + 'l="v"' + ')'.repeat(depth)],
    ];
    for (const [path, q] of cases) {
      const { status, json, ms } = await timed(path, { q });
      expect(status, q.slice(0, 30)).toBe(400);
      expect(json.code).toBe('INVALID_EXPR');
      expect(json.message).toContain('expression nested too deeply');
      expect(json.position!.start).toBeGreaterThanOrEqual(0);
      expect(json.position!.end).toBeLessThanOrEqual(q.length);
      expect(ms).toBeLessThan(2000);
    }
    await stillServing();
  });

  it('runs expressions just within the nesting limit end to end', async () => {
    const depth = MAX_EXPRESSION_DEPTH - 2;
    const window = { s: '1767225600', e: '1767229200', step: 600 };
    for (const q of ['abs('.repeat(depth) + 'vector(1)' + ')'.repeat(depth), 'vector(1)' + ' + vector(1)'.repeat(depth - 1)]) {
      const res = await readSse(await query(srv.url, '/api/v1/metrics/query', srv.key, { q, ...window }));
      expect(res.status, q.slice(0, 20)).toBe(200);
      expect(res.events.at(-1)).toEqual({ type: 'done', data: { status: 'ok' } });
      expect(res.raw).toContain(`"value":${q.startsWith('abs') ? 1 : depth},`);
    }
  });

  it('answers a 100 KB run of minus signs in LogQL quickly (it froze the process for 79 s)', async () => {
    const q = '{a="b"} ' + '-'.repeat(100_000);
    const { status, json, ms } = await timed('/api/v1/logs/query', { q });
    expect(status).toBe(400);
    expect(json.code).toBe('INVALID_EXPR');
    expect(json.position).toBeDefined();
    expect(ms).toBeLessThan(2000);
    await stillServing();
  });

  it('refuses a 1 MB expression by its length with 400 and position 0', async () => {
    for (const [path, q] of [
      ['/api/v1/metrics/query', 'up' + ' + up'.repeat(200_000)],
      ['/api/v1/logs/query', '{a="b"}' + ' |= "x"'.repeat(150_000)],
    ]) {
      const { status, json, ms } = await timed(path, { q });
      expect(status).toBe(400);
      expect(json.code).toBe('INVALID_EXPR');
      expect(json.message).toContain('input size too long');
      expect(json.position).toEqual({ start: 0, end: 0 });
      expect(ms).toBeLessThan(2000);
    }
  });

  it('answers a step that overflows or a time out of range with 400 VALIDATION_FAILED', async () => {
    const window = { s: '1767225600', e: '1767229200' };
    for (const path of ['/api/v1/metrics/query', '/api/v1/logs/query']) {
      const q = path.includes('metrics') ? 'up' : 'count_over_time({a="b"}[1m])';
      for (const body of [
        { q, ...window, step: 1e308 },
        { q, ...window, step: 2 ** 53 },
        { q, s: 'now-' + '9'.repeat(400) + 'w', e: 'now' },
        { q, s: 'now-1h', e: 'now+' + '9'.repeat(30) + 'w' },
      ]) {
        const { status, json } = await timed(path, body);
        expect(status, JSON.stringify(body).slice(0, 80)).toBe(400);
        expect(json.code).toBe('VALIDATION_FAILED');
        expect(json.message).toMatch(/step must be at most|outside the range of representable times/);
      }
    }
    await stillServing();
  });

  it('still accepts a step longer than the window: one point at s', async () => {
    const res = await readSse(
      await query(srv.url, '/api/v1/metrics/query', srv.key, { q: 'vector(1)', s: '1767225600', e: '1767229200', step: 86_400 }),
    );
    expect(res.status).toBe(200);
    expect(res.events.at(-1)).toEqual({ type: 'done', data: { status: 'ok' } });
    expect(res.raw).toContain('1767225600');
  });
});
