/**
 * A parser for RE2 syntax as Go's regexp package accepts it (regexp/syntax with the Perl flags:
 * non-greedy operators, `(?flags)`, `\d \s \w`, `\A \z`, `\Q…\E`, `\pN`, named groups).
 * Accepting and rejecting the same patterns as Go, with the same error text, matters because
 * PromQL and LogQL queries written for Prometheus and Loki must mean the same thing here.
 *
 * It is a recursive-descent parser over the UTF-16 pattern that decodes code points as it goes.
 * Group nesting is bounded (Go's limit of 1000), so recursion depth is bounded too.
 */
import type { PositionRange } from '../errors.js';
import type { AssertionKind, ParsedRegex, RegexNode } from './ast.js';
import { makeAlternate, makeConcat } from './builders.js';
import { foldRanges, negateRanges, normalizeRanges } from './charclass.js';
import { foldOrbit } from './casefold.js';
import { RegexSyntaxError, type RegexErrorCode } from './errors.js';
import { exceedsBudget } from './size.js';
import { unicodeClassRanges } from './unicode.js';

/** ParseOptions sets the flags in force at the start of the pattern, as if `(?s)` led it. */
export interface ParseOptions {
  /** dotNL makes `.` match `\n` (the `s` flag). */
  dotNL?: boolean;
  /** foldCase makes the whole pattern case-insensitive (the `i` flag). */
  foldCase?: boolean;
  /** multiLine makes `^` and `$` match at line boundaries (the `m` flag). */
  multiLine?: boolean;
}

/** Flags are the parse-time modes `(?imsU)` switch; each group restores them on exit. */
interface Flags {
  foldCase: boolean;
  dotNL: boolean;
  oneLine: boolean;
  nonGreedy: boolean;
}

/** MAX_REPEAT bounds `{n,m}` and the product of nested counted repetitions, as in Go. */
export const MAX_REPEAT = 1000;
/** MAX_DEPTH bounds group nesting, as Go bounds the height of the parse tree. */
const MAX_DEPTH = 1000;

const PERL_GROUPS: Readonly<Record<string, { negate: boolean; ranges: readonly number[] }>> = {
  d: { negate: false, ranges: [0x30, 0x39] },
  D: { negate: true, ranges: [0x30, 0x39] },
  s: { negate: false, ranges: [0x09, 0x0a, 0x0c, 0x0d, 0x20, 0x20] },
  S: { negate: true, ranges: [0x09, 0x0a, 0x0c, 0x0d, 0x20, 0x20] },
  w: { negate: false, ranges: [0x30, 0x39, 0x41, 0x5a, 0x5f, 0x5f, 0x61, 0x7a] },
  W: { negate: true, ranges: [0x30, 0x39, 0x41, 0x5a, 0x5f, 0x5f, 0x61, 0x7a] },
};

const POSIX_CLASSES: Readonly<Record<string, readonly number[]>> = {
  alnum: [0x30, 0x39, 0x41, 0x5a, 0x61, 0x7a],
  alpha: [0x41, 0x5a, 0x61, 0x7a],
  ascii: [0x00, 0x7f],
  blank: [0x09, 0x09, 0x20, 0x20],
  cntrl: [0x00, 0x1f, 0x7f, 0x7f],
  digit: [0x30, 0x39],
  graph: [0x21, 0x7e],
  lower: [0x61, 0x7a],
  print: [0x20, 0x7e],
  punct: [0x21, 0x2f, 0x3a, 0x40, 0x5b, 0x60, 0x7b, 0x7e],
  space: [0x09, 0x0d, 0x20, 0x20],
  upper: [0x41, 0x5a],
  word: [0x30, 0x39, 0x41, 0x5a, 0x5f, 0x5f, 0x61, 0x7a],
  xdigit: [0x30, 0x39, 0x41, 0x46, 0x61, 0x66],
};

function isAlnum(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);
}

