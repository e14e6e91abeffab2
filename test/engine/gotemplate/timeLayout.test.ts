import { describe, expect, it } from 'vitest';
import { executeTemplate, labelMap, parseTemplate } from '../../../engine/gotemplate/index.js';
import { timeFromUnix, inZone } from '../../../engine/gotemplate/goTime.js';
import { formatTime, formatTimeString } from '../../../engine/gotemplate/timeFormat.js';
import { splitLayout } from '../../../engine/gotemplate/timeLayout.js';
import { parseTime } from '../../../engine/gotemplate/timeParse.js';

/** The instant of Go's Time.Format example: 2015-02-25 11:06:39.1234 in Los Angeles (PST). */
const GO_EXAMPLE = inZone(timeFromUnix(1424891199, 123_400_000), 'America/Los_Angeles');

/** parsed renders a parse result as Go's Time.String does, or "error". */
function parsed(layout: string, value: string, zone?: string): string {
  const t = parseTime(layout, value, zone);
  return t === undefined ? 'error' : formatTimeString(t);
}

describe('Go time layouts are read left to right', () => {
  it('splits a layout whose element recurs, keeping the fraction on the last seconds', () => {
    expect(splitLayout('05 15:04:05.000')).toEqual([
      { kind: 'std', std: '05' },
      { kind: 'literal', text: ' ' },
      { kind: 'std', std: '15' },
      { kind: 'literal', text: ':' },
      { kind: 'std', std: '04' },
      { kind: 'literal', text: ':' },
      { kind: 'std', std: '05' },
      { kind: 'fraction', separator: '.', fixed: true, digits: 3 },
    ]);
  });

  it('treats the lookalikes as Go does', () => {
    expect(splitLayout('_2006')).toEqual([
      { kind: 'literal', text: '_' },
      { kind: 'std', std: '2006' },
    ]);
    expect(splitLayout('Janx Monday')).toEqual([
      { kind: 'literal', text: 'Janx ' },
      { kind: 'std', std: 'Monday' },
    ]);
    // A run of zeros followed by another digit is no fraction: `.00` stays text, `01` is the month.
    expect(splitLayout('.0001')).toEqual([
      { kind: 'literal', text: '.00' },
      { kind: 'std', std: '01' },
    ]);
    expect(splitLayout(',999 Z07:00').map((e) => ('std' in e ? e.std : e.kind))).toEqual(['fraction', 'literal', 'Z07:00']);
  });
});

describe('formatting matches the outputs documented for Go', () => {
  it.each([
    ['Mon Jan 2 15:04:05 MST 2006', 'Wed Feb 25 11:06:39 PST 2015'],
    ['2006/01/02', '2015/02/25'],
    ['3PM==3pm==15h', '11AM==11am==11h'],
    ['Mon Jan _2 15:04:05 MST 2006', 'Wed Feb 25 11:06:39 PST 2015'],
    ['15:04:05.00000', '11:06:39.12340'],
    ['15:04:05.99999999', '11:06:39.1234'],
    ['<2> <_2> <02>', '<25> <25> <25>'],
    ['04:05', '06:39'],
    ['2006-01-02T15:04:05Z07:00', '2015-02-25T11:06:39-08:00'],
    ['05 15:04:05.000', '39 11:06:39.123'],
    ['_2006', '_2015'],
  ])('%s', (layout, expected) => {
    expect(formatTime(GO_EXAMPLE, layout)).toBe(expected);
  });

  it('prints single-digit days padded as Go documents', () => {
    const march7 = timeFromUnix(1425729600); // 2015-03-07 12:00:00 UTC
    expect(formatTime(march7, '<2> <_2> <02>')).toBe('<7> < 7> <07>');
  });
});

describe('parsing matches the results documented for Go', () => {
  it.each([
    ['Jan 2, 2006 at 3:04pm (MST)', 'Feb 3, 2013 at 7:54pm (PST)', '2013-02-03 19:54:00 +0000 PST'],
    ['2006-Jan-02', '2013-Feb-03', '2013-02-03 00:00:00 +0000 UTC'],
    ['2006-01-02T15:04:05Z07:00', '2006-01-02T15:04:05Z', '2006-01-02 15:04:05 +0000 UTC'],
    ['2006-01-02T15:04:05Z07:00', '2006-01-02T15:04:05+07:00', '2006-01-02 15:04:05 +0700 +0700'],
    ['2006-01-02T15:04:05Z07:00', '2006-01-02T15:04:05Z07:00', 'error'],
    ['05 15:04:05.000', '39 11:06:39.123', '0000-01-01 11:06:39.123 +0000 UTC'],
    ['Jan _2 15:04:05.000', 'Feb  3 11:06:39.123', '0000-02-03 11:06:39.123 +0000 UTC'],
    ['3:04PM', '7:54PM', '0000-01-01 19:54:00 +0000 UTC'],
    ['2006-01-02 15:04:05', '2015-02-25 11:06:39.1234', '2015-02-25 11:06:39.1234 +0000 UTC'],
    ['2006-01-02 15:04:05.000', '2015-02-25 11:06:39.1234', 'error'],
    ['2006 002', '2024 060', '2024-02-29 00:00:00 +0000 UTC'],
    ['2006 002', '2023 060', '2023-03-01 00:00:00 +0000 UTC'],
    ['2006-01-02', '2023-02-30', 'error'],
    ['2006-01-02  15:04', '2023-02-03 15:04', '2023-02-03 15:04:00 +0000 UTC'],
  ])('%s reads %s', (layout, value, expected) => {
    expect(parsed(layout, value)).toBe(expected);
  });

  it('finds a zone name in the given location, and else takes the location', () => {
    expect(parsed('Jan 2, 2006 at 3:04pm (MST)', 'Jul 9, 2012 at 5:02am (PDT)', 'America/Los_Angeles')).toBe('2012-07-09 05:02:00 -0700 PDT');
    expect(parsed('2006-Jan-02', '2012-Jul-09', 'America/Los_Angeles')).toBe('2012-07-09 00:00:00 -0700 PDT');
  });

  it('parses the recurring-seconds layout from a template', () => {
    const text = '{{ date "2006-01-02T15:04:05.000Z07:00" (toDate "05 15:04:05.000" "39 11:06:39.123") }}';
    const result = parseTemplate(text);
    if (!result.ok) throw new Error(result.message);
    const out = executeTemplate({ template: result.template, source: text, name: 'line' }, labelMap(new Map()), {
      line: () => '',
      timestampNs: () => 0n,
    });
    expect(out).toBe('0000-01-01T11:06:39.123Z');
  });
});
