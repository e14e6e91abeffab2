import { describe, expect, it } from 'vitest';
import {
  MAX_CAPTURE_CELLS,
  MAX_PROGRAM_SIZE,
  RegexSyntaxError,
  compileRegex,
  parseRegex,
  type CompileOptions,
} from '../../../engine/regex/index.js';

/**
 * The program-size budget is checked once, when a pattern is parsed, and every pattern that
 * passes compiles and runs under every option a caller uses. Bounded repeats compile in time
 * linear in their expansion.
 */

function parseError(pattern: string): RegexSyntaxError {
  try {
    parseRegex(pattern);
  } catch (err) {
    if (err instanceof RegexSyntaxError) return err;
    throw err;
  }
  throw new Error(`${pattern} parsed`);
}

/** The option sets the query engines compile with: line filters, label filters, matchers. */
const CALLER_OPTIONS: readonly CompileOptions[] = [{}, { anchored: true }, { anchored: true, dotNL: true }];

describe('program-size budget', () => {
  it('rejects a pattern whose expansion exceeds the budget at parse time, quoting it whole', () => {
    // Each `\pL{1000}` expands to 1000 instructions.
    const copies = MAX_PROGRAM_SIZE / 1000 + 1;
    const pattern = '\\pL{1000}'.repeat(copies);
    const err = parseError(pattern);
    expect(err.code).toBe('expression too large');
    expect(err.offset).toBe(0);
    expect(err.message).toBe(`error parsing regexp: expression too large: \`${pattern}\``);
    expect(() => compileRegex(pattern)).toThrow(RegexSyntaxError);
  });

  it('accepts a pattern at the budget and runs it under every caller option', () => {
    // 99 × 1000 instructions plus a little: just under the limit once anchored.
    const pattern = `(?:${'[a-z]{1000}'.repeat(MAX_PROGRAM_SIZE / 1000 - 1)})|x{990}y`;
    expect(() => parseRegex(pattern)).not.toThrow();
    for (const options of CALLER_OPTIONS) {
      const re = compileRegex(pattern, options);
      const line = 'x'.repeat(990) + 'y';
      expect(re.test(line)).toBe(true);
      expect(re.exec(line)?.[0]).toBe(line);
      expect(re.test('abc')).toBe(false);
    }
  });

  it('bounds instructions times capture groups, the memory submatch extraction needs', () => {
    const groups = 2000;
    const size = 3 * groups + 3000;
    expect(size * (groups + 1)).toBeGreaterThan(MAX_CAPTURE_CELLS);
    const pattern = '(a)'.repeat(groups) + 'b{1000}'.repeat(3);
    expect(parseError(pattern).code).toBe('expression too large');
    // Fewer groups over the same expansion are fine, and extract their submatches.
    const fewer = '(a)'.repeat(100) + 'b{1000}'.repeat(3);
    const re = compileRegex(fewer);
    const line = 'a'.repeat(100) + 'b'.repeat(3000);
    expect(re.exec(line)?.[100]).toBe('a');
  });

  it('gives Go verdicts for the patterns that used to pass one check and fail the other', () => {
    expect(parseError('(a{2}){1000}').code).toBe('invalid repeat count');
    expect(parseError('\\Q\\E*').code).toBe('missing argument to repetition operator');
    // Everything parseRegex accepts compiles under every option.
    for (const pattern of ['(a{2}){500}', '((a{10}){10}){10}', '[a-z]{1000}', '(\\pL{1000}){1}', '\\Q\\E', '\\Qa\\E*']) {
      parseRegex(pattern);
      for (const options of CALLER_OPTIONS) expect(() => compileRegex(pattern, options)).not.toThrow();
    }
  });
});

describe('bounded repeats', () => {
  const lines = Array.from({ length: 40 }, (_, i) => `ts=${i} level=info msg="${'a'.repeat(i % 5)}b done"`);

  it('compile and match a{2,1000} over 40 lines well within a second', () => {
    // This took about 4 s (compile time, expanding the string set quadratically per count).
    const start = performance.now();
    for (const options of CALLER_OPTIONS) {
      const re = compileRegex('a{2,1000}', options);
      for (const line of lines) re.test(line);
      for (const line of lines) re.exec(line);
    }
    expect(performance.now() - start).toBeLessThan(2_000);
  });

  it('answer as JavaScript RegExp does for repeats at the edges of a search', () => {
    const cases: Array<[string, RegExp]> = [
      ['a{2,1000}', /a{2,1000}/u],
      ['a{2,}', /a{2,}/u],
      ['x(ab){2,500}', /x(ab){2,500}/u],
      ['(ab){2,500}x', /(ab){2,500}x/u],
      ['[0-9]{3,6}ms', /[0-9]{3,6}ms/u],
      ['id=(?:[0-9a-f]{2,1000})', /id=(?:[0-9a-f]{2,1000})/u],
      ['(?:a+)+b', /(?:a+)+b/u],
      ['(a*)+', /(a*)+/u],
      ['a{3}b{2,3}', /a{3}b{2,3}/u],
    ];
    const inputs = ['', 'a', 'aa', 'baab', 'xab', 'xabab', 'ababx', 'abx', '12ms', '123ms', '1234567ms', 'id=f', 'id=ff', 'aab', 'aaabb', 'aaab'];
    for (const [pattern, js] of cases) {
      const re = compileRegex(pattern);
      for (const input of inputs) {
        expect(re.test(input), `${pattern} on ${JSON.stringify(input)}`).toBe(js.test(input));
        // exec still finds the greedy, leftmost match, not the reduced core's.
        expect(re.exec(input)?.[0], `${pattern} exec on ${JSON.stringify(input)}`).toBe(js.exec(input)?.[0]);
      }
    }
  });

  it('reduce a search for a{2,1000} to a substring search', () => {
    expect(compileRegex('a{2,1000}').strategy).toBe('literal');
    expect(compileRegex('a{2,1000}').exec('xaaaay')?.[0]).toBe('aaaa');
  });
});
