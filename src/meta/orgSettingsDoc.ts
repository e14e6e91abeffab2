import { SETTINGS } from '../config.js';
import { ORG_SETTINGS, type OrgSettingRow } from './orgSettings.js';

/** orgSettingsTable renders ORG_SETTINGS as the Markdown table README's "Orgs and limits" embeds. */
export function orgSettingsTable(): string {
  const rows = ORG_SETTINGS.map((row: OrgSettingRow) => {
    const defaultText = SETTINGS.find((s) => s.env === row.env)?.defaultText ?? '';
    const service = `\`${row.env}\` (${defaultText})`;
    const fallback = row.subsystem === 'retention' && row.fallback !== undefined ? `the org's \`${row.fallback}\`, else ${service}` : service;
    return `| \`${row.name}\` | \`--${row.flag}\` | ${fallback} | ${row.min}–${row.max} ${row.unit} | ${row.subsystem} | ${row.doc} | ${row.error} |`;
  });
  return ['| Setting | CLI flag | Default | Range | Read by | Meaning | What a client sees |', '|---|---|---|---|---|---|---|', ...rows].join('\n');
}
