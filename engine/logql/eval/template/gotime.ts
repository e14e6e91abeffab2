/**
 * time.Time for templates: construction from Unix time, Go layout formatting and parsing
 * (the reference time "Mon Jan 2 15:04:05 MST 2006"), and zones. The service runs in UTC, so
 * Go's time.Local is UTC here; named zones resolve through Intl.
 */
import type { GoTime } from './values.js';

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

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

interface Civil {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  weekday: number;
  yday: number;
}

function civil(t: GoTime): Civil {
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

function two(n: number): string {
  return String(n).padStart(2, '0');
}

function offsetText(offsetSec: number, colon: boolean, seconds: boolean, hoursOnly: boolean): string {
  const sign = offsetSec < 0 ? '-' : '+';
  const a = Math.abs(offsetSec);
  const h = two(Math.floor(a / 3600));
  const m = two(Math.floor((a % 3600) / 60));
  const s = two(a % 60);
  if (hoursOnly) return sign + h;
  const sep = colon ? ':' : '';
  return sign + h + sep + m + (seconds ? sep + s : '');
}

/** Token is one element of a Go layout. */
type Token = { literal: string } | { std: string };

const STD_TOKENS = [
  'January', 'Jan', 'Monday', 'Mon', 'MST',
  '2006', '002', '06', '01', '02', '03', '04', '05', '15', '__2', '_2', '1', '2', '3', '4', '5',
  'PM', 'pm',
  '-07:00:00', '-070000', '-07:00', '-0700', '-07',
  'Z07:00:00', 'Z070000', 'Z07:00', 'Z0700', 'Z07',
];

/** tokenizeLayout splits a Go layout into literals and standard elements. */
function tokenizeLayout(layout: string): Token[] {
  const out: Token[] = [];
  let literal = '';
  let i = 0;
  outer: while (i < layout.length) {
    const c = layout[i];
    if ((c === '.' || c === ',') && (layout[i + 1] === '0' || layout[i + 1] === '9')) {
      const digit = layout[i + 1];
      let j = i + 1;
      while (layout[j] === digit) j++;
      if (!(layout[j] >= '0' && layout[j] <= '9')) {
        if (literal) out.push({ literal });
        literal = '';
        out.push({ std: c + layout.slice(i + 1, j) });
        i = j;
        continue;
      }
    }
    for (const std of STD_TOKENS) {
      if (!layout.startsWith(std, i)) continue;
      // Go only reads "Jan"/"Mon" style words when not followed by a lower-case letter.
      if ((std === 'Jan' || std === 'Mon') && /[a-z]/.test(layout[i + 3] ?? '')) continue;
      if (literal) out.push({ literal });
      literal = '';
      out.push({ std });
      i += std.length;
      continue outer;
    }
    literal += c;
    i++;
  }
  if (literal) out.push({ literal });
  return out;
}

/** formatTime renders `t` with a Go layout. */
export function formatTime(t: GoTime, layout: string): string {
  const c = civil(t);
  let out = '';
  for (const tok of tokenizeLayout(layout)) {
    if ('literal' in tok) {
      out += tok.literal;
      continue;
    }
    const std = tok.std;
    switch (std) {
      case 'January':
        out += MONTHS[c.month - 1];
        break;
      case 'Jan':
        out += MONTHS[c.month - 1].slice(0, 3);
        break;
      case 'Monday':
        out += DAYS[c.weekday];
        break;
      case 'Mon':
        out += DAYS[c.weekday].slice(0, 3);
        break;
      case 'MST':
        out += t.zone !== '' ? t.zone : offsetText(t.offsetSec, false, false, false);
        break;
      case '2006':
        out += String(c.year).padStart(4, '0');
        break;
      case '06':
        out += two(c.year % 100);
        break;
      case '01':
        out += two(c.month);
        break;
      case '1':
        out += String(c.month);
        break;
      case '02':
        out += two(c.day);
        break;
      case '2':
        out += String(c.day);
        break;
      case '_2':
        out += String(c.day).padStart(2, ' ');
        break;
      case '002':
        out += String(c.yday).padStart(3, '0');
        break;
      case '__2':
        out += String(c.yday).padStart(3, ' ');
        break;
      case '15':
        out += two(c.hour);
        break;
      case '03':
        out += two(c.hour % 12 === 0 ? 12 : c.hour % 12);
        break;
      case '3':
        out += String(c.hour % 12 === 0 ? 12 : c.hour % 12);
        break;
      case '04':
        out += two(c.minute);
        break;
      case '4':
        out += String(c.minute);
        break;
      case '05':
        out += two(c.second);
        break;
      case '5':
        out += String(c.second);
        break;
      case 'PM':
        out += c.hour >= 12 ? 'PM' : 'AM';
        break;
      case 'pm':
        out += c.hour >= 12 ? 'pm' : 'am';
        break;
      default: {
        if (std.startsWith('Z') && t.offsetSec === 0) {
          out += 'Z';
          break;
        }
        const body = std.startsWith('Z') ? std.slice(1) : std.slice(1);
        if (std.startsWith('-') || std.startsWith('Z')) {
          if (body === '07') out += offsetText(t.offsetSec, false, false, true);
          else if (body === '0700') out += offsetText(t.offsetSec, false, false, false);
          else if (body === '07:00') out += offsetText(t.offsetSec, true, false, false);
          else if (body === '070000') out += offsetText(t.offsetSec, false, true, false);
          else out += offsetText(t.offsetSec, true, true, false);
          break;
        }
        // Fractional seconds: .000 keeps its width, .999 drops trailing zeros.
        const digits = std.length - 1;
        let frac = String(t.nsec).padStart(9, '0').slice(0, digits);
        if (std[1] === '9') {
          frac = frac.replace(/0+$/, '');
          if (frac !== '') out += std[0] + frac;
        } else {
          out += std[0] + frac;
        }
      }
    }
  }
  return out;
}

/** formatTimeString is time.Time.String(). */
export function formatTimeString(t: GoTime): string {
  return formatTime(t, '2006-01-02 15:04:05.999999999 -0700 MST');
}

/**
 * parseTime reads `value` with a Go layout; times without an explicit offset are taken in
 * `zone`. Returns undefined when the value does not fit the layout.
 */
export function parseTime(layout: string, value: string, zone = 'UTC'): GoTime | undefined {
  let year = 1;
  let month = 1;
  let day = 1;
  let hour = 0;
  let minute = 0;
  let second = 0;
  let nsec = 0;
  let pm: boolean | undefined;
  let offset: number | undefined;
  let zoneName = '';
  let pos = 0;
  const num = (min: number, max: number): number | undefined => {
    let j = pos;
    while (j < value.length && j - pos < max && value[j] >= '0' && value[j] <= '9') j++;
    if (j - pos < min) return undefined;
    const n = Number(value.slice(pos, j));
    pos = j;
    return n;
  };
  for (const tok of tokenizeLayout(layout)) {
    if ('literal' in tok) {
      if (!value.startsWith(tok.literal, pos)) return undefined;
      pos += tok.literal.length;
      continue;
    }
    const std = tok.std;
    let n: number | undefined;
    switch (std) {
      case 'January':
      case 'Jan': {
        const idx = MONTHS.findIndex((m) => value.slice(pos).toLowerCase().startsWith((std === 'Jan' ? m.slice(0, 3) : m).toLowerCase()));
        if (idx < 0) return undefined;
        pos += std === 'Jan' ? 3 : MONTHS[idx].length;
        month = idx + 1;
        continue;
      }
      case 'Monday':
      case 'Mon': {
        const idx = DAYS.findIndex((d) => value.slice(pos).toLowerCase().startsWith((std === 'Mon' ? d.slice(0, 3) : d).toLowerCase()));
        if (idx < 0) return undefined;
        pos += std === 'Mon' ? 3 : DAYS[idx].length;
        continue;
      }
      case 'MST': {
        const m = /^[A-Z]{3,5}|^[+-]\d{2,4}/.exec(value.slice(pos));
        if (m === null) return undefined;
        zoneName = m[0];
        pos += m[0].length;
        if (zoneName === 'UTC' || zoneName === 'GMT') offset = 0;
        continue;
      }
      case '2006':
        n = num(4, 4);
        if (n === undefined) return undefined;
        year = n;
        continue;
      case '06':
        n = num(2, 2);
        if (n === undefined) return undefined;
        year = n >= 69 ? 1900 + n : 2000 + n;
        continue;
      case '01':
      case '1':
        n = num(std.length, 2);
        if (n === undefined || n < 1 || n > 12) return undefined;
        month = n;
        continue;
      case '02':
      case '2':
      case '_2':
        if (std === '_2' && value[pos] === ' ') pos++;
        n = num(std === '02' ? 2 : 1, 2);
        if (n === undefined || n < 1 || n > 31) return undefined;
        day = n;
        continue;
      case '002':
      case '__2':
        n = num(3, 3);
        if (n === undefined) return undefined;
        continue;
      case '15':
        n = num(1, 2);
        if (n === undefined || n > 23) return undefined;
        hour = n;
        continue;
      case '03':
      case '3':
        n = num(std.length, 2);
        if (n === undefined || n > 12) return undefined;
        hour = n;
        continue;
      case '04':
      case '4':
        n = num(std.length, 2);
        if (n === undefined || n > 59) return undefined;
        minute = n;
        continue;
      case '05':
      case '5':
        n = num(std.length, 2);
        if (n === undefined || n > 59) return undefined;
        second = n;
        if (value[pos] === '.' && !/^[.,][09]/.test(layout.slice(layout.indexOf(std) + std.length))) {
          const m = /^\.(\d{1,9})/.exec(value.slice(pos));
          if (m !== null) {
            nsec = Number(m[1].padEnd(9, '0'));
            pos += m[0].length;
          }
        }
        continue;
      case 'PM':
      case 'pm': {
        const word = value.slice(pos, pos + 2).toUpperCase();
        if (word !== 'AM' && word !== 'PM') return undefined;
        pm = word === 'PM';
        pos += 2;
        continue;
      }
      default: {
        if (std.startsWith('-') || std.startsWith('Z')) {
          if (std.startsWith('Z') && value[pos] === 'Z') {
            offset = 0;
            pos++;
            continue;
          }
          const m = /^([+-])(\d{2})(?::?(\d{2}))?(?::?(\d{2}))?/.exec(value.slice(pos));
          if (m === null) return undefined;
          offset = (m[1] === '-' ? -1 : 1) * (Number(m[2]) * 3600 + Number(m[3] ?? 0) * 60 + Number(m[4] ?? 0));
          pos += m[0].length;
          continue;
        }
        const m = /^[.,](\d+)/.exec(value.slice(pos));
        if (m === null) {
          if (std[1] === '9') continue;
          return undefined;
        }
        nsec = Number(m[1].slice(0, 9).padEnd(9, '0'));
        pos += m[0].length;
        continue;
      }
    }
  }
  if (pos !== value.length) return undefined;
  if (pm !== undefined) {
    if (pm && hour < 12) hour += 12;
    if (!pm && hour === 12) hour = 0;
  }
  const localSec = Date.UTC(year, month - 1, day, hour, minute, second) / 1000;
  if (Number.isNaN(localSec)) return undefined;
  if (offset !== undefined) {
    return { kind: 'time', sec: localSec - offset, nsec, offsetSec: offset, zone: offset === 0 && zoneName === '' ? 'UTC' : zoneName };
  }
  // Resolve the zone's offset at the local wall time (two passes settle DST edges).
  let guess = localSec;
  let z = zoneOffset(zone, guess) ?? { offsetSec: 0, abbrev: 'UTC' };
  guess = localSec - z.offsetSec;
  z = zoneOffset(zone, guess) ?? z;
  return { kind: 'time', sec: localSec - z.offsetSec, nsec, offsetSec: z.offsetSec, zone: z.abbrev };
}
