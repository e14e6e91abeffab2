import { describe, expect, it } from 'vitest';
import { compileRegex, RegexSyntaxError } from '../../../engine/regex/index.js';
import { GO_ANCHORED_CASES, GO_ERROR_CASES, GO_REPLACE_CASES, GO_SUBMATCH_CASES } from './goReference.js';

// Each engine must agree with Go on every reference case, not just the automatic choice.
const MATCHERS = ['auto', 'dfa', 'nfa'] as const;

describe('agreement with Go regexp', () => {
  it.each(GO_SUBMATCH_CASES)('submatches of %j in %j', (pattern, input, expected) => {
    const re = compileRegex(pattern);
    const got = re.execIndices(input);
    expect(got === null ? null : Array.from(got)).toEqual(expected);
    const groups = re.exec(input);
    if (expected === null) {
      expect(groups).toBeNull();
    } else {
      const want = [];
      for (let g = 0; g < expected.length; g += 2) {
        want.push(expected[g] < 0 ? undefined : input.slice(expected[g], expected[g + 1]));
      }
      expect(groups).toEqual(want);
    }
    for (const matcher of MATCHERS) {
      expect(compileRegex(pattern, { matcher }).test(input)).toBe(expected !== null);
    }
  });

  it.each(GO_ANCHORED_CASES)('anchored %j against %j', (pattern, input, expected) => {
    for (const matcher of MATCHERS) {
      expect(compileRegex(pattern, { anchored: true, matcher }).test(input)).toBe(expected);
    }
    const m = compileRegex(pattern, { anchored: true }).exec(input);
    expect(m === null ? false : m[0] === input).toBe(expected);
  });

  it.each(GO_REPLACE_CASES)('replaceAll %j in %j with %j', (pattern, input, template, expected) => {
    expect(compileRegex(pattern).replaceAll(input, template)).toBe(expected);
  });

  it.each(GO_ERROR_CASES)('compiling %j', (pattern, expected) => {
    if (expected === null) {
      expect(() => compileRegex(pattern)).not.toThrow();
      return;
    }
    let caught: unknown;
    try {
      compileRegex(pattern);
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(RegexSyntaxError);
    expect((caught as RegexSyntaxError).message).toBe(expected);
  });
});
