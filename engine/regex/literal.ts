/**
 * Literal analysis of a syntax tree, decided once at compile time. It answers the questions
 * that let a matcher avoid running an automaton at all — is the pattern one string, a small
 * set of strings, literals joined by `.*`? — and gives callers the facts they need to prune by
 * index (every match starts with this prefix; these are the only values that match).
 */
import type { RegexNode } from './ast.js';
import { rangesSize } from './charclass.js';
import { foldOrbit } from './casefold.js';

/** MAX_CLASS_EXPANSION is the largest class expanded into separate strings. */
const MAX_CLASS_EXPANSION = 16;

/**
 * MAX_LITERAL_CHARS bounds the total length of an expanded string set: a set is only worth
 * having for short values (label values, index keys), and a bounded repeat of a long literal
 * would otherwise cost memory and time quadratic in the repeat count.
 */
const MAX_LITERAL_CHARS = 1 << 16;

/** stringOf turns code points into a string (lone surrogates stay single units). */
export function stringOf(codePoints: readonly number[]): string {
  let s = '';
  for (const cp of codePoints) s += String.fromCodePoint(cp);
  return s;
}

/**
 * hasSurrogate reports whether a literal names a lone surrogate code point. Such a literal
 * cannot be searched for with indexOf, which would find it inside a surrogate pair.
 */
function hasSurrogate(codePoints: readonly number[]): boolean {
  return codePoints.some((cp) => cp >= 0xd800 && cp <= 0xdfff);
}

/**
 * exactStrings returns every string `node` matches, in priority order without duplicates, or
 * undefined when that set is infinite, larger than `limit`, or depends on context (assertions).
 */
export function exactStrings(node: RegexNode, limit: number): string[] | undefined {
  switch (node.kind) {
    case 'empty':
      return [''];
    case 'noMatch':
      return [];
    case 'literal': {
      if (!node.foldCase) return [stringOf(node.codePoints)];
      let acc: string[] = [''];
      for (const cp of node.codePoints) {
        const orbit = foldOrbit(cp) ?? [cp];
        if (acc.length * orbit.length > limit) return undefined;
        const next: string[] = [];
        for (const a of acc) for (const m of orbit) next.push(a + String.fromCodePoint(m));
        acc = next;
      }
      return acc;
    }
    case 'class': {
      const size = rangesSize(node.ranges);
      if (size > MAX_CLASS_EXPANSION || size > limit) return undefined;
      const out: string[] = [];
      for (let i = 0; i < node.ranges.length; i += 2) {
        for (let cp = node.ranges[i]; cp <= node.ranges[i + 1]; cp++) out.push(String.fromCodePoint(cp));
      }
      return out;
    }
    case 'anyChar':
    case 'assert':
      return undefined;
    case 'capture':
      return exactStrings(node.sub, limit);
    case 'repeat': {
      if (node.max < 0) return undefined;
      const sub = exactStrings(node.sub, limit);
      if (sub === undefined) return undefined;
      // Every count contributes at least one string of at least k shortest copies.
      let shortest = Infinity;
      for (const s of sub) shortest = Math.min(shortest, s.length);
      if (sub.length > 0 && shortest * ((node.max * (node.max + 1) - node.min * (node.min - 1)) / 2) > MAX_LITERAL_CHARS) {
        return undefined;
      }
      // The strings of k copies extend those of k − 1 copies, so one product per count
      // suffices (building each count from scratch made `a{2,1000}` cost seconds).
      const byCount: string[][] = [];
      let acc: string[] = [''];
      let keptChars = 0;
      for (let k = 0; k <= node.max; k++) {
        if (k > 0) {
          const next = product(acc, sub, limit);
          if (next === undefined) return undefined;
          acc = next;
        }
        if (k >= node.min) {
          byCount.push(acc);
          keptChars += totalLength(acc);
          // Give up as soon as the strings kept so far are too long (counted before removing
          // duplicates, which can only make the answer more conservative).
          if (keptChars > MAX_LITERAL_CHARS) return undefined;
        }
      }
      // Greedy repetition prefers more copies; priority order matters only for documentation.
      if (node.greedy) byCount.reverse();
      const out: string[] = [];
      const seen = new Set<string>();
      let chars = 0;
      for (const strings of byCount) {
        for (const s of strings) {
          if (!seen.has(s)) {
            seen.add(s);
            out.push(s);
            chars += s.length;
            if (out.length > limit || chars > MAX_LITERAL_CHARS) return undefined;
          }
        }
      }
      return out;
    }
    case 'concat': {
      let acc: string[] | undefined = [''];
      for (const sub of node.subs) {
        const strings = exactStrings(sub, limit);
        if (strings === undefined) return undefined;
        acc = product(acc, strings, limit);
        if (acc === undefined) return undefined;
      }
      return acc;
    }
    case 'alternate': {
      const out: string[] = [];
      const seen = new Set<string>();
      let chars = 0;
      for (const sub of node.subs) {
        const strings = exactStrings(sub, limit);
        if (strings === undefined) return undefined;
        for (const s of strings) {
          if (!seen.has(s)) {
            seen.add(s);
            out.push(s);
            chars += s.length;
          }
        }
        if (out.length > limit || chars > MAX_LITERAL_CHARS) return undefined;
      }
      return out;
    }
  }
}

