/**
 * A lazily built DFA answering "is there a match?" — the question line filters and label
 * matchers ask — at one table lookup per character. States are sets of program instructions
 * (the NFA threads alive after reading a prefix of the input), created on first use and cached
 * with their transitions in an Int32Array; a state is never built twice while the cache lives.
 *
 * Empty-width assertions are handled as RE2 does: a state keeps unresolved OP_ASSERT
 * instructions plus what it knows about the previous character (word character? newline?
 * start of text?), and resolves them when the next character — or the end of the text — is
 * seen. Building a state costs O(program size), and the cache is flushed when it grows past a
 * budget, so a search is O(input × program) in the worst case and O(input) once warm.
 *
 * Characters are first mapped to equivalence classes (code points every instruction treats
 * alike), which keeps the transition table narrow: `error|warn` needs 7 columns, not 65536.
 */
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
  OP_MATCH,
  OP_NOP,
  OP_SAVE,
  OP_SPLIT,
  instAccepts,
  isConsuming,
  isWordUnit,
  type Program,
} from './program.js';

/** Transition table sentinels; real state ids are >= 0. */
const UNKNOWN = -1;
const MATCH = -2;
const DEAD = -3;
/** Table entries at or below START_BASE encode start states; see LazyDFA.encode. */
const START_BASE = -4;

/** Bits describing the character before a state's position. */
const PREV_WORD = 1;
const PREV_LINE_START = 2;
const PREV_TEXT_START = 4;

/** Cache budget: flushing beyond this keeps memory bounded on adversarial patterns. */
const MAX_STATES = 4096;
const MAX_CACHED_INSTS = 1 << 20;

/** InputClasses maps code points to the DFA's column numbers. */
interface InputClasses {
  /** Column of each ASCII code point. */
  ascii: Int32Array;
  /** Interval starts, ascending; interval k is [bounds[k], bounds[k+1]). */
  bounds: Int32Array;
  /** Column of each interval. */
  intervalClass: Int32Array;
  /** A representative code point per column. */
  rep: Int32Array;
  count: number;
}

/** buildInputClasses partitions the code points by how every instruction treats them. */
function buildInputClasses(prog: Program): InputClasses {
  const points = new Set<number>([0]);
  const { op, arg } = prog;
  for (let pc = 0; pc < op.length; pc++) {
    if (op[pc] === OP_CHAR) {
      points.add(arg[pc]);
      points.add(arg[pc] + 1);
    } else if (op[pc] === OP_CLASS) {
      const r = prog.classes[arg[pc]];
      for (let i = 0; i < r.length; i += 2) {
        points.add(r[i]);
        points.add(r[i + 1] + 1);
      }
    } else if (op[pc] === OP_ANY_NOT_NL) {
      points.add(0x0a);
      points.add(0x0b);
    }
  }
  if (prog.assertionMask & (EMPTY_BEGIN_LINE | EMPTY_END_LINE)) {
    points.add(0x0a);
    points.add(0x0b);
  }
  if (prog.assertionMask & (EMPTY_WORD_BOUNDARY | EMPTY_NO_WORD_BOUNDARY)) {
    for (const p of [0x30, 0x3a, 0x41, 0x5b, 0x5f, 0x60, 0x61, 0x7b]) points.add(p);
  }
  const bounds = Int32Array.from([...points].filter((p) => p <= 0x10ffff)).sort();
  const consuming: number[] = [];
  for (let pc = 0; pc < op.length; pc++) if (isConsuming(op[pc])) consuming.push(pc);
  const needNl = (prog.assertionMask & (EMPTY_BEGIN_LINE | EMPTY_END_LINE)) !== 0;
  const needWord = (prog.assertionMask & (EMPTY_WORD_BOUNDARY | EMPTY_NO_WORD_BOUNDARY)) !== 0;
  const bySignature = new Map<string, number>();
  const intervalClass = new Int32Array(bounds.length);
  const reps: number[] = [];
  for (let k = 0; k < bounds.length; k++) {
    const cp = bounds[k];
    let sig = '';
    for (const pc of consuming) sig += instAccepts(prog, pc, cp) ? '1' : '0';
    if (needNl) sig += cp === 0x0a ? 'n' : '-';
    if (needWord) sig += cp < 0x80 && isWordUnit(cp) ? 'w' : '-';
    let id = bySignature.get(sig);
    if (id === undefined) {
      id = reps.length;
      reps.push(cp);
      bySignature.set(sig, id);
    }
    intervalClass[k] = id;
  }
  const ascii = new Int32Array(128);
  let k = 0;
  for (let c = 0; c < 128; c++) {
    while (k + 1 < bounds.length && bounds[k + 1] <= c) k++;
    ascii[c] = intervalClass[k];
  }
  return { ascii, bounds, intervalClass, rep: Int32Array.from(reps), count: reps.length };
}

