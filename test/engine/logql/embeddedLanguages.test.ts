import { describe, expect, it } from 'vitest';
import {
  checkRegex,
  parseIpPattern,
  parseJsonPath,
  parsePattern,
  regexMatchesEmpty,
  formatLogQLDuration,
} from '../../../engine/logql/index.js';
import { formatByteSize } from '../../../engine/logql/units.js';
import { parseGoFloatLiteral } from '../../../engine/common/goFloat.js';
import { parseHumanByteSize } from '../../../engine/common/byteSize.js';
import { decodedOffsetMap, sourceOffsetOf } from '../../../engine/logql/stringOffsets.js';
import { withoutPositions } from './helpers.js';

describe('parsePattern', () => {
  it('splits literals and captures, keeping offsets', () => {
    const result = parsePattern('<ip> - <_> [<ts>] "<method> <path>"', 'parser');
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.pattern.captures).toEqual(['ip', 'ts', 'method', 'path']);
    expect(withoutPositions(result.pattern.parts)).toEqual([
      { kind: 'capture', name: 'ip' },
      { kind: 'literal', text: ' - ' },
      { kind: 'capture', name: '_' },
      { kind: 'literal', text: ' [' },
      { kind: 'capture', name: 'ts' },
      { kind: 'literal', text: '] "' },
      { kind: 'capture', name: 'method' },
      { kind: 'literal', text: ' ' },
      { kind: 'capture', name: 'path' },
      { kind: 'literal', text: '"' },
    ]);
    expect(result.pattern.parts[2].pos).toEqual({ start: 7, end: 10 });
  });

  it('treats a < that does not open a capture as literal text', () => {
    const result = parsePattern('a <b c> <1x> <ok>', 'parser');
    expect(result.ok && withoutPositions(result.pattern.parts)).toEqual([
      { kind: 'literal', text: 'a <b c> <1x> ' },
      { kind: 'capture', name: 'ok' },
    ]);
  });

  it.each([
    ['no captures', 'parser', 'at least one capture is required', 0],
    ['<_> only', 'parser', 'at least one capture is required', 0],
    ['<a><b>', 'parser', "found consecutive capture '<a><b>': invalid expression", 0],
    ['<a> <a>', 'parser', 'duplicate capture name (a): invalid expression', 4],
    ['GET <verb>', 'line-filter', "named captures are not allowed: found '<verb>'", 4],
    ['<_><_> x', 'line-filter', "found consecutive capture '<_><_>': invalid expression", 0],
  ] as const)('rejects %s as a %s pattern', (text, mode, message, offset) => {
    expect(parsePattern(text, mode)).toEqual({ ok: false, message, offset });
  });

  it('accepts line filter patterns without named captures, even empty ones', () => {
    expect(parsePattern('GET <_> 200', 'line-filter').ok).toBe(true);
    expect(parsePattern('', 'line-filter').ok).toBe(true);
  });
});

describe('parseIpPattern', () => {
  it('parses single addresses, prefixes and ranges', () => {
    expect(parseIpPattern('192.168.1.5')).toEqual({ kind: 'address', address: { bytes: new Uint8Array([192, 168, 1, 5]) } });
    expect(parseIpPattern('10.0.0.0/8')).toEqual({ kind: 'prefix', address: { bytes: new Uint8Array([10, 0, 0, 0]) }, bits: 8 });
    expect(parseIpPattern('192.168.1.1-192.168.1.9')).toEqual({
      kind: 'range',
      from: { bytes: new Uint8Array([192, 168, 1, 1]) },
      to: { bytes: new Uint8Array([192, 168, 1, 9]) },
    });
  });

  it('parses IPv6 forms', () => {
    const loopback = new Uint8Array(16);
    loopback[15] = 1;
    expect(parseIpPattern('::1')).toEqual({ kind: 'address', address: { bytes: loopback } });
    expect(parseIpPattern('2001:db8::/32')).toMatchObject({ kind: 'prefix', bits: 32 });
    expect(parseIpPattern('::ffff:1.2.3.4')).toMatchObject({ kind: 'address' });
    expect(parseIpPattern('fe80::1%eth0')).toMatchObject({ kind: 'address', address: { zone: 'eth0' } });
    expect(parseIpPattern('1:2:3:4:5:6:7:8')).toMatchObject({ kind: 'address' });
  });

  it.each(['', 'bogus', '256.0.0.1', '01.2.3.4', '1.2.3', '1.2.3.4/33', '1.2.3.4/08', '::1/129', '1.2.3.9-1.2.3.1', '1.2.3.4-::1', '1::2::3', 'fe80::1%', '1:2:3:4:5:6:7:8:9'])(
    'rejects %j',
    (text) => {
      expect(parseIpPattern(text)).toBeUndefined();
    },
  );
});

