/**
 * Compilation of a syntax tree to a Program (Thompson construction, as Go's regexp/syntax
 * compiles). Counted repetitions are expanded here (within the budget size.ts sets at parse time) (`x{2,4}` = `xx(x(x)?)?`), case-folded
 * literals become classes of their folding orbits, and no-op instructions are short-circuited
 * so the matchers never step through them.
 */
import type { RegexNode } from './ast.js';
import { ANY_NOT_NL_RANGES, MAX_RUNE, foldRanges, rangesEqual } from './charclass.js';
import { foldOrbit } from './casefold.js';
import { RegexSyntaxError } from './errors.js';
import { COMPILE_ALLOWANCE, MAX_PROGRAM_SIZE } from './size.js';
import {
  EMPTY_BEGIN_LINE,
  EMPTY_BEGIN_TEXT,
  EMPTY_END_LINE,
  EMPTY_END_TEXT,
  EMPTY_NO_WORD_BOUNDARY,
  EMPTY_WORD_BOUNDARY,
  OP_ANY,
  OP_ANY_NOT_NL,
  OP_ASSERT,
  OP_CHAR,
  OP_CLASS,
  OP_FAIL,
  OP_MATCH,
  OP_NOP,
  OP_SAVE,
  OP_SPLIT,
  type Program,
} from './program.js';

const ASSERTION_BITS: Readonly<Record<string, number>> = {
  beginLine: EMPTY_BEGIN_LINE,
  endLine: EMPTY_END_LINE,
  beginText: EMPTY_BEGIN_TEXT,
  endText: EMPTY_END_TEXT,
  wordBoundary: EMPTY_WORD_BOUNDARY,
  noWordBoundary: EMPTY_NO_WORD_BOUNDARY,
};

/**
 * Frag is a compiled fragment: its entry instruction and the list of dangling exits still to
 * be patched. The list is threaded through the unpatched `out`/`arg` fields themselves (entry
 * = instruction × 2 + field, 0 = end), so appending two lists is O(1) with the tail kept.
 * Entry 0 (instruction 0 is the FAIL instruction) denotes a fragment that never matches.
 */
interface Frag {
  start: number;
  head: number;
  tail: number;
  nullable: boolean;
}

const FAIL_FRAG: Frag = { start: 0, head: 0, tail: 0, nullable: false };

class Compiler {
  private readonly op: number[] = [];
  private readonly out: number[] = [];
  private readonly arg: number[] = [];
  private readonly classes: Int32Array[] = [];
  private readonly classIndex = new Map<string, number>();
  /** Class index by range-list identity: repeated copies of one class node share an entry. */
  private readonly classByArray = new Map<readonly number[], number>();
  assertionMask = 0;

  constructor(private readonly pattern: string) {
    this.emit(OP_FAIL, 0);
  }

  private emit(op: number, arg: number): number {
    const pc = this.op.length;
    // parseRegex has already enforced the budget; this guards the compiler's own arithmetic.
    if (pc >= MAX_PROGRAM_SIZE + COMPILE_ALLOWANCE) throw new RegexSyntaxError('expression too large', this.pattern, 0);
    this.op.push(op);
    this.out.push(0);
    this.arg.push(arg);
    return pc;
  }

  private next(entry: number): number {
    return entry & 1 ? this.arg[entry >> 1] : this.out[entry >> 1];
  }

  private set(entry: number, value: number): void {
    if (entry & 1) this.arg[entry >> 1] = value;
    else this.out[entry >> 1] = value;
  }

  patch(head: number, target: number): void {
    for (let l = head; l !== 0; ) {
      const n = this.next(l);
      this.set(l, target);
      l = n;
    }
  }

  private single(pc: number, field: 0 | 1, nullable: boolean): Frag {
    const entry = pc * 2 + field;
    return { start: pc, head: entry, tail: entry, nullable };
  }

  private appendLists(a: Frag, b: Frag): { head: number; tail: number } {
    if (a.head === 0) return { head: b.head, tail: b.tail };
    if (b.head === 0) return { head: a.head, tail: a.tail };
    this.set(a.tail, b.head);
    return { head: a.head, tail: b.tail };
  }

  private nop(): Frag {
    return this.single(this.emit(OP_NOP, 0), 0, true);
  }