/** product concatenates every string of `a` with every string of `b`, up to `limit` results. */
function product(a: readonly string[], b: readonly string[], limit: number): string[] | undefined {
  if (a.length * b.length > limit) return undefined;
  if (totalLength(a) * b.length + totalLength(b) * a.length > MAX_LITERAL_CHARS) return undefined;
  const out: string[] = [];
  const seen = new Set<string>();
  for (const x of a) {
    for (const y of b) {
      const s = x + y;
      if (!seen.has(s)) {
        seen.add(s);
        out.push(s);
      }
    }
  }
  return out;
}

function totalLength(strings: readonly string[]): number {
  let n = 0;
  for (const s of strings) n += s.length;
  return n;
}

/**
 * stripEdgeAnchors removes a leading `^`/`\A` and a trailing `$`/`\z` (per alternative, through
 * groups). Under full-string matching they always hold, so the remaining tree describes the
 * same set of fully matched strings. Anchors anywhere else are left in place.
 */
export function stripEdgeAnchors(node: RegexNode): RegexNode {
  return stripEnd(stripBegin(node));
}

function isBeginAnchor(node: RegexNode): boolean {
  return node.kind === 'assert' && (node.assertion === 'beginText' || node.assertion === 'beginLine');
}

function isEndAnchor(node: RegexNode): boolean {
  return node.kind === 'assert' && (node.assertion === 'endText' || node.assertion === 'endLine');
}

function stripBegin(node: RegexNode): RegexNode {
  if (isBeginAnchor(node)) return { kind: 'empty', pos: node.pos };
  switch (node.kind) {
    case 'concat': {
      let i = 0;
      while (i < node.subs.length && isBeginAnchor(node.subs[i])) i++;
      if (i === node.subs.length) return { kind: 'empty', pos: node.pos };
      const subs = node.subs.slice(i);
      subs[0] = stripBegin(subs[0]);
      return subs.length === 1 ? subs[0] : { ...node, subs };
    }
    case 'alternate':
      return { ...node, subs: node.subs.map(stripBegin) };
    case 'capture':
      return { ...node, sub: stripBegin(node.sub) };
    default:
      return node;
  }
}

function stripEnd(node: RegexNode): RegexNode {
  if (isEndAnchor(node)) return { kind: 'empty', pos: node.pos };
  switch (node.kind) {
    case 'concat': {
      let j = node.subs.length;
      while (j > 0 && isEndAnchor(node.subs[j - 1])) j--;
      if (j === 0) return { kind: 'empty', pos: node.pos };
      const subs = node.subs.slice(0, j);
      subs[j - 1] = stripEnd(subs[j - 1]);
      return subs.length === 1 ? subs[0] : { ...node, subs };
    }
    case 'alternate':
      return { ...node, subs: node.subs.map(stripEnd) };
    case 'capture':
      return { ...node, sub: stripEnd(node.sub) };
    default:
      return node;
  }
}

