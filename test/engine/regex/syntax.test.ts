import { describe, expect, it } from 'vitest';
import { compileRegex, parseRegex, RegexSyntaxError, type RegexNode } from '../../../engine/regex/index.js';

function syntaxError(pattern: string): RegexSyntaxError {
  try {
    compileRegex(pattern);
  } catch (e) {
    if (e instanceof RegexSyntaxError) return e;
    throw e;
  }
  throw new Error(`expected ${pattern} to be rejected`);
}

describe('parseRegex tree', () => {
  it('merges adjacent literal code points and records positions', () => {
    const { root } = parseRegex('ab😀c');
    expect(root).toMatchObject({ kind: 'literal', codePoints: [0x61, 0x62, 0x1f600, 0x63], foldCase: false });
    expect(root.pos).toEqual({ start: 0, end: 5 });
  });

  it('applies a repetition to the last code point only', () => {
    const { root } = parseRegex('ab*');
    expect(root.kind).toBe('concat');
    const subs = (root as Extract<RegexNode, { kind: 'concat' }>).subs;
    expect(subs[0]).toMatchObject({ kind: 'literal', codePoints: [0x61] });
    expect(subs[1]).toMatchObject({ kind: 'repeat', min: 0, max: -1, greedy: true, sub: { kind: 'literal', codePoints: [0x62] } });
    expect(subs[1].pos).toEqual({ start: 1, end: 3 });
  });

  it('numbers capture groups by opening parenthesis and keeps their names', () => {
    const parsed = parseRegex('(a)(?P<x>b(?<y>c))(?:d)');
    expect(parsed.numGroups).toBe(3);
    expect(parsed.groupNames).toEqual([undefined, undefined, 'x', 'y']);
  });

  it('merges one-character alternatives into a class', () => {
    const { root } = parseRegex('a|b|[c-e]|f');
    expect(root).toMatchObject({ kind: 'class', ranges: [0x61, 0x66] });
  });

  it('keeps alternatives that are not single characters in priority order', () => {
    const { root } = parseRegex('foo|b|a|bar');
    expect(root.kind).toBe('alternate');
    const subs = (root as Extract<RegexNode, { kind: 'alternate' }>).subs;
    expect(subs.map((s) => s.kind)).toEqual(['literal', 'class', 'literal']);
  });

  it('reads flag groups, scoped and unscoped', () => {
    const { root } = parseRegex('a(?i:b)c(?s).');
    const subs = (root as Extract<RegexNode, { kind: 'concat' }>).subs;
    expect(subs[0]).toMatchObject({ kind: 'literal', codePoints: [0x61], foldCase: false });
    expect(subs[1]).toMatchObject({ kind: 'literal', codePoints: [0x62], foldCase: true });
    expect(subs[2]).toMatchObject({ kind: 'literal', codePoints: [0x63], foldCase: false });
    expect(subs[3]).toMatchObject({ kind: 'anyChar', matchNewline: true });
  });

  it('distinguishes text and line anchors by the m flag', () => {
    expect(parseRegex('^').root).toMatchObject({ kind: 'assert', assertion: 'beginText' });
    expect(parseRegex('(?m)^').root).toMatchObject({ kind: 'assert', assertion: 'beginLine' });
    expect(parseRegex('(?m)$').root).toMatchObject({ kind: 'assert', assertion: 'endLine' });
    expect(parseRegex('(?m)\\z').root).toMatchObject({ kind: 'assert', assertion: 'endText' });
  });

  it('treats (?U) as swapping greedy and lazy', () => {
    const lazy = parseRegex('(?U)a*').root;
    const greedy = parseRegex('(?U)a*?').root;
    expect(lazy).toMatchObject({ kind: 'repeat', greedy: false });
    expect(greedy).toMatchObject({ kind: 'repeat', greedy: true });
  });

  it('honours initial flags from the options', () => {
    expect(parseRegex('.', { dotNL: true }).root).toMatchObject({ kind: 'anyChar', matchNewline: true });
    expect(parseRegex('a', { foldCase: true }).root).toMatchObject({ kind: 'literal', foldCase: true });
    expect(parseRegex('^', { multiLine: true }).root).toMatchObject({ kind: 'assert', assertion: 'beginLine' });
  });

  it('reads counted repetitions and treats malformed braces as literals', () => {
    expect(parseRegex('a{2,5}?').root).toMatchObject({ kind: 'repeat', min: 2, max: 5, greedy: false, counted: true });
    expect(parseRegex('a{3,}').root).toMatchObject({ kind: 'repeat', min: 3, max: -1 });
    expect(parseRegex('a{,3}').root).toMatchObject({ kind: 'literal', codePoints: [...'a{,3}'].map((c) => c.codePointAt(0)) });
  });

  it('parses classes with POSIX names, Perl escapes and negation', () => {
    expect(parseRegex('[[:digit:]\\s]').root).toMatchObject({ kind: 'class', ranges: [9, 10, 12, 13, 32, 32, 48, 57] });
    expect(parseRegex('[^\\x00-\\x{10FFFF}]').root).toMatchObject({ kind: 'class', ranges: [] });
    expect(parseRegex('[^a]').root).toMatchObject({ kind: 'class', ranges: [0, 0x60, 0x62, 0x10ffff] });
  });

  it('folds classes under (?i), including the Kelvin sign and long s', () => {
    expect(parseRegex('(?i)[k]').root).toMatchObject({ kind: 'class', ranges: [0x4b, 0x4b, 0x6b, 0x6b, 0x212a, 0x212a] });
    expect(parseRegex('(?i)[s]').root).toMatchObject({ kind: 'class', ranges: [0x53, 0x53, 0x73, 0x73, 0x17f, 0x17f] });
  });
});

