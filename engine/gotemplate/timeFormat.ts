/**
 * time.Time.Format for templates: renders a time through the elements of a Go layout
 * (timeLayout.ts), with Go's padding, 12-hour clock, zone and fraction rules.
 */
import { DAYS, MONTHS, civil, type Civil } from './goTime.js';
import { layoutElements, type FractionElement, type StdElement } from './timeLayout.js';
import type { GoTime } from './values.js';

function two(n: number): string {
  return String(n).padStart(2, '0');
}

function hour12(hour: number): number {
  return hour % 12 === 0 ? 12 : hour % 12;
}

/** offsetText renders a zone offset as `+07`, `+0700`, `+07:00`, `+070000` or `+07:00:00`. */
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

/** formatZone renders the numeric zone elements; the Z forms print `Z` for UTC. */
function formatZone(element: StdElement, offsetSec: number): string {
  if (element.startsWith('Z') && offsetSec === 0) return 'Z';
  switch (element.slice(1)) {
    case '07':
      return offsetText(offsetSec, false, false, true);
    case '0700':
      return offsetText(offsetSec, false, false, false);
    case '07:00':
      return offsetText(offsetSec, true, false, false);
    case '070000':
      return offsetText(offsetSec, false, true, false);
    default:
      return offsetText(offsetSec, true, true, false);
  }
}

/** formatFraction renders `.000` with its width and `.999` without trailing zeros (nothing when zero). */
function formatFraction(element: FractionElement, nsec: number): string {
  let digits = String(nsec).padStart(9, '0').slice(0, element.digits);
  if (!element.fixed) {
    digits = digits.replace(/0+$/, '');
    if (digits === '') return '';
  }
  return element.separator + digits;
}

function formatStd(element: StdElement, t: GoTime, c: Civil): string {
  switch (element) {
    case 'January':
      return MONTHS[c.month - 1];
    case 'Jan':
      return MONTHS[c.month - 1].slice(0, 3);
    case 'Monday':
      return DAYS[c.weekday];
    case 'Mon':
      return DAYS[c.weekday].slice(0, 3);
    case 'MST':
      return t.zone !== '' ? t.zone : offsetText(t.offsetSec, false, false, false);
    case '2006':
      return String(c.year).padStart(4, '0');
    case '06':
      return two(c.year % 100);
    case '01':
      return two(c.month);
    case '1':
      return String(c.month);
    case '02':
      return two(c.day);
    case '2':
      return String(c.day);
    case '_2':
      return String(c.day).padStart(2, ' ');
    case '002':
      return String(c.yday).padStart(3, '0');
    case '__2':
      return String(c.yday).padStart(3, ' ');
    case '15':
      return two(c.hour);
    case '03':
      return two(hour12(c.hour));
    case '3':
      return String(hour12(c.hour));
    case '04':
      return two(c.minute);
    case '4':
      return String(c.minute);
    case '05':
      return two(c.second);
    case '5':
      return String(c.second);
    case 'PM':
      return c.hour >= 12 ? 'PM' : 'AM';
    case 'pm':
      return c.hour >= 12 ? 'pm' : 'am';
    default:
      return formatZone(element, t.offsetSec);
  }
}

/** formatTime renders `t` with a Go layout. */
export function formatTime(t: GoTime, layout: string): string {
  const c = civil(t);
  let out = '';
  for (const element of layoutElements(layout)) {
    if (element.kind === 'literal') out += element.text;
    else if (element.kind === 'fraction') out += formatFraction(element, t.nsec);
    else out += formatStd(element.std, t, c);
  }
  return out;
}

/** formatTimeString is time.Time.String(). */
export function formatTimeString(t: GoTime): string {
  return formatTime(t, '2006-01-02 15:04:05.999999999 -0700 MST');
}
