/**
 * A syntax check for RE2 regular expressions (Go's regexp/syntax), so that a bad regular
 * expression in a query is a parse error with Go's wording and position instead of a failure
 * deep in evaluation, and so the `regexp` stage knows its named groups at parse time. It
 * validates structure only; matching is left to the evaluator's regular expression engine.
 */

/** RegexSyntaxResult lists the capture groups of a valid expression, or the first error. */
export type RegexSyntaxResult =
  | { ok: true; groupCount: number; captureNames: string[] }
  | { ok: false; message: string; offset: number };

const POSIX_CLASSES = new Set([
  'alnum',
  'alpha',
  'ascii',
  'blank',
  'cntrl',
  'digit',
  'graph',
  'lower',
  'print',
  'punct',
  'space',
  'upper',
  'word',
  'xdigit',
]);

const MAX_REPEAT = 1000;

function isWordChar(c: string): boolean {
  return /^[A-Za-z0-9_]$/.test(c);
}

/** RegexError is thrown inside the scanner and turned into a result at the top. */
class RegexError {
  constructor(
    readonly code: string,
    readonly fragment: string,
    readonly offset: number,
  ) {}
}

/** RegexScanner walks one expression; see checkRegexSyntax. */
class RegexScanner {
  private i = 0;
  private readonly groups: number[] = [];
  private groupCount = 0;
  private readonly names: string[] = [];
  /** canRepeat is whether the previous item can take a repetition operator. */
  private canRepeat = false;
  /** repeatStart is where the previous item's repetition operator began, or -1. */
  private repeatStart = -1;

  constructor(private readonly re: string) {}

  run(): RegexSyntaxResult {
    try {
      this.scan();
      return { ok: true, groupCount: this.groupCount, captureNames: this.names };
    } catch (err) {
      if (err instanceof RegexError) {
        return {
          ok: false,
          message: `error parsing regexp: ${err.code}: \`${err.fragment}\``,
          offset: err.offset,
        };
      }
      throw err;
    }
  }

  private fail(code: string, fragment: string, offset: number): never {
    throw new RegexError(code, fragment, offset);
  }

  private item(): void {
    this.canRepeat = true;
    this.repeatStart = -1;
  }

  private scan(): void {
    const re = this.re;
    while (this.i < re.length) {
      const c = re[this.i];
      switch (c) {
        case '(':
          this.openGroup();
          break;
        case ')':
          if (this.groups.length === 0) this.fail('unexpected )', re, this.i);
          this.groups.pop();
          this.i++;
          this.item();
          break;
        case '|':
          this.i++;
          this.canRepeat = false;
          this.repeatStart = -1;
          break;
        case '*':
        case '+':
        case '?':
          this.repeat(this.i, this.i + 1);
          break;
        case '{': {
          const end = this.repeatEnd(this.i);
          if (end < 0) {
            this.i++;
            this.item();
          } else {
            this.repeat(this.i, end);
          }
          break;
        }
        case '[':
          this.charClass();
          this.item();
          break;
        case '\\':
          this.escape(false);
          this.item();
          break;
        default:
          this.i += re.codePointAt(this.i)! > 0xffff ? 2 : 1;
          this.item();
      }
    }
    if (this.groups.length > 0) this.fail('missing closing )', re, this.groups[this.groups.length - 1]);
  }

