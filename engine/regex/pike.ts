/**
 * The Pike VM: a breadth-first simulation of the program over the input that carries capture
 * positions per thread. Every instruction is on a thread list at most once per position, so a
 * search costs O(input length × program size) whatever the pattern — no backtracking. Threads
 * are kept in priority order, which yields Go's leftmost-first submatches.
 *
 * Thread lists are sparse sets over typed arrays, allocated once per program and reused, so a
 * match allocates only its result.
 */
import {
  OP_ANY,
  OP_ANY_NOT_NL,
  OP_ASSERT,
  OP_CHAR,
  OP_CLASS,
  OP_MATCH,
  OP_SAVE,
  OP_SPLIT,
  classContains,
  emptyContext,
  type Program,
} from './program.js';

/** ThreadList is a sparse set of instructions, in priority order, each with capture slots. */
class ThreadList {
  readonly sparse: Int32Array;
  readonly dense: Int32Array;
  readonly caps: Int32Array;
  size = 0;

  constructor(numInst: number, slots: number) {
    this.sparse = new Int32Array(numInst);
    this.dense = new Int32Array(numInst);
    this.caps = new Int32Array(Math.max(1, numInst * slots));
  }

  has(pc: number): boolean {
    const j = this.sparse[pc];
    return j < this.size && this.dense[j] === pc;
  }
}

/** Stack entries at or above RESTORE mark a capture slot to restore, not a pc to explore. */
const RESTORE = 1 << 30;

/**
 * PikeVM runs one program. It is not reentrant (it owns its scratch buffers), which is fine
 * on a worker thread where one match runs at a time.
 */
export class PikeVM {
  private readonly prog: Program;
  private readonly slots: number;
  private clist: ThreadList;
  private nlist: ThreadList;
  private readonly scratch: Int32Array;
  private readonly stack: Int32Array;
  private readonly needContext: boolean;

  /**
   * @param slots how many capture slots to track (2 = whole match only); fewer slots make the
   *   simulation cheaper when groups are not needed.
   */
  constructor(prog: Program, slots: number) {
    this.prog = prog;
    this.slots = Math.min(slots, prog.numSlots);
    const n = prog.op.length;
    this.clist = new ThreadList(n, this.slots);
    this.nlist = new ThreadList(n, this.slots);
    this.scratch = new Int32Array(Math.max(2, this.slots));
    // Each instruction is explored once per closure and each SAVE adds one restore frame.
    this.stack = new Int32Array(4 * n + 8);
    this.needContext = prog.assertionMask !== 0;
  }

  /**
   * addThread follows empty transitions from `pc` at position `pos`, appending each reached
   * instruction to `q` in priority order; consuming and match instructions get a copy of the
   * capture slots in effect along the path that reached them.
   */
  private addThread(q: ThreadList, pc0: number, pos: number, ctx: number): void {
    const { op, out, arg } = this.prog;
    const caps = this.scratch;
    const slots = this.slots;
    const stack = this.stack;
    let sp = 0;
    stack[sp++] = pc0;
    while (sp > 0) {
      const top = stack[--sp];
      if (top >= RESTORE) {
        caps[top - RESTORE] = stack[--sp];
        continue;
      }
      const pc = top;
      if (q.has(pc)) continue;
      const j = q.size++;
      q.sparse[pc] = j;
      q.dense[j] = pc;
      switch (op[pc]) {
        case OP_SPLIT:
          stack[sp++] = arg[pc];
          stack[sp++] = out[pc];
          break;
        case OP_SAVE: {
          const slot = arg[pc];
          if (slot < slots) {
            stack[sp++] = caps[slot];
            stack[sp++] = RESTORE + slot;
            caps[slot] = pos;
          }
          stack[sp++] = out[pc];
          break;
        }
        case OP_ASSERT:
          if ((arg[pc] & ~ctx) === 0) stack[sp++] = out[pc];
          break;
        case OP_MATCH:
        case OP_CHAR:
        case OP_CLASS:
        case OP_ANY:
        case OP_ANY_NOT_NL:
          for (let k = 0, base = j * slots; k < slots; k++) q.caps[base + k] = caps[k];
          break;
        default:
          break; // FAIL
      }
    }
  }

  /**
   * search finds the leftmost-first match starting at or after `from` and writes its capture
   * slots (offsets, -1 for groups that did not participate) into `result`. When `prefix` is
   * non-empty every match must begin with it, so idle stretches are skipped with indexOf.
   */
  search(s: string, from: number, result: Int32Array, prefix: string): boolean {
    const prog = this.prog;
    const { op, out, arg, classes } = prog;
    const slots = this.slots;
    const n = s.length;
    const needContext = this.needContext;
    let clist = this.clist;
    let nlist = this.nlist;
    clist.size = 0;
    nlist.size = 0;
    let matched = false;
    let pos = from;
    if (prog.anchorStart && pos !== 0) return false;

    for (;;) {
      if (clist.size === 0) {
        if (matched) break;
        if (prog.anchorStart && pos !== 0) break;
        if (prefix.length > 0) {
          const at = s.indexOf(prefix, pos);
          if (at < 0) break;
          pos = at;
        }
      }
      if (!matched && (pos === 0 || !prog.anchorStart)) {
        const scratch = this.scratch;
        scratch.fill(-1);
        scratch[0] = pos;
        this.addThread(clist, prog.start, pos, needContext ? emptyContext(s, pos) : 0);
      }
      // Decode the code point at pos.
      let cp = -1;
      let width = 0;
      if (pos < n) {
        cp = s.charCodeAt(pos);
        width = 1;
        if (cp >= 0xd800 && cp <= 0xdbff && pos + 1 < n) {
          const lo = s.charCodeAt(pos + 1);
          if (lo >= 0xdc00 && lo <= 0xdfff) {
            cp = ((cp - 0xd800) << 10) + (lo - 0xdc00) + 0x10000;
            width = 2;
          }
        }
      }
      const nextPos = pos + width;
      const nextCtx = needContext && width > 0 ? emptyContext(s, nextPos) : 0;
      const dense = clist.dense;
      for (let j = 0; j < clist.size; j++) {
        const pc = dense[j];
        let ok = false;
        switch (op[pc]) {
          case OP_MATCH: {
            const base = j * slots;
            for (let k = 0; k < slots; k++) result[k] = clist.caps[base + k];
            result[1] = pos;
            matched = true;
            // Leftmost-first: lower-priority threads are cut off.
            j = clist.size;
            continue;
          }
          case OP_CHAR:
            ok = cp === arg[pc];
            break;
          case OP_CLASS:
            ok = cp >= 0 && classContains(classes[arg[pc]], cp);
            break;
          case OP_ANY:
            ok = cp >= 0;
            break;
          case OP_ANY_NOT_NL:
            ok = cp >= 0 && cp !== 0x0a;
            break;
          default:
            continue;
        }
        if (ok) {
          const scratch = this.scratch;
          const caps = clist.caps;
          for (let k = 0, base = j * slots; k < slots; k++) scratch[k] = caps[base + k];
          this.addThread(nlist, out[pc], nextPos, nextCtx);
        }
      }
      clist.size = 0;
      if (width === 0) break;
      pos = nextPos;
      const t = clist;
      clist = nlist;
      nlist = t;
    }
    this.clist = clist;
    this.nlist = nlist;
    return matched;
  }
}
