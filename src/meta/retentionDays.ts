/**
 * The rule for a retention period in days, shared by the service-wide default
 * (SVC_RETENTION_DAYS), an org's own setting and the CLI that edits it, so all three accept the
 * same values: a whole number of days, where 0 keeps data forever (retention never deletes it).
 */

/** MAX_RETENTION_DAYS is a hundred years: far beyond any real need, small enough to stay exact in milliseconds. */
export const MAX_RETENTION_DAYS = 36_500;

export const DAY_MS = 86_400_000;

/** isRetentionDays tells whether `value` is an acceptable retention period in days. */
export function isRetentionDays(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= MAX_RETENTION_DAYS;
}

/** describeRetention renders a retention for people: "7 days", "forever", or the service default. */
export function describeRetention(days: number | undefined): string {
  if (days === undefined) return 'default';
  if (days === 0) return 'forever';
  return days === 1 ? '1 day' : `${days} days`;
}
