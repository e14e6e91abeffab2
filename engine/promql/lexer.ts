/**
 * The PromQL lexer. It follows Prometheus' scanner state for state (plain expression, inside
 * `{...}`, just after `[`), so the same input fails at the same character with the same words;
 * users move between the two systems and compare messages. The first error ends the token
 * stream: an ERROR token carries the message, then EOF repeats.
 */
import { quoteGoString } from '../common/quote.js';
import { formatGoUnicode, quoteGoRune } from './goformat.js';
import {
  DURATION_KEYWORDS,
  KEYWORDS,
  isAlpha,
  isAlphaNumeric,
  isDigit,
  isSpace,
  type Token,
  type TokenKind,
} from './tokens.js';

const EOF_CHAR = -1;

/** Mode is the scanner state that decides how the next character is read. */
type Mode = 'statements' | 'braces' | 'durationExpr';

/** Lexer turns a query into tokens, one per call of `next`. Comments come out as COMMENT tokens. */
export class Lexer {
  private readonly input: string;
  private pos = 0;
  private start = 0;
  private mode: Mode = 'statements';
  private parenDepth = 0;
  private bracketOpen = false;
  private gotColon = false;
  private gotDuration = false;
  private finished = false;

  constructor(input: string) {
    this.input = input;
  }

  /** next returns the following token; after EOF or ERROR it keeps returning EOF. */
  next(): Token {
    if (this.finished) return { kind: 'EOF', text: '', start: this.input.length, end: this.input.length };
    for (;;) {
      this.start = this.pos;
      const token =
        this.mode === 'braces' ? this.lexInsideBraces() : this.mode === 'durationExpr' ? this.lexDurationExpr() : this.lexStatement();
      if (token === null) continue;
      if (token.kind === 'EOF' || token.kind === 'ERROR') this.finished = true;
      return token;
    }
  }

  /** peekChar returns the code point at the cursor without consuming it. */
  private peekChar(): number {
    if (this.pos >= this.input.length) return EOF_CHAR;
    return this.input.codePointAt(this.pos)!;
  }

  /** nextChar consumes and returns the code point at the cursor. */
  private nextChar(): number {
    if (this.pos >= this.input.length) return EOF_CHAR;
    const cp = this.input.codePointAt(this.pos)!;
    this.pos += cp > 0xffff ? 2 : 1;
    return cp;
  }

  /** backup un-reads the code point `cp` just consumed by nextChar. */
  private backup(cp: number): void {
    if (cp === EOF_CHAR) return;
    this.pos -= cp > 0xffff ? 2 : 1;
  }

  /** accept consumes the next character if it is one of `valid`. */
  private accept(valid: string): boolean {
    const cp = this.nextChar();
    if (cp !== EOF_CHAR && valid.includes(String.fromCodePoint(cp))) return true;
    this.backup(cp);
    return false;
  }

  private peekIsOneOf(valid: string): boolean {
    const cp = this.peekChar();
    return cp !== EOF_CHAR && valid.includes(String.fromCodePoint(cp));
  }

  private emit(kind: TokenKind): Token {
    const token: Token = { kind, text: this.input.slice(this.start, this.pos), start: this.start, end: this.pos };
    this.start = this.pos;
    return token;
  }

  /** error makes the ERROR token; like Prometheus it spans from the pending token to the end. */
  private error(message: string): Token {
    return { kind: 'ERROR', text: message, start: this.start, end: this.input.length };
  }

  private skipSpaces(): void {
    while (isSpace(this.peekChar())) this.pos++;
    this.start = this.pos;
  }

  private lexComment(): Token {
    this.pos++;
    while (this.pos < this.input.length) {
      const c = this.input.charCodeAt(this.pos);
      if (c === 0x0a || c === 0x0d) break;
      this.pos++;
    }
    return this.emit('COMMENT');
  }