function isOctal(c: number): boolean {
  return c >= 0x30 && c <= 0x37;
}

function unhex(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  if (c >= 0x61 && c <= 0x66) return c - 0x61 + 10;
  if (c >= 0x41 && c <= 0x46) return c - 0x41 + 10;
  return -1;
}

/** isValidCaptureName mirrors Go: one or more of [A-Za-z0-9_]. */
function isValidCaptureName(name: string): boolean {
  if (name.length === 0) return false;
  for (let i = 0; i < name.length; i++) {
    const c = name.charCodeAt(i);
    if (c !== 0x5f && !isAlnum(c)) return false;
  }
  return true;
}

/**
 * repeatIsValid reports whether nested counted repetitions stay within `budget` copies of the
 * innermost expression (Go rejects `(a{500}){3}` for the same reason as `a{1001}`).
 */
function repeatIsValid(node: RegexNode, budget: number): boolean {
  if (node.kind === 'repeat' && node.counted) {
    let m = node.max;
    if (m === 0) return true;
    if (m < 0) m = node.min;
    if (m > budget) return false;
    if (m > 0) budget = Math.floor(budget / m);
  }
  switch (node.kind) {
    case 'repeat':
    case 'capture':
      return repeatIsValid(node.sub, budget);
    case 'concat':
    case 'alternate':
      return node.subs.every((s) => repeatIsValid(s, budget));
    default:
      return true;
  }
}

/** Decoded is one code point read from the pattern and the offset just past it. */
interface Decoded {
  cp: number;
  end: number;
}

class Parser {
  private pos = 0;
  private flags: Flags;
  private numGroups = 0;
  private readonly groupNames: (string | undefined)[] = [undefined];
  private depth = 0;

  constructor(
    private readonly src: string,
    options: ParseOptions,
  ) {
    this.flags = {
      foldCase: options.foldCase === true,
      dotNL: options.dotNL === true,
      oneLine: options.multiLine !== true,
      nonGreedy: false,
    };
  }

  parse(): ParsedRegex {
    const root = this.parseAlternation();
    if (this.pos < this.src.length) {
      // Only an unmatched `)` stops the top-level alternation early.
      throw this.fail('unexpected )', this.src, this.pos);
    }
    return { root, numGroups: this.numGroups, groupNames: this.groupNames };
  }

  private fail(code: RegexErrorCode, expr: string, offset: number): RegexSyntaxError {
    return new RegexSyntaxError(code, expr, offset);
  }

  /** decodeAt reads the code point at `at`, rejecting lone surrogates as Go rejects bad UTF-8. */
  private decodeAt(at: number): Decoded {
    const cp = this.src.codePointAt(at);
    if (cp === undefined) return { cp: -1, end: at };
    if (cp >= 0xd800 && cp <= 0xdfff) throw this.fail('invalid UTF-8', this.src.slice(at), at);
    return { cp, end: at + (cp > 0xffff ? 2 : 1) };
  }

  private range(start: number): PositionRange {
    return { start, end: this.pos };
  }

  private parseAlternation(): RegexNode {
    const start = this.pos;
    const branches: RegexNode[] = [this.parseConcat()];
    while (this.pos < this.src.length && this.src.charCodeAt(this.pos) === 0x7c /* | */) {
      this.pos++;
      branches.push(this.parseConcat());
    }
    if (branches.length === 1) return branches[0];
    return makeAlternate(branches, this.range(start));
  }

