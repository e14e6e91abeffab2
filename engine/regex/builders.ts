/**
 * Node builders that keep the tree in the canonical shape the later stages expect: no concat
 * directly inside a concat, no alternation directly inside an alternation, adjacent literal
 * code points merged into one literal, and adjacent one-character alternatives merged into one
 * class (`a|b|[cd]` is `[a-d]`, which is cheaper for every matcher and means the same thing:
 * alternatives that each consume exactly one character are interchangeable in priority).
 */
import type { PositionRange } from '../errors.js';
import type { AlternateNode, ClassNode, RegexNode } from './ast.js';
import { ANY_NOT_NL_RANGES, ANY_RANGES, foldRanges, normalizeRanges } from './charclass.js';

/** span joins the positions of the first and last of `nodes`, or returns `fallback`. */
function span(nodes: readonly RegexNode[], fallback: PositionRange): PositionRange {
  if (nodes.length === 0) return fallback;
  return { start: nodes[0].pos.start, end: nodes[nodes.length - 1].pos.end };
}

/** makeConcat builds the concatenation of `items`; see the module comment for the shape. */
export function makeConcat(items: readonly RegexNode[], pos: PositionRange): RegexNode {
  const flat: RegexNode[] = [];
  for (const item of items) {
    if (item.kind === 'concat') flat.push(...item.subs);
    else if (item.kind !== 'empty') flat.push(item);
  }
  const out: RegexNode[] = [];
  for (let i = 0; i < flat.length; i++) {
    const item = flat[i];
    if (item.kind !== 'literal') {
      out.push(item);
      continue;
    }
    let j = i + 1;
    while (j < flat.length) {
      const next = flat[j];
      if (next.kind !== 'literal' || next.foldCase !== item.foldCase) break;
      j++;
    }
    if (j === i + 1) {
      out.push(item);
      continue;
    }
    const codePoints: number[] = [];
    for (let k = i; k < j; k++) {
      const lit = flat[k];
      if (lit.kind === 'literal') for (const cp of lit.codePoints) codePoints.push(cp);
    }
    out.push({
      kind: 'literal',
      codePoints,
      foldCase: item.foldCase,
      pos: { start: item.pos.start, end: flat[j - 1].pos.end },
    });
    i = j - 1;
  }
  if (out.length === 0) return { kind: 'empty', pos };
  if (out.length === 1) return out[0];
  return { kind: 'concat', subs: out, pos: span(out, pos) };
}

/**
 * classRangesOf returns the ranges a one-character node matches, or undefined when the node
 * is not a single-character matcher.
 */
export function classRangesOf(node: RegexNode): readonly number[] | undefined {
  switch (node.kind) {
    case 'class':
      return node.ranges;
    case 'anyChar':
      return node.matchNewline ? ANY_RANGES : ANY_NOT_NL_RANGES;
    case 'literal':
      if (node.codePoints.length !== 1) return undefined;
      return node.foldCase ? foldRanges([node.codePoints[0], node.codePoints[0]]) : [node.codePoints[0], node.codePoints[0]];
    default:
      return undefined;
  }
}

/** makeAlternate builds the alternation of `subs`; see the module comment for the shape. */
export function makeAlternate(subs: readonly RegexNode[], pos: PositionRange): RegexNode {
  const flat: RegexNode[] = [];
  for (const sub of subs) {
    if (sub.kind === 'alternate') flat.push(...sub.subs);
    else flat.push(sub);
  }
  const out: RegexNode[] = [];
  let run: RegexNode[] = [];
  const flushRun = (): void => {
    if (run.length === 1) out.push(run[0]);
    else if (run.length > 1) out.push(mergeClasses(run));
    run = [];
  };
  for (const sub of flat) {
    if (classRangesOf(sub) !== undefined) {
      run.push(sub);
    } else {
      flushRun();
      out.push(sub);
    }
  }
  flushRun();
  if (out.length === 1) return out[0];
  const node: AlternateNode = { kind: 'alternate', subs: out, pos: span(out, pos) };
  return node;
}

/** mergeClasses unions one-character nodes into a single class node. */
function mergeClasses(nodes: readonly RegexNode[]): ClassNode {
  const all: number[] = [];
  for (const n of nodes) {
    const r = classRangesOf(n);
    if (r !== undefined) for (const x of r) all.push(x);
  }
  return { kind: 'class', ranges: normalizeRanges(all), pos: span(nodes, nodes[0].pos) };
}
