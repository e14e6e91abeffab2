import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { encodeRemoteWriteBody } from '../engine/index.js';
import { FileMetaStore } from '../src/meta/fileStore.js';
import { loadConfig } from '../src/config.js';
import { OrgSettingsView } from '../src/meta/orgSettingsView.js';
import { runCli, startChildServer, useCliWorkspace } from './support/child.js';
import { waitFor } from './support/server.js';
import { query, readSse } from './support/sse.js';

const DAY_MS = 86_400_000;
/** The probe data is five days old: inside the 30-day default, outside a retention of 2 or 3 days. */
const OLD_END_MS = Math.floor((Date.now() - 5 * DAY_MS) / 60_000) * 60_000;
const OLD_START_MS = OLD_END_MS - 60 * 60_000;
const INSTANCES = ['a', 'b', 'c', 'd', 'e'];
const STEP_S = 300;
/** One point per instance and step: the steps from start to end inclusive, each with a sample within the lookback. */
const EXPECTED_POINTS = INSTANCES.length * ((OLD_END_MS - OLD_START_MS) / (STEP_S * 1000) + 1);
const LOG_LINES = 60;

interface OrgShown {
  id: string;
  name: string;
  createdAt: string;
  retentionDays: number | null;
}

/**
 * writeOldData sends the same hour of old samples and log lines to whichever org `key` belongs
 * to, calling `settle` after each request.
 */
async function writeOldData(url: string, key: string, settle: () => Promise<void>): Promise<void> {
  const timeseries = INSTANCES.map((instance) => {
    const samples = [];
    for (let t = OLD_START_MS; t <= OLD_END_MS; t += 60_000) samples.push({ value: t / 60_000, timestamp: t });
    return { labels: [{ name: '__name__', value: 'retention_probe' }, { name: 'instance', value: instance }], samples };
  });
  const metrics = await fetch(`${url}/api/v1/write`, {
    method: 'POST',
    body: encodeRemoteWriteBody({ timeseries }),
    headers: { 'x-svc-api-key': key, 'content-type': 'application/x-protobuf' },
  });
  expect(metrics.status).toBe(204);
  await settle();
  const values = Array.from({ length: LOG_LINES }, (_, i) => [String(BigInt(OLD_START_MS + i * 60_000) * 1_000_000n), `probe line ${i}`]);
  const logs = await fetch(`${url}/loki/api/v1/push`, {
    method: 'POST',
    body: JSON.stringify({ streams: [{ stream: { service_name: 'retention-probe' }, values }] }),
    headers: { 'x-svc-api-key': key, 'content-type': 'application/json' },
  });
  expect(logs.status).toBe(204);
  await settle();
}

/** storedData counts what the org's queries return over the probe window: metric points and log lines. */
async function storedData(url: string, key: string): Promise<{ points: number; lines: number }> {
  const window = { s: String(OLD_START_MS - 60_000), e: String(OLD_END_MS + 60_000) };
  const metrics = await readSse(await query(url, '/api/v1/metrics/query', key, { q: 'retention_probe', s: String(OLD_START_MS), e: String(OLD_END_MS), step: STEP_S }));
  const logs = await readSse(await query(url, '/api/v1/logs/query', key, { q: '{service_name="retention-probe"}', ...window, limit: 1000 }));
  for (const res of [metrics, logs]) {
    expect(res.status).toBe(200);
    expect(res.events.at(-1)).toEqual({ type: 'done', data: { status: 'ok' } });
  }
  return { points: metrics.events.filter((e) => e.type === 'result').length, lines: logs.events.filter((e) => e.type === 'result').length };
}