  private parseConcat(): RegexNode {
    const start = this.pos;
    const src = this.src;
    const items: RegexNode[] = [];
    // Start of the repetition operator just parsed, for Go's "a**" rejection; -1 otherwise.
    let lastRepeat = -1;
    while (this.pos < src.length) {
      const c = src.charCodeAt(this.pos);
      if (c === 0x7c /* | */ || c === 0x29 /* ) */) break;
      const tokenStart = this.pos;
      let isRepeat = false;
      switch (c) {
        case 0x28 /* ( */: {
          const node = src.charCodeAt(this.pos + 1) === 0x3f /* ? */ ? this.parsePerlGroup() : this.parseCapture();
          if (node !== undefined) items.push(node);
          break;
        }
        case 0x5e /* ^ */:
          this.pos++;
          items.push(this.assertion(this.flags.oneLine ? 'beginText' : 'beginLine', tokenStart));
          break;
        case 0x24 /* $ */:
          this.pos++;
          items.push(this.assertion(this.flags.oneLine ? 'endText' : 'endLine', tokenStart));
          break;
        case 0x2e /* . */:
          this.pos++;
          items.push({ kind: 'anyChar', matchNewline: this.flags.dotNL, pos: this.range(tokenStart) });
          break;
        case 0x5b /* [ */:
          items.push(this.parseClass());
          break;
        case 0x2a /* * */:
        case 0x2b /* + */:
        case 0x3f /* ? */: {
          this.pos++;
          const min = c === 0x2b ? 1 : 0;
          const max = c === 0x3f ? 1 : -1;
          this.applyRepeat(items, min, max, false, tokenStart, lastRepeat);
          isRepeat = true;
          break;
        }
        case 0x7b /* { */: {
          const counts = this.parseRepeatCounts();
          if (counts === undefined) {
            this.pos++;
            items.push(this.literal(0x7b, tokenStart));
            break;
          }
          const { min, max } = counts;
          if (min < 0 || min > MAX_REPEAT || max > MAX_REPEAT || (max >= 0 && min > max)) {
            throw this.fail('invalid repeat count', src.slice(tokenStart, this.pos), tokenStart);
          }
          this.applyRepeat(items, min, max, true, tokenStart, lastRepeat);
          isRepeat = true;
          break;
        }
        case 0x5c /* \ */:
          this.parseBackslash(items);
          break;
        default: {
          const d = this.decodeAt(this.pos);
          this.pos = d.end;
          items.push(this.literal(d.cp, tokenStart));
        }
      }
      lastRepeat = isRepeat ? tokenStart : -1;
    }
    return makeConcat(items, this.range(start));
  }

  private assertion(assertion: AssertionKind, start: number): RegexNode {
    return { kind: 'assert', assertion, pos: this.range(start) };
  }

  private literal(cp: number, start: number): RegexNode {
    const foldCase = this.flags.foldCase && foldOrbit(cp) !== undefined;
    return { kind: 'literal', codePoints: [cp], foldCase, pos: this.range(start) };
  }

  /**
   * applyRepeat turns the last item into a repetition. `this.pos` is just past the operator;
   * a following `?` makes it non-greedy (or greedy again under `(?U)`).
   */
  private applyRepeat(
    items: RegexNode[],
    min: number,
    max: number,
    counted: boolean,
    opStart: number,
    lastRepeat: number,
  ): void {
    let greedy = !this.flags.nonGreedy;
    if (this.src.charCodeAt(this.pos) === 0x3f /* ? */) {
      this.pos++;
      greedy = !greedy;
    }
    if (lastRepeat >= 0) {
      throw this.fail('invalid nested repetition operator', this.src.slice(lastRepeat, this.pos), lastRepeat);
    }
    const sub = items.pop();
    if (sub === undefined) {
      throw this.fail('missing argument to repetition operator', this.src.slice(opStart, this.pos), opStart);
    }
    const node: RegexNode = {
      kind: 'repeat',
      min,
      max,
      greedy,
      counted,
      sub,
      pos: { start: sub.pos.start, end: this.pos },
    };
    if (counted && (min >= 2 || max >= 2) && !repeatIsValid(node, MAX_REPEAT)) {
      throw this.fail('invalid repeat count', this.src.slice(opStart, this.pos), opStart);
    }
    items.push(node);
  }