describe('parseJsonPath', () => {
  it.each([
    ['user', ['user']],
    ['user.id', ['user', 'id']],
    ['tags[0]', ['tags', 0]],
    ['a.b[2].c', ['a', 'b', 2, 'c']],
    ['["a b"]', ['a b']],
    ['x["y.z"][1]', ['x', 'y.z', 1]],
    [' a . b ', ['a', 'b']],
  ])('parses %s', (text, path) => {
    expect(parseJsonPath(text)).toEqual({ ok: true, path });
  });

  it.each([
    ['user[', 5],
    ['', 0],
    ['a..b', 2],
    ['a[1.5]', 3],
    ['a[x]', 2],
    ['.a', 0],
    ['a[0', 3],
  ])('rejects %j', (text, offset) => {
    const result = parseJsonPath(text);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.message).toContain(`cannot parse expression [${text}]`);
    expect(result.offset).toBe(offset);
  });
});

describe('checkRegex', () => {
  it('lists capture groups and their names', () => {
    expect(checkRegex('(?P<method>\\w+) (?<path>\\S+) (\\d+)(?:x)(?i)')).toEqual({
      ok: true,
      captureNames: ['method', 'path'],
    });
  });

  it.each(['a|b', '[]a]', '[^]]', '[a-z\\d_-]', '[[:alpha:]]', 'a{2,3}?', 'x{', '\\x{1F600}\\pL\\p{Greek}', '\\Q(*)\\E', '(?i:a)(?-s)', '\\.\\-\\_', '\\12'])(
    'accepts %s',
    (re) => {
      expect(checkRegex(re).ok).toBe(true);
    },
  );

  it.each([
    ['(', 'missing closing ): `(`', 0],
    ['a)', 'unexpected ): `a)`', 1],
    ['[a', 'missing closing ]: `[a`', 0],
    ['*a', 'missing argument to repetition operator: `*`', 0],
    ['a**', 'invalid nested repetition operator: `**`', 1],
    ['a{1001}', 'invalid repeat count: `{1001}`', 1],
    ['a{3,2}', 'invalid repeat count: `{3,2}`', 1],
    ['\\q', 'invalid escape sequence: `\\q`', 0],
    ['\\1', 'invalid escape sequence: `\\1`', 0],
    ['a\\', 'trailing backslash at end of expression: ``', 1],
    ['(?=a)', 'invalid or unsupported Perl syntax: `(?=`', 0],
    ['(?P<>a)', 'invalid named capture: `(?P<>`', 0],
    ['[z-a]', 'invalid character class range: `z-a`', 1],
    ['[[:nope:]]', 'invalid character class range: `[:nope:]`', 1],
    // The engine that runs line filters rejects these; a checker of its own used to pass them.
    ['\\Q\\E*', 'missing argument to repetition operator: `*`', 4],
    ['(a{2}){1000}', 'invalid repeat count: `{1000}`', 6],
    ['\\pL{1000}'.repeat(101), `expression too large: \`${'\\pL{1000}'.repeat(101)}\``, 0],
  ])('rejects %s', (re, code, offset) => {
    expect(checkRegex(re)).toEqual({ ok: false, message: `error parsing regexp: ${code}`, offset });
  });

  it('tells whether an anchored expression matches the empty string', () => {
    expect(regexMatchesEmpty('.*')).toBe(true);
    expect(regexMatchesEmpty('a|')).toBe(true);
    expect(regexMatchesEmpty('(?i)(foo)?')).toBe(true);
    expect(regexMatchesEmpty('.+')).toBe(false);
    expect(regexMatchesEmpty('bar|baz')).toBe(false);
    expect(regexMatchesEmpty('(?P<x>a*)')).toBe(true);
  });
});

