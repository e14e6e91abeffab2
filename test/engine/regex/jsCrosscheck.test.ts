import { describe, expect, it } from 'vitest';
import { compileRegex } from '../../../engine/regex/index.js';

/**
 * Patterns whose meaning is the same in JavaScript and RE2 (ASCII, no RE2-only syntax, no
 * repetition of possibly-empty groups, where the two differ on captures), so JavaScript's own
 * RegExp is an independent oracle for both match positions and groups.
 */
const PATTERNS = [
  'a+b', '(a+)(b*)', '(\\d+)-(\\d+)', '\\w+@\\w+\\.com', '(foo|foobar)(bar)?', '(a|ab)(c|bcd)(d*)',
  '[a-f]+\\d', '^\\s*(\\w+)\\s*=\\s*(\\S+)$', 'x(y?)z', '(?:ab|cd)+', '(a)|(b)', '\\bthe\\b',
  'colou?r', 'a.c', '[^,]+', '(\\w)(\\w)?', 'a{2,3}', 'a{2,3}?', '(a+?)(a*)', '\\d{3}-\\d{4}',
  '(GET|POST) (/\\S*)', 'level=(debug|info|warn|error)', '^$', 'b*', '(x|y|z)+',
];

const INPUTS = [
  '', 'ab', 'aab', 'aaabbb', '12-345', 'mail bob@example.com now', 'foobar', 'foobarbar', 'abcd',
  'cafe1', ' key = value ', 'xz', 'xyz', 'abcdab', 'a,b,,c', 'the other', 'colour color', 'abc',
  'aaaa', '555-1234', 'GET /index.html', 'level=warn msg', 'xyzzy', 'hello world',
];

describe('cross-check with JavaScript RegExp where semantics coincide', () => {
  for (const pattern of PATTERNS) {
    it(pattern, () => {
      const ours = compileRegex(pattern);
      const theirs = new RegExp(pattern);
      for (const input of INPUTS) {
        const want = theirs.exec(input);
        const got = ours.exec(input);
        expect(got === null ? null : got.slice(), `${pattern} on ${JSON.stringify(input)}`).toEqual(
          want === null ? null : Array.from(want),
        );
        expect(ours.test(input)).toBe(want !== null);
        const at = ours.execIndices(input);
        expect(at === null ? -1 : at[0]).toBe(want === null ? -1 : want.index);
      }
    });
  }
});