  /**
   * parseRepeatCounts reads `{n}`, `{n,}` or `{n,m}` at the cursor and moves past it. It returns
   * undefined (cursor unchanged) when the text is not of that form, in which case `{` is a
   * literal; a count too large to represent comes back as min = -1.
   */
  private parseRepeatCounts(): { min: number; max: number } | undefined {
    const src = this.src;
    let p = this.pos + 1;
    const readInt = (): number | undefined => {
      const c0 = src.charCodeAt(p);
      if (!(c0 >= 0x30 && c0 <= 0x39)) return undefined;
      const c1 = src.charCodeAt(p + 1);
      if (c0 === 0x30 && c1 >= 0x30 && c1 <= 0x39) return undefined; // leading zero
      let n = 0;
      while (p < src.length) {
        const c = src.charCodeAt(p);
        if (c < 0x30 || c > 0x39) break;
        if (n >= 1e8) n = -1;
        else if (n >= 0) n = n * 10 + (c - 0x30);
        p++;
      }
      return n;
    };
    let min = readInt();
    if (min === undefined || p >= src.length) return undefined;
    let max: number;
    if (src.charCodeAt(p) !== 0x2c /* , */) {
      max = min;
    } else {
      p++;
      if (p >= src.length) return undefined;
      if (src.charCodeAt(p) === 0x7d /* } */) {
        max = -1;
      } else {
        const m = readInt();
        if (m === undefined) return undefined;
        max = m;
        if (max < 0) min = -1;
      }
    }
    if (p >= src.length || src.charCodeAt(p) !== 0x7d /* } */) return undefined;
    this.pos = p + 1;
    return { min, max };
  }

  /** parseGroupBody parses a group body after its opening syntax, restoring flags afterwards. */
  private parseGroupBody(openAt: number): RegexNode {
    if (++this.depth > MAX_DEPTH) throw this.fail('expression nests too deeply', this.src, openAt);
    const saved = { ...this.flags };
    const sub = this.parseAlternation();
    if (this.pos >= this.src.length || this.src.charCodeAt(this.pos) !== 0x29 /* ) */) {
      throw this.fail('missing closing )', this.src, openAt);
    }
    this.pos++;
    this.flags = saved;
    this.depth--;
    return sub;
  }

  private parseCapture(): RegexNode {
    const open = this.pos;
    this.pos++;
    const index = ++this.numGroups;
    this.groupNames.push(undefined);
    const sub = this.parseGroupBody(open);
    return { kind: 'capture', index, name: undefined, sub, pos: this.range(open) };
  }

  /**
   * parsePerlGroup handles `(?`: named captures `(?P<name>…)` / `(?<name>…)`, non-capturing
   * groups `(?:…)` and flag changes `(?i)` / `(?i-s:…)`. Returns undefined for a bare flag
   * change, which applies to the rest of the enclosing group.
   */
  private parsePerlGroup(): RegexNode | undefined {
    const src = this.src;
    const start = this.pos;
    const rest = src.length - start;
    const startsWithP = rest > 4 && src.charCodeAt(start + 2) === 0x50 /* P */ && src.charCodeAt(start + 3) === 0x3c;
    const startsWithName = rest > 3 && src.charCodeAt(start + 2) === 0x3c /* < */;
    if (startsWithP || startsWithName) {
      const nameStart = start + (startsWithP ? 4 : 3);
      const end = src.indexOf('>', start);
      if (end < 0) {
        this.checkWellFormed(start);
        throw this.fail('invalid named capture', src.slice(start), start);
      }
      const name = src.slice(nameStart, end);
      this.checkWellFormed(nameStart, end);
      if (!isValidCaptureName(name)) throw this.fail('invalid named capture', src.slice(start, end + 1), start);
      this.pos = end + 1;
      const index = ++this.numGroups;
      this.groupNames.push(name);
      const sub = this.parseGroupBody(start);
      return { kind: 'capture', index, name, sub, pos: this.range(start) };
    }

    let p = start + 2;
    const flags = { ...this.flags };
    let negated = false;
    let sawFlag = false;
    while (p < src.length) {
      const d = this.decodeAt(p);
      p = d.end;
      switch (d.cp) {
        case 0x69 /* i */:
          flags.foldCase = !negated;
          sawFlag = true;
          continue;
        case 0x6d /* m */:
          flags.oneLine = negated;
          sawFlag = true;
          continue;
        case 0x73 /* s */:
          flags.dotNL = !negated;
          sawFlag = true;
          continue;
        case 0x55 /* U */:
          flags.nonGreedy = !negated;
          sawFlag = true;
          continue;
        case 0x2d /* - */:
          if (negated) break;
          negated = true;
          sawFlag = false;
          continue;
        case 0x3a /* : */:
        case 0x29 /* ) */: {
          if (negated && !sawFlag) break;
          this.pos = p;
          if (d.cp === 0x29) {
            this.flags = flags;
            return undefined;
          }
          const outer = this.flags;
          this.flags = flags;
          const sub = this.parseGroupBody(start);
          this.flags = outer;
          // Re-wrap so the group's span covers its parentheses.
          return sub.kind === 'empty' ? { kind: 'empty', pos: this.range(start) } : sub;
        }
        default:
          break;
      }
      break;
    }
    throw this.fail('invalid or unsupported Perl syntax', src.slice(start, p), start);
  }

