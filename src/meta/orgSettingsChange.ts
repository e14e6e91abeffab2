import { isOrgSettingName, settingProblem, settingRow, type OrgSettingName, type OrgSettings, type OrgSettingsChange } from './orgSettings.js';
import type { Org } from './types.js';

/**
 * Writing an org's settings, shared by every metadata store backend so they accept and store
 * the same things: a change is checked whole before anything is written, and applied to the
 * record's two places (the single `retentionDays`, which predates the settings map and stays
 * where older records have it, and `settings` for the rest).
 */

/** checkSettingsChange throws a RangeError naming the first unknown setting or invalid value. */
export function checkSettingsChange(change: Record<string, unknown>): void {
  for (const [name, value] of Object.entries(change)) {
    const row = settingRow(name);
    if (row === undefined) throw new RangeError(`unknown org setting ${JSON.stringify(name)}`);
    if (value === null) continue;
    const problem = settingProblem(row, value);
    if (problem !== undefined) throw new RangeError(problem);
  }
}

/** applySettingsChange writes a checked change into `org`, dropping an emptied settings map. */
export function applySettingsChange(org: Org, change: OrgSettingsChange): void {
  const settings: OrgSettings = { ...org.settings };
  for (const [name, value] of Object.entries(change) as Array<[OrgSettingName, number | null | undefined]>) {
    if (!isOrgSettingName(name) || value === undefined) continue;
    if (name === 'retentionDays') {
      if (value === null) delete org.retentionDays;
      else org.retentionDays = value;
      continue;
    }
    if (value === null) delete settings[name];
    else settings[name] = value;
  }
  if (Object.keys(settings).length === 0) delete org.settings;
  else org.settings = settings;
}
