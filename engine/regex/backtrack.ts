/**
 * A bounded backtracker for submatch extraction (Go's "bit-state" matcher): a depth-first
 * search in priority order, so the first match it reaches is the leftmost-first one, with a
 * bitmap of visited (instruction, position) pairs so that no pair is explored twice. That
 * keeps it O(input × program) like the Pike VM, while on ordinary patterns it walks straight
 * down the preferred path instead of carrying every thread along — typically several times
 * faster. The bitmap costs a bit per pair, so it is used only when that stays small.
 *
 * Why skipping a visited pair is safe: whether the search succeeds from (pc, pos) does not
 * depend on how it got there, and the first visit came along a higher-priority path; if that
 * visit failed, every later one fails too. The bitmap is therefore kept across start positions.
 */
import {
  OP_ANY,
  OP_ANY_NOT_NL,
  OP_ASSERT,
  OP_CHAR,
  OP_CLASS,
  OP_MATCH,
  OP_NOP,
  OP_SAVE,
  OP_SPLIT,
  classContains,
  emptyContext,
  type Program,
} from './program.js';

/** MAX_VISITED_BITS bounds the bitmap (4 MB); larger inputs go to the Pike VM. */
export const MAX_VISITED_BITS = 32 * 1024 * 1024;

/** Job kinds on the explicit stack. */
const JOB_EXPLORE = 0;
const JOB_RESTORE = 1;

/** Backtracker runs one program; like PikeVM it owns its scratch and is not reentrant. */
export class Backtracker {
  private readonly prog: Program;
  private readonly slots: number;
  private visited = new Uint32Array(0);
  /** Words of `visited` the previous search may have set; only those are cleared. */
  private dirty = 0;
  /** Largest position the current search has reached. */
  private reach = 0;
  private jobs = new Int32Array(3 * 256);
  private readonly caps: Int32Array;

  constructor(prog: Program, slots: number) {
    this.prog = prog;
    this.slots = Math.max(2, Math.min(slots, prog.numSlots));
    this.caps = new Int32Array(this.slots);
  }

  /** fits reports whether searching `length - from` characters stays within the bitmap budget. */
  fits(length: number, from: number): boolean {
    return (length - from + 1) * this.prog.op.length <= MAX_VISITED_BITS;
  }

  private pushJob(sp: number, kind: number, a: number, b: number): number {
    if (sp + 3 > this.jobs.length) {
      const grown = new Int32Array(this.jobs.length * 2);
      grown.set(this.jobs);
      this.jobs = grown;
    }
    const jobs = this.jobs;
    jobs[sp] = kind;
    jobs[sp + 1] = a;
    jobs[sp + 2] = b;
    return sp + 3;
  }

  /**
   * search finds the leftmost-first match at or after `from`, writing capture slots into
   * `result` (-1 for unset); see PikeVM.search for `prefix`.
   */
  search(s: string, from: number, result: Int32Array, prefix: string): boolean {
    const prog = this.prog;
    const numInst = prog.op.length;
    const words = Math.ceil(((s.length - from + 1) * numInst) / 32);
    if (this.visited.length < words) this.visited = new Uint32Array(Math.max(words, 2 * this.visited.length));
    else this.visited.fill(0, 0, Math.min(this.dirty, this.visited.length));
    this.reach = from;
    const found = this.searchFrom(s, from, result, prefix);
    // The bitmap is position-major, so everything touched lies below the furthest position.
    this.dirty = Math.ceil(((this.reach - from + 1) * numInst) / 32);
    return found;
  }

  private searchFrom(s: string, from: number, result: Int32Array, prefix: string): boolean {
    if (this.prog.anchorStart) return from === 0 && this.tryAt(s, from, 0, result);
    for (let start = from; start <= s.length; ) {
      if (prefix.length > 0) {
        const at = s.indexOf(prefix, start);
        if (at < 0) return false;
        start = at;
      }
      if (this.tryAt(s, from, start, result)) return true;
      if (start < s.length) {
        const c = s.charCodeAt(start);
        start += c >= 0xd800 && c <= 0xdbff && start + 1 < s.length && (s.charCodeAt(start + 1) & 0xfc00) === 0xdc00 ? 2 : 1;
      } else {
        start++;
      }
    }
    return false;
  }

  /** tryAt runs the depth-first search from one start position. */
  private tryAt(s: string, from: number, start: number, result: Int32Array): boolean {
    const { op, out, arg, classes } = this.prog;
    const slots = this.slots;
    const caps = this.caps;
    const visited = this.visited;
    const n = s.length;
    const numInst = op.length;
    let reach = this.reach > start ? this.reach : start;
    caps.fill(-1);
    caps[0] = start;
    let sp = this.pushJob(0, JOB_EXPLORE, this.prog.start, start);
    while (sp > 0) {
      sp -= 3;
      const jobs = this.jobs;
      const kind = jobs[sp];
      let pc = jobs[sp + 1];
      let pos = jobs[sp + 2];
      if (kind === JOB_RESTORE) {
        caps[pc] = pos;
        continue;
      }
      for (;;) {
        const bit = (pos - from) * numInst + pc;
        const word = bit >>> 5;
        const mask = 1 << (bit & 31);
        if (visited[word] & mask) break;
        visited[word] |= mask;
        const code = op[pc];
        if (code === OP_SPLIT) {
          sp = this.pushJob(sp, JOB_EXPLORE, arg[pc], pos);
          pc = out[pc];
          continue;
        }
        if (code === OP_CHAR || code === OP_CLASS || code === OP_ANY || code === OP_ANY_NOT_NL) {
          if (pos >= n) break;
          let cp = s.charCodeAt(pos);
          let w = 1;
          if (cp >= 0xd800 && cp <= 0xdbff && pos + 1 < n) {
            const lo = s.charCodeAt(pos + 1);
            if (lo >= 0xdc00 && lo <= 0xdfff) {
              cp = ((cp - 0xd800) << 10) + (lo - 0xdc00) + 0x10000;
              w = 2;
            }
          }
          const ok =
            code === OP_CHAR ? cp === arg[pc] :
            code === OP_CLASS ? classContains(classes[arg[pc]], cp) :
            code === OP_ANY || cp !== 0x0a;
          if (!ok) break;
          pos += w;
          if (pos > reach) reach = pos;
          pc = out[pc];
          continue;
        }
        if (code === OP_SAVE) {
          const slot = arg[pc];
          if (slot < slots) {
            sp = this.pushJob(sp, JOB_RESTORE, slot, caps[slot]);
            caps[slot] = pos;
          }
          pc = out[pc];
          continue;
        }
        if (code === OP_ASSERT) {
          if ((arg[pc] & ~emptyContext(s, pos)) !== 0) break;
          pc = out[pc];
          continue;
        }
        if (code === OP_NOP) {
          pc = out[pc];
          continue;
        }
        if (code === OP_MATCH) {
          for (let k = 0; k < result.length && k < slots; k++) result[k] = caps[k];
          result[1] = pos;
          this.reach = reach;
          return true;
        }
        break; // OP_FAIL
      }
    }
    this.reach = reach;
    return false;
  }
}
