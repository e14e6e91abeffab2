/**
 * time.Parse and time.ParseInLocation for templates (`toDate`, `toDateInZone`): reads a value
 * through the elements of a Go layout (timeLayout.ts) with Go's rules: spaces in the layout
 * match runs of spaces, numbers take one or two digits unless zero-padded, seconds absorb a
 * fraction the layout does not spell out, a day-of-year fixes month and day, and the day
 * must exist in its month. Any mismatch makes the whole parse fail (undefined).
 */
import { DAYS, MONTHS, zoneOffset } from './goTime.js';
import { layoutElements, type FractionElement, type LayoutElement, type StdElement, type ZoneElement } from './timeLayout.js';
import type { GoTime } from './values.js';

/** DAYS_BEFORE[m] is the number of days in a non-leap year before month m+1. */
const DAYS_BEFORE = [0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334, 365];

/** ParseFailure aborts a parse; parseTime turns it into undefined. */
class ParseFailure {}
const FAILURE = new ParseFailure();

function failParse(): never {
  throw FAILURE;
}

function isDigit(c: string | undefined): boolean {
  return c !== undefined && c >= '0' && c <= '9';
}

function isLeap(year: number): boolean {
  return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
}

function daysIn(month: number, year: number): number {
  if (month === 2 && isLeap(year)) return 29;
  return DAYS_BEFORE[month] - DAYS_BEFORE[month - 1];
}

/** daysFromCivil counts days from 1970-01-01 to a proleptic Gregorian date (any year). */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const dayOfYear = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146_097 + dayOfEra - 719_468;
}

/** ParsedFields are the values read so far; -1 marks month, day and year-day not given. */
class ParsedFields {
  year = 0;
  month = -1;
  day = -1;
  yday = -1;
  hour = 0;
  minute = 0;
  second = 0;
  nsec = 0;
  pm: boolean | undefined;
  /** offset is a numeric zone offset east of UTC in seconds, when the value gave one. */
  offset: number | undefined;
  zoneName = '';
}

/** ValueReader reads the value being parsed from left to right. */
class ValueReader {
  pos = 0;

  constructor(readonly value: string) {}

  get rest(): string {
    return this.value.slice(this.pos);
  }

  /** literal matches layout text; a space in it matches one or more spaces, as in Go. */
  literal(text: string): void {
    let k = 0;
    while (k < text.length) {
      if (text[k] === ' ') {
        if (this.pos < this.value.length && this.value[this.pos] !== ' ') failParse();
        while (text[k] === ' ') k++;
        while (this.value[this.pos] === ' ') this.pos++;
        continue;
      }
      if (this.value[this.pos] !== text[k]) failParse();
      this.pos++;
      k++;
    }
  }

  /** number reads up to `maxDigits` digits; `fixed` demands them all. */
  number(maxDigits: number, fixed: boolean): number {
    let end = this.pos;
    while (end - this.pos < maxDigits && isDigit(this.value[end])) end++;
    if (end === this.pos || (fixed && end - this.pos < maxDigits)) failParse();
    const n = Number(this.value.slice(this.pos, end));
    this.pos = end;
    return n;
  }

  /** take returns the next `length` characters, failing when fewer are left. */
  take(length: number): string {
    if (this.value.length - this.pos < length) failParse();
    const text = this.value.slice(this.pos, this.pos + length);
    this.pos += length;
    return text;
  }

  /** name reads one of `names` (or its first three letters), ignoring case; returns its index. */
  name(names: readonly string[], short: boolean): number {
    const rest = this.rest.toLowerCase();
    const index = names.findIndex((n) => rest.startsWith((short ? n.slice(0, 3) : n).toLowerCase()));
    if (index < 0) failParse();
    this.pos += short ? 3 : names[index].length;
    return index;
  }

  /** fractionDigits returns how many digits follow a `.` or `,` here (0 when none). */
  fractionDigits(): number {
    const sep = this.value[this.pos];
    if (sep !== '.' && sep !== ',') return 0;
    let end = this.pos + 1;
    while (isDigit(this.value[end])) end++;
    return end - this.pos - 1;
  }

  /** nanoseconds reads a separator and `digits` digits as a fraction of a second (first nine count). */
  nanoseconds(digits: number): number {
    const text = this.take(1 + digits);
    if (text[0] !== '.' && text[0] !== ',') failParse();
    const significant = text.slice(1, 10);
    if (!/^\d+$/.test(significant)) failParse();
    return Number(significant.padEnd(9, '0'));
  }
}

