import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeRemoteWriteBody } from '../engine/index.js';
import { runCli } from './support/child.js';
import { startTestServer, waitFor, type TestServer } from './support/server.js';
import { query, readSse } from './support/sse.js';

const SYSTEM_KEY = randomBytes(24).toString('hex');

interface Effective {
  value: number;
  source: 'org' | 'default';
  from: string;
}

interface SettingsAnswer {
  orgId: string;
  name: string;
  settings: Record<string, Effective>;
}

/** series builds a remote_write body of `count` one-sample series of `metric`, each with `labels` extra labels. */
function series(metric: string, count: number, labels = 0): Uint8Array {
  const now = Date.now();
  return encodeRemoteWriteBody({
    timeseries: Array.from({ length: count }, (_, i) => ({
      labels: [
        { name: '__name__', value: metric },
        { name: 'instance', value: `i${i}` },
        ...Array.from({ length: labels }, (_, j) => ({ name: `extra_${j}`, value: 'x' })),
      ],
      samples: [{ value: i, timestamp: now }],
    })),
  });
}

function write(url: string, key: string, body: Uint8Array): Promise<Response> {
  return fetch(`${url}/api/v1/write`, { method: 'POST', body, headers: { 'x-svc-api-key': key, 'content-type': 'application/x-protobuf' } });
}

function settingsRequest(url: string, orgId: string, method: 'GET' | 'PATCH' | 'PUT', body?: unknown, key: string | null = SYSTEM_KEY): Promise<Response> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (key !== null) headers['x-svc-api-key'] = key;
  return fetch(`${url}/api/admin/orgs/${orgId}/settings`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
}

/** rawLogQuery asks for `limit` raw log rows and answers the status and, for an error, its JSON body. */
async function rawLogQuery(url: string, key: string, limit: number): Promise<{ status: number; body?: { code: string; message: string } }> {
  const now = Date.now();
  const res = await query(url, '/api/v1/logs/query', key, { q: '{service_name="nothing"}', s: String(now - 60_000), e: String(now), limit });
  if (res.status !== 200) return { status: res.status, body: (await res.json()) as { code: string; message: string } };
  await readSse(res);
  return { status: 200 };
}

/** timeUntil polls `check` and answers how many milliseconds it took to hold. */
async function timeUntil(check: () => Promise<boolean>, timeoutMs: number): Promise<number> {
  const started = performance.now();
  await waitFor(check, timeoutMs);
  return performance.now() - started;
}