  /** checkWellFormed rejects lone surrogates in [from, to), as Go rejects invalid UTF-8. */
  private checkWellFormed(from: number, to = this.src.length): void {
    for (let i = from; i < to; ) i = this.decodeAt(i).end;
  }

  /** parseBackslash handles an escape outside a class: assertions, `\Q…\E`, classes, literals. */
  private parseBackslash(items: RegexNode[]): void {
    const src = this.src;
    const start = this.pos;
    if (start + 1 >= src.length) throw this.fail('trailing backslash at end of expression', '', start);
    const c = src.charCodeAt(start + 1);
    switch (c) {
      case 0x41 /* A */:
        this.pos += 2;
        items.push(this.assertion('beginText', start));
        return;
      case 0x62 /* b */:
        this.pos += 2;
        items.push(this.assertion('wordBoundary', start));
        return;
      case 0x42 /* B */:
        this.pos += 2;
        items.push(this.assertion('noWordBoundary', start));
        return;
      case 0x43 /* C */:
        throw this.fail('invalid escape sequence', src.slice(start, start + 2), start);
      case 0x51 /* Q */: {
        const close = src.indexOf('\\E', start + 2);
        const litEnd = close < 0 ? src.length : close;
        let p = start + 2;
        while (p < litEnd) {
          const d = this.decodeAt(p);
          this.pos = d.end;
          items.push(this.literal(d.cp, p));
          p = d.end;
        }
        this.pos = close < 0 ? src.length : close + 2;
        return;
      }
      case 0x7a /* z */:
        this.pos += 2;
        items.push(this.assertion('endText', start));
        return;
      case 0x70 /* p */:
      case 0x50 /* P */: {
        const ranges = this.parseUnicodeClass(start);
        items.push({ kind: 'class', ranges, pos: this.range(start) });
        return;
      }
      default:
        break;
    }
    const perl = PERL_GROUPS[String.fromCharCode(c)];
    if (perl !== undefined) {
      this.pos += 2;
      items.push({ kind: 'class', ranges: this.groupRanges(perl.ranges, perl.negate), pos: this.range(start) });
      return;
    }
    const d = this.parseEscape(start);
    this.pos = d.end;
    items.push(this.literal(d.cp, start));
  }

  /** groupRanges applies the case mode, then negation, to a predefined class (Go's order). */
  private groupRanges(ranges: readonly number[], negate: boolean): number[] {
    const base = this.flags.foldCase ? foldRanges(ranges) : ranges.slice();
    return negate ? negateRanges(base) : base;
  }

