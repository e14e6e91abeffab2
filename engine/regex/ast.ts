/**
 * The regular-expression syntax tree. It is deliberately small — the same operator set as Go's
 * regexp/syntax after parsing — so the compiler, the literal analysis and the JavaScript
 * translation each switch over ten kinds. Flags such as `(?i)` and `(?s)` are already applied:
 * a case-insensitive class is stored folded, `.` knows whether it matches `\n`, `^`/`$` know
 * whether they are line or text anchors.
 */
import type { PositionRange } from '../errors.js';

/** AssertionKind names the zero-width assertions RE2 supports. */
export type AssertionKind =
  | 'beginLine'
  | 'endLine'
  | 'beginText'
  | 'endText'
  | 'wordBoundary'
  | 'noWordBoundary';

/** EmptyNode matches the empty string. */
export interface EmptyNode {
  kind: 'empty';
  pos: PositionRange;
}

/** NoMatchNode matches nothing (an empty class such as `[^\x00-\x{10FFFF}]`). */
export interface NoMatchNode {
  kind: 'noMatch';
  pos: PositionRange;
}

/**
 * LiteralNode matches a fixed sequence of code points; with `foldCase` each code point also
 * matches the members of its simple case-folding orbit.
 */
export interface LiteralNode {
  kind: 'literal';
  codePoints: number[];
  foldCase: boolean;
  pos: PositionRange;
}

/** ClassNode matches one code point from a normalized range list (see charclass.ts). */
export interface ClassNode {
  kind: 'class';
  ranges: number[];
  pos: PositionRange;
}

/** AnyCharNode is `.`; `matchNewline` is true under the `s` flag. */
export interface AnyCharNode {
  kind: 'anyChar';
  matchNewline: boolean;
  pos: PositionRange;
}

/** AssertNode is a zero-width assertion: `^ $ \A \z \b \B`. */
export interface AssertNode {
  kind: 'assert';
  assertion: AssertionKind;
  pos: PositionRange;
}

/** CaptureNode is a capturing group; `index` counts opening parentheses from 1. */
export interface CaptureNode {
  kind: 'capture';
  index: number;
  name: string | undefined;
  sub: RegexNode;
  pos: PositionRange;
}

/**
 * RepeatNode covers `* + ? {n} {n,} {n,m}`: `max` is -1 when unbounded. `counted` marks the
 * brace form, which alone is subject to Go's repeat-count limit.
 */
export interface RepeatNode {
  kind: 'repeat';
  min: number;
  max: number;
  greedy: boolean;
  counted: boolean;
  sub: RegexNode;
  pos: PositionRange;
}

/** ConcatNode matches its parts in sequence. */
export interface ConcatNode {
  kind: 'concat';
  subs: RegexNode[];
  pos: PositionRange;
}

/** AlternateNode matches the first alternative that leads to a match (leftmost-first). */
export interface AlternateNode {
  kind: 'alternate';
  subs: RegexNode[];
  pos: PositionRange;
}

/** RegexNode is any node of the tree; switch on `kind`. */
export type RegexNode =
  | EmptyNode
  | NoMatchNode
  | LiteralNode
  | ClassNode
  | AnyCharNode
  | AssertNode
  | CaptureNode
  | RepeatNode
  | ConcatNode
  | AlternateNode;

/** ParsedRegex is the parser's result: the tree plus the capture-group table. */
export interface ParsedRegex {
  root: RegexNode;
  /** numGroups counts capturing groups, not including the implicit group 0. */
  numGroups: number;
  /** groupNames has numGroups + 1 entries; entry 0 and unnamed groups are undefined. */
  groupNames: (string | undefined)[];
}