/** readZone reads a numeric offset (`-0700` and kin; the Z forms also take `Z`) in seconds. */
function readZone(reader: ValueReader, element: ZoneElement): number {
  const form = element.slice(1);
  if (element.startsWith('Z') && reader.value[reader.pos] === 'Z') {
    reader.pos++;
    return 0;
  }
  let text: string;
  let hh: string;
  let mm = '00';
  let ss = '00';
  switch (form) {
    case '07:00':
      text = reader.take(6);
      if (text[3] !== ':') failParse();
      [hh, mm] = [text.slice(1, 3), text.slice(4, 6)];
      break;
    case '07':
      text = reader.take(3);
      hh = text.slice(1, 3);
      break;
    case '07:00:00':
      text = reader.take(9);
      if (text[3] !== ':' || text[6] !== ':') failParse();
      [hh, mm, ss] = [text.slice(1, 3), text.slice(4, 6), text.slice(7, 9)];
      break;
    case '070000':
      text = reader.take(7);
      [hh, mm, ss] = [text.slice(1, 3), text.slice(3, 5), text.slice(5, 7)];
      break;
    default:
      text = reader.take(5);
      [hh, mm] = [text.slice(1, 3), text.slice(3, 5)];
  }
  if (![hh, mm, ss].every((part) => /^\d\d$/.test(part))) failParse();
  // Go accepts 24 hours and 60 minutes or seconds here, as some people write them.
  if (Number(hh) > 24 || Number(mm) > 60 || Number(ss) > 60) failParse();
  const seconds = (Number(hh) * 60 + Number(mm)) * 60 + Number(ss);
  if (text[0] === '+') return seconds;
  if (text[0] === '-') return -seconds;
  return failParse();
}

/** readZoneName reads a zone abbreviation (`MST`, `UTC`) or a signed hour offset (`+03`). */
function readZoneName(reader: ValueReader, fields: ParsedFields): void {
  const m = /^[A-Z]{3,5}|^[+-]\d{2,4}/.exec(reader.rest);
  if (m === null) failParse();
  fields.zoneName = m[0];
  reader.pos += m[0].length;
  if (fields.zoneName === 'UTC' || fields.zoneName === 'GMT') fields.offset = 0;
}

/** nextIsFraction tells whether the next element of the layout after `index` is a fraction. */
function nextIsFraction(elements: readonly LayoutElement[], index: number): boolean {
  for (let k = index + 1; k < elements.length; k++) {
    const element = elements[k];
    if (element.kind === 'fraction') return true;
    if (element.kind === 'std') return false;
  }
  return false;
}

function inRange(n: number, min: number, max: number): number {
  if (n < min || n > max) failParse();
  return n;
}

/** readSeconds reads seconds and, when the layout has no fraction next, any fraction after them. */
function readSeconds(reader: ValueReader, fields: ParsedFields, fixed: boolean, fractionFollows: boolean): void {
  fields.second = inRange(reader.number(2, fixed), 0, 59);
  if (fractionFollows) return;
  const digits = reader.fractionDigits();
  if (digits > 0) fields.nsec = reader.nanoseconds(digits);
}

function readFraction(reader: ValueReader, fields: ParsedFields, element: FractionElement): void {
  if (element.fixed) {
    fields.nsec = reader.nanoseconds(element.digits);
    return;
  }
  // `.999` may be left out entirely, and takes as many digits as there are.
  const digits = reader.fractionDigits();
  if (digits > 0) fields.nsec = reader.nanoseconds(digits);
}