describe('per-org settings on a running server', () => {
  let srv: TestServer;
  let other: { orgId: string; key: string };

  beforeAll(async () => {
    srv = await startTestServer({ SVC_MCP_API_KEY: SYSTEM_KEY, SVC_MAX_SERIES_PER_ORG: '1000', SVC_MAX_LOG_LIMIT: '5000' });
    const org = await srv.admin.createOrg('other');
    other = { orgId: org.id, key: (await srv.admin.createKey(org.id, 'other')).key };
  }, 60_000);

  afterAll(async () => {
    await srv?.stop();
  });

  it('answers every setting with its value and source, to the system key only', async () => {
    const res = await settingsRequest(srv.url, srv.orgId, 'GET');
    expect(res.status).toBe(200);
    const body = (await res.json()) as SettingsAnswer;
    expect(body.orgId).toBe(srv.orgId);
    expect(body.settings.maxSeries).toEqual({ value: 1000, source: 'default', from: 'SVC_MAX_SERIES_PER_ORG' });
    expect(body.settings.retentionMetricsDays).toEqual({ value: 30, source: 'default', from: 'SVC_RETENTION_DAYS' });
    expect(body.settings.maxLogLimit).toEqual({ value: 5000, source: 'default', from: 'SVC_MAX_LOG_LIMIT' });

    const cases: Array<[Response, number, string]> = [
      [await settingsRequest(srv.url, srv.orgId, 'GET', undefined, null), 401, 'UNAUTHORIZED'],
      [await settingsRequest(srv.url, srv.orgId, 'GET', undefined, srv.key), 403, 'FORBIDDEN'],
      [await settingsRequest(srv.url, srv.orgId, 'PATCH', { maxSeries: 1 }, srv.key), 403, 'FORBIDDEN'],
      [await settingsRequest(srv.url, '00000000-0000-4000-8000-000000000000', 'GET'), 404, 'NOT_FOUND'],
      [await settingsRequest(srv.url, srv.orgId, 'PATCH', { maxSeries: -1 }), 400, 'VALIDATION_FAILED'],
      [await settingsRequest(srv.url, srv.orgId, 'PATCH', { maxSeries: 1.5, noSuchSetting: 3 }), 400, 'VALIDATION_FAILED'],
      [await settingsRequest(srv.url, srv.orgId, 'PATCH', [1]), 400, 'BAD_REQUEST'],
    ];
    for (const [answer, status, code] of cases) {
      expect(answer.status).toBe(status);
      const error = (await answer.json()) as { status: number; code: string; message: string };
      expect(error).toMatchObject({ status, code });
      expect(error.message.length).toBeGreaterThan(0);
    }
    const bad = (await (await settingsRequest(srv.url, srv.orgId, 'PATCH', { maxSeries: 1.5, noSuchSetting: 3 })).json()) as { message: string };
    expect(bad.message).toContain('maxSeries must be a whole number');
    expect(bad.message).toContain('unknown setting "noSuchSetting"');
    // A refused change leaves everything as it was.
    const after = (await (await settingsRequest(srv.url, srv.orgId, 'GET')).json()) as SettingsAnswer;
    expect(after.settings.maxSeries.source).toBe('default');
  });

  it('gives two orgs different limits, and a limit changed through the API applies within a second', async () => {
    const patched = await settingsRequest(srv.url, srv.orgId, 'PATCH', { maxSeries: 3, maxLogLimit: 10, retentionMetricsDays: 90 });
    expect(patched.status).toBe(200);
    const body = (await patched.json()) as SettingsAnswer;
    expect(body.settings.maxSeries).toEqual({ value: 3, source: 'org', from: 'maxSeries' });
    expect(body.settings.retentionMetricsDays).toEqual({ value: 90, source: 'org', from: 'retentionMetricsDays' });
    expect(body.settings.retentionLogsDays).toEqual({ value: 30, source: 'default', from: 'SVC_RETENTION_DAYS' });

    // The limited org: three of five new series fit, and the answer names the org's own setting.
    let refused: Response | undefined;
    const tookMs = await timeUntil(async () => {
      refused = await write(srv.url, srv.key, series('api_limited', 5));
      return refused.status === 400;
    }, 5000);
    expect(tookMs).toBeLessThan(1000);
    console.info(`org settings: an API change applied to ingest after ${tookMs.toFixed(0)} ms`);
    expect(((await refused!.json()) as { message: string }).message).toMatch(/series_limit \(this org's maxSeries=3\)/);
    // The other org writes the same five series under the service default.
    expect((await write(srv.url, other.key, series('api_limited', 5))).status).toBe(204);

    const limited = await rawLogQuery(srv.url, srv.key, 50);
    expect(limited.status).toBe(400);
    expect(limited.body).toMatchObject({ code: 'VALIDATION_FAILED', message: "limit may be at most 10 (this org's maxLogLimit)" });
    expect((await rawLogQuery(srv.url, other.key, 50)).status).toBe(200);

    // null returns a setting to its default; PUT replaces the org's values as a whole.
    const unset = (await (await settingsRequest(srv.url, srv.orgId, 'PATCH', { maxLogLimit: null })).json()) as SettingsAnswer;
    expect(unset.settings.maxLogLimit).toEqual({ value: 5000, source: 'default', from: 'SVC_MAX_LOG_LIMIT' });
    await waitFor(async () => (await rawLogQuery(srv.url, srv.key, 50)).status === 200, 1000);
    const replaced = (await (await settingsRequest(srv.url, srv.orgId, 'PUT', { maxLabelsPerSeries: 3 })).json()) as SettingsAnswer;
    expect(replaced.settings.maxSeries.source).toBe('default');
    expect(replaced.settings.retentionMetricsDays.source).toBe('default');
    expect(replaced.settings.maxLabelsPerSeries).toEqual({ value: 3, source: 'org', from: 'maxLabelsPerSeries' });
    // __name__, instance and two more: four labels, over the org's three.
    await waitFor(async () => (await write(srv.url, srv.key, series('api_labels', 1, 2))).status === 400, 1000);
    expect((await write(srv.url, other.key, series('api_labels', 1, 2))).status).toBe(204);
    await settingsRequest(srv.url, srv.orgId, 'PUT', {});
  });

  it('applies a limit changed with the CLI beside the running server within a second, and shows where each value comes from', async () => {
    const cli = (...args: string[]) => runCli([...args, '--data-dir', srv.dataDir]);
    const set = cli('orgs', 'set', 'other', '--max-concurrent-queries', '2', '--max-log-limit', '7', '--max-line-bytes', '2KiB', '--json');
    expect(set.status, set.stderr).toBe(0);
    const changedAt = performance.now();
    expect(JSON.parse(set.stdout)).toMatchObject({ id: other.orgId, settings: { maxConcurrentQueries: 2, maxLogLimit: 7, maxLineBytes: 2048 } });
    await waitFor(async () => (await rawLogQuery(srv.url, other.key, 8)).status === 400, 5000);
    const cliTookMs = performance.now() - changedAt;
    expect(cliTookMs).toBeLessThan(1000);
    console.info(`org settings: a CLI change applied to queries ${cliTookMs.toFixed(0)} ms after the command returned`);
    expect((await rawLogQuery(srv.url, srv.key, 8)).status).toBe(200);

    const shown = cli('orgs', 'show', other.orgId, '--json');
    expect(shown.status, shown.stderr).toBe(0);
    const parsed = JSON.parse(shown.stdout) as { id: string; settings: Record<string, Effective> };
    expect(parsed.settings.maxLogLimit).toEqual({ value: 7, source: 'org', from: 'maxLogLimit' });
    expect(parsed.settings.maxLineBytes).toEqual({ value: 2048, source: 'org', from: 'maxLineBytes' });
    expect(parsed.settings.maxStreams).toEqual({ value: 5000, source: 'default', from: 'SVC_MAX_STREAMS_PER_ORG' });
    const text = cli('orgs', 'show', 'other');
    expect(text.stdout).toMatch(/^SETTING\s+VALUE\s+SOURCE$/m);
    expect(text.stdout).toMatch(/^maxLogLimit\s+7\s+org \(maxLogLimit\)$/m);
    expect(text.stdout).toMatch(/^retentionLogsDays\s+30\s+default \(SVC_RETENTION_DAYS\)$/m);

    const reset = cli('orgs', 'set', 'other', '--max-concurrent-queries', 'default', '--max-log-limit', 'default', '--max-line-bytes', 'default', '--json');
    expect(reset.status, reset.stderr).toBe(0);
    expect(JSON.parse(reset.stdout)).not.toHaveProperty('settings');
    await waitFor(async () => (await rawLogQuery(srv.url, other.key, 8)).status === 200, 1000);

    for (const [args, message] of [
      [['orgs', 'set', 'other', '--max-series', 'many'], "--max-series must be a whole number"],
      [['orgs', 'set', 'other', '--max-line-bytes', '12'], '--max-line-bytes: must be from 1024'],
      [['orgs', 'set', 'other', '--retention-logs-days', '36501'], 'must be from 0 to 36500'],
      [['orgs', 'show'], 'give one org to show'],
    ] as const) {
      const res = cli(...args);
      expect(res.status, args.join(' ')).toBe(2);
      expect(res.stderr).toContain(message);
    }
  }, 60_000);
});
