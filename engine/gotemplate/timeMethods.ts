/**
 * The time.Time methods a template can reach through a field chain (`.Unix`, `.Format "…"`,
 * `.In "Europe/Paris"` …) on a time a function returned.
 */
import { inZone, unixNanos } from './goTime.js';
import { formatTime } from './timeFormat.js';
import type { GoTime, GoValue } from './values.js';

/** isTime tells a time.Time from the other values. */
export function isTime(v: GoValue): v is GoTime {
  return v !== null && typeof v === 'object' && v.kind === 'time';
}

/** timeMethod evaluates the few time.Time methods templates reach for. */
export function timeMethod(t: GoTime, name: string, args: GoValue[]): GoValue | undefined {
  const ns = unixNanos(t);
  switch (name) {
    case 'Unix':
      return BigInt(t.sec);
    case 'UnixMilli':
      return ns / 1_000_000n;
    case 'UnixMicro':
      return ns / 1000n;
    case 'UnixNano':
      return ns;
    case 'Nanosecond':
      return BigInt(t.nsec);
    case 'UTC':
      return { ...t, offsetSec: 0, zone: 'UTC' };
    case 'Year':
      return BigInt(Number(formatTime(t, '2006')));
    case 'YearDay':
      return BigInt(Number(formatTime(t, '002')));
    case 'Day':
      return BigInt(Number(formatTime(t, '2')));
    case 'Hour':
      return BigInt(Number(formatTime(t, '15')));
    case 'Minute':
      return BigInt(Number(formatTime(t, '4')));
    case 'Second':
      return BigInt(Number(formatTime(t, '5')));
    case 'Format':
      return typeof args[0] === 'string' ? formatTime(t, args[0]) : undefined;
    case 'In':
      return typeof args[0] === 'string' ? inZone(t, args[0]) : undefined;
    default:
      return undefined;
  }
}

