/**
 * Byte escapes in PromQL strings: `\x` and octal escapes are bytes, as in Go. Bytes forming
 * valid UTF-8 are that text; bytes that do not make the string invalid UTF-8, which Prometheus
 * rejects wherever a label name is required.
 */
import { describe, expect, it } from 'vitest';
import { quoteGoString, unquoteGoString } from '../../../engine/common/quote.js';
import { isValidUtf8 } from '../../../engine/common/goBytes.js';
import { EngineError } from '../../../engine/errors.js';
import { parseAndCheckPromQL, printPromQL } from '../../../engine/promql/index.js';
import { byLabels, headWith, key, regular, vectorOf } from './eval/helpers.js';

const head = headWith([{ labels: { __name__: 'm', src: 'a', job: 'é' }, samples: regular(60e3, [1]) }]);

/** unquoted decodes a literal that must be well formed. */
function unquoted(literal: string): string {
  const result = unquoteGoString(literal);
  if (!result.ok) throw new Error(result.message);
  return result.value;
}

/** failure returns the EngineError an instant query raises. */
function failure(query: string): EngineError {
  try {
    vectorOf(head, query, 0);
  } catch (err) {
    expect(err).toBeInstanceOf(EngineError);
    return err as EngineError;
  }
  throw new Error(`expected ${query} to fail`);
}

describe('decoding byte escapes', () => {
  it('reads a run of bytes forming valid UTF-8 as its text', () => {
    expect(unquoted('"\\xc3\\xa9"')).toBe('é');
    expect(unquoted('"\\xe2\\x82\\xac"')).toBe('€');
    expect(unquoted("'\\303\\251'")).toBe('é');
    expect(unquoted('"\\x41\\u00e9"')).toBe('Aé');
  });

  it('keeps bytes that are not valid UTF-8 apart from the characters of the same number', () => {
    const invalid = unquoted('"\\xff"');
    expect(invalid).not.toBe('\u00ff');
    expect(isValidUtf8(invalid)).toBe(false);
    expect(isValidUtf8(unquoted('"\\u00ff"'))).toBe(true);
    // Go rejects overlong forms, encoded surrogates and truncated sequences byte by byte.
    for (const literal of ['"\\xc0\\x80"', '"\\xed\\xa0\\x80"', '"a\\xe2\\x82"', '"\\xf4\\x90\\x80\\x80"']) {
      expect(isValidUtf8(unquoted(literal)), literal).toBe(false);
    }
  });

  it('prints invalid bytes back as the escapes they came from', () => {
    expect(quoteGoString(unquoted('"\\xff"'))).toBe('"\\xff"');
    expect(quoteGoString(unquoted('"a\\xe2\\x82b"'))).toBe('"a\\xe2\\x82b"');
    expect(quoteGoString(unquoted('"\\xc3\\xa9"'))).toBe('"é"');
    expect(printPromQL(parseAndCheckPromQL('label_replace(m, "\\xff", "", "src", "(.*)")'))).toBe('label_replace(m, "\\xff", "", "src", "(.*)")');
  });
});

describe('label names that are not valid UTF-8', () => {
  it('fail label_replace and label_join with the message Prometheus gives', () => {
    const replace = failure('label_replace(m, "\\xff", "", "src", "(.*)")');
    expect(replace.message).toBe('invalid destination label name in label_replace(): \ufffd');
    expect(failure('label_join(m, "dst", "-", "src", "\\xff")').message).toBe('invalid source label name in label_join(): \ufffd');
    expect(failure('label_join(m, "\\xfe\\xff", "-", "src")').message).toBe('invalid destination label name in label_join(): \ufffd\ufffd');
  });

  it('fail count_values and grouping', () => {
    expect(failure('count_values("\\xff", m)').message).toBe('invalid label name "\\xff"');
    expect(() => parseAndCheckPromQL('sum by ("\\xff") (m)')).toThrow('invalid label name for grouping: "\\xff"');
  });

  it('are accepted when the bytes spell valid UTF-8', () => {
    expect(byLabels(vectorOf(head, 'label_replace(m, "\\xc3\\xa9", "$1", "src", "(.*)")', 0))).toEqual({
      [key({ __name__: 'm', src: 'a', job: 'é', é: 'a' })]: 1,
    });
  });
});

describe('byte escapes in matchers', () => {
  it('match the stored text the bytes spell, and nothing when they are invalid', () => {
    expect(vectorOf(head, 'm{job="\\xc3\\xa9"}', 0)).toHaveLength(1);
    expect(vectorOf(head, 'm{job="\\xff"}', 0)).toHaveLength(0);
    expect(vectorOf(head, 'm{job!="\\xff"}', 0)).toHaveLength(1);
  });

  it('reject a regex with invalid UTF-8, as Go regexp does', () => {
    expect(() => parseAndCheckPromQL('m{job=~"\\xff"}')).toThrow('error parsing regexp: invalid UTF-8');
  });
});
