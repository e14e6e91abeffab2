/**
 * Time ranges as the URL and the query API write them: `now`, `now-6h`, or an absolute time
 * (ms since the epoch or ISO 8601). Relative ranges stay relative in the URL, so a shared link
 * shows the last 6 hours whenever it is opened.
 */

export interface TimeRange {
  from: string;
  to: string;
}

const UNIT_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/** durationMs reads `15m`, `6h`, `7d`; undefined when it is not a duration. */
export function durationMs(text: string): number | undefined {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h|d|w)$/.exec(text.trim());
  if (!match) return undefined;
  return match[2] === 'ms' ? Number(match[1]) : Number(match[1]) * UNIT_MS[match[2]];
}

/** resolveTime turns one end of a range into ms since the epoch; undefined when unreadable. */
export function resolveTime(text: string, nowMs: number): number | undefined {
  const t = text.trim();
  if (t === 'now') return nowMs;
  const relative = /^now-(.+)$/.exec(t);
  if (relative) {
    const ms = durationMs(relative[1]);
    return ms === undefined ? undefined : nowMs - ms;
  }
  if (/^\d{13}$/.test(t)) return Number(t);
  if (/^\d{10}$/.test(t)) return Number(t) * 1000;
  const parsed = Date.parse(t);
  return Number.isNaN(parsed) ? undefined : parsed;
}

export interface ResolvedRange {
  fromMs: number;
  toMs: number;
}

export function resolveRange(range: TimeRange, nowMs = Date.now()): ResolvedRange | undefined {
  const fromMs = resolveTime(range.from, nowMs);
  const toMs = resolveTime(range.to, nowMs);
  if (fromMs === undefined || toMs === undefined || toMs <= fromMs) return undefined;
  return { fromMs, toMs };
}

/** QUICK_RANGES are the relative windows the picker offers. */
export const QUICK_RANGES = ['5m', '15m', '1h', '3h', '6h', '12h', '24h', '2d', '7d'];

/** describeRange is the picker's button text. */
export function describeRange(range: TimeRange): string {
  if (range.to === 'now' && range.from.startsWith('now-')) return `Last ${range.from.slice(4)}`;
  const show = (t: string): string => {
    const ms = resolveTime(t, Date.now());
    return ms === undefined ? t : new Date(ms).toISOString().slice(0, 16).replace('T', ' ');
  };
  return `${show(range.from)} to ${show(range.to)}`;
}

/** toInputValue renders ms as a datetime-local input value in local time. */
export function toInputValue(ms: number): string {
  const d = new Date(ms - new Date(ms).getTimezoneOffset() * 60_000);
  return d.toISOString().slice(0, 16);
}
