/**
 * Regex ties the pieces together: it parses once, analyses the tree, and picks for each
 * operation the cheapest matcher that is exactly equivalent — a string comparison, a set
 * lookup, indexOf over `.*`-joined literals, a provably linear JavaScript RegExp, or the lazy
 * DFA — falling back to the Pike VM whenever submatch positions are needed. Every path is
 * linear in the input, so no pattern can stall a worker.
 */
import type { RegexNode } from './ast.js';
import { makeConcat } from './builders.js';
import { Backtracker } from './backtrack.js';
import { compileProgram } from './compile.js';
import { LazyDFA } from './dfa.js';
import { expandTemplate, templateSlotsNeeded } from './expand.js';
import { safeJsRegExp } from './jsregex.js';
import {
  exactStrings,
  globPieces,
  prefixInfo,
  stripEdgeAnchors,
  stripNullableEdges,
  type GlobPiece,
} from './literal.js';
import { PikeVM } from './pike.js';
import type { Program } from './program.js';
import { parseRegex } from './syntax.js';

/** CompileOptions controls how a pattern is compiled. */
export interface CompileOptions {
  /**
   * anchored makes test/exec match the whole input, as `^(?:pattern)$` — PromQL label matchers
   * and LogQL label filters. Otherwise they search anywhere, as Go's MatchString does.
   */
  anchored?: boolean;
  /** dotNL starts the pattern in `(?s)` mode (Prometheus 3 compiles label matchers so). */
  dotNL?: boolean;
  /** foldCase starts the pattern in `(?i)` mode. */
  foldCase?: boolean;
  /** multiLine starts the pattern in `(?m)` mode. */
  multiLine?: boolean;
  /**
   * matcher forces the engine used by test(): 'dfa' or 'nfa' (Pike VM) instead of the
   * automatic choice. Meant for tests and benchmarks that compare engines.
   */
  matcher?: 'auto' | 'dfa' | 'nfa';
}

/** RegexStrategy names the matcher test() uses, for diagnostics and benchmarks. */
export type RegexStrategy = 'never' | 'always' | 'literal' | 'set' | 'glob' | 'js' | 'dfa' | 'nfa';

/** MAX_BACKTRACK_PROGRAM is the largest program the backtracker is used for. */
const MAX_BACKTRACK_PROGRAM = 5000;

/** MAX_LITERAL_SET is the largest finite language reported as literalSet. */
export const MAX_LITERAL_SET = 4096;

/**
 * globTest matches `.*`-joined literals. Leftmost placement of each literal is optimal, so one
 * indexOf per literal decides it. `anchored` requires the pieces to cover all of `s`.
 */
function globTest(s: string, pieces: readonly GlobPiece[], anchored: boolean): boolean {
  let pos = 0;
  let end = s.length;
  let first = 0;
  let last = pieces.length - 1;
  if (anchored) {
    const head = pieces[0];
    if (head.kind === 'literal') {
      if (!s.startsWith(head.text)) return false;
      pos = head.text.length;
      first = 1;
    }
    const tail = pieces[last];
    if (last >= first && tail.kind === 'literal') {
      if (end - tail.text.length < pos || !s.endsWith(tail.text)) return false;
      end -= tail.text.length;
      last--;
    }
    // Without a gap left, the literals must cover the input exactly.
    if (first > last) return pos === end;
  }
  for (let i = first; i <= last; i++) {
    const piece = pieces[i];
    if (piece.kind !== 'literal') continue;
    const at = s.indexOf(piece.text, pos);
    if (at < 0 || at + piece.text.length > end) return false;
    pos = at + piece.text.length;
  }
  return true;
}

/** Regex is a compiled pattern; see the module comment. Construct it with compileRegex. */
export class Regex {
  /** source is the pattern as given. */
  readonly source: string;
  /** anchored is true when test/exec match the whole input. */
  readonly anchored: boolean;
  /** numGroups counts capturing groups (Go's NumSubexp). */
  readonly numGroups: number;
  /** groupNames has an entry per group, index 0 for the whole match; unnamed are undefined. */
  readonly groupNames: (string | undefined)[];
  /**
   * literalPrefix is a case-sensitive string every match starts with (empty when there is
   * none) — for anchored matchers, every matching value starts with it, so a sorted index can
   * be range-scanned.
   */
  readonly literalPrefix: string;
  /** isLiteral is true when the pattern matches exactly literalPrefix and nothing else. */
  readonly isLiteral: boolean;
  /**
   * literalSet lists every string the pattern matches in full (as an anchored matcher sees
   * it), when that set is finite and small: `foo|ba[rz]` gives ['foo', 'bar', 'baz'], so a
   * matcher can be answered from a label-value set. Undefined otherwise.
   */
  readonly literalSet: readonly string[] | undefined;
  /** strategy is the matcher test() uses. */
  readonly strategy: RegexStrategy;