  private lexStatement(): Token | null {
    if (this.input.startsWith('#', this.pos)) return this.lexComment();
    const r = this.nextChar();
    if (r === EOF_CHAR) {
      if (this.parenDepth !== 0) return this.error('unclosed left parenthesis');
      if (this.bracketOpen) return this.error('unclosed left bracket');
      return this.emit('EOF');
    }
    if (isSpace(r)) {
      this.skipSpaces();
      return null;
    }
    switch (r) {
      case 0x2c /* , */:
        return this.emit('COMMA');
      case 0x2a /* * */:
        return this.emit('MUL');
      case 0x2f /* / */:
        return this.emit('DIV');
      case 0x25 /* % */:
        return this.emit('MOD');
      case 0x2b /* + */:
        return this.emit('ADD');
      case 0x2d /* - */:
        return this.emit('SUB');
      case 0x5e /* ^ */:
        return this.emit('POW');
      case 0x40 /* @ */:
        return this.emit('AT');
      case 0x3d /* = */: {
        const t = this.peekChar();
        if (t === 0x3d) {
          this.pos++;
          return this.emit('EQLC');
        }
        if (t === 0x7e) return this.error(`unexpected character after '=': ${quoteGoRune(t)}`);
        return this.emit('EQL');
      }
      case 0x21 /* ! */: {
        const t = this.nextChar();
        if (t !== 0x3d) return this.error(`unexpected character after '!': ${quoteGoRune(t)}`);
        return this.emit('NEQ');
      }
      case 0x3c /* < */:
        if (this.accept('=')) return this.emit('LTE');
        if (this.accept('/')) return this.emit('TRIM_UPPER');
        return this.emit('LSS');
      case 0x3e /* > */:
        if (this.accept('=')) return this.emit('GTE');
        if (this.accept('/')) return this.emit('TRIM_LOWER');
        return this.emit('GTR');
      case 0x22 /* " */:
      case 0x27 /* ' */:
        return this.lexString(r);
      case 0x60 /* ` */:
        return this.lexRawString();
      case 0x28 /* ( */:
        this.parenDepth++;
        return this.emit('LEFT_PAREN');
      case 0x29 /* ) */: {
        const token = this.emit('RIGHT_PAREN');
        this.parenDepth--;
        if (this.parenDepth < 0) return this.error(`unexpected right parenthesis ${quoteGoRune(r)}`);
        return token;
      }
      case 0x7b /* { */:
        this.mode = 'braces';
        return this.emit('LEFT_BRACE');
      case 0x5b /* [ */: {
        if (this.bracketOpen) return this.error(`unexpected left bracket ${quoteGoRune(r)}`);
        this.gotColon = false;
        const token = this.emit('LEFT_BRACKET');
        this.skipSpaces();
        this.bracketOpen = true;
        this.mode = 'durationExpr';
        return token;
      }
      case 0x5d /* ] */:
        if (!this.bracketOpen) return this.error(`unexpected right bracket ${quoteGoRune(r)}`);
        this.bracketOpen = false;
        return this.emit('RIGHT_BRACKET');
    }
    if (isDigit(r) || (r === 0x2e && isDigit(this.peekChar()))) {
      this.backup(r);
      return this.lexNumberOrDuration();
    }
    if (isAlpha(r) || r === 0x3a /* : */) {
      if (!this.bracketOpen) {
        this.backup(r);
        return this.lexKeywordOrIdentifier();
      }
      if (r === 0x3a) {
        if (this.gotColon) return this.error(`unexpected colon ${quoteGoRune(r)}`);
        this.gotColon = true;
        return this.emit('COLON');
      }
      const keyword = this.scanDurationKeyword(r);
      if (keyword !== null) return keyword;
      return this.error(`unexpected character: ${quoteGoRune(r)}, expected ${quoteGoRune(0x3a)}`);
    }
    return this.error(`unexpected character: ${quoteGoRune(r)}`);
  }

  private lexInsideBraces(): Token | null {
    if (this.input.startsWith('#', this.pos)) return this.lexComment();
    const r = this.nextChar();
    if (r === EOF_CHAR) return this.error('unexpected end of input inside braces');
    if (isSpace(r)) {
      this.skipSpaces();
      return null;
    }
    if (isAlpha(r)) {
      while (isAlphaNumeric(this.peekChar())) this.pos++;
      return this.emit('IDENTIFIER');
    }
    switch (r) {
      case 0x2c:
        return this.emit('COMMA');
      case 0x22:
      case 0x27:
        return this.lexString(r);
      case 0x60:
        return this.lexRawString();
      case 0x3d /* = */:
        if (this.accept('~')) return this.emit('EQL_REGEX');
        return this.emit('EQL');
      case 0x21 /* ! */: {
        const t = this.nextChar();
        if (t === 0x7e) return this.emit('NEQ_REGEX');
        if (t === 0x3d) return this.emit('NEQ');
        return this.error(`unexpected character after '!' inside braces: ${quoteGoRune(t)}`);
      }
      case 0x7b:
        return this.error(`unexpected left brace ${quoteGoRune(r)}`);
      case 0x7d /* } */:
        this.mode = 'statements';
        return this.emit('RIGHT_BRACE');
    }
    return this.error(`unexpected character inside braces: ${quoteGoRune(r)}`);
  }

