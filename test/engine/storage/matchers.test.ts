import { describe, expect, it } from 'vitest';
import { compileMatcher, compileMatchers, matchesAll } from '../../../engine/storage/matchers.js';

describe('label matchers', () => {
  it('answer a regex the same for a value seen before, and past the bound of remembered values', () => {
    const values = Array.from({ length: 3_000 }, (_, i) => `i-${String(i).padStart(4, '0')}${i % 7 === 0 ? '\nx' : ''}`);
    const pattern = 'i-0.[13579].*';
    // Anchored, `.` matching newlines: what Prometheus compiles a selector's regex to.
    const reference = new RegExp(`^(?:${pattern})$`, 's');
    const equal = compileMatcher({ name: 'instance', type: '=~', value: pattern });
    const notEqual = compileMatcher({ name: 'instance', type: '!~', value: pattern });
    for (let round = 0; round < 3; round++) {
      for (const v of round === 1 ? [...values].reverse() : values) {
        expect(equal(v), v).toBe(reference.test(v));
        expect(notEqual(v), v).toBe(!reference.test(v));
      }
    }
    expect(values.filter((v) => equal(v))).toHaveLength(500);
  });

  it('test a label a series lacks as the empty value', () => {
    const matchers = compileMatchers([
      { name: 'route', type: '=~', value: '/r[0-2]|' },
      { name: 'code', type: '!~', value: '5..' },
    ]);
    expect(matchers.map((m) => m.matchesEmpty)).toEqual([true, true]);
    expect(matchesAll({}, matchers)).toBe(true);
    expect(matchesAll({ route: '/r3' }, matchers)).toBe(false);
    expect(matchesAll({ route: '/r1', code: '503' }, matchers)).toBe(false);
    expect(matchesAll({ route: '/r1', code: '200' }, matchers)).toBe(true);
  });
});