describe('per-org retention', () => {
  const ws = useCliWorkspace('sluice-retention-');
  const { children, cli } = ws;
  const cliJson = <T>(...args: string[]): T => {
    const res = cli(...args, '--json');
    expect(res.status, res.stderr).toBe(0);
    return JSON.parse(res.stdout) as T;
  };

  it('deletes old data of an org with a short retention only, and follows a CLI change while running', async () => {
    const steady = cliJson<OrgShown>('orgs', 'create', '--name', 'steady');
    // Both start with the default retention, so the old data is accepted: ingest refuses
    // samples older than the org's retention (too_old), as Loki and Mimir do.
    const short = cliJson<OrgShown>('orgs', 'create', '--name', 'short');
    expect(steady.retentionDays).toBeNull();
    const steadyKey = cliJson<{ key: string }>('keys', 'create', '--org', steady.id).key;
    const shortKey = cliJson<{ key: string }>('keys', 'create', '--org', short.id).key;

    // A 1KiB head is cut into segments by each write below, and compaction with retention runs every second.
    const server = await startChildServer({ SVC_DATA_DIR: ws.dataDir, SVC_HEAD_MAX_BYTES: '1KiB', SVC_COMPACTION_INTERVAL_MS: '1000', SVC_QUERY_WORKERS: '1' });
    children.push(server);
    // A write that lands while a cut is running waits for the next head check (30 s) instead of
    // starting its own cut, so each write waits for the cut it starts, as the server logs it.
    const cuts = () => server.stdout().split('\n').filter((line) => line.includes('"msg":"cut heads into segments"')).length;
    let cutsSeen = 0;
    const settle = async (): Promise<void> => {
      await waitFor(() => cuts() > cutsSeen, 60_000);
      cutsSeen = cuts();
    };
    await writeOldData(server.url, steadyKey, settle);
    await writeOldData(server.url, shortKey, settle);
    expect(cliJson<OrgShown>('orgs', 'set', 'short', '--retention-days', '2').retentionDays).toBe(2);

    // Everything is in segments now; the retention run that removes the short org's data sees
    // the steady org's identical data too, and keeps it.
    await waitFor(async () => {
      const { points, lines } = await storedData(server.url, shortKey);
      return points === 0 && lines === 0;
    }, 60_000);
    expect(await storedData(server.url, steadyKey)).toEqual({ points: EXPECTED_POINTS, lines: LOG_LINES });

    // Shortened with the CLI beside the running server: the next retention run applies it.
    const changed = cliJson<OrgShown>('orgs', 'set', 'steady', '--retention-days', '3');
    expect(changed).toMatchObject({ id: steady.id, retentionDays: 3 });
    await waitFor(async () => {
      const { points, lines } = await storedData(server.url, steadyKey);
      return points === 0 && lines === 0;
    }, 60_000);
    expect(server.proc.exitCode).toBeNull();
  }, 180_000);

  it('sets, shows and clears an org retention with the CLI, refusing bad values', async () => {
    const acme = cliJson<OrgShown>('orgs', 'create', '--name', 'acme', '--retention-days', '7');
    expect(acme.retentionDays).toBe(7);
    expect(cliJson<OrgShown>('orgs', 'create', '--name', 'archive', '--retention-days', '0').retentionDays).toBe(0);
    expect(cliJson<OrgShown>('orgs', 'create', '--name', 'plain', '--retention-days', 'default').retentionDays).toBeNull();

    const text = cli('orgs', 'list');
    expect(text.status).toBe(0);
    expect(text.stdout).toMatch(/^ID\s+NAME\s+CREATED\s+RETENTION$/m);
    expect(text.stdout).toMatch(/acme\s+\S+\s+7 days$/m);
    expect(text.stdout).toMatch(/archive\s+\S+\s+forever$/m);
    expect(text.stdout).toMatch(/plain\s+\S+\s+default$/m);

    // By name or by id; 'default' removes the setting from the stored record.
    expect(cliJson<OrgShown>('orgs', 'set', acme.id, '--retention-days', '14').retentionDays).toBe(14);
    expect(cliJson<OrgShown>('orgs', 'set', 'plain', '--retention-days', '1').retentionDays).toBe(1);
    expect(cliJson<OrgShown>('orgs', 'set', 'acme', '--retention-days', 'default').retentionDays).toBeNull();
    const listed = cliJson<OrgShown[]>('orgs', 'list');
    expect(Object.fromEntries(listed.map((o) => [o.name, o.retentionDays]))).toEqual({ acme: null, archive: 0, plain: 1 });
    const stored = JSON.parse(await readFile(path.join(ws.dataDir, 'meta', 'meta.json'), 'utf8')) as { orgs: Array<Record<string, unknown>> };
    expect(stored.orgs.find((o) => o.name === 'acme')).not.toHaveProperty('retentionDays');

    for (const [args, message] of [
      [['orgs', 'set', 'acme', '--retention-days=-1'], 'whole number of days'],
      [['orgs', 'set', 'acme', '--retention-days', '1.5'], 'whole number of days'],
      [['orgs', 'set', 'acme', '--retention-days', 'week'], 'whole number of days'],
      [['orgs', 'set', 'acme', '--retention-days', '36501'], 'at most 36500'],
      [['orgs', 'create', '--name', 'bad', '--retention-days', '3d'], 'whole number of days'],
      [['orgs', 'set', 'acme'], 'nothing to change'],
      [['orgs', 'set', '--retention-days', '3'], 'the org to change is required'],
      [['orgs', 'set', 'nobody', '--retention-days', '3'], 'no org with id or name "nobody"'],
    ] as const) {
      const res = cli(...args);
      expect(res.status, args.join(' ')).toBe(2);
      expect(res.stderr).toContain(message);
    }
    expect(cliJson<OrgShown[]>('orgs', 'list').map((o) => o.name)).toEqual(['acme', 'archive', 'plain']);
    expect(cliJson<OrgShown[]>('orgs', 'list').find((o) => o.name === 'acme')?.retentionDays).toBeNull();

    for (const cmd of [['orgs', 'create'], ['orgs', 'set']]) {
      const help = runCli([...cmd, '--help']);
      expect(help.status).toBe(0);
      expect(help.stdout).toContain('--retention-days N|default');
      expect(help.stdout).toContain('0 keeps it forever');
    }
  }, 120_000);

  it('gives the server the retention another process writes, per signal, in milliseconds, 0 meaning forever', async () => {
    const served = await FileMetaStore.open(ws.dataDir, { watchChanges: true });
    const view = await OrgSettingsView.create(served, loadConfig({ SVC_RETENTION_DAYS: '30' }));
    const writer = await FileMetaStore.open(ws.dataDir);
    try {
      await writer.createOrg({ id: 'org-a', name: 'A', createdAt: new Date().toISOString() });
      await writer.createOrg({ id: 'org-b', name: 'B', createdAt: new Date().toISOString(), retentionDays: 2 });
      await waitFor(() => view.retentionMs('org-b', 'metrics') === 2 * DAY_MS, 10_000);
      expect(view.retentionMs('org-b', 'logs')).toBe(2 * DAY_MS);
      expect(view.retentionMs('org-a', 'metrics')).toBe(30 * DAY_MS);
      expect(view.retentionSetting('org-a', 'logs')).toEqual({ value: 30, source: 'default', from: 'SVC_RETENTION_DAYS' });
      await writer.updateOrgSettings('org-a', { retentionDays: 0 });
      await waitFor(() => view.retentionMs('org-a', 'logs') === 0, 10_000);
      // A per-signal value wins over the org's single retention, for its signal only.
      await writer.updateOrgSettings('org-b', { retentionMetricsDays: 9 });
      await waitFor(() => view.retentionMs('org-b', 'metrics') === 9 * DAY_MS, 10_000);
      expect(view.retentionSetting('org-b', 'logs')).toEqual({ value: 2, source: 'org', from: 'retentionDays' });
      await writer.updateOrgSettings('org-b', { retentionDays: null, retentionMetricsDays: null });
      await waitFor(() => view.retentionMs('org-b', 'metrics') === 30 * DAY_MS, 10_000);
      expect(await writer.updateOrgSettings('org-missing', { retentionDays: 5 })).toBeUndefined();
      await expect(writer.updateOrgSettings('org-a', { retentionDays: -1 })).rejects.toThrow(RangeError);
      await expect(writer.updateOrgSettings('org-a', { retentionLogsDays: 2.5 })).rejects.toThrow(RangeError);
    } finally {
      view.close();
      await writer.close();
      await served.close();
    }
  });
});
