import { describe, expect, it } from 'vitest';
import { compileRegex } from '../../../engine/regex/index.js';

/**
 * Patterns that make a backtracking engine take exponential or polynomial time. The bound is a
 * hang guard only (a backtracking engine would not finish at all); speed is measured by the
 * benchmark.
 */
const HANG_GUARD_MS = 20_000;

function timed<T>(fn: () => T): { value: T; ms: number } {
  const start = performance.now();
  const value = fn();
  return { value, ms: performance.now() - start };
}

const MEGABYTE_OF_A = 'a'.repeat(1 << 20);
const X_100K = 'x'.repeat(100_000);

describe('linear time on pathological input', () => {
  const cases: Array<[string, string, boolean]> = [
    ['(a+)+$', MEGABYTE_OF_A, true],
    ['(a+)+b', MEGABYTE_OF_A, false],
    ['(a|a)*b', MEGABYTE_OF_A, false],
    ['(a|aa)*c', MEGABYTE_OF_A, false],
    ['(a*)*b', MEGABYTE_OF_A, false],
    ['a*a*a*a*a*a*b', MEGABYTE_OF_A, false],
    ['(.*a){12}$', MEGABYTE_OF_A, true],
    ['(x+x+)+y', X_100K, false],
    ['^(\\w+\\s?)*$', `${'word '.repeat(20_000)}!`, false],
  ];

  for (const [pattern, input, expected] of cases) {
    it(`test ${pattern} over ${input.length} characters`, () => {
      for (const anchored of [false, true]) {
        const re = compileRegex(pattern, { anchored });
        const { value, ms } = timed(() => re.test(input));
        expect(value).toBe(anchored ? expected && pattern.endsWith('$') : expected);
        expect(ms).toBeLessThan(HANG_GUARD_MS);
      }
    });
  }

  it('extracts submatches from a megabyte line in linear time', () => {
    const re = compileRegex('(a+)+$');
    const { value, ms } = timed(() => re.exec(MEGABYTE_OF_A));
    expect(value?.[0]?.length).toBe(MEGABYTE_OF_A.length);
    expect(value?.[1]?.length).toBe(MEGABYTE_OF_A.length);
    expect(ms).toBeLessThan(HANG_GUARD_MS);
  });

  it('rejects a non-matching megabyte line quickly even with groups', () => {
    const re = compileRegex('(x+x+)+y');
    const { value, ms } = timed(() => re.exec('x'.repeat(1 << 20)));
    expect(value).toBeNull();
    expect(ms).toBeLessThan(HANG_GUARD_MS);
  });

  it('replaces many matches across a megabyte line in linear time', () => {
    const line = 'ab '.repeat(350_000);
    const { value, ms } = timed(() => compileRegex('(a)(b)\\s+').replaceAll(line, '$2$1,'));
    expect(value).toBe('ba,'.repeat(350_000));
    expect(ms).toBeLessThan(HANG_GUARD_MS);
    const whole = timed(() => compileRegex('(a+)+').replaceAll(MEGABYTE_OF_A, '<$1>'));
    expect(whole.value.length).toBe(MEGABYTE_OF_A.length + 2);
    expect(whole.ms).toBeLessThan(HANG_GUARD_MS);
  });
});
