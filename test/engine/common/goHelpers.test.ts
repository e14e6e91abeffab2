import { describe, expect, it } from 'vitest';
import { parseHumanByteSize, parseSettingByteSize } from '../../../engine/common/byteSize.js';
import { comparisonFor, isComparisonOperator } from '../../../engine/common/compare.js';
import { formatGoFloat, parseGoFloat, parseGoFloatLiteral } from '../../../engine/common/goFloat.js';
import { formatGoFixed, formatGoG } from '../../../engine/common/goFormat.js';
import { unescapeJsonString, unescapeLogfmtValue } from '../../../engine/common/jsonString.js';
import { utf8ByteLength, utf8LengthExceeds } from '../../../engine/common/utf8.js';
import { parseBytesValue } from '../../../engine/logql/eval/conversions.js';

describe('comparisonFor', () => {
  it('answers each operator as IEEE comparison does, NaN included', () => {
    const pairs: Array<[number, number]> = [[1, 2], [2, 1], [1, 1], [NaN, 1], [NaN, NaN]];
    const expected: Record<string, (a: number, b: number) => boolean> = {
      '==': (a, b) => a === b,
      '!=': (a, b) => a !== b,
      '>': (a, b) => a > b,
      '<': (a, b) => a < b,
      '>=': (a, b) => a >= b,
      '<=': (a, b) => a <= b,
    };
    for (const [op, reference] of Object.entries(expected)) {
      expect(isComparisonOperator(op)).toBe(true);
      for (const [a, b] of pairs) expect(comparisonFor(op)(a, b), `${a} ${op} ${b}`).toBe(reference(a, b));
    }
  });

  it('refuses an operator that is not a comparison', () => {
    expect(isComparisonOperator('+')).toBe(false);
    expect(() => comparisonFor('and')).toThrow(/not a comparison operator: and/);
  });
});

describe('Go float text', () => {
  it('formats like strconv FormatFloat f -1, never with an exponent', () => {
    expect(formatGoFloat(1e21)).toBe('1000000000000000000000');
    expect(formatGoFloat(1.5e-7)).toBe('0.00000015');
    expect(formatGoFloat(-0)).toBe('-0');
    expect(formatGoFloat(-Infinity)).toBe('-Inf');
  });

  it('reads signs and specials only through the whole ParseFloat', () => {
    expect(parseGoFloat('-Inf')).toEqual({ ok: true, value: -Infinity });
    expect(parseGoFloat('+0x1p4')).toEqual({ ok: true, value: 16 });
    expect(parseGoFloat('1e999')).toEqual({ ok: false, message: 'strconv.ParseFloat: parsing "1e999": value out of range' });
    expect(parseGoFloatLiteral('-1')).toEqual({ ok: false, message: 'strconv.ParseFloat: parsing "-1": invalid syntax' });
  });

  it('reads signed runs of digits as their exact numbers, -0 included, and nothing else as one', () => {
    const texts = ['0', '-0', '+0', '7', '007', '-12', '+500', '503', '999999999999999', '-999999999999999', '1234567890123456', '12345678901234567890', '9007199254740993'];
    for (let i = 0; i < 200; i++) texts.push(`${['', '-', '+'][i % 3]}${String(i * 7919 * (i + 1)).padStart(1 + (i % 17), '0')}`);
    for (const text of texts) expect(parseGoFloat(text), text).toEqual({ ok: true, value: Number(text) });
    for (const text of ['', '-', '+', '--1', '1-', '1 ', ' 1', '1_0', '١٢', '12a', '0x1F']) expect(parseGoFloat(text).ok, text).toBe(false);
  });

  it('prints %g and %f as Go fmt does', () => {
    expect(formatGoG(1e6)).toBe('1e+06');
    expect(formatGoG(123456)).toBe('123456');
    expect(formatGoG(0.000123456, 2)).toBe('0.00012');
    expect(formatGoG(NaN)).toBe('NaN');
    expect(formatGoFixed(1.5)).toBe('1.500000');
    expect(formatGoFixed(-0)).toBe('-0.000000');
    expect(formatGoFixed(2e21, 1)).toBe('2000000000000000000000.0');
    expect(formatGoFixed(Infinity)).toBe('+Inf');
  });
});

describe('quoted string escapes', () => {
  it('joins surrogate pairs and turns a lone surrogate into U+FFFD', () => {
    const text = 'a\\ud83d\\ude00b\\ud800c\\n';
    expect(unescapeJsonString(text, 0, text.length)).toBe('a\u{1F600}b\ufffdc\n');
  });

  it("accepts \\' and refuses control characters only in logfmt values", () => {
    const apostrophe = "it\\'s";
    expect(unescapeJsonString(apostrophe, 0, apostrophe.length)).toBeUndefined();
    expect(unescapeLogfmtValue(apostrophe)).toBe("it's");
    expect(unescapeJsonString('a\tb', 0, 3)).toBe('a\tb');
    expect(unescapeLogfmtValue('a\tb')).toBeUndefined();
  });
});

describe('byte sizes', () => {
  it('reads LogQL sizes as go-humanize does and settings in their strict spelling', () => {
    expect(parseHumanByteSize('1.5 KiB')).toBe(1536);
    expect(parseHumanByteSize('2T')).toBe(2e12);
    expect(parseSettingByteSize(' 16 MiB ')).toBe(16 * 1024 * 1024);
    expect(parseSettingByteSize('1.5KiB')).toBeUndefined();
    expect(parseSettingByteSize('2T')).toBeUndefined();
  });

  it('names the wrong part when a LogQL label value is not a size', () => {
    expect(parseBytesValue('1,5 kb')).toEqual({ ok: true, value: 15_000 });
    expect(parseBytesValue('1.5XB')).toEqual({ ok: false, message: 'unhandled size name: xb' });
    expect(parseBytesValue('1..5KB')).toEqual({ ok: false, message: 'strconv.ParseFloat: parsing "1..5": invalid syntax' });
    expect(parseBytesValue('99999EB')).toEqual({ ok: false, message: 'too large: 99999EB' });
  });
});

describe('UTF-8 length', () => {
  it('counts as TextEncoder does, and answers the limit check without counting when it can', () => {
    const encoder = new TextEncoder();
    for (const text of ['ascii', 'é', '€', '\u{1F600}', 'x\ud800y']) expect(utf8ByteLength(text), text).toBe(encoder.encode(text).length);
    expect(utf8LengthExceeds('€€€', 9)).toBe(false);
    expect(utf8LengthExceeds('€€€€', 9)).toBe(true);
  });
});