  /**
   * parseUnicodeClass reads `\pN`, `\p{Name}`, `\P{Name}` or `\p{^Name}` at `at` and returns its
   * ranges; the cursor moves past it.
   */
  private parseUnicodeClass(at: number): number[] {
    const src = this.src;
    let negate = src.charCodeAt(at + 1) === 0x50; /* P */
    let name: string;
    let end: number;
    if (at + 2 >= src.length) {
      name = '';
      end = at + 2;
    } else if (src.charCodeAt(at + 2) !== 0x7b /* { */) {
      const d = this.decodeAt(at + 2);
      name = src.slice(at + 2, d.end);
      end = d.end;
    } else {
      const close = src.indexOf('}', at);
      if (close < 0) {
        this.checkWellFormed(at);
        throw this.fail('invalid character class range', src.slice(at), at);
      }
      name = src.slice(at + 3, close);
      this.checkWellFormed(at + 3, close);
      end = close + 1;
    }
    if (name.startsWith('^')) {
      negate = !negate;
      name = name.slice(1);
    }
    const table = unicodeClassRanges(name);
    if (table === undefined) throw this.fail('invalid character class range', src.slice(at, end), at);
    this.pos = end;
    return this.groupRanges(table, negate);
  }

  /**
   * parseEscape decodes a single-character escape at `at` (which holds the backslash): escaped
   * punctuation, octal `\123`, hex `\x7F` / `\x{10FFFF}` and the C escapes `\a \f \n \r \t \v`.
   * Backreferences (`\1`) and unknown letters are errors, as in RE2.
   */
  private parseEscape(at: number): Decoded {
    const src = this.src;
    let p = at + 1;
    if (p >= src.length) throw this.fail('trailing backslash at end of expression', '', at);
    const first = this.decodeAt(p);
    const c = first.cp;
    p = first.end;
    const invalid = (): RegexSyntaxError => this.fail('invalid escape sequence', src.slice(at, p), at);
    if (c < 0x80 && !isAlnum(c)) return { cp: c, end: p };
    switch (c) {
      case 0x30: case 0x31: case 0x32: case 0x33: case 0x34: case 0x35: case 0x36: case 0x37: { // 0-7
        // A lone non-zero digit would be a backreference, which RE2 does not support.
        if (c !== 0x30 && (p >= src.length || !isOctal(src.charCodeAt(p)))) throw invalid();
        let r = c - 0x30;
        for (let i = 1; i < 3 && p < src.length && isOctal(src.charCodeAt(p)); i++, p++) {
          r = r * 8 + (src.charCodeAt(p) - 0x30);
        }
        return { cp: r, end: p };
      }
      case 0x78: { // x
        if (p >= src.length) throw invalid();
        const d = this.decodeAt(p);
        p = d.end;
        if (d.cp === 0x7b /* { */) {
          let r = 0;
          let digits = 0;
          for (;;) {
            if (p >= src.length) throw invalid();
            const h = this.decodeAt(p);
            p = h.end;
            if (h.cp === 0x7d /* } */) break;
            const v = unhex(h.cp);
            if (v < 0) throw invalid();
            r = r * 16 + v;
            if (r > 0x10ffff) throw invalid();
            digits++;
          }
          if (digits === 0) throw invalid();
          return { cp: r, end: p };
        }
        const x = unhex(d.cp);
        let y = -1;
        if (p < src.length) {
          const d2 = this.decodeAt(p);
          p = d2.end;
          y = unhex(d2.cp);
        }
        if (x < 0 || y < 0) throw invalid();
        return { cp: x * 16 + y, end: p };
      }
      case 0x61: return { cp: 0x07, end: p }; // a
      case 0x66: return { cp: 0x0c, end: p }; // f
      case 0x6e: return { cp: 0x0a, end: p }; // n
      case 0x72: return { cp: 0x0d, end: p }; // r
      case 0x74: return { cp: 0x09, end: p }; // t
      case 0x76: return { cp: 0x0b, end: p }; // v
      default:
        throw invalid();
    }
  }

