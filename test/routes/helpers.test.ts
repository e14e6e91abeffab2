import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeRemoteWriteBody, type TimeSeriesInput, type MetricMetadataInput } from '../../engine/ingest/encode/remoteWrite.js';
import { startTestServer, type TestServer } from '../support/server.js';

const NOW_MS = Date.now();
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

interface Listing<T = string> {
  data: T[];
  truncated: boolean;
}

interface ErrorBody {
  status: number;
  code: string;
  message: string;
  position?: { start: number; end: number };
}

/** lokiLine is one Loki push value at `agoMs` before the test started. */
const lokiLine = (agoMs: number, text: string, metadata?: Record<string, string>): unknown[] => {
  const ns = (BigInt(NOW_MS - agoMs) * 1_000_000n).toString();
  return metadata ? [ns, text, metadata] : [ns, text];
};

const series = (labels: Record<string, string>, agoMs: number[]): TimeSeriesInput => ({
  labels: Object.entries(labels).map(([name, value]) => ({ name, value })),
  samples: agoMs.map((ago, i) => ({ value: i + 1, timestamp: NOW_MS - ago })),
});

describe('helper endpoints', () => {
  let srv: TestServer;
  let otherKey: string;
  let systemKey: string;

  const call = async <T>(path: string, body: unknown, key: string = srv.key): Promise<{ status: number; body: T }> => {
    const res = await fetch(`${srv.url}${path}`, {
      method: 'POST',
      headers: { 'x-svc-api-key': key, 'content-type': 'application/json' },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as T };
  };
  const list = async <T = string>(path: string, body: unknown, key?: string): Promise<Listing<T>> => {
    const { status, body: answer } = await call<Listing<T>>(path, body, key);
    expect(status, JSON.stringify(answer)).toBe(200);
    return answer;
  };
  const fail = async (path: string, body: unknown, key?: string): Promise<ErrorBody> => {
    const { status, body: answer } = await call<ErrorBody>(path, body, key);
    expect(answer.status).toBe(status);
    return answer;
  };
  const services = async (query: string, key: string = srv.key): Promise<{ status: number; body: unknown }> => {
    const res = await fetch(`${srv.url}/api/v1/services${query}`, { headers: { 'x-svc-api-key': key } });
    return { status: res.status, body: await res.json() };
  };
  const push = async (path: string, body: Uint8Array | string, key: string, contentType: string): Promise<void> => {
    const res = await fetch(`${srv.url}${path}`, { method: 'POST', body, headers: { 'x-svc-api-key': key, 'content-type': contentType } });
    expect(res.status, await res.text()).toBe(204);
  };

  beforeAll(async () => {
    systemKey = 'system-key-for-helper-tests-0123456789abcdef';
    srv = await startTestServer({ SVC_MCP_API_KEY: systemKey });
    const other = await srv.admin.createOrg('other');
    otherKey = (await srv.admin.createKey(other.id)).key;

    await push(
      '/loki/api/v1/push',
      JSON.stringify({
        streams: [
          { stream: { service_name: 'api', env: 'prod', level: 'info' }, values: [lokiLine(10 * MINUTE, 'GET /', { user: 'u1' }), lokiLine(9 * MINUTE, 'GET /a', { user: 'u2' })] },
          { stream: { service_name: 'api', env: 'prod', level: 'error' }, values: [lokiLine(5 * MINUTE, 'boom')] },
          { stream: { service_name: 'worker', env: 'dev', level: 'warn' }, values: [lokiLine(2 * MINUTE, 'slow job')] },
          { stream: { service_name: 'old', env: 'prod', level: 'info', legacy_key: 'x' }, values: [lokiLine(3 * HOUR, 'ancient')] },
        ],
      }),
      srv.key,
      'application/json',
    );
    const metadata: MetricMetadataInput[] = [
      { type: 'counter', metricFamilyName: 'http_requests_total', help: 'Requests served.' },
      { type: 'histogram', metricFamilyName: 'http_request_duration_seconds', help: 'Request latency.', unit: 'seconds' },
      { type: 'gauge', metricFamilyName: 'node_load1', help: '1m load average.' },
    ];
    await push(
      '/api/v1/write',
      encodeRemoteWriteBody({
        timeseries: [
          series({ __name__: 'http_requests_total', job: 'api', instance: 'h1', method: 'GET' }, [2 * MINUTE, MINUTE]),
          series({ __name__: 'http_requests_total', job: 'api', instance: 'h1', method: 'POST' }, [MINUTE]),
          series({ __name__: 'http_request_duration_seconds_bucket', job: 'api', le: '0.1' }, [MINUTE]),
          series({ __name__: 'http_request_duration_seconds_bucket', job: 'api', le: '+Inf' }, [MINUTE]),
          series({ __name__: 'http_request_duration_seconds_sum', job: 'api' }, [MINUTE]),
          series({ __name__: 'http_request_duration_seconds_count', job: 'api' }, [MINUTE]),
          series({ __name__: 'node_load1', job: 'node', instance: 'h2' }, [30_000]),
          series({ __name__: 'up', job: 'api' }, [MINUTE]),
          series({ __name__: 'up', job: 'node' }, [MINUTE]),
          series({ __name__: 'queue_depth', service_name: 'billing', job: 'ignored-when-service_name' }, [MINUTE]),
          series({ __name__: 'old_metric', job: 'legacy', ancient_label: 'y' }, [3 * HOUR]),
        ],
        metadata,
      }),
      srv.key,
      'application/x-protobuf',
    );
    // The other org has look-alike data that must never leak into the first org's listings.
    await push(
      '/loki/api/v1/push',
      JSON.stringify({ streams: [{ stream: { service_name: 'secret-svc', env: 'prod', level: 'info' }, values: [lokiLine(MINUTE, 'hidden', { other_attr: 'z' })] }] }),
      otherKey,
      'application/json',
    );
    await push(
      '/api/v1/write',
      encodeRemoteWriteBody({ timeseries: [series({ __name__: 'http_requests_total', job: 'secret-job', tenant_label: 't' }, [MINUTE])] }),
      otherKey,
      'application/x-protobuf',
    );
  });
  afterAll(async () => {
    await srv.stop();
  });

  describe('logs', () => {
    it('lists tag keys in the default last-hour window, level and attributes included', async () => {
      expect(await list('/api/v1/logs/tags', {})).toEqual({ data: ['env', 'level', 'service_name', 'user'], truncated: false });
    });

    it('treats an empty body as all defaults', async () => {
      expect(await list('/api/v1/logs/tags', '')).toEqual({ data: ['env', 'level', 'service_name', 'user'], truncated: false });
    });

    it('widens and narrows with s and e', async () => {
      expect((await list('/api/v1/logs/tags', { s: 'now-4h' })).data).toContain('legacy_key');
      expect(await list('/api/v1/logs/tagvalues', { key: 'service_name', s: 'now-4h' })).toEqual({ data: ['api', 'old', 'worker'], truncated: false });
      // Only the line from 2 minutes ago: e as a relative time, s relative to e.
      expect(await list('/api/v1/logs/tagvalues', { key: 'service_name', e: 'now-1m', s: 'e-3m' })).toEqual({ data: ['worker'], truncated: false });
      // Absolute Unix milliseconds and RFC 3339 work too.
      const from = String(NOW_MS - 11 * MINUTE);
      const to = new Date(NOW_MS - 8 * MINUTE).toISOString();
      expect(await list('/api/v1/logs/tagvalues', { key: 'user', s: from, e: to })).toEqual({ data: ['u1', 'u2'], truncated: false });
      expect(await list('/api/v1/logs/tags', { s: 'now-20m', e: 'now-15m' })).toEqual({ data: [], truncated: false });
    });

    it('lists the values of one tag, scoped by a stream selector', async () => {
      expect(await list('/api/v1/logs/tagvalues', { key: 'level' })).toEqual({ data: ['error', 'info', 'warn'], truncated: false });
      expect(await list('/api/v1/logs/tagvalues', { key: 'level', match: '{service_name="api"}' })).toEqual({ data: ['error', 'info'], truncated: false });
      expect(await list('/api/v1/logs/tagvalues', { key: 'service_name', match: '{env=~"d.*"}' })).toEqual({ data: ['worker'], truncated: false });
      expect(await list('/api/v1/logs/tags', { match: '{service_name="worker"}' })).toEqual({ data: ['env', 'level', 'service_name'], truncated: false });
      expect(await list('/api/v1/logs/tagvalues', { key: 'nope' })).toEqual({ data: [], truncated: false });
    });

    it('lists concrete series as full tag sets', async () => {
      expect(await list<Record<string, string>>('/api/v1/logs/series', { match: '{service_name="api"}' })).toEqual({
        data: [
          { env: 'prod', level: 'error', service_name: 'api' },
          { env: 'prod', level: 'info', service_name: 'api', user: 'u1' },
          { env: 'prod', level: 'info', service_name: 'api', user: 'u2' },
        ],
        truncated: false,
      });
    });

    it('bounds every listing by limit and says when it was truncated', async () => {
      const all = await list('/api/v1/logs/tagvalues', { key: 'level' });
      const one = await list('/api/v1/logs/tagvalues', { key: 'level', limit: 1 });
      expect(one.truncated).toBe(true);
      expect(one.data).toHaveLength(1);
      expect(all.data).toContain(one.data[0]);
      expect(await list('/api/v1/logs/tagvalues', { key: 'level', limit: 3 })).toEqual({ data: all.data, truncated: false });
      expect(await list('/api/v1/logs/tagvalues', { key: 'level', limit: 0 })).toEqual({ data: all.data, truncated: false });
      const series = await list('/api/v1/logs/series', { limit: 2 });
      expect(series).toMatchObject({ truncated: true });
      expect(series.data).toHaveLength(2);
      const tags = await list('/api/v1/logs/tags', { limit: 2 });
      expect(tags.truncated).toBe(true);
      expect(tags.data).toHaveLength(2);
    });
  });

  describe('metrics', () => {
    it('lists label keys, __name__ included, scoped by a series selector', async () => {
      expect(await list('/api/v1/metrics/tags', {})).toEqual({ data: ['__name__', 'instance', 'job', 'le', 'method', 'service_name'], truncated: false });
      expect(await list('/api/v1/metrics/tags', { match: 'http_requests_total{method="POST"}' })).toEqual({
        data: ['__name__', 'instance', 'job', 'method'],
        truncated: false,
      });
      expect((await list('/api/v1/metrics/tags', { s: 'now-4h' })).data).toContain('ancient_label');
    });

    it('lists the values of one label, metric names under __name__', async () => {
      expect(await list('/api/v1/metrics/tagvalues', { key: 'job' })).toEqual({ data: ['api', 'ignored-when-service_name', 'node'], truncated: false });
      expect(await list('/api/v1/metrics/tagvalues', { key: 'job', match: 'up' })).toEqual({ data: ['api', 'node'], truncated: false });
      expect(await list('/api/v1/metrics/tagvalues', { key: 'job', s: 'now-4h', e: 'now-2h' })).toEqual({ data: ['legacy'], truncated: false });
      expect(await list('/api/v1/metrics/tagvalues', { key: '__name__', match: '{job="node"}' })).toEqual({ data: ['node_load1', 'up'], truncated: false });
      // node_load1 was written 30s ago, everything else earlier: a window of the last 45s sees only it.
      expect(await list('/api/v1/metrics/tagvalues', { key: '__name__', s: 'now-45s' })).toEqual({ data: ['node_load1'], truncated: false });
    });

    it('lists the label keys one metric carries', async () => {
      expect(await list('/api/v1/metrics/labelkeys', { metric: 'http_requests_total' })).toEqual({ data: ['instance', 'job', 'method'], truncated: false });
      expect(await list('/api/v1/metrics/labelkeys', { metric: 'http_request_duration_seconds_bucket', match: '{le="+Inf"}' })).toEqual({
        data: ['job', 'le'],
        truncated: false,
      });
      expect(await list('/api/v1/metrics/labelkeys', { metric: 'no_such_metric' })).toEqual({ data: [], truncated: false });
    });

    it('answers metadata per family, unknown when none was received', async () => {
      expect(await list('/api/v1/metrics/metadata', {})).toEqual({
        data: [
          { metric: 'http_request_duration_seconds', type: 'histogram', unit: 'seconds', help: 'Request latency.' },
          { metric: 'http_requests_total', type: 'counter', unit: '', help: 'Requests served.' },
          { metric: 'node_load1', type: 'gauge', unit: '', help: '1m load average.' },
          { metric: 'queue_depth', type: 'unknown', unit: '', help: '' },
          { metric: 'up', type: 'unknown', unit: '', help: '' },
        ],
        truncated: false,
      });
      const histogram = { metric: 'http_request_duration_seconds', type: 'histogram', unit: 'seconds', help: 'Request latency.' };
      expect(await list('/api/v1/metrics/metadata', { metric: 'http_request_duration_seconds' })).toEqual({ data: [histogram], truncated: false });
      expect(await list('/api/v1/metrics/metadata', { metric: 'http_request_duration_seconds_count' })).toEqual({ data: [histogram], truncated: false });
      expect(await list('/api/v1/metrics/metadata', { match: '{job="node"}' })).toEqual({
        data: [
          { metric: 'node_load1', type: 'gauge', unit: '', help: '1m load average.' },
          { metric: 'up', type: 'unknown', unit: '', help: '' },
        ],
        truncated: false,
      });
      const two = await list('/api/v1/metrics/metadata', { limit: 2 });
      expect(two.truncated).toBe(true);
      expect(two.data).toHaveLength(2);
    });

    it('discovers the metrics carrying a label, optionally with a value', async () => {
      expect(await list('/api/v1/metrics/discover', { key: 'le' })).toEqual({ data: ['http_request_duration_seconds_bucket'], truncated: false });
      expect(await list('/api/v1/metrics/discover', { key: 'instance' })).toEqual({ data: ['http_requests_total', 'node_load1'], truncated: false });
      expect(await list('/api/v1/metrics/discover', { key: 'method', value: 'POST' })).toEqual({ data: ['http_requests_total'], truncated: false });
      expect(await list('/api/v1/metrics/discover', { key: 'job', value: 'node' })).toEqual({ data: ['node_load1', 'up'], truncated: false });
      expect(await list('/api/v1/metrics/discover', { key: 'job', match: '{__name__=~"http_.*"}' })).toEqual({
        data: ['http_request_duration_seconds_bucket', 'http_request_duration_seconds_count', 'http_request_duration_seconds_sum', 'http_requests_total'],
        truncated: false,
      });
      const limited = await list('/api/v1/metrics/discover', { key: 'job', limit: 1 });
      expect(limited.truncated).toBe(true);
      expect(limited.data).toHaveLength(1);
    });
  });

  describe('services', () => {
    it('lists service_name from logs and service_name or job from metrics, with their signals', async () => {
      expect(await services('')).toEqual({
        status: 200,
        body: {
          data: [
            { name: 'api', signals: ['logs', 'metrics'] },
            { name: 'billing', signals: ['metrics'] },
            { name: 'node', signals: ['metrics'] },
            { name: 'worker', signals: ['logs'] },
          ],
          truncated: false,
        },
      });
    });

    it('takes s, e and limit from the query string', async () => {
      const wide = (await services('?s=now-4h')).body as Listing<{ name: string; signals: string[] }>;
      expect(wide.data.map((s) => s.name)).toEqual(['api', 'billing', 'legacy', 'node', 'old', 'worker']);
      expect(await services('?s=now-4h&e=now-2h')).toEqual({
        status: 200,
        body: { data: [{ name: 'legacy', signals: ['metrics'] }, { name: 'old', signals: ['logs'] }], truncated: false },
      });
      expect(await services('?limit=2')).toEqual({
        status: 200,
        body: { data: [{ name: 'api', signals: ['logs', 'metrics'] }, { name: 'billing', signals: ['metrics'] }], truncated: true },
      });
      expect((await services('?limit=lots')).body).toMatchObject({ status: 400, code: 'BAD_REQUEST' });
      expect((await services('?s=now&e=now-1h')).body).toMatchObject({ status: 400, code: 'VALIDATION_FAILED' });
    });
  });

  describe('errors', () => {
    it('rejects a body that is not JSON, or not an object', async () => {
      expect(await fail('/api/v1/logs/tags', '{"s": ')).toMatchObject({ status: 400, code: 'INVALID_JSON' });
      expect(await fail('/api/v1/metrics/tags', '[1, 2]')).toMatchObject({ status: 400, code: 'BAD_REQUEST' });
    });

    it('rejects a bad selector with the parser message and position', async () => {
      const unclosed = await fail('/api/v1/logs/tags', { match: '{service_name="api"' });
      expect(unclosed).toMatchObject({ status: 400, code: 'INVALID_EXPR', message: expect.stringMatching(/^1:\d+: parse error: /) });
      expect(unclosed.position).toEqual({ start: expect.any(Number), end: expect.any(Number) });

      const badMetric = await fail('/api/v1/metrics/tagvalues', { key: 'job', match: 'up{job=}' });
      expect(badMetric).toMatchObject({ status: 400, code: 'INVALID_EXPR', message: expect.stringMatching(/parse error/) });
      expect(badMetric.position!.start).toBeGreaterThanOrEqual(3);

      const notSelector = await fail('/api/v1/metrics/tags', { match: 'rate(up[5m])' });
      expect(notSelector).toMatchObject({ code: 'INVALID_EXPR', position: { start: 0, end: 'rate(up[5m])'.length }, message: expect.stringMatching(/^1:1: parse error: match must be a series selector/) });

      const piped = '{service_name="api"} |= "boom"';
      const pipeline = await fail('/api/v1/logs/series', { match: piped });
      expect(pipeline).toMatchObject({ code: 'INVALID_EXPR', position: { start: piped.indexOf('|='), end: piped.length } });

      const metricQuery = await fail('/api/v1/logs/tags', { match: 'count_over_time({service_name="api"}[5m])' });
      expect(metricQuery).toMatchObject({ code: 'INVALID_EXPR', message: expect.stringMatching(/stream selector/) });

      expect(await fail('/api/v1/logs/tags', { match: 42 })).toMatchObject({ status: 400, code: 'BAD_REQUEST' });
    });

    it('rejects bad windows with VALIDATION_FAILED', async () => {
      expect(await fail('/api/v1/logs/tags', { s: 'now', e: 'now-1h' })).toMatchObject({ status: 400, code: 'VALIDATION_FAILED', message: expect.stringMatching(/earlier than s/) });
      expect(await fail('/api/v1/metrics/tags', { s: 'yesterday' })).toMatchObject({ status: 400, code: 'VALIDATION_FAILED' });
      expect(await fail('/api/v1/metrics/metadata', { e: 'e-1h' })).toMatchObject({ status: 400, code: 'VALIDATION_FAILED' });
    });

    it('rejects missing or wrongly typed fields with BAD_REQUEST', async () => {
      expect(await fail('/api/v1/logs/tagvalues', {})).toMatchObject({ status: 400, code: 'BAD_REQUEST', message: expect.stringMatching(/missing key/) });
      expect(await fail('/api/v1/metrics/tagvalues', { key: 7 })).toMatchObject({ status: 400, code: 'BAD_REQUEST', message: 'key must be a string' });
      expect(await fail('/api/v1/metrics/labelkeys', {})).toMatchObject({ status: 400, code: 'BAD_REQUEST', message: expect.stringMatching(/missing metric/) });
      expect(await fail('/api/v1/metrics/discover', { key: 'job', value: false })).toMatchObject({ status: 400, code: 'BAD_REQUEST' });
      for (const limit of [-1, 1.5, 'ten', true]) {
        expect(await fail('/api/v1/logs/tags', { limit })).toMatchObject({ status: 400, code: 'BAD_REQUEST', message: expect.stringMatching(/limit/) });
      }
    });

    it('refuses the system key, which has no org, and requests without a key', async () => {
      for (const path of ['/api/v1/logs/tags', '/api/v1/metrics/tags', '/api/v1/metrics/metadata']) {
        expect(await fail(path, {}, systemKey)).toMatchObject({ status: 403, code: 'FORBIDDEN' });
      }
      expect((await services('', systemKey)).body).toMatchObject({ status: 403, code: 'FORBIDDEN' });
      const anonymous = await fetch(`${srv.url}/api/v1/logs/tags`, { method: 'POST', body: '{}' });
      expect(anonymous.status).toBe(401);
      const wrongMethod = await fetch(`${srv.url}/api/v1/logs/tags`, { headers: { 'x-svc-api-key': srv.key } });
      expect(wrongMethod.status).toBe(405);
    });
  });

  describe('org isolation', () => {
    it('shows each org only its own data', async () => {
      expect(await list('/api/v1/logs/tags', {}, otherKey)).toEqual({ data: ['env', 'level', 'other_attr', 'service_name'], truncated: false });
      expect(await list('/api/v1/logs/tagvalues', { key: 'service_name' }, otherKey)).toEqual({ data: ['secret-svc'], truncated: false });
      expect(await list('/api/v1/metrics/tagvalues', { key: 'job' }, otherKey)).toEqual({ data: ['secret-job'], truncated: false });
      expect(await list('/api/v1/metrics/metadata', {}, otherKey)).toEqual({ data: [{ metric: 'http_requests_total', type: 'unknown', unit: '', help: '' }], truncated: false });
      expect((await services('', otherKey)).body).toEqual({
        data: [{ name: 'secret-job', signals: ['metrics'] }, { name: 'secret-svc', signals: ['logs'] }],
        truncated: false,
      });
      const own = await list('/api/v1/logs/tagvalues', { key: 'service_name', s: 'now-4h' });
      expect(own.data).not.toContain('secret-svc');
      expect((await list('/api/v1/metrics/tags', {})).data).not.toContain('tenant_label');
    });
  });
});