/**
 * LazyDFA answers match/no-match for one program. Unanchored programs restart at every
 * position (an implicit `.*?` prefix); programs anchored at the start (`prog.anchorStart`) do
 * not. Not reentrant; one instance per program per thread.
 */
export class LazyDFA {
  private readonly prog: Program;
  private readonly classes: InputClasses;
  private readonly stride: number;
  private readonly eot: number;
  private readonly restart: boolean;
  /** prefix, when non-empty, begins every match; idle stretches are skipped with indexOf. */
  private readonly prefix: string;

  private trans: Int32Array;
  private stateInsts: Int32Array[] = [];
  private stateFlags: number[] = [];
  private stateHasAssert: Uint8Array;
  private stateIsStart: Uint8Array;
  private readonly ids = new Map<string, number>();
  private cachedInsts = 0;
  /** epoch counts flushes, so a caller can tell that the ids it holds went stale. */
  private epoch = 0;
  /** Start state ids by previous-character flags (-1: not interned in this epoch). */
  private readonly startIds = new Int32Array(8).fill(-1);

  private readonly startList: Int32Array;
  private readonly startKey: string;
  /** startMatches is true when the empty string at offset 0 already matches. */
  private readonly startMatches: boolean;

  // Closure scratch: a generation-stamped visited set and an explicit stack.
  private readonly mark: Uint32Array;
  private generation = 0;
  private readonly stack: Int32Array;
  private readonly collected: Int32Array;

  constructor(prog: Program, prefix: string) {
    this.prog = prog;
    this.prefix = prog.anchorStart ? '' : prefix;
    this.restart = !prog.anchorStart;
    this.classes = buildInputClasses(prog);
    this.eot = this.classes.count;
    this.stride = this.classes.count + 1;
    const n = prog.op.length;
    this.mark = new Uint32Array(n);
    this.stack = new Int32Array(2 * n + 4);
    this.collected = new Int32Array(n);
    this.trans = new Int32Array(64 * this.stride).fill(UNKNOWN);
    this.stateHasAssert = new Uint8Array(64);
    this.stateIsStart = new Uint8Array(64);
    this.startList = this.closure([prog.start], -1);
    this.startKey = this.startList.join(',');
    this.startMatches = this.hasOp(this.startList, OP_MATCH);
  }

  /**
   * closure follows empty transitions from `seeds`. With ctx < 0, assertions are kept
   * unresolved in the result; otherwise they are decided against ctx and dropped. The result
   * (consuming, match and unresolved assert instructions) is sorted: only membership matters
   * for match/no-match, and sorting merges states that differ only in thread order.
   */
  private closure(seeds: ArrayLike<number>, ctx: number): Int32Array {
    const { op, out, arg } = this.prog;
    const mark = this.mark;
    const stack = this.stack;
    const collected = this.collected;
    let gen = ++this.generation;
    if (gen === 0xffffffff) {
      mark.fill(0);
      this.generation = gen = 1;
    }
    let count = 0;
    for (let s = 0; s < seeds.length; s++) {
      let sp = 0;
      stack[sp++] = seeds[s];
      while (sp > 0) {
        const pc = stack[--sp];
        if (mark[pc] === gen) continue;
        mark[pc] = gen;
        switch (op[pc]) {
          case OP_SPLIT:
            stack[sp++] = arg[pc];
            stack[sp++] = out[pc];
            break;
          case OP_SAVE:
          case OP_NOP:
            stack[sp++] = out[pc];
            break;
          case OP_ASSERT:
            if (ctx < 0) collected[count++] = pc;
            else if ((arg[pc] & ~ctx) === 0) stack[sp++] = out[pc];
            break;
          case OP_MATCH:
          case OP_CHAR:
          case OP_CLASS:
          case OP_ANY:
          case OP_ANY_NOT_NL:
            collected[count++] = pc;
            break;
          default:
            break;
        }
      }
    }
    return collected.slice(0, count).sort();
  }

