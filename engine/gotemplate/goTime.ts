/**
 * time.Time for templates: construction from Unix time, zones and calendar fields. Layout
 * formatting and parsing live in timeFormat.ts and timeParse.ts. The service runs in UTC, so
 * Go's time.Local is UTC here; named zones resolve through Intl.
 */
import type { GoTime } from './values.js';

/** MONTHS are the English month names Go's layouts print and read. */
export const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
/** DAYS are the English weekday names, Sunday first as in Go. */
export const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

/** timeFromUnixNs builds a UTC time from nanoseconds since the epoch. */
export function timeFromUnixNs(ns: bigint): GoTime {
  let sec = ns / 1_000_000_000n;
  let nsec = ns % 1_000_000_000n;
  if (nsec < 0n) {
    nsec += 1_000_000_000n;
    sec -= 1n;
  }
  return { kind: 'time', sec: Number(sec), nsec: Number(nsec), offsetSec: 0, zone: 'UTC' };
}

/** timeFromUnix builds a UTC time from seconds (and nanoseconds). */
export function timeFromUnix(sec: number, nsec = 0): GoTime {
  return { kind: 'time', sec, nsec, offsetSec: 0, zone: 'UTC' };
}

/** unixNanos returns the time as nanoseconds since the epoch. */
export function unixNanos(t: GoTime): bigint {
  return BigInt(t.sec) * 1_000_000_000n + BigInt(t.nsec);
}

/** zoneOffset returns the offset (seconds) and abbreviation of a named zone at an instant. */
export function zoneOffset(zone: string, epochSec: number): { offsetSec: number; abbrev: string } | undefined {
  if (zone === 'UTC' || zone === '' || zone === 'Local') return { offsetSec: 0, abbrev: 'UTC' };
  try {
    const parts = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
      timeZoneName: 'short',
    }).formatToParts(new Date(epochSec * 1000));
    const get = (type: string): number => Number(parts.find((p) => p.type === type)?.value ?? '0');
    const local = Date.UTC(get('year'), get('month') - 1, get('day'), get('hour'), get('minute'), get('second')) / 1000;
    const abbrev = parts.find((p) => p.type === 'timeZoneName')?.value ?? zone;
    return { offsetSec: Math.round(local - epochSec), abbrev };
  } catch {
    return undefined;
  }
}

/** inZone returns `t` shown in a named zone (UTC when the zone is unknown). */
export function inZone(t: GoTime, zone: string): GoTime {
  const z = zoneOffset(zone, t.sec) ?? { offsetSec: 0, abbrev: 'UTC' };
  return { ...t, offsetSec: z.offsetSec, zone: z.abbrev };
}

/** Civil is a time as calendar fields in its own zone. */
export interface Civil {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  weekday: number;
  yday: number;
}

/** civil breaks a time into calendar fields in its own zone. */
export function civil(t: GoTime): Civil {
  const d = new Date((t.sec + t.offsetSec) * 1000);
  const year = d.getUTCFullYear();
  const start = Date.UTC(year, 0, 1);
  return {
    year,
    month: d.getUTCMonth() + 1,
    day: d.getUTCDate(),
    hour: d.getUTCHours(),
    minute: d.getUTCMinutes(),
    second: d.getUTCSeconds(),
    weekday: d.getUTCDay(),
    yday: Math.floor((Date.UTC(year, d.getUTCMonth(), d.getUTCDate()) - start) / 86_400_000) + 1,
  };
}

