/**
 * The program-size budget. A counted repeat expands into copies of its operand when compiled
 * (`x{2,1000}` is a thousand copies of `x`), so a short pattern can become a very large
 * program, and every matcher's cost grows with the program: the Pike VM steps through it per
 * input character, the lazy DFA builds states from it, and submatch tracking keeps capture
 * slots per instruction. RE2 and Go bound the same thing (RE2 through its `max_mem` option,
 * Go with its "expression too large" check after parsing); the limits here are tighter than
 * Go's so that a pattern that is accepted is also cheap enough to run over every line of a query.
 *
 * The check runs when a pattern is parsed, so query parsers and validation report it at parse
 * time, and the compiler that runs later can never meet a pattern that was accepted but is too
 * big (the small anchoring wrappers callers add are covered by COMPILE_ALLOWANCE).
 */
import type { RegexNode } from './ast.js';

/** MAX_PROGRAM_SIZE is the largest number of instructions a pattern may compile to. */
export const MAX_PROGRAM_SIZE = 100_000;

/**
 * MAX_CAPTURE_CELLS bounds instructions × (capture groups + 1): submatch extraction keeps a
 * start and end per group for every instruction of its thread lists (4 bytes each, two lists),
 * so this caps that memory at 64 MiB.
 */
export const MAX_CAPTURE_CELLS = 4_000_000;

/**
 * COMPILE_ALLOWANCE covers what compilation adds to an accepted pattern: the fail and match
 * instructions, and the `\A … \z` or `^(?s: … )$` wrappers used for full-string matching.
 */
export const COMPILE_ALLOWANCE = 16;

/**
 * programSize bounds the instructions a tree compiles to (the counting of Go's calcSize): it
 * counts every copy a repetition expands to, so it is exact or an overestimate, never less.
 */
export function programSize(node: RegexNode): number {
  switch (node.kind) {
    case 'literal':
      return Math.max(1, node.codePoints.length);
    case 'capture':
      return 2 + programSize(node.sub);
    case 'concat':
    case 'alternate': {
      let total = node.kind === 'alternate' ? node.subs.length - 1 : 0;
      for (const sub of node.subs) total += programSize(sub);
      return Math.max(1, total);
    }
    case 'repeat': {
      const sub = programSize(node.sub);
      if (node.max === -1) return node.min === 0 ? 2 + sub : 1 + Math.max(1, node.min) * sub;
      return Math.max(1, node.max * sub + (node.max - node.min));
    }
    default:
      return 1;
  }
}

/**
 * exceedsBudget reports whether a parsed pattern breaks MAX_PROGRAM_SIZE or
 * MAX_CAPTURE_CELLS, the rule parseRegex enforces.
 */
export function exceedsBudget(root: RegexNode, numGroups: number): boolean {
  const size = programSize(root);
  return size > MAX_PROGRAM_SIZE || size * (numGroups + 1) > MAX_CAPTURE_CELLS;
}