  /** lexDurationExpr reads the tokens right after `[`, where only durations and arithmetic fit. */
  private lexDurationExpr(): Token | null {
    const r = this.nextChar();
    if (r === EOF_CHAR) return this.error('unexpected end of input in duration expression');
    if (isSpace(r)) {
      this.skipSpaces();
      return null;
    }
    switch (r) {
      case 0x5d /* ] */:
        this.bracketOpen = false;
        this.gotColon = false;
        this.mode = 'statements';
        return this.emit('RIGHT_BRACKET');
      case 0x3a /* : */: {
        if (!this.gotDuration) {
          this.start = this.pos;
          return this.error('unexpected colon before duration in duration expression');
        }
        if (this.gotColon) {
          this.start = this.pos;
          return this.error('unexpected repeated colon in duration expression');
        }
        this.gotColon = true;
        return this.emit('COLON');
      }
      case 0x28:
        this.parenDepth++;
        return this.emit('LEFT_PAREN');
      case 0x29: {
        const token = this.emit('RIGHT_PAREN');
        this.parenDepth--;
        if (this.parenDepth < 0) return this.error(`unexpected right parenthesis ${quoteGoRune(r)}`);
        return token;
      }
      case 0x2b:
        return this.emit('ADD');
      case 0x2d:
        return this.emit('SUB');
      case 0x2a:
        return this.emit('MUL');
      case 0x2f:
        return this.emit('DIV');
      case 0x25:
        return this.emit('MOD');
      case 0x5e:
        return this.emit('POW');
      case 0x2c:
        return this.emit('COMMA');
    }
    if (isAlpha(r)) {
      const keyword = this.scanDurationKeyword(r);
      // step(), range(), min_of() and max_of() are durations too: `x[range():step()]` is a
      // subquery whose range is an expression, so a colon may follow them.
      if (keyword !== null) {
        this.gotDuration = true;
        return keyword;
      }
      return this.error(`unexpected character in duration expression: ${quoteGoRune(r)}`);
    }
    if (isDigit(r) || (r === 0x2e && isDigit(this.peekChar()))) {
      this.backup(r);
      this.gotDuration = true;
      this.mode = 'statements';
      return this.lexNumberOrDuration();
    }
    return this.error(`unexpected character in duration expression: ${quoteGoRune(r)}`);
  }

  /** scanDurationKeyword reads step/range/max_of/min_of after its first letter `first`. */
  private scanDurationKeyword(first: number): Token | null {
    const lower = String.fromCodePoint(first).toLowerCase();
    if (![...DURATION_KEYWORDS.keys()].some((word) => word.startsWith(lower))) return null;
    while (isAlpha(this.peekChar())) this.pos++;
    const kind = DURATION_KEYWORDS.get(this.input.slice(this.start, this.pos).toLowerCase());
    if (kind === undefined) return null;
    return this.emit(kind);
  }

  private lexKeywordOrIdentifier(): Token {
    for (;;) {
      const c = this.peekChar();
      if (isAlphaNumeric(c) || c === 0x3a) this.pos++;
      else break;
    }
    const word = this.input.slice(this.start, this.pos);
    const keyword = KEYWORDS.get(word.toLowerCase());
    if (keyword !== undefined) {
      // fill, fill_left and fill_right are keywords only when a '(' follows, so that metrics
      // with those names keep working.
      if ((keyword === 'FILL' || keyword === 'FILL_LEFT' || keyword === 'FILL_RIGHT') && !this.followedByLeftParen()) {
        return this.emit('IDENTIFIER');
      }
      return this.emit(keyword);
    }
    return this.emit(word.includes(':') ? 'METRIC_IDENTIFIER' : 'IDENTIFIER');
  }

  private followedByLeftParen(): boolean {
    let i = this.pos;
    while (i < this.input.length && isSpace(this.input.charCodeAt(i))) i++;
    return this.input.charCodeAt(i) === 0x28;
  }

  private lexString(quote: number): Token {
    for (;;) {
      const c = this.nextChar();
      if (c === 0x5c /* \ */) {
        const problem = this.scanEscape(quote);
        if (problem !== null) return this.error(problem);
        continue;
      }
      if (c === EOF_CHAR || c === 0x0a) return this.error('unterminated quoted string');
      if (c === quote) return this.emit('STRING');
    }
  }

  private lexRawString(): Token {
    for (;;) {
      const c = this.nextChar();
      if (c === EOF_CHAR) return this.error('unterminated raw string');
      if (c === 0x60) return this.emit('STRING');
    }
  }