  /** parseClass reads a bracketed class `[…]` at the cursor. */
  private parseClass(): RegexNode {
    const src = this.src;
    const start = this.pos;
    let p = start + 1;
    let negate = false;
    if (p < src.length && src.charCodeAt(p) === 0x5e /* ^ */) {
      negate = true;
      p++;
    }
    const pairs: number[] = [];
    let first = true; // `]` is literal as the first member
    while (p >= src.length || src.charCodeAt(p) !== 0x5d /* ] */ || first) {
      first = false;
      if (p >= src.length) throw this.fail('missing closing ]', src.slice(start), start);
      const c = src.charCodeAt(p);
      // POSIX [:alpha:] and [:^alpha:].
      if (c === 0x5b /* [ */ && src.length - p > 2 && src.charCodeAt(p + 1) === 0x3a /* : */) {
        const close = src.indexOf(':]', p + 2);
        if (close >= 0) {
          const text = src.slice(p, close + 2);
          let name = src.slice(p + 2, close);
          let posixNegate = false;
          if (name.startsWith('^')) {
            posixNegate = true;
            name = name.slice(1);
          }
          const ranges = Object.prototype.hasOwnProperty.call(POSIX_CLASSES, name) ? POSIX_CLASSES[name] : undefined;
          if (ranges === undefined) throw this.fail('invalid character class range', text, p);
          for (const x of this.groupRanges(ranges, posixNegate)) pairs.push(x);
          p = close + 2;
          continue;
        }
      }
      if (c === 0x5c /* \ */ && p + 1 < src.length) {
        const e = src.charCodeAt(p + 1);
        if (e === 0x70 /* p */ || e === 0x50 /* P */) {
          for (const x of this.parseUnicodeClass(p)) pairs.push(x);
          p = this.pos;
          continue;
        }
        const perl = PERL_GROUPS[String.fromCharCode(e)];
        if (perl !== undefined) {
          for (const x of this.groupRanges(perl.ranges, perl.negate)) pairs.push(x);
          p += 2;
          continue;
        }
      }
      const rangeStart = p;
      const lo = this.parseClassChar(p, start);
      p = lo.end;
      let hi = lo.cp;
      if (src.length - p >= 2 && src.charCodeAt(p) === 0x2d /* - */ && src.charCodeAt(p + 1) !== 0x5d /* ] */) {
        const h = this.parseClassChar(p + 1, start);
        p = h.end;
        hi = h.cp;
        if (hi < lo.cp) throw this.fail('invalid character class range', src.slice(rangeStart, p), rangeStart);
      }
      pairs.push(lo.cp, hi);
    }
    this.pos = p + 1;
    let ranges = normalizeRanges(pairs);
    if (this.flags.foldCase) ranges = foldRanges(ranges);
    if (negate) ranges = negateRanges(ranges);
    return { kind: 'class', ranges, pos: this.range(start) };
  }

  private parseClassChar(at: number, classStart: number): Decoded {
    if (at >= this.src.length) throw this.fail('missing closing ]', this.src.slice(classStart), classStart);
    if (this.src.charCodeAt(at) === 0x5c /* \ */) return this.parseEscape(at);
    return this.decodeAt(at);
  }
}

/**
 * parseRegex parses an RE2 pattern into a syntax tree, throwing RegexSyntaxError (with Go's
 * message and the offending offset) for anything Go's regexp.Compile would reject, and for a
 * pattern whose compiled program would break the size budget (size.ts). Every pattern it
 * accepts compiles and runs, so it is the one check query parsers need.
 */
export function parseRegex(pattern: string, options: ParseOptions = {}): ParsedRegex {
  const parsed = new Parser(pattern, options).parse();
  // Go reports an oversized program as a parse error too; see size.ts for the budget.
  if (exceedsBudget(parsed.root, parsed.numGroups)) throw new RegexSyntaxError('expression too large', pattern, 0);
  return parsed;
}
