import { describe, expect, it } from 'vitest';
import { compileRegex } from '../../../engine/regex/index.js';

describe('literal introspection for index pruning', () => {
  it('reports a finite set of values', () => {
    expect(compileRegex('foo|bar|baz').literalSet).toEqual(['foo', 'bar', 'baz']);
    expect(compileRegex('api-(eu|us)-[12]').literalSet).toEqual(['api-eu-1', 'api-eu-2', 'api-us-1', 'api-us-2']);
    expect(compileRegex('^(?:prod|staging)$').literalSet).toEqual(['prod', 'staging']);
    expect(compileRegex('colou?r').literalSet).toEqual(['colour', 'color']);
    expect(compileRegex('foo.*').literalSet).toBeUndefined();
    expect(compileRegex('\\bfoo').literalSet).toBeUndefined();
    expect(compileRegex('[a-z]').literalSet).toBeUndefined();
  });

  it('expands small case-insensitive literals', () => {
    expect(compileRegex('(?i)ab').literalSet).toEqual(['AB', 'Ab', 'aB', 'ab']);
  });

  it('reports the literal prefix and whether the pattern is only that literal', () => {
    const cases: Array<[string, string, boolean]> = [
      ['foo', 'foo', true],
      ['^foo$', 'foo', true],
      ['foo.*', 'foo', false],
      ['foo(bar|baz)', 'fooba', false],
      ['(foo)', 'foo', true],
      ['foo|foobar', 'foo', false],
      ['foo\\d+', 'foo', false],
      ['(?i)foo', '', false],
      ['.*foo', '', false],
      ['a{3}b', 'aaab', true],
      ['x*', '', false],
      ['', '', true],
    ];
    for (const [pattern, prefix, literal] of cases) {
      const re = compileRegex(pattern, { anchored: true });
      expect([re.literalPrefix, re.isLiteral], pattern).toEqual([prefix, literal]);
    }
  });

  it('every full match starts with the reported prefix', () => {
    const re = compileRegex('job-(a|b)\\d', { anchored: true });
    expect(re.literalPrefix).toBe('job-');
    for (const v of ['job-a1', 'job-b9']) {
      expect(re.test(v)).toBe(true);
      expect(v.startsWith(re.literalPrefix)).toBe(true);
    }
  });
});

describe('matcher selection', () => {
  it('answers anchored literal sets without an automaton', () => {
    const re = compileRegex('GET|PUT|POST', { anchored: true });
    expect(re.strategy).toBe('set');
    expect(['GET', 'PUT', 'POST', 'get', 'GETX', ''].map((v) => re.test(v))).toEqual([true, true, true, false, false, false]);
    const one = compileRegex('prod', { anchored: true });
    expect(one.strategy).toBe('literal');
    expect([one.test('prod'), one.test('prod2')]).toEqual([true, false]);
  });

  it('uses indexOf for literals and literals joined by .*', () => {
    const contains = compileRegex('.*timeout.*');
    expect(contains.strategy).toBe('literal');
    expect([contains.test('read timeout'), contains.test('ok')]).toEqual([true, false]);
    const glob = compileRegex('api-.*-prod', { anchored: true });
    expect(glob.strategy).toBe('glob');
    expect(['api-x-prod', 'api--prod', 'api-prod', 'xapi-x-prod', 'api-x-prod2', 'api-\n-prod'].map((v) => glob.test(v))).toEqual([
      true, true, false, false, false, false,
    ]);
    const dotAll = compileRegex('(?s)a.*b.*c');
    expect(dotAll.strategy).toBe('glob');
    expect([dotAll.test('xa\nb\nc'), dotAll.test('acb')]).toEqual([true, false]);
    const lineGlob = compileRegex('a.*b');
    expect([lineGlob.test('xa-bx'), lineGlob.test('a\nb'), lineGlob.test('a\nab')]).toEqual([true, false, true]);
  });

  it('treats unanchored edges that can match empty as irrelevant', () => {
    const re = compileRegex('x*foo(bar)?');
    expect(re.strategy).toBe('literal');
    expect([re.test('a foo'), re.test('fo')]).toEqual([true, false]);
    expect(compileRegex('a*').strategy).toBe('always');
    expect(compileRegex('[^\\x00-\\x{10FFFF}]', { anchored: true }).strategy).toBe('never');
  });

  it('delegates to a JavaScript RegExp only without unbounded repetition', () => {
    expect(compileRegex('status=5\\d\\d').strategy).toBe('js');
    expect(compileRegex('(?i)exception').strategy).toBe('js');
    expect(compileRegex('error|warn').strategy).toBe('js');
    expect(compileRegex('(a+)+$').strategy).toBe('dfa');
    expect(compileRegex('(x+x+)+y').strategy).toBe('dfa');
    // Too many backtracking paths per position for a bounded-time guarantee.
    expect(compileRegex('(ab|a)(ab|a)(ab|a)(ab|a)(ab|a)(ab|a)(ab|a)c').strategy).toBe('dfa');
    // Alternatives of single characters are merged into a class, leaving a plain literal.
    expect(compileRegex('(a|a)(a|a)(a|a)b').strategy).toBe('literal');
  });

  it('keeps RE2 meanings where JavaScript differs', () => {
    // JavaScript's \s and ., ^ under its m flag, and i-mode \b differ from RE2's.
    expect(compileRegex('a\\sb').strategy).toBe('js');
    expect(compileRegex('a\\sb').test('a\u00a0b')).toBe(false);
    expect(compileRegex('a.b').test('a\rb')).toBe(true);
    expect(compileRegex('(?m)^b').test('a\rb')).toBe(false);
    expect(compileRegex('(?i)\\bx').test('\u212ax')).toBe(true);
    expect(compileRegex('(?i)k\\b').test('k\u017f')).toBe(true);
    // Zero-width checks beside a surrogate pair are answered by the automaton.
    expect(compileRegex('(?m)(?i:\\B^)').strategy).toBe('dfa');
    expect(compileRegex('(?m)(?i:\\B^)').test('1😀 Abb_')).toBe(false);
    expect(compileRegex('\\berror\\b').strategy).toBe('dfa');
  });
});
