import type { Config } from '../config.js';
import { ORG_SETTINGS, settingProblem, serviceDefault, settingRow, type OrgSettingName, type OrgSettingRow, type OrgSettings } from './orgSettings.js';
import type { Org } from './types.js';

/**
 * Resolving an org's settings: each value is the org's own, else (for a retention per signal)
 * the org's single retention, else the service default. The source travels with the value so
 * the CLI, the admin API and error messages can say where a limit comes from.
 */

/** EffectiveSetting is one value in force and where it comes from. */
export interface EffectiveSetting {
  value: number;
  /** source: the org's own setting, or the service default. */
  source: 'org' | 'default';
  /** from names the setting or SVC_* variable the value is read from. */
  from: string;
}

export type EffectiveSettings = Record<OrgSettingName, EffectiveSetting>;

/**
 * storedSettings reads an org record's settings: its single `retentionDays` (kept beside the
 * others for records written before per-org settings existed) and its `settings` map. A value
 * a hand-edited document made invalid counts as unset, so the default applies rather than a
 * limit nobody chose.
 */
export function storedSettings(org: Org): OrgSettings {
  const out: OrgSettings = {};
  const stored: Record<string, unknown> = { ...org.settings, retentionDays: org.retentionDays };
  for (const row of ORG_SETTINGS) {
    const value = stored[row.name];
    if (value !== undefined && settingProblem(row, value) === undefined) out[row.name] = value as number;
  }
  return out;
}

/** resolveSettings gives every setting's value in force for `org` under `config`. */
export function resolveSettings(org: Org | undefined, config: Config): EffectiveSettings {
  const own = org === undefined ? {} : storedSettings(org);
  const out = {} as EffectiveSettings;
  for (const row of ORG_SETTINGS) out[row.name] = resolveOne(row, own, config);
  return out;
}

function resolveOne(row: OrgSettingRow, own: OrgSettings, config: Config): EffectiveSetting {
  for (let at: OrgSettingRow | undefined = row; at !== undefined; at = nextFallback(at)) {
    const value = own[at.name as OrgSettingName];
    if (value !== undefined) return { value, source: 'org', from: at.name };
  }
  return { value: serviceDefault(row, config), source: 'default', from: row.env };
}

function nextFallback(row: OrgSettingRow): OrgSettingRow | undefined {
  return row.subsystem === 'retention' && row.fallback !== undefined ? settingRow(row.fallback) : undefined;
}

/** describeOrigin renders where a value comes from for a message: "this org's maxSeries" or "SVC_MAX_SERIES_PER_ORG". */
export function describeOrigin(setting: EffectiveSetting): string {
  return setting.source === 'org' ? `this org's ${setting.from}` : setting.from;
}