  private cat(a: Frag, b: Frag): Frag {
    if (a.start === 0 || b.start === 0) return FAIL_FRAG;
    this.patch(a.head, b.start);
    return { start: a.start, head: b.head, tail: b.tail, nullable: a.nullable && b.nullable };
  }

  private alt(a: Frag, b: Frag): Frag {
    if (a.start === 0) return b;
    if (b.start === 0) return a;
    const pc = this.emit(OP_SPLIT, b.start);
    this.out[pc] = a.start;
    const list = this.appendLists(a, b);
    return { start: pc, head: list.head, tail: list.tail, nullable: a.nullable || b.nullable };
  }

  private quest(a: Frag, greedy: boolean): Frag {
    const pc = this.emit(OP_SPLIT, 0);
    let f: Frag;
    if (greedy) {
      this.out[pc] = a.start;
      f = this.single(pc, 1, true);
    } else {
      this.arg[pc] = a.start;
      f = this.single(pc, 0, true);
    }
    const list = this.appendLists(f, a);
    return { start: pc, head: list.head, tail: list.tail, nullable: true };
  }

  /** loop builds `a*` for a fragment that cannot match empty. */
  private loop(a: Frag, greedy: boolean): Frag {
    const pc = this.emit(OP_SPLIT, 0);
    let f: Frag;
    if (greedy) {
      this.out[pc] = a.start;
      f = this.single(pc, 1, true);
    } else {
      this.arg[pc] = a.start;
      f = this.single(pc, 0, true);
    }
    this.patch(a.head, pc);
    return f;
  }

  /**
   * star builds `a*`. When `a` can match empty, `(a+)?` is used instead so that priorities
   * come out as Go's (golang.org/issue/46123): `(|a)*` prefers the empty match.
   */
  private star(a: Frag, greedy: boolean): Frag {
    if (a.nullable) return this.quest(this.plus(a, greedy), greedy);
    return this.loop(a, greedy);
  }

  private plus(a: Frag, greedy: boolean): Frag {
    const l = this.loop(a, greedy);
    return { start: a.start, head: l.head, tail: l.tail, nullable: a.nullable };
  }

  private classFrag(ranges: readonly number[]): Frag {
    if (ranges.length === 0) return FAIL_FRAG;
    if (ranges.length === 2 && ranges[0] === ranges[1]) return this.single(this.emit(OP_CHAR, ranges[0]), 0, false);
    if (ranges.length === 2 && ranges[0] === 0 && ranges[1] === MAX_RUNE) return this.single(this.emit(OP_ANY, 0), 0, false);
    if (rangesEqual(ranges as number[], ANY_NOT_NL_RANGES as number[])) {
      return this.single(this.emit(OP_ANY_NOT_NL, 0), 0, false);
    }
    let index = this.classByArray.get(ranges);
    if (index === undefined) {
      const key = ranges.join(',');
      index = this.classIndex.get(key);
      if (index === undefined) {
        index = this.classes.length;
        this.classes.push(Int32Array.from(ranges));
        this.classIndex.set(key, index);
      }
      this.classByArray.set(ranges, index);
    }
    return this.single(this.emit(OP_CLASS, index), 0, false);
  }

  compile(node: RegexNode): Frag {
    switch (node.kind) {
      case 'empty':
        return this.nop();
      case 'noMatch':
        return FAIL_FRAG;
      case 'literal': {
        let f: Frag | undefined;
        for (const cp of node.codePoints) {
          const orbit = node.foldCase ? foldOrbit(cp) : undefined;
          const g =
            orbit === undefined
              ? this.single(this.emit(OP_CHAR, cp), 0, false)
              : this.classFrag(foldRanges([cp, cp]));
          f = f === undefined ? g : this.cat(f, g);
        }
        return f ?? this.nop();
      }
      case 'class':
        return this.classFrag(node.ranges);
      case 'anyChar':
        return this.single(this.emit(node.matchNewline ? OP_ANY : OP_ANY_NOT_NL, 0), 0, false);
      case 'assert': {
        const bits = ASSERTION_BITS[node.assertion];
        this.assertionMask |= bits;
        return this.single(this.emit(OP_ASSERT, bits), 0, true);
      }
      case 'capture': {
        const open = this.single(this.emit(OP_SAVE, 2 * node.index), 0, true);
        const body = this.compile(node.sub);
        const close = this.single(this.emit(OP_SAVE, 2 * node.index + 1), 0, true);
        return this.cat(this.cat(open, body), close);
      }
      case 'repeat':
        return this.repeat(node.sub, node.min, node.max, node.greedy);
      case 'concat': {
        let f = this.compile(node.subs[0]);
        for (let i = 1; i < node.subs.length; i++) f = this.cat(f, this.compile(node.subs[i]));
        return f;
      }
      case 'alternate': {
        let f = FAIL_FRAG;
        for (const sub of node.subs) f = this.alt(f, this.compile(sub));
        return f;
      }
    }
  }