  private hasOp(list: Int32Array, opcode: number): boolean {
    const op = this.prog.op;
    for (let i = 0; i < list.length; i++) if (op[list[i]] === opcode) return true;
    return false;
  }

  /** intern returns the id of the state (list, flags), creating it if needed. */
  private intern(list: Int32Array, flags: number): number {
    const hasAssert = this.hasOp(list, OP_ASSERT);
    if (!hasAssert) flags = 0;
    const listKey = list.join(',');
    const key = `${flags}|${listKey}`;
    const known = this.ids.get(key);
    if (known !== undefined) return known;
    if (this.stateInsts.length >= MAX_STATES || this.cachedInsts > MAX_CACHED_INSTS) this.flush();
    const id = this.stateInsts.length;
    this.stateInsts.push(list);
    this.stateFlags.push(flags);
    this.cachedInsts += list.length;
    this.ids.set(key, id);
    if (id >= this.stateHasAssert.length) this.grow();
    this.stateHasAssert[id] = hasAssert ? 1 : 0;
    this.stateIsStart[id] = listKey === this.startKey ? 1 : 0;
    return id;
  }

  private grow(): void {
    const cap = this.stateHasAssert.length * 2;
    const trans = new Int32Array(cap * this.stride).fill(UNKNOWN);
    trans.set(this.trans);
    this.trans = trans;
    const a = new Uint8Array(cap);
    a.set(this.stateHasAssert);
    this.stateHasAssert = a;
    const b = new Uint8Array(cap);
    b.set(this.stateIsStart);
    this.stateIsStart = b;
  }

  /** flush empties the cache; ids handed out before are invalid afterwards. */
  private flush(): void {
    this.stateInsts = [];
    this.stateFlags = [];
    this.ids.clear();
    this.cachedInsts = 0;
    this.trans.fill(UNKNOWN);
    this.startIds.fill(-1);
    this.epoch++;
  }

  /** startState is the state at a position whose previous code unit is `prev` (-1: text start). */
  private startState(prev: number): number {
    let flags = PREV_LINE_START | PREV_TEXT_START;
    if (prev >= 0) flags = (isWordUnit(prev) ? PREV_WORD : 0) | (prev === 0x0a ? PREV_LINE_START : 0);
    const known = this.startIds[flags];
    if (known >= 0) return known;
    const id = this.intern(this.startList, flags);
    this.startIds[flags] = id;
    return id;
  }

  /** contextFor computes the empty-width conditions between a state's position and column. */
  private contextFor(flags: number, column: number): number {
    let ctx = 0;
    if (flags & PREV_TEXT_START) ctx |= EMPTY_BEGIN_TEXT;
    if (flags & PREV_LINE_START) ctx |= EMPTY_BEGIN_LINE;
    let nextWord = false;
    if (column === this.eot) {
      ctx |= EMPTY_END_TEXT | EMPTY_END_LINE;
    } else {
      const rep = this.classes.rep[column];
      if (rep === 0x0a) ctx |= EMPTY_END_LINE;
      nextWord = rep < 0x80 && isWordUnit(rep);
    }
    ctx |= ((flags & PREV_WORD) !== 0) !== nextWord ? EMPTY_WORD_BOUNDARY : EMPTY_NO_WORD_BOUNDARY;
    return ctx;
  }

