/**
 * Translation of a syntax tree to a JavaScript RegExp for match/no-match tests, used only when
 * it is provably equivalent and provably fast:
 *
 * - Equivalent: the translation spells out every class as explicit code point ranges under the
 *   `u` flag (no `i`, `m` or `s` flags, whose JavaScript meanings differ from RE2's); text
 *   anchors map to `^` and `$` without the `m` flag. Line anchors and word boundaries would
 *   need lookarounds, which V8 evaluates oddly next to surrogate pairs, so patterns using them
 *   are not translated. Only the existence of a match is used, which a backtracking search and
 *   an automaton agree on for these regular constructs; which match is found (and its groups)
 *   is never taken from here.
 * - Fast: the tree has no unbounded repetition and a small bound on its backtracking paths, so
 *   the work per start position is bounded by a constant of the pattern and the whole search is
 *   linear in the input. Anything else — `a+`, `(x+x+)+y`, `.*foo` — stays with the automaton.
 */
import type { RegexNode } from './ast.js';
import { foldRanges } from './charclass.js';
import { foldOrbit } from './casefold.js';

/** MAX_PATHS bounds the backtracking paths per start position a delegated pattern may have. */
export const MAX_PATHS = 64;

/** pathBound is an upper bound on the distinct paths a backtracking matcher can try. */
function pathBound(node: RegexNode): number {
  switch (node.kind) {
    case 'empty':
    case 'noMatch':
    case 'literal':
    case 'class':
    case 'anyChar':
      return 1;
    case 'assert':
      return node.assertion === 'beginText' || node.assertion === 'endText' ? 1 : Infinity;
    case 'capture':
      return pathBound(node.sub);
    case 'repeat': {
      const p = pathBound(node.sub);
      if (node.max < 0 || p === Infinity) return Infinity;
      let total = 0;
      let power = p ** node.min;
      for (let k = node.min; k <= node.max; k++) {
        total += power;
        power *= p;
        if (total > MAX_PATHS) return Infinity;
      }
      return total;
    }
    case 'concat': {
      let total = 1;
      for (const sub of node.subs) {
        total *= pathBound(sub);
        if (total > MAX_PATHS) return Infinity;
      }
      return total;
    }
    case 'alternate': {
      let total = 0;
      for (const sub of node.subs) {
        total += pathBound(sub);
        if (total > MAX_PATHS) return Infinity;
      }
      return total;
    }
  }
}

function codePointSource(cp: number): string {
  if ((cp >= 0x30 && cp <= 0x39) || (cp >= 0x41 && cp <= 0x5a) || (cp >= 0x61 && cp <= 0x7a)) {
    return String.fromCharCode(cp);
  }
  return `\\u{${cp.toString(16)}}`;
}

function classSource(ranges: readonly number[]): string {
  let s = '[';
  for (let i = 0; i < ranges.length; i += 2) {
    s += codePointSource(ranges[i]);
    if (ranges[i + 1] !== ranges[i]) s += `-${codePointSource(ranges[i + 1])}`;
  }
  return `${s}]`;
}

function source(node: RegexNode): string {
  switch (node.kind) {
    case 'empty':
      return '(?:)';
    case 'noMatch':
      return '[]';
    case 'literal': {
      let s = '';
      for (const cp of node.codePoints) {
        s += node.foldCase && foldOrbit(cp) !== undefined ? classSource(foldRanges([cp, cp])) : codePointSource(cp);
      }
      return `(?:${s})`;
    }
    case 'class':
      return classSource(node.ranges);
    case 'anyChar':
      return node.matchNewline ? '[\\u{0}-\\u{10ffff}]' : '[^\\n]';
    case 'assert':
      // Only text anchors reach here; pathBound rejects the others.
      return node.assertion === 'beginText' ? '^' : '$';
    case 'capture':
      return `(?:${source(node.sub)})`;
    case 'repeat':
      return `(?:${source(node.sub)}){${node.min},${node.max}}`;
    case 'concat':
      return node.subs.map(source).join('');
    case 'alternate':
      return `(?:${node.subs.map(source).join('|')})`;
  }
  return '[]';
}

/**
 * safeJsRegExp returns a RegExp with the same match/no-match answer as `node` on every input,
 * or undefined when the tree is not provably safe to hand to a backtracking engine.
 */
export function safeJsRegExp(node: RegexNode): RegExp | undefined {
  if (pathBound(node) > MAX_PATHS) return undefined;
  try {
    return new RegExp(source(node), 'u');
  } catch {
    // V8 refuses some very large sources; the automaton answers those instead.
    return undefined;
  }
}
