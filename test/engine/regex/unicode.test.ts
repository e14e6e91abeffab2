import { describe, expect, it } from 'vitest';
import { compileRegex } from '../../../engine/regex/index.js';
import { foldOrbit } from '../../../engine/regex/casefold.js';
import { unicodeClassRanges } from '../../../engine/regex/unicode.js';

describe('Unicode classes', () => {
  it('covers the general categories with the runtime Unicode data', () => {
    const probes: Array<[string, string, boolean]> = [
      ['L', 'ж', true], ['L', '1', false], ['Lu', 'Ж', true], ['Lu', 'ж', false], ['Ll', 'ж', true],
      ['N', '½', true], ['Nd', '٣', true], ['Nd', '½', false], ['P', '¿', true], ['S', '€', true],
      ['Z', '\u2003', true], ['Zs', ' ', true], ['C', '\u0000', true], ['C', '\u{e0001}', true], ['C', '\u0378', false],
    ];
    for (const [name, ch, expected] of probes) {
      expect(compileRegex(`^\\p{${name}}$`).test(ch), `${name} ${ch}`).toBe(expected);
    }
  });

  it('covers scripts and accepts Go-style loose names', () => {
    expect(compileRegex('^\\p{Greek}+$').test('αβγ')).toBe(true);
    expect(compileRegex('^\\p{greek}+$').test('αβγ')).toBe(true);
    expect(compileRegex('^\\p{Old_Italic}$').test('\u{10300}')).toBe(true);
    expect(compileRegex('^\\p{Han}+$').test('漢字')).toBe(true);
    expect(compileRegex('^\\p{Cyrillic}+$').test('Привет')).toBe(true);
    expect(compileRegex('^\\p{Letter}+$').test('abc')).toBe(true);
    expect(unicodeClassRanges('Grek')).toBeUndefined();
    expect(unicodeClassRanges('NotAScript')).toBeUndefined();
  });

  it('negates with \\P and \\p{^…}', () => {
    expect(compileRegex('^\\P{L}+$').test('123')).toBe(true);
    expect(compileRegex('^\\p{^L}+$').test('12a')).toBe(false);
    expect(compileRegex('^\\P{^L}+$').test('abc')).toBe(true);
  });
});

describe('case folding', () => {
  it('uses simple case folding orbits', () => {
    expect(foldOrbit(0x6b)).toEqual([0x4b, 0x6b, 0x212a]);
    expect(foldOrbit(0x3c3)).toEqual([0x3a3, 0x3c2, 0x3c3]);
    expect(foldOrbit(0xdf)).toEqual([0xdf, 0x1e9e]);
    expect(foldOrbit(0x131)).toBeUndefined();
    expect(foldOrbit(0x31)).toBeUndefined();
  });

  it('matches across orbits but not across full case mappings', () => {
    expect(compileRegex('(?i)straße').test('STRAẞE')).toBe(true);
    expect(compileRegex('(?i)straße').test('STRASSE')).toBe(false);
    expect(compileRegex('(?i)i').test('ı')).toBe(false);
    expect(compileRegex('(?i)i').test('İ')).toBe(false);
    expect(compileRegex('(?i)σ+').exec('ΣσςX')?.[0]).toBe('Σσς');
  });
});

describe('UTF-16 input', () => {
  it('matches . and classes against whole code points', () => {
    expect(compileRegex('^.$').test('😀')).toBe(true);
    expect(compileRegex('^..$').test('😀')).toBe(false);
    expect(compileRegex('^[^a]$').test('😀')).toBe(true);
    expect(compileRegex('^[\\x{1F600}-\\x{1F64F}]+$').test('😀😃🙏')).toBe(true);
    expect(compileRegex('x(.)y').exec('x😀y')?.[1]).toBe('😀');
  });

  it('never starts a match inside a surrogate pair', () => {
    const low = String.fromCharCode(0xde00);
    expect(compileRegex('[\\x{DE00}]').test('😀')).toBe(false);
    expect(compileRegex('[\\x{DE00}]').test(`a${low}`)).toBe(true);
    expect(compileRegex('.').execIndices('😀')).toEqual(Int32Array.from([0, 2]));
  });

  it('reports offsets in UTF-16 units', () => {
    const m = compileRegex('(b)').execIndices('😀éb');
    expect(m).toEqual(Int32Array.from([3, 4, 3, 4]));
  });
});