  /** computeTransition builds (and caches) the successor of `state` on `column`. */
  private computeTransition(state: number, column: number): number {
    const flags = this.stateFlags[state];
    let list = this.stateInsts[state];
    if (this.stateHasAssert[state]) list = this.closure(list, this.contextFor(flags, column));
    const op = this.prog.op;
    let result: number;
    if (this.hasOp(list, OP_MATCH)) {
      result = MATCH;
    } else if (column === this.eot) {
      result = DEAD;
    } else {
      const rep = this.classes.rep[column];
      const seeds: number[] = [];
      const out = this.prog.out;
      for (let i = 0; i < list.length; i++) {
        const pc = list[i];
        if (op[pc] !== OP_MATCH && op[pc] !== OP_ASSERT && instAccepts(this.prog, pc, rep)) seeds.push(out[pc]);
      }
      if (this.restart) seeds.push(this.prog.start);
      const next = this.closure(seeds, -1);
      if (next.length === 0) {
        result = DEAD;
      } else if (this.hasOp(next, OP_MATCH)) {
        result = MATCH;
      } else {
        const nextFlags = (rep < 0x80 && isWordUnit(rep) ? PREV_WORD : 0) | (rep === 0x0a ? PREV_LINE_START : 0);
        const epoch = this.epoch;
        result = this.intern(next, nextFlags);
        // A flush inside intern invalidated `state`; the edge cannot be cached then.
        if (this.epoch !== epoch) return result;
      }
    }
    this.trans[state * this.stride + column] = this.encode(result);
    return result;
  }

  /** columnOf maps a non-ASCII code point to its column by binary search over intervals. */
  private columnOf(cp: number): number {
    const bounds = this.classes.bounds;
    let lo = 0;
    let hi = bounds.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (bounds[mid] <= cp) lo = mid;
      else hi = mid - 1;
    }
    return this.classes.intervalClass[lo];
  }

  /**
   * encode turns a transition result into its table entry: a state's row offset (id × stride,
   * saving a multiply per character), a sentinel, or — for start states when indexOf skipping
   * is on — a negative value below the sentinels, so the hot loop leaves for the skip with the
   * single `< 0` test it already makes.
   */
  private encode(result: number): number {
    if (result < 0) return result;
    const row = result * this.stride;
    return this.prefix.length > 0 && this.stateIsStart[result] === 1 ? START_BASE - row : row;
  }

  /** test reports whether the program matches anywhere in `s` (or at its start, if anchored). */
  test(s: string): boolean {
    if (this.startMatches) return true;
    const n = s.length;
    const stride = this.stride;
    const ascii = this.classes.ascii;
    const prefix = this.prefix;
    let trans = this.trans;
    let row = this.startState(-1) * stride;
    let atStart = prefix.length > 0;
    let i = 0;
    for (;;) {
      if (atStart) {
        const at = s.indexOf(prefix, i);
        if (at < 0) return false;
        if (at > i) {
          i = at;
          row = this.startState(s.charCodeAt(i - 1)) * stride;
          trans = this.trans;
        }
        atStart = false;
      }
      // Hot loop: ASCII characters over cached transitions.
      while (i < n) {
        const c = s.charCodeAt(i);
        if (c >= 0x80) break;
        const next = trans[row + ascii[c]];
        if (next < 0) break;
        row = next;
        i++;
      }
      if (i >= n) break;
      // One character the hot loop could not take: non-ASCII, uncached, final or a start state.
      let c = s.charCodeAt(i++);
      let column: number;
      if (c < 0x80) {
        column = ascii[c];
      } else {
        if (c >= 0xd800 && c <= 0xdbff && i < n) {
          const lo = s.charCodeAt(i);
          if (lo >= 0xdc00 && lo <= 0xdfff) {
            c = ((c - 0xd800) << 10) + (lo - 0xdc00) + 0x10000;
            i++;
          }
        }
        column = this.columnOf(c);
      }
      let next = trans[row + column];
      if (next === UNKNOWN) {
        next = this.encode(this.computeTransition(row / stride, column));
        trans = this.trans;
      }
      if (next === MATCH) return true;
      if (next === DEAD) return false;
      if (next <= START_BASE) {
        row = START_BASE - next;
        atStart = true;
      } else {
        row = next;
      }
    }
    let last = trans[row + this.eot];
    if (last === UNKNOWN) last = this.computeTransition(row / stride, this.eot);
    return last === MATCH;
  }
}