/**
 * PrefixInfo: every string the node matches starts with `prefix`; `complete` means the node
 * matches exactly `prefix` and nothing else; `consumesPrefix` means every match of the node
 * consumes exactly `prefix` (possibly with zero-width checks), so a following node's prefix
 * may be appended.
 */
interface PrefixInfo {
  prefix: string;
  complete: boolean;
  consumesPrefix: boolean;
}

/** prefixInfo computes the case-sensitive literal prefix of a node; see PrefixInfo. */
export function prefixInfo(node: RegexNode): PrefixInfo {
  switch (node.kind) {
    case 'empty':
      return { prefix: '', complete: true, consumesPrefix: true };
    case 'literal': {
      if (node.foldCase) return { prefix: '', complete: false, consumesPrefix: false };
      const cut = node.codePoints.findIndex((cp) => cp >= 0xd800 && cp <= 0xdfff);
      if (cut >= 0) return { prefix: stringOf(node.codePoints.slice(0, cut)), complete: false, consumesPrefix: false };
      return { prefix: stringOf(node.codePoints), complete: true, consumesPrefix: true };
    }
    case 'class':
      if (node.ranges.length === 2 && node.ranges[0] === node.ranges[1] && !hasSurrogate([node.ranges[0]])) {
        return { prefix: String.fromCodePoint(node.ranges[0]), complete: true, consumesPrefix: true };
      }
      return { prefix: '', complete: false, consumesPrefix: false };
    case 'assert':
      return { prefix: '', complete: false, consumesPrefix: true };
    case 'capture':
      return prefixInfo(node.sub);
    case 'repeat': {
      if (node.min === 0) return { prefix: '', complete: false, consumesPrefix: false };
      const sub = prefixInfo(node.sub);
      if (node.min === node.max && sub.consumesPrefix) {
        return { prefix: sub.prefix.repeat(node.min), complete: sub.complete, consumesPrefix: true };
      }
      return { prefix: sub.prefix, complete: false, consumesPrefix: false };
    }
    case 'concat': {
      let prefix = '';
      let complete = true;
      for (const sub of node.subs) {
        const p = prefixInfo(sub);
        prefix += p.prefix;
        complete = complete && p.complete;
        if (!p.consumesPrefix) return { prefix, complete: false, consumesPrefix: false };
      }
      return { prefix, complete, consumesPrefix: true };
    }
    case 'alternate': {
      const infos = node.subs.map(prefixInfo);
      let common = infos[0].prefix;
      for (const p of infos) {
        let k = 0;
        while (k < common.length && k < p.prefix.length && common.charCodeAt(k) === p.prefix.charCodeAt(k)) k++;
        common = common.slice(0, k);
      }
      // Do not split a surrogate pair.
      const last = common.charCodeAt(common.length - 1);
      if (last >= 0xd800 && last <= 0xdbff) common = common.slice(0, -1);
      const allSame = infos.every((p) => p.complete && p.prefix === common);
      return { prefix: common, complete: allSame, consumesPrefix: allSame };
    }
    default:
      return { prefix: '', complete: false, consumesPrefix: false };
  }
}

/**
 * stripNullableEdges reduces a pattern used for an unanchored match/no-match test to a core
 * that matches somewhere iff the pattern does. Leading and trailing parts that may match empty
 * (`.*`, `x?`, `(a|b)*`) are removed, and a repetition at either edge keeps only its required
 * copies (`a{2,1000}` tests as `aa`, `x+` as `x`): `x{n,m}` is `x{n}` followed (or preceded)
 * by `x{0,m-n}`, which may match empty, so any match of the whole contains a match of the core.
 */