  private openGroup(): void {
    const re = this.re;
    const start = this.i;
    if (re[start + 1] !== '?') {
      this.groupCount++;
      this.groups.push(start);
      this.i++;
      this.canRepeat = false;
      this.repeatStart = -1;
      return;
    }
    const named = re.startsWith('(?P<', start) ? 4 : re.startsWith('(?<', start) && re[start + 3] !== '=' && re[start + 3] !== '!' ? 3 : 0;
    if (named > 0) {
      const close = re.indexOf('>', start + named);
      if (close < 0) this.fail('invalid named capture', re.slice(start), start);
      const name = re.slice(start + named, close);
      if (name === '' || ![...name].every(isWordChar)) this.fail('invalid named capture', re.slice(start, close + 1), start);
      this.groupCount++;
      this.names.push(name);
      this.groups.push(start);
      this.i = close + 1;
      this.canRepeat = false;
      this.repeatStart = -1;
      return;
    }
    let j = start + 2;
    let sawFlag = false;
    let sawDash = false;
    let flagsAfterDash = false;
    while (j < re.length && 'imsU-'.includes(re[j])) {
      if (re[j] === '-') {
        if (sawDash) this.fail('invalid or unsupported Perl syntax', re.slice(start, j + 1), start);
        sawDash = true;
      } else {
        sawFlag = true;
        if (sawDash) flagsAfterDash = true;
      }
      j++;
    }
    const end = re[j];
    if ((end === ')' || end === ':') && (sawFlag || end === ':') && (!sawDash || flagsAfterDash)) {
      this.i = j + 1;
      if (end === ':') {
        this.groups.push(start);
        this.canRepeat = false;
        this.repeatStart = -1;
      }
      return;
    }
    this.fail('invalid or unsupported Perl syntax', re.slice(start, Math.min(j + 1, re.length)), start);
  }

  /** repeatEnd returns the end of a `{n}`, `{n,}` or `{n,m}` at `start`, or -1 if it is literal. */
  private repeatEnd(start: number): number {
    const m = /^\{(\d+)(,(\d*))?\}/.exec(this.re.slice(start));
    return m ? start + m[0].length : -1;
  }

  private repeat(start: number, end: number): void {
    const re = this.re;
    let opEnd = end;
    if (re[opEnd] === '?') opEnd++;
    if (this.repeatStart >= 0) this.fail('invalid nested repetition operator', re.slice(this.repeatStart, opEnd), start);
    if (!this.canRepeat) this.fail('missing argument to repetition operator', re.slice(start, opEnd), start);
    if (re[start] === '{') {
      const m = /^\{(\d+)(,(\d*))?\}/.exec(re.slice(start, end))!;
      const min = Number(m[1]);
      const max = m[2] === undefined ? min : m[3] === '' ? -1 : Number(m[3]);
      if (min > MAX_REPEAT || max > MAX_REPEAT || (max >= 0 && max < min)) {
        this.fail('invalid repeat count', re.slice(start, end), start);
      }
    }
    this.repeatStart = start;
    this.canRepeat = false;
    this.i = opEnd;
  }

  /**
   * escape consumes an escape at the current `\`. Returns the code point it stands for when
   * it is a single character (so a class range can compare it), or -1 for a class such as `\d`.
   */
  private escape(inClass: boolean): number {
    const re = this.re;
    const start = this.i;
    const c = re[start + 1];
    if (c === undefined) this.fail('trailing backslash at end of expression', '', start);
    this.i = start + 2;
    if (c >= '1' && c <= '7' && !(re[start + 2] >= '0' && re[start + 2] <= '7')) {
      this.fail('invalid escape sequence', re.slice(start, start + 2), start);
    }
    if (c >= '0' && c <= '7') {
      let j = start + 2;
      while (j < start + 4 && re[j] >= '0' && re[j] <= '7') j++;
      this.i = j;
      return parseInt(re.slice(start + 1, j), 8);
    }
    switch (c) {
      case 'a':
        return 7;
      case 'f':
        return 12;
      case 'n':
        return 10;
      case 'r':
        return 13;
      case 't':
        return 9;
      case 'v':
        return 11;
      case 'x': {
        if (re[start + 2] === '{') {
          const close = re.indexOf('}', start + 3);
          const hex = close < 0 ? '' : re.slice(start + 3, close);
          if (!/^[0-9a-fA-F]+$/.test(hex) || parseInt(hex, 16) > 0x10ffff) {
            this.fail('invalid escape sequence', re.slice(start, close < 0 ? re.length : close + 1), start);
          }
          this.i = close + 1;
          return parseInt(hex, 16);
        }
        const hex = re.slice(start + 2, start + 4);
        if (!/^[0-9a-fA-F]{2}$/.test(hex)) this.fail('invalid escape sequence', re.slice(start, start + 4), start);
        this.i = start + 4;
        return parseInt(hex, 16);
      }
      case 'd':
      case 'D':
      case 's':
      case 'S':
      case 'w':
      case 'W':
        return -1;
      case 'p':
      case 'P': {
        if (re[start + 2] === '{') {
          const close = re.indexOf('}', start + 3);
          if (close < 0 || !/^\^?[A-Za-z_]+$/.test(re.slice(start + 3, close))) {
            this.fail('invalid character class range', re.slice(start, close < 0 ? re.length : close + 1), start);
          }
          this.i = close + 1;
        } else {
          if (!/^[A-Za-z]$/.test(re[start + 2] ?? '')) this.fail('invalid character class range', re.slice(start, start + 3), start);
          this.i = start + 3;
        }
        return -1;
      }
      case 'Q':
        if (!inClass) {
          const close = re.indexOf('\\E', start + 2);
          this.i = close < 0 ? re.length : close + 2;
          return -1;
        }
        break;
      case 'b':
      case 'B':
      case 'A':
      case 'z':
        if (!inClass) return -1;
        break;
      default:
        if (c < '\x80' && !/[A-Za-z0-9]/.test(c)) return c.charCodeAt(0);
    }
    const cp = re.codePointAt(start + 1)!;
    const width = cp > 0xffff ? 2 : 1;
    return this.fail('invalid escape sequence', re.slice(start, start + 1 + width), start);
  }

