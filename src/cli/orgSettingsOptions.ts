import { ORG_SETTINGS, parseSettingText, settingProblem, type OrgSettingRow, type OrgSettingsChange } from '../meta/orgSettings.js';
import { UsageError, type OptionSpec, type OptionValues } from './command.js';
import { RETENTION_DAYS_OPTION, parseRetentionDays } from './retentionOption.js';

/**
 * The `sluice orgs set` options, one per row of ORG_SETTINGS: a value, or 'default' to return
 * the setting to its service default. `--retention-days` keeps the wording it always had.
 */

function optionFor(row: OrgSettingRow): OptionSpec {
  if (row.name === 'retentionDays') return RETENTION_DAYS_OPTION;
  const unit = row.unit === 'bytes' ? 'bytes (512KiB, 16MiB...)' : row.unit === 'count' ? '' : row.unit;
  const followed = row.subsystem === 'retention' && row.fallback !== undefined ? `the org's ${row.fallback}, else ${row.env}` : row.env;
  if (row.unit === 'switch') {
    return { type: 'string', valueName: 'on|off|default', description: `${row.doc} on or off, or 'default' to follow ${followed}.` };
  }
  return {
    type: 'string',
    valueName: row.unit === 'bytes' ? 'SIZE|default' : 'N|default',
    description: `${row.doc} ${row.min} to ${row.max}${unit === '' ? '' : ` ${unit}`}, or 'default' to follow ${followed}.`,
  };
}

/** ORG_SETTING_OPTIONS are the options of every setting, by flag. */
export const ORG_SETTING_OPTIONS: Record<string, OptionSpec> = Object.fromEntries(ORG_SETTINGS.map((row) => [row.flag, optionFor(row)]));

/** parseSettingOption reads one setting's option: a value, null for 'default', undefined when absent. */
function parseSettingOption(row: OrgSettingRow, raw: string | boolean | string[] | undefined): number | null | undefined {
  if (raw === undefined) return undefined;
  if (row.name === 'retentionDays') return parseRetentionDays(raw);
  const text = String(raw).trim();
  if (text.toLowerCase() === 'default') return null;
  const parsed = parseSettingText(row, text);
  if (typeof parsed !== 'number') throw new UsageError(parsed.problem);
  const problem = settingProblem(row, parsed);
  if (problem !== undefined) throw new UsageError(`--${row.flag}: ${problem.replace(`${row.name} `, '')}`);
  return parsed;
}

/** settingsChangeOf collects the settings options given into one change. */
export function settingsChangeOf(values: OptionValues): OrgSettingsChange {
  const change: OrgSettingsChange = {};
  for (const row of ORG_SETTINGS) {
    const value = parseSettingOption(row, values[row.flag]);
    if (value !== undefined) change[row.name] = value;
  }
  return change;
}