export function stripNullableEdges(node: RegexNode): RegexNode {
  if (node.kind === 'capture') return stripNullableEdges(node.sub);
  if (node.kind === 'repeat') {
    if (node.min === 0) return { kind: 'empty', pos: node.pos };
    return node.min === 1 ? stripNullableEdges(node.sub) : requiredCopies(node);
  }
  if (node.kind !== 'concat') return node;
  let i = 0;
  let j = node.subs.length;
  const strippable = (n: RegexNode): boolean => n.kind === 'empty' || (n.kind === 'repeat' && n.min === 0);
  while (i < j && strippable(node.subs[i])) i++;
  while (j > i && strippable(node.subs[j - 1])) j--;
  if (i === j) return { kind: 'empty', pos: node.pos };
  if (j - i === 1) return stripNullableEdges(node.subs[i]);
  const subs = node.subs.slice(i, j);
  subs[0] = edgeCore(subs[0]);
  subs[subs.length - 1] = edgeCore(subs[subs.length - 1]);
  if (i === 0 && j === node.subs.length && subs[0] === node.subs[0] && subs[subs.length - 1] === node.subs[j - 1]) return node;
  return { ...node, subs };
}

/** edgeCore unwraps groups around a concatenation's edge and keeps a repetition's required copies. */
function edgeCore(node: RegexNode): RegexNode {
  let n = node;
  while (n.kind === 'capture') n = n.sub;
  return n.kind === 'repeat' && n.min > 0 ? requiredCopies(n) : node;
}

/** requiredCopies turns `x{n,m}` (n >= 1, m >= n or unbounded) into `x{n}`, and `x{1}` into `x`. */
function requiredCopies(node: RegexNode & { kind: 'repeat' }): RegexNode {
  if (node.min === 1) return node.sub;
  const sub = node.sub;
  // Copies of a literal are one literal, which a substring search can look for.
  if (sub.kind === 'literal') {
    const codePoints: number[] = [];
    for (let k = 0; k < node.min; k++) for (const cp of sub.codePoints) codePoints.push(cp);
    return { kind: 'literal', codePoints, foldCase: sub.foldCase, pos: node.pos };
  }
  if (node.max === node.min) return node;
  return { ...node, max: node.min };
}

/** GlobPiece is one part of a pattern of literals joined by `.*`. */
export type GlobPiece = { kind: 'literal'; text: string } | { kind: 'gap'; matchNewline: boolean };

/**
 * globPieces recognizes a concatenation of case-sensitive literals and `.*` gaps (greedy or
 * not — irrelevant for match/no-match), returning undefined for anything else.
 */
export function globPieces(node: RegexNode): GlobPiece[] | undefined {
  const items = node.kind === 'concat' ? node.subs : [node];
  const out: GlobPiece[] = [];
  for (const item of items) {
    let n = item;
    while (n.kind === 'capture') n = n.sub;
    if (n.kind === 'literal' && !n.foldCase && !hasSurrogate(n.codePoints)) {
      const text = stringOf(n.codePoints);
      const prev = out[out.length - 1];
      if (prev !== undefined && prev.kind === 'literal') prev.text += text;
      else out.push({ kind: 'literal', text });
    } else if (n.kind === 'class' && n.ranges.length === 2 && n.ranges[0] === n.ranges[1] && !hasSurrogate([n.ranges[0]])) {
      const text = String.fromCodePoint(n.ranges[0]);
      const prev = out[out.length - 1];
      if (prev !== undefined && prev.kind === 'literal') prev.text += text;
      else out.push({ kind: 'literal', text });
    } else if (n.kind === 'repeat' && n.min === 0 && n.max === -1 && n.sub.kind === 'anyChar') {
      const prev = out[out.length - 1];
      const matchNewline = n.sub.matchNewline;
      if (prev !== undefined && prev.kind === 'gap') prev.matchNewline = prev.matchNewline || matchNewline;
      else out.push({ kind: 'gap', matchNewline });
    } else if (n.kind === 'empty') {
      continue;
    } else {
      return undefined;
    }
  }
  return out;
}

/** foldedLiteral returns the code points of a pattern that is one case-insensitive literal. */
export function foldedLiteral(node: RegexNode): number[] | undefined {
  let n = node;
  while (n.kind === 'capture') n = n.sub;
  if (n.kind === 'literal') return n.codePoints;
  if (n.kind !== 'concat') return undefined;
  const out: number[] = [];
  for (let sub of n.subs) {
    while (sub.kind === 'capture') sub = sub.sub;
    if (sub.kind !== 'literal') return undefined;
    for (const cp of sub.codePoints) out.push(cp);
  }
  return out;
}
