import { MAX_RETENTION_DAYS } from '../meta/retentionDays.js';
import { UsageError, type OptionSpec } from './command.js';

/** RETENTION_DAYS_OPTION is `--retention-days`, shared by the commands that create and change orgs. */
export const RETENTION_DAYS_OPTION: OptionSpec = {
  type: 'string',
  valueName: 'N|default',
  description: `Days of the org's data to keep, 0 to ${MAX_RETENTION_DAYS} (0 keeps it forever), or 'default' to follow SVC_RETENTION_DAYS.`,
};

/**
 * parseRetentionDays reads a `--retention-days` value: a number of days, null for 'default'
 * (follow the service default), undefined when the option was not given.
 */
export function parseRetentionDays(raw: string | boolean | string[] | undefined): number | null | undefined {
  if (raw === undefined) return undefined;
  const text = String(raw).trim();
  if (text.toLowerCase() === 'default') return null;
  if (!/^\d+$/.test(text)) {
    throw new UsageError(`--retention-days must be a whole number of days (0 keeps data forever) or 'default', got ${JSON.stringify(String(raw))}`);
  }
  const days = Number(text);
  if (days > MAX_RETENTION_DAYS) throw new UsageError(`--retention-days must be at most ${MAX_RETENTION_DAYS} (a hundred years), got ${days}`);
  return days;
}