  /** The full pattern's program, compiled on first need: a test() often never needs it. */
  private fullProgram: Program | undefined;
  private readonly root: RegexNode;
  private readonly numSlots: number;
  /** The tree test() asks about (see stripNullableEdges), compiled for the DFA on first need. */
  private readonly core: RegexNode;
  private readonly testPrefix: string;
  private readonly execPrefix: string;
  private readonly testImpl: (s: string) => boolean;
  private dfa: LazyDFA | undefined;
  /** Pike VMs by number of tracked capture slots. */
  private readonly vms = new Map<number, PikeVM>();
  /** Backtrackers by number of tracked capture slots. */
  private readonly backtrackers = new Map<number, Backtracker>();
  private readonly literalValue: string | undefined;

  constructor(pattern: string, options: CompileOptions = {}) {
    const anchored = options.anchored === true;
    const parsed = parseRegex(pattern, {
      dotNL: options.dotNL,
      foldCase: options.foldCase,
      multiLine: options.multiLine,
    });
    this.source = pattern;
    this.anchored = anchored;
    this.numGroups = parsed.numGroups;
    this.groupNames = parsed.groupNames;

    const pos = { start: 0, end: pattern.length };
    const root: RegexNode = anchored
      ? makeConcat(
          [
            { kind: 'assert', assertion: 'beginText', pos: { start: 0, end: 0 } },
            parsed.root,
            { kind: 'assert', assertion: 'endText', pos: { start: pattern.length, end: pattern.length } },
          ],
          pos,
        )
      : parsed.root;
    this.root = root;
    this.numSlots = 2 * (parsed.numGroups + 1);

    const language = stripEdgeAnchors(parsed.root);
    const info = prefixInfo(language);
    this.literalPrefix = info.prefix;
    this.isLiteral = info.complete;
    this.literalSet = exactStrings(language, MAX_LITERAL_SET);
    this.execPrefix = anchored ? '' : prefixInfo(parsed.root).prefix;

    // The unanchored match/no-match question ignores edges that may match empty.
    const core = anchored ? root : stripNullableEdges(parsed.root);
    this.core = core;
    this.testPrefix = anchored ? '' : prefixInfo(core).prefix;
    // exec can skip the automaton when the match can only be one fixed string.
    const plain = anchored ? info : prefixInfo(parsed.root);
    this.literalValue = plain.complete ? plain.prefix : undefined;

    const forced = options.matcher ?? 'auto';
    if (forced === 'nfa') {
      this.strategy = 'nfa';
      const slots = new Int32Array(2);
      this.testImpl = (s) => this.vmFor(2).search(s, 0, slots, this.execPrefix);
      return;
    }
    if (forced === 'dfa') {
      this.strategy = 'dfa';
      this.testImpl = (s) => this.lazyDfa().test(s);
      return;
    }
    const picked = this.pickStrategy(anchored, language, core);
    this.strategy = picked.strategy;
    this.testImpl = picked.test;
  }

  /** pickStrategy chooses the cheapest exact matcher for test(); see the module comment. */
  private pickStrategy(
    anchored: boolean,
    language: RegexNode,
    core: RegexNode,
  ): { strategy: RegexStrategy; test: (s: string) => boolean } {
    if (anchored) {
      const set = this.literalSet;
      if (set !== undefined) {
        if (set.length === 0) return { strategy: 'never', test: () => false };
        if (set.length === 1) {
          const only = set[0];
          return { strategy: 'literal', test: (s) => s === only };
        }
        const members = new Set(set);
        return { strategy: 'set', test: (s) => members.has(s) };
      }
      const glob = globPieces(language);
      if (glob !== undefined) return this.globStrategy(glob, true);
    } else {
      if (core.kind === 'empty') return { strategy: 'always', test: () => true };
      const glob = globPieces(core);
      if (glob !== undefined) {
        if (glob.length === 1 && glob[0].kind === 'literal') {
          const text = glob[0].text;
          return { strategy: 'literal', test: (s) => s.includes(text) };
        }
        return this.globStrategy(glob, false);
      }
    }
    const js = safeJsRegExp(core);
    if (js !== undefined) return { strategy: 'js', test: (s) => js.test(s) };
    return { strategy: 'dfa', test: (s) => this.lazyDfa().test(s) };
  }

  private globStrategy(pieces: GlobPiece[], anchored: boolean): { strategy: RegexStrategy; test: (s: string) => boolean } {
    const newlineSafe = pieces.every((p) => p.kind === 'literal' || p.matchNewline);
    if (newlineSafe) return { strategy: 'glob', test: (s) => globTest(s, pieces, anchored) };
    // A gap that cannot cross `\n` is only a plain indexOf problem on single-line input.
    return {
      strategy: 'glob',
      test: (s) => (s.indexOf('\n') < 0 ? globTest(s, pieces, anchored) : this.lazyDfa().test(s)),
    };
  }