  /** repeat expands a repetition the way Go's Simplify does before compiling. */
  private repeat(sub: RegexNode, min: number, max: number, greedy: boolean): Frag {
    if (sub.kind === 'empty' || (min === 0 && max === 0)) return this.nop();
    // `(?:a*)*` is `a*`: the operators are idempotent when greediness agrees.
    if (
      sub.kind === 'repeat' &&
      sub.greedy === greedy &&
      sub.min === min &&
      sub.max === max &&
      ((min === 0 && max === -1) || (min === 1 && max === -1) || (min === 0 && max === 1))
    ) {
      return this.compile(sub);
    }
    if (max === -1) {
      if (min === 0) return this.star(this.compile(sub), greedy);
      let f: Frag | undefined;
      for (let i = 0; i < min - 1; i++) f = f === undefined ? this.compile(sub) : this.cat(f, this.compile(sub));
      const last = this.plus(this.compile(sub), greedy);
      return f === undefined ? last : this.cat(f, last);
    }
    if (min === 1 && max === 1) return this.compile(sub);
    let prefix: Frag | undefined;
    for (let i = 0; i < min; i++) prefix = prefix === undefined ? this.compile(sub) : this.cat(prefix, this.compile(sub));
    if (max > min) {
      // Nest the optional copies, x(x(x)?)?, so that failing early prunes the rest.
      let suffix = this.quest(this.compile(sub), greedy);
      for (let i = min + 1; i < max; i++) suffix = this.quest(this.cat(this.compile(sub), suffix), greedy);
      return prefix === undefined ? suffix : this.cat(prefix, suffix);
    }
    return prefix ?? this.nop();
  }

  /** finish appends the match instruction, removes no-op hops and freezes the arrays. */
  finish(root: Frag, numGroups: number): Program {
    const match = this.emit(OP_MATCH, 0);
    this.patch(root.head, match);
    const n = this.op.length;
    const op = Uint8Array.from(this.op);
    const out = Int32Array.from(this.out);
    const arg = Int32Array.from(this.arg);
    const skipNops = (pc: number): number => {
      for (let guard = 0; op[pc] === OP_NOP && guard < n; guard++) pc = out[pc];
      return pc;
    };
    for (let pc = 0; pc < n; pc++) {
      out[pc] = skipNops(out[pc]);
      if (op[pc] === OP_SPLIT) arg[pc] = skipNops(arg[pc]);
    }
    const start = skipNops(root.start);
    return {
      op,
      out,
      arg,
      classes: this.classes,
      start,
      numSlots: 2 * (numGroups + 1),
      anchorStart: startsAnchored(op, out, arg, start),
      assertionMask: this.assertionMask,
    };
  }
}

/** startsAnchored follows the instructions every match must begin with, looking for `\A`. */
function startsAnchored(op: Uint8Array, out: Int32Array, arg: Int32Array, start: number): boolean {
  let pc = start;
  for (let guard = 0; guard < op.length; guard++) {
    switch (op[pc]) {
      case OP_ASSERT:
        if (arg[pc] & EMPTY_BEGIN_TEXT) return true;
        pc = out[pc];
        break;
      case OP_SAVE:
      case OP_NOP:
        pc = out[pc];
        break;
      default:
        return false;
    }
  }
  return false;
}

/** compileProgram compiles a parsed tree into a Program for the matchers. */
export function compileProgram(root: RegexNode, numGroups: number, pattern: string): Program {
  const c = new Compiler(pattern);
  const frag = c.compile(root);
  return c.finish(frag, numGroups);
}