  private charClass(): void {
    const re = this.re;
    const start = this.i;
    this.i++;
    if (re[this.i] === '^') this.i++;
    let first = true;
    while (true) {
      if (this.i >= re.length) this.fail('missing closing ]', re.slice(start), start);
      const c = re[this.i];
      if (c === ']' && !first) {
        this.i++;
        return;
      }
      first = false;
      if (re.startsWith('[:', this.i)) {
        const close = re.indexOf(':]', this.i + 2);
        if (close >= 0) {
          const name = re.slice(this.i + 2, close).replace(/^\^/, '');
          if (!POSIX_CLASSES.has(name)) this.fail('invalid character class range', re.slice(this.i, close + 2), this.i);
          this.i = close + 2;
          continue;
        }
      }
      const loStart = this.i;
      const lo = this.classChar();
      if (re[this.i] === '-' && re[this.i + 1] !== ']' && this.i + 1 < re.length) {
        this.i++;
        const hi = this.classChar();
        if (lo < 0 || hi < 0 || hi < lo) this.fail('invalid character class range', re.slice(loStart, this.i), loStart);
      }
    }
  }

  /** classChar consumes one class member and returns its code point, or -1 for a class escape. */
  private classChar(): number {
    const re = this.re;
    if (re[this.i] === '\\') return this.escape(true);
    const cp = re.codePointAt(this.i)!;
    this.i += cp > 0xffff ? 2 : 1;
    return cp;
  }
}

/** checkRegexSyntax validates `re` as RE2 syntax and lists its capture groups. */
export function checkRegexSyntax(re: string): RegexSyntaxResult {
  return new RegexScanner(re).run();
}

/**
 * regexMatchesEmpty reports whether the anchored expression `^(?:re)$` matches the empty
 * string, which is what makes a stream matcher "empty-compatible" in Loki's rule that a
 * query must select streams with at least one matcher that is not. The answer comes from
 * the host engine after rewriting the RE2-only syntax that can affect it; when the host
 * engine cannot read the expression the answer is false, which accepts the query.
 */
export function regexMatchesEmpty(re: string): boolean {
  const translated = re
    .replace(/\(\?P</g, '(?<')
    .replace(/\(\?[imsU]*(?:-[imsU]*)?\)/g, '')
    .replace(/\(\?[imsU]*(?:-[imsU]*)?:/g, '(?:')
    .replace(/\\z/g, '$')
    .replace(/\\A/g, '^')
    .replace(/\\Q(.*?)(?:\\E|$)/g, (_m, literal: string) => literal.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&'));
  try {
    return new RegExp(`^(?:${translated})$`, 's').test('');
  } catch {
    return false;
  }
}