describe('literal units', () => {
  it('parses floats with Go rules', () => {
    expect(parseGoFloatLiteral('1.5e3')).toEqual({ ok: true, value: 1500 });
    expect(parseGoFloatLiteral('0x1.8p1')).toEqual({ ok: true, value: 3 });
    expect(parseGoFloatLiteral('017')).toEqual({ ok: true, value: 17 });
    expect(parseGoFloatLiteral('0x10')).toEqual({ ok: false, message: 'strconv.ParseFloat: parsing "0x10": invalid syntax' });
    expect(parseGoFloatLiteral('1_000')).toMatchObject({ ok: false });
    expect(parseGoFloatLiteral('1e400')).toEqual({ ok: false, message: 'strconv.ParseFloat: parsing "1e400": value out of range' });
  });

  it('parses and formats byte sizes', () => {
    expect(parseHumanByteSize('20MB')).toBe(20_000_000);
    expect(parseHumanByteSize('1.5 KiB')).toBe(1536);
    expect(parseHumanByteSize('42')).toBe(42);
    expect(parseHumanByteSize('1mib')).toBe(1_048_576);
    expect(parseHumanByteSize('1XB')).toBeUndefined();
    expect(parseHumanByteSize('')).toBeUndefined();
    for (const bytes of [0, 1, 999, 1000, 1024, 1536, 20_000_000, 3 * 1024 ** 3]) {
      expect(parseHumanByteSize(formatByteSize(bytes)), String(bytes)).toBe(bytes);
    }
    expect(formatByteSize(20_000_000)).toBe('20MB');
    expect(formatByteSize(1_048_576)).toBe('1MiB');
  });

  it('formats durations so they read back exactly', () => {
    expect(formatLogQLDuration(90_000)).toBe('1m30s');
    expect(formatLogQLDuration(1.5)).toBe('1500us');
    expect(formatLogQLDuration(0.0005)).toBe('500ns');
    expect(formatLogQLDuration(-300_000)).toBe('-5m');
  });
});

describe('decodedOffsetMap', () => {
  it('maps decoded characters back to their source offsets through escapes', () => {
    // "a\tb\u00e9c" decodes to a, TAB, b, é, c.
    expect(Array.from(decodedOffsetMap('"a\\tb\\u00e9c"'))).toEqual([1, 2, 4, 5, 11, 12]);
    expect(Array.from(decodedOffsetMap('`a\\t`'))).toEqual([1, 2, 3, 4]);
    expect(Array.from(decodedOffsetMap('"\\U0001F600x"'))).toEqual([1, 1, 11, 12]);
  });
});

describe('sourceOffsetOf', () => {
  it('agrees with decodedOffsetMap at every decoded offset, past the end included', () => {
    for (const literal of ['"a\\tb\\u00e9c"', '`a\\t`', '"\\U0001F600x"', '"x😀y\\x41"', '""']) {
      const map = decodedOffsetMap(literal);
      for (let offset = -1; offset <= map.length + 1; offset++) {
        const expected = 100 + map[Math.min(Math.max(offset, 0), map.length - 1)];
        expect(sourceOffsetOf(literal, 100, offset), `${literal} at ${offset}`).toBe(expected);
      }
    }
  });
});