function readStd(reader: ValueReader, fields: ParsedFields, element: StdElement, fractionFollows: boolean): void {
  switch (element) {
    case 'January':
    case 'Jan':
      fields.month = reader.name(MONTHS, element === 'Jan') + 1;
      return;
    case 'Monday':
    case 'Mon':
      reader.name(DAYS, element === 'Mon');
      return;
    case 'MST':
      readZoneName(reader, fields);
      return;
    case '2006': {
      if (!isDigit(reader.value[reader.pos])) failParse();
      const text = reader.take(4);
      if (!/^\d{4}$/.test(text)) failParse();
      fields.year = Number(text);
      return;
    }
    case '06': {
      const text = reader.take(2);
      if (!/^\d\d$/.test(text)) failParse();
      const n = Number(text);
      fields.year = n >= 69 ? 1900 + n : 2000 + n;
      return;
    }
    case '01':
    case '1':
      fields.month = inRange(reader.number(2, element === '01'), 1, 12);
      return;
    case '02':
    case '2':
    case '_2':
      if (element === '_2' && reader.value[reader.pos] === ' ') reader.pos++;
      fields.day = reader.number(2, element === '02');
      return;
    case '002':
    case '__2':
      if (element === '__2') for (let k = 0; k < 2 && reader.value[reader.pos] === ' '; k++) reader.pos++;
      fields.yday = inRange(reader.number(3, element === '002'), 0, 365);
      return;
    case '15':
      fields.hour = inRange(reader.number(2, false), 0, 23);
      return;
    case '03':
    case '3':
      fields.hour = inRange(reader.number(2, element === '03'), 0, 12);
      return;
    case '04':
    case '4':
      fields.minute = inRange(reader.number(2, element === '04'), 0, 59);
      return;
    case '05':
    case '5':
      readSeconds(reader, fields, element === '05', fractionFollows);
      return;
    case 'PM':
    case 'pm': {
      const word = reader.take(2);
      const [am, pm] = element === 'PM' ? ['AM', 'PM'] : ['am', 'pm'];
      if (word !== am && word !== pm) failParse();
      fields.pm = word === pm;
      return;
    }
    default:
      fields.offset = readZone(reader, element);
  }
}

/** resolveDate settles month and day from the year-day when given, then checks the day exists. */
function resolveDate(fields: ParsedFields): void {
  if (fields.yday >= 0) {
    let yday = fields.yday;
    let month = 0;
    let day = 0;
    if (isLeap(fields.year)) {
      if (yday === 31 + 29) [month, day] = [2, 29];
      else if (yday > 31 + 29) yday--;
    }
    if (month === 0) {
      month = Math.floor(yday / 31) + 1;
      if (DAYS_BEFORE[month] < yday) month++;
      day = yday - DAYS_BEFORE[month - 1];
    }
    if ((fields.month >= 0 && fields.month !== month) || (fields.day >= 0 && fields.day !== day)) failParse();
    fields.month = month;
    fields.day = day;
  } else {
    if (fields.month < 0) fields.month = 1;
    if (fields.day < 0) fields.day = 1;
  }
  if (fields.day < 1 || fields.day > daysIn(fields.month, fields.year)) failParse();
  if (fields.pm === true && fields.hour < 12) fields.hour += 12;
  else if (fields.pm === false && fields.hour === 12) fields.hour = 0;
}

/** toTime places the wall time in its zone: the value's offset, else its zone name, else `zone`. */
function toTime(fields: ParsedFields, zone: string): GoTime {
  const localSec = daysFromCivil(fields.year, fields.month, fields.day) * 86_400 + fields.hour * 3600 + fields.minute * 60 + fields.second;
  const { nsec, offset, zoneName } = fields;
  if (offset !== undefined) {
    return { kind: 'time', sec: localSec - offset, nsec, offsetSec: offset, zone: offset === 0 && zoneName === '' ? 'UTC' : zoneName };
  }
  // Resolve the zone's offset at the local wall time (two passes settle DST edges).
  let z = zoneOffset(zone, localSec) ?? { offsetSec: 0, abbrev: 'UTC' };
  z = zoneOffset(zone, localSec - z.offsetSec) ?? z;
  if (zoneName !== '' && zoneName !== z.abbrev) {
    // A zone name the location does not use: Go keeps the name at offset zero (GMT+n aside).
    const gmtHours = /^GMT([+-]\d+)$/.exec(zoneName);
    const offsetSec = gmtHours === null ? 0 : Number(gmtHours[1]) * 3600;
    return { kind: 'time', sec: localSec - offsetSec, nsec, offsetSec, zone: zoneName };
  }
  return { kind: 'time', sec: localSec - z.offsetSec, nsec, offsetSec: z.offsetSec, zone: z.abbrev };
}

/**
 * parseTime reads `value` with a Go layout; times without an explicit offset are taken in
 * `zone`. Returns undefined when the value does not fit the layout.
 */
export function parseTime(layout: string, value: string, zone = 'UTC'): GoTime | undefined {
  const elements = layoutElements(layout);
  const reader = new ValueReader(value);
  const fields = new ParsedFields();
  try {
    for (let k = 0; k < elements.length; k++) {
      const element = elements[k];
      if (element.kind === 'literal') reader.literal(element.text);
      else if (element.kind === 'fraction') readFraction(reader, fields, element);
      else readStd(reader, fields, element.std, nextIsFraction(elements, k));
    }
    if (reader.pos !== value.length) return undefined;
    resolveDate(fields);
  } catch (err) {
    if (err === FAILURE) return undefined;
    throw err;
  }
  return toTime(fields, zone);
}
