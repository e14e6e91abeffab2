import { describe, expect, it } from 'vitest';
import { compileRegex, parseRegex } from '../../../engine/regex/index.js';
import { Backtracker } from '../../../engine/regex/backtrack.js';
import { compileProgram } from '../../../engine/regex/compile.js';
import { PikeVM } from '../../../engine/regex/pike.js';

/** mulberry32 is a small deterministic generator so failures reproduce. */
function generator(seed: number): (n: number) => number {
  let state = seed | 0;
  return (n: number) => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) % n;
  };
}

const ATOMS = ['a', 'b', 'ab', '.', '[ab]', '[^a]', '\\d', '\\w', '\\s', '\\b', '\\B', '^', '$', 'é', '😀', '(?i:k)', '\\n', '[[:alpha:]]', '\\pL'];
const ALPHABET = ['a', 'b', ' ', '\n', '1', 'é', '😀', 'K', 'k', '\u212a', 'x'];

function randomPattern(rnd: (n: number) => number, depth: number): string {
  const r = rnd(10);
  if (depth === 0 || r < 3) return ATOMS[rnd(ATOMS.length)];
  if (r < 5) return randomPattern(rnd, depth - 1) + randomPattern(rnd, depth - 1);
  if (r < 6) return `${randomPattern(rnd, depth - 1)}|${randomPattern(rnd, depth - 1)}`;
  if (r < 8) return `(${randomPattern(rnd, depth - 1)})`;
  const ops = ['*', '+', '?', '*?', '+?', '{2}', '{0,2}', '{1,}'];
  return `(?:${randomPattern(rnd, depth - 1)})${ops[rnd(ops.length)]}`;
}

function randomInput(rnd: (n: number) => number): string {
  let s = '';
  const n = rnd(12);
  for (let i = 0; i < n; i++) s += ALPHABET[rnd(ALPHABET.length)];
  return s;
}

describe('the matchers agree with each other', () => {
  it('lazy DFA, Pike VM and the automatic choice give the same answers', () => {
    const rnd = generator(20240501);
    for (let i = 0; i < 400; i++) {
      const pattern = randomPattern(rnd, 4);
      for (const anchored of [false, true]) {
        const auto = compileRegex(pattern, { anchored });
        const dfa = compileRegex(pattern, { anchored, matcher: 'dfa' });
        const nfa = compileRegex(pattern, { anchored, matcher: 'nfa' });
        for (let j = 0; j < 6; j++) {
          const input = randomInput(rnd);
          const expected = nfa.test(input);
          const context = `${pattern} ${anchored ? 'anchored' : ''} on ${JSON.stringify(input)}`;
          expect(dfa.test(input), context).toBe(expected);
          expect(auto.test(input), context).toBe(expected);
          expect(auto.exec(input) !== null, context).toBe(expected);
          const m = auto.execIndices(input);
          if (m !== null && anchored) expect([m[0], m[1]], context).toEqual([0, input.length]);
        }
      }
    }
  });

  it('the DFA stays correct when its state cache is flushed', () => {
    // Distinguishing the last 16 characters needs 2^16 states, far over the cache budget.
    const re = compileRegex('a[ab]{15}$', { matcher: 'dfa' });
    const nfa = compileRegex('a[ab]{15}$', { matcher: 'nfa' });
    const rnd = generator(7);
    for (let round = 0; round < 3; round++) {
      let s = '';
      for (let i = 0; i < 20000; i++) s += rnd(2) === 0 ? 'a' : 'b';
      s += round === 0 ? 'a'.repeat(16) : 'b'.repeat(16);
      expect(re.test(s)).toBe(nfa.test(s));
      expect(re.test(s)).toBe(round === 0);
    }
  });

  it('the backtracker and the Pike VM extract the same submatches', () => {
    const rnd = generator(99);
    for (let i = 0; i < 300; i++) {
      const pattern = randomPattern(rnd, 4);
      const parsed = parseRegex(pattern);
      const prog = compileProgram(parsed.root, parsed.numGroups, pattern);
      const slots = prog.numSlots;
      const vm = new PikeVM(prog, slots);
      const bt = new Backtracker(prog, slots);
      for (let j = 0; j < 5; j++) {
        const input = randomInput(rnd);
        for (const from of [0, Math.min(2, input.length)]) {
          const a = new Int32Array(slots).fill(-1);
          const b = new Int32Array(slots).fill(-1);
          const context = `${pattern} on ${JSON.stringify(input)} from ${from}`;
          expect(bt.search(input, from, b, ''), context).toBe(vm.search(input, from, a, ''));
          expect(Array.from(b), context).toEqual(Array.from(a));
        }
      }
    }
  });
});