describe('syntax errors', () => {
  it('reports the offset of the offending fragment', () => {
    expect(syntaxError('ab(cd').offset).toBe(2);
    expect(syntaxError('abc)').offset).toBe(3);
    expect(syntaxError('ab**').offset).toBe(2);
    expect(syntaxError('x|*').offset).toBe(2);
    expect(syntaxError('xy\\1').offset).toBe(2);
    expect(syntaxError('x[z-a]').offset).toBe(2);
    expect(syntaxError('xx[abc').offset).toBe(2);
    expect(syntaxError('a(?=b)').offset).toBe(1);
    expect(syntaxError('ab\\').offset).toBe(2);
    expect(syntaxError('a{1001}').offset).toBe(1);
  });

  it('carries Go code, fragment and message', () => {
    const e = syntaxError('(a');
    expect(e).toBeInstanceOf(Error);
    expect(e.name).toBe('RegexSyntaxError');
    expect(e.code).toBe('missing closing )');
    expect(e.expr).toBe('(a');
    expect(e.message).toBe('error parsing regexp: missing closing ): `(a`');
  });

  it('rejects lookbehind through the named-group syntax as Go 1.22+ does', () => {
    expect(syntaxError('(?<=a)b').message).toBe('error parsing regexp: invalid named capture: `(?<=a)b`');
    expect(syntaxError('(?<!a)').message).toBe('error parsing regexp: invalid named capture: `(?<!a)`');
    expect(compileRegex('(?<word>a)').groupNames).toEqual([undefined, 'word']);
  });

  it('rejects lone surrogates as invalid UTF-8', () => {
    expect(syntaxError('a\ud800b').code).toBe('invalid UTF-8');
    expect(syntaxError('[\udc00]').code).toBe('invalid UTF-8');
  });

  it('limits group nesting depth', () => {
    const ok = '('.repeat(900) + 'a' + ')'.repeat(900);
    expect(compileRegex(ok).test('a')).toBe(true);
    const deep = '('.repeat(1200) + 'a' + ')'.repeat(1200);
    expect(syntaxError(deep).code).toBe('expression nests too deeply');
  });

  it('limits the compiled size', () => {
    const huge = '(?:[a-z]{1000}){1000}';
    // Go rejects the repeat product before the size: 1000 × 1000 copies.
    expect(syntaxError(huge).code).toBe('invalid repeat count');
    const wide = Array.from({ length: 1100 }, () => '\\pL{1000}').join('');
    expect(syntaxError(wide).code).toBe('expression too large');
  });
});
