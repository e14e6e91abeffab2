/**
 * The compiled form shared by the Pike VM, the backtracker and the lazy DFA: a Thompson NFA as parallel typed
 * arrays (opcode, successor, argument) so both matchers walk it without allocating.
 */

/** Instruction opcodes. */
/** OP_FAIL ends a thread (instruction 0, the target of failed fragments). */
export const OP_FAIL = 0;
/** OP_MATCH reports a match ending at the current position. */
export const OP_MATCH = 1;
/** OP_CHAR consumes one code point equal to `arg`. */
export const OP_CHAR = 2;
/** OP_CLASS consumes one code point in `classes[arg]`. */
export const OP_CLASS = 3;
/** OP_ANY consumes any code point. */
export const OP_ANY = 4;
/** OP_ANY_NOT_NL consumes any code point but `\n`. */
export const OP_ANY_NOT_NL = 5;
/** OP_SPLIT continues at `out` first and at `arg` second (the order is the match priority). */
export const OP_SPLIT = 6;
/** OP_SAVE records the current position in capture slot `arg`. */
export const OP_SAVE = 7;
/** OP_ASSERT continues only if every empty-width condition in `arg` holds here. */
export const OP_ASSERT = 8;
/** OP_NOP continues at `out`; the compiler removes the hops through it. */
export const OP_NOP = 9;

/** EMPTY_BEGIN_LINE and the other EMPTY_ bits are empty-width conditions, as bits of an
 * OP_ASSERT argument and of a position's context: `(?m)^`, `(?m)$`, `\A`, `\z`, `\b`, `\B`. */
export const EMPTY_BEGIN_LINE = 1;
/** EMPTY_END_LINE: before `\n` or at the end. */
export const EMPTY_END_LINE = 2;
/** EMPTY_BEGIN_TEXT: at offset 0. */
export const EMPTY_BEGIN_TEXT = 4;
/** EMPTY_END_TEXT: at the end. */
export const EMPTY_END_TEXT = 8;
/** EMPTY_WORD_BOUNDARY: between an ASCII word character and something else. */
export const EMPTY_WORD_BOUNDARY = 16;
/** EMPTY_NO_WORD_BOUNDARY: not at a word boundary. */
export const EMPTY_NO_WORD_BOUNDARY = 32;

/** Program is a compiled pattern; see the module comment. */
export interface Program {
  readonly op: Uint8Array;
  readonly out: Int32Array;
  readonly arg: Int32Array;
  /** classes holds the normalized ranges of each OP_CLASS instruction. */
  readonly classes: readonly Int32Array[];
  readonly start: number;
  /** numSlots is 2 × (groups + 1): a start and end slot per group, group 0 first. */
  readonly numSlots: number;
  /** anchorStart is true when every match must begin at offset 0 (`^…` without `(?m)`). */
  readonly anchorStart: boolean;
  /** assertionMask ORs the conditions used by all OP_ASSERT instructions. */
  readonly assertionMask: number;
}

/** isWordUnit reports whether a UTF-16 unit is an ASCII word character (Go's `\b` is ASCII). */
export function isWordUnit(c: number): boolean {
  return (
    (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || (c >= 0x30 && c <= 0x39) || c === 0x5f
  );
}

/**
 * emptyContext computes which empty-width conditions hold at offset `i` of `s`. Only `\n` and
 * ASCII word characters matter, so code units suffice (a surrogate is neither).
 */
export function emptyContext(s: string, i: number): number {
  let flags = 0;
  const prev = i > 0 ? s.charCodeAt(i - 1) : -1;
  const next = i < s.length ? s.charCodeAt(i) : -1;
  if (prev < 0) flags |= EMPTY_BEGIN_TEXT | EMPTY_BEGIN_LINE;
  else if (prev === 0x0a) flags |= EMPTY_BEGIN_LINE;
  if (next < 0) flags |= EMPTY_END_TEXT | EMPTY_END_LINE;
  else if (next === 0x0a) flags |= EMPTY_END_LINE;
  flags |= isWordUnit(prev) !== isWordUnit(next) ? EMPTY_WORD_BOUNDARY : EMPTY_NO_WORD_BOUNDARY;
  return flags;
}

/** classContains tests membership in a normalized Int32Array class by binary search. */
export function classContains(ranges: Int32Array, cp: number): boolean {
  let lo = 0;
  let hi = (ranges.length >> 1) - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (cp < ranges[2 * mid]) hi = mid - 1;
    else if (cp > ranges[2 * mid + 1]) lo = mid + 1;
    else return true;
  }
  return false;
}

/** instAccepts reports whether consuming instruction `pc` accepts code point `cp`. */
export function instAccepts(prog: Program, pc: number, cp: number): boolean {
  switch (prog.op[pc]) {
    case OP_CHAR:
      return prog.arg[pc] === cp;
    case OP_CLASS:
      return classContains(prog.classes[prog.arg[pc]], cp);
    case OP_ANY:
      return true;
    case OP_ANY_NOT_NL:
      return cp !== 0x0a;
    default:
      return false;
  }
}

/** isConsuming reports whether an opcode consumes a code point. */
export function isConsuming(op: number): boolean {
  return op === OP_CHAR || op === OP_CLASS || op === OP_ANY || op === OP_ANY_NOT_NL;
}