  /** scanEscape validates one escape sequence after its backslash; returns the problem, if any. */
  private scanEscape(quote: number): string | null {
    let ch = this.nextChar();
    let digits: number;
    let base: number;
    let max: number;
    switch (ch) {
      case 0x61: // a
      case 0x62: // b
      case 0x66: // f
      case 0x6e: // n
      case 0x72: // r
      case 0x74: // t
      case 0x76: // v
      case 0x5c: // backslash
      case quote:
        return null;
      case 0x78: // x
        ch = this.nextChar();
        [digits, base, max] = [2, 16, 0xff];
        break;
      case 0x75: // u
        ch = this.nextChar();
        [digits, base, max] = [4, 16, 0x10ffff];
        break;
      case 0x55: // U
        ch = this.nextChar();
        [digits, base, max] = [8, 16, 0x10ffff];
        break;
      case EOF_CHAR:
        return 'escape sequence not terminated';
      default:
        if (ch >= 0x30 && ch <= 0x37) {
          [digits, base, max] = [3, 8, 0xff];
          break;
        }
        return `unknown escape sequence ${formatGoUnicode(ch)}`;
    }
    let value = 0;
    for (;;) {
      const d = digitValue(ch);
      if (d >= base) {
        if (ch === EOF_CHAR) return 'escape sequence not terminated';
        return `illegal character ${formatGoUnicode(ch)} in escape sequence`;
      }
      value = value * base + d;
      digits--;
      if (digits === 0) break;
      ch = this.nextChar();
    }
    if (value > max || (value >= 0xd800 && value < 0xe000)) return 'escape sequence is an invalid Unicode code point';
    return null;
  }

  private lexNumberOrDuration(): Token {
    if (this.scanNumber()) return this.emit('NUMBER');
    if (this.acceptRemainingDuration()) return this.emit('DURATION');
    return this.error(`bad number or duration syntax: ${quoteGoString(this.input.slice(this.start, this.pos))}`);
  }

  /**
   * acceptRemainingDuration continues after the digits of a number that turned out to be
   * followed by a letter: unit, then optional further digit+unit groups. Bad unit orders are
   * left for the duration parser, which explains them better.
   */
  private acceptRemainingDuration(): boolean {
    if (!this.accept('smhdwy')) return false;
    this.accept('s');
    while (this.accept('0123456789')) {
      while (this.accept('0123456789'));
      if (!this.accept('smhdw')) return false;
      this.accept('s');
    }
    const c = this.nextChar();
    const ok = !isAlphaNumeric(c);
    if (ok) this.backup(c);
    return ok;
  }

  /**
   * scanNumber reads decimal, hexadecimal, float and exponent forms with `_` separators. It
   * only checks the shape; the value is computed (and range-checked) by the parser.
   */
  private scanNumber(): boolean {
    const initial = this.pos;
    let digitPattern = '0123456789';
    if (this.accept('0') && this.accept('xX')) {
      this.accept('_');
      digitPattern = '0123456789abcdefABCDEF';
    }
    const hex = digitPattern.length > 10;
    this.accept('.');
    this.accept(digitPattern);
    let dotConsumed = false;
    let exponentConsumed = false;
    while (this.peekIsOneOf(digitPattern + '._eE')) {
      if (this.peekIsOneOf('.') && dotConsumed) {
        this.accept('.');
        return false;
      }
      if (this.peekIsOneOf('eE') && exponentConsumed) {
        this.accept('eE');
        return false;
      }
      if (this.accept('.')) {
        dotConsumed = true;
        if (this.accept('_.')) return false;
        if (hex) return false;
        continue;
      }
      if (this.accept('eE')) {
        exponentConsumed = true;
        this.accept('+-');
        if (this.accept('._eE') || this.peekChar() === EOF_CHAR) return false;
        continue;
      }
      if (this.accept('_')) {
        if (this.accept('._eE') || this.peekChar() === EOF_CHAR) return false;
        continue;
      }
      while (this.accept(digitPattern));
    }
    if (this.pos === initial) return false;
    return !isAlphaNumeric(this.peekChar());
  }
}

/** digitValue is the value of a hex digit, or 16 for anything else. */
function digitValue(ch: number): number {
  if (ch >= 0x30 && ch <= 0x39) return ch - 0x30;
  if (ch >= 0x61 && ch <= 0x66) return ch - 0x61 + 10;
  if (ch >= 0x41 && ch <= 0x46) return ch - 0x41 + 10;
  return 16;
}

/** tokenize lexes the whole query, dropping comments; the last token is EOF or ERROR. */
export function tokenize(input: string): Token[] {
  const lexer = new Lexer(input);
  const tokens: Token[] = [];
  for (;;) {
    const token = lexer.next();
    if (token.kind === 'COMMENT') continue;
    tokens.push(token);
    if (token.kind === 'EOF' || token.kind === 'ERROR') return tokens;
  }
}