  /** program is the full pattern's program (parseRegex's budget guarantees it compiles). */
  private get program(): Program {
    if (this.fullProgram === undefined) this.fullProgram = compileProgram(this.root, this.numGroups, this.source);
    return this.fullProgram;
  }

  private lazyDfa(): LazyDFA {
    if (this.dfa === undefined) {
      const testProgram = this.core === this.root ? this.program : compileProgram(this.core, this.numGroups, this.source);
      this.dfa = new LazyDFA(testProgram, this.testPrefix);
    }
    return this.dfa;
  }

  /** test reports whether the pattern matches `s` (all of it when anchored). */
  test(s: string): boolean {
    return this.testImpl(s);
  }

  /**
   * execIndices finds the leftmost-first match at or after offset `from` (seeing the text
   * before `from` for `^`/`\b`, as Go does) and returns start/end offsets per group (group 0
   * first; -1 for a group that did not participate), or null.
   */
  execIndices(s: string, from = 0, slots = this.numSlots): Int32Array | null {
    if (from === 0 && !this.testImpl(s)) return null;
    const n = Math.max(2, Math.min(slots, this.numSlots));
    const result = new Int32Array(n).fill(-1);
    return this.searchAt(s, from, result) ? result : null;
  }

  /**
   * searchAt runs the submatch search with whichever exact matcher is cheaper: the bounded
   * backtracker when its bitmap is small, the Pike VM otherwise.
   */
  private searchAt(s: string, from: number, result: Int32Array): boolean {
    const slots = result.length;
    if (this.program.op.length <= MAX_BACKTRACK_PROGRAM) {
      let bt = this.backtrackers.get(slots);
      if (bt === undefined) {
        bt = new Backtracker(this.program, slots);
        this.backtrackers.set(slots, bt);
      }
      if (bt.fits(s.length, from)) return bt.search(s, from, result, this.execPrefix);
    }
    return this.vmFor(slots).search(s, from, result, this.execPrefix);
  }

  private vmFor(slots: number): PikeVM {
    let vm = this.vms.get(slots);
    if (vm === undefined) {
      vm = new PikeVM(this.program, slots);
      this.vms.set(slots, vm);
    }
    return vm;
  }

  /**
   * exec returns the leftmost-first match and its groups (undefined for a group that did not
   * participate), like Go's FindStringSubmatch, or null when there is no match.
   */
  exec(s: string): (string | undefined)[] | null {
    if (this.literalValue !== undefined && this.numGroups === 0) {
      const lit = this.literalValue;
      if (this.anchored) return s === lit ? [s] : null;
      return s.includes(lit) ? [lit] : null;
    }
    const m = this.execIndices(s);
    if (m === null) return null;
    const out: (string | undefined)[] = new Array(this.numGroups + 1);
    for (let g = 0; g <= this.numGroups; g++) {
      out[g] = m[2 * g] >= 0 ? s.slice(m[2 * g], m[2 * g + 1]) : undefined;
    }
    return out;
  }

  /**
   * expand substitutes `$1`, `${name}` and `$$` in `template` from a match found by
   * execIndices (Go's Regexp.ExpandString), as label_replace does.
   */
  expand(template: string, s: string, match: ArrayLike<number>): string {
    return expandTemplate(template, s, match, this.groupNames);
  }

  /**
   * replaceAll replaces every non-overlapping match with the expanded template, with Go's
   * ReplaceAllString semantics (an empty match right after a match is not replaced; the scan
   * always advances by at least one character).
   */
  replaceAll(s: string, template: string): string {
    if (!this.testImpl(s)) return s;
    const slots = Math.min(this.numSlots, templateSlotsNeeded(template, this.groupNames));
    const m = new Int32Array(Math.max(2, slots));
    let out = '';
    let lastMatchEnd = 0;
    let searchPos = 0;
    while (searchPos <= s.length) {
      m.fill(-1);
      if (!this.searchAt(s, searchPos, m)) break;
      out += s.slice(lastMatchEnd, m[0]);
      if (m[1] > lastMatchEnd || m[0] === 0) out += expandTemplate(template, s, m, this.groupNames);
      lastMatchEnd = m[1];
      let width = 0;
      if (searchPos < s.length) {
        const c = s.charCodeAt(searchPos);
        width = c >= 0xd800 && c <= 0xdbff && searchPos + 1 < s.length && (s.charCodeAt(searchPos + 1) & 0xfc00) === 0xdc00 ? 2 : 1;
      }
      if (searchPos + width > m[1]) searchPos += width;
      else if (searchPos + 1 > m[1]) searchPos++;
      else searchPos = m[1];
    }
    return out + s.slice(lastMatchEnd);
  }
}
