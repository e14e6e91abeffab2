import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SETTINGS, loadConfig } from '../src/config.js';
import { resolveSettings } from '../src/meta/effectiveSettings.js';
import { ORG_SETTINGS, parseSettingText, settingProblem, settingRow } from '../src/meta/orgSettings.js';
import { orgSettingsTable } from '../src/meta/orgSettingsDoc.js';

describe('the org settings table', () => {
  it('names, for every setting, the variable its default is read from', () => {
    for (const row of ORG_SETTINGS) {
      const setting = SETTINGS.find((s) => s.key === row.defaultKey);
      expect(setting?.env, row.name).toBe(row.env);
    }
    expect(new Set(ORG_SETTINGS.map((r) => r.name)).size).toBe(ORG_SETTINGS.length);
    expect(new Set(ORG_SETTINGS.map((r) => r.flag)).size).toBe(ORG_SETTINGS.length);
  });

  it('is documented in README exactly as the table says', () => {
    const readme = readFileSync(path.resolve('README.md'), 'utf8');
    expect(readme).toContain('## Orgs and limits');
    expect(readme).toContain(orgSettingsTable());
  });

  it('resolves an org value first, then the org retention for a signal, then the service default', () => {
    const config = loadConfig({ SVC_RETENTION_DAYS: '30', SVC_MAX_SERIES_PER_ORG: '1000' });
    const org = { id: 'o', name: 'o', createdAt: '', retentionDays: 14, settings: { retentionLogsDays: 7, maxSeries: 5 } };
    const resolved = resolveSettings(org, config);
    expect(resolved.retentionLogsDays).toEqual({ value: 7, source: 'org', from: 'retentionLogsDays' });
    expect(resolved.retentionMetricsDays).toEqual({ value: 14, source: 'org', from: 'retentionDays' });
    expect(resolved.maxSeries).toEqual({ value: 5, source: 'org', from: 'maxSeries' });
    expect(resolved.maxStreams).toEqual({ value: config.maxStreamsPerOrg, source: 'default', from: 'SVC_MAX_STREAMS_PER_ORG' });
    // A value a hand edit made invalid counts as unset.
    const edited = resolveSettings({ ...org, settings: { maxSeries: -3 } }, config);
    expect(edited.maxSeries).toEqual({ value: 1000, source: 'default', from: 'SVC_MAX_SERIES_PER_ORG' });
  });

  it('reads and bounds values as the CLI and the API receive them', () => {
    const bytes = settingRow('maxLineBytes')!;
    expect(parseSettingText(bytes, '512KiB')).toBe(512 * 1024);
    expect(parseSettingText(bytes, '2048')).toBe(2048);
    expect(parseSettingText(settingRow('maxSeries')!, '1k')).toEqual({ problem: expect.stringContaining('--max-series must be a whole number') });
    expect(settingProblem(bytes, 12)).toMatch(/from 1024/);
    expect(settingProblem(settingRow('retentionMetricsDays')!, 0)).toBeUndefined();
    expect(settingProblem(settingRow('retentionMetricsDays')!, '3')).toMatch(/whole number of days/);
  });

  it('reads a switch as on or off, stored as 1 or 0, defaulting to its SVC_* boolean', () => {
    const discover = settingRow('discoverLogLevels')!;
    expect(['on', 'true', 'YES', '1'].map((t) => parseSettingText(discover, t))).toEqual([1, 1, 1, 1]);
    expect(['off', 'false', 'no', '0'].map((t) => parseSettingText(discover, t))).toEqual([0, 0, 0, 0]);
    expect(parseSettingText(discover, 'maybe')).toEqual({ problem: expect.stringContaining('--discover-log-levels must be on or off') });
    expect(settingProblem(discover, 2)).toMatch(/must be 1 \(on\) or 0 \(off\)/);
    expect(settingProblem(discover, true)).toMatch(/must be 1 \(on\) or 0 \(off\)/);
    expect(resolveSettings(undefined, loadConfig({})).discoverLogLevels).toEqual({ value: 1, source: 'default', from: 'SVC_DISCOVER_LOG_LEVELS' });
    expect(resolveSettings(undefined, loadConfig({ SVC_DISCOVER_LOG_LEVELS: 'false' })).discoverLogLevels.value).toBe(0);
  });
});
