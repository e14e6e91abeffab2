/**
 * The LogQL lexer. It follows Loki's scanner where that decides what a query means: a number
 * glued to a unit becomes a duration (`5m`, `1.5s`, `-1h`) or else a byte size (`20MB`,
 * `1KiB`), so `1mb` is the duration `1m` followed by `b`; `[…]` is one range token; `#`
 * starts a comment. Keywords are not decided here: an identifier is a keyword only where the
 * parser expects one, which lets label names such as `rate` or `bytes` be used freely.
 *
 * Errors do not throw: they become an `error` token at the place they occur, so the parser
 * reports whichever problem comes first in the text, as Loki's on-demand scanner does.
 */
import { unquoteGoString } from '../common/quote.js';
import { parseLogQLDuration } from '../common/duration.js';
import { parseHumanByteSize } from '../common/byteSize.js';

/** TokenType is the kind of a token; operators and punctuation are their own text. */
export type TokenType =
  | 'identifier'
  | 'number'
  | 'duration'
  | 'bytes'
  | 'string'
  | 'range'
  | 'flag'
  | 'eof'
  | 'error'
  | '{'
  | '}'
  | '('
  | ')'
  | ','
  | '='
  | '!='
  | '=~'
  | '!~'
  | '|='
  | '|~'
  | '|>'
  | '!>'
  | '|'
  | '=='
  | '>'
  | '>='
  | '<'
  | '<='
  | '+'
  | '-'
  | '*'
  | '/'
  | '%'
  | '^';

/**
 * Token is one lexeme. `value` holds the decoded string of a string token, and `number`
 * the milliseconds of a duration or range token or the size of a bytes token. An error
 * token's `value` is its message.
 */
export interface Token {
  type: TokenType;
  text: string;
  start: number;
  end: number;
  value: string;
  number: number;
}

/** PARSER_FLAGS are the `--flag` words Loki knows; any other `--x` lexes as two minus signs. */
const PARSER_FLAGS: readonly string[] = ['--strict', '--keep-empty'];
/** FLAG_RUNE may continue a flag word, so `--strictly` is no flag. */
const FLAG_RUNE = /[a-zA-Z-]/;

const TWO_CHAR_OPERATORS: ReadonlySet<string> = new Set([
  '!=',
  '=~',
  '!~',
  '|=',
  '|~',
  '|>',
  '!>',
  '==',
  '>=',
  '<=',
]);
const ONE_CHAR_OPERATORS: ReadonlySet<string> = new Set([
  '{',
  '}',
  '(',
  ')',
  ',',
  '=',
  '|',
  '>',
  '<',
  '+',
  '-',
  '*',
  '/',
  '%',
  '^',
]);

/** DURATION_RUNES may follow a number in a duration literal, as in Loki's scanner. */
const DURATION_RUNES = /[0-9.nuµμmshdwy]/;
/** BYTE_RUNES may follow a number in a byte size literal; lowercase `m` is a duration. */
const BYTE_RUNES = /[0-9.BikKMGTP]/;

function isDigit(c: string | undefined): boolean {
  return c !== undefined && c >= '0' && c <= '9';
}

function isIdentStart(c: string): boolean {
  return c === '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c > '\x7f' && /\p{L}/u.test(c));
}

function isIdentPart(c: string): boolean {
  return isIdentStart(c) || isDigit(c) || (c > '\x7f' && /\p{Nd}/u.test(c));
}

function isSpace(c: string): boolean {
  return c === ' ' || c === '\t' || c === '\n' || c === '\r' || c === '\f' || c === '\v';
}

/** scanNumberEnd returns where the Go number literal starting at `start` ends. */
function scanNumberEnd(text: string, start: number): number {
  let i = start;
  if (text[i] === '0' && /[xXoObB]/.test(text[i + 1] ?? '')) {
    const hex = text[i + 1] === 'x' || text[i + 1] === 'X';
    i += 2;
    while (i < text.length && /[0-9a-fA-F_]/.test(text[i])) i++;
    if (hex && text[i] === '.') {
      i++;
      while (i < text.length && /[0-9a-fA-F_]/.test(text[i])) i++;
    }
    if (hex && (text[i] === 'p' || text[i] === 'P')) {
      let j = i + 1;
      if (text[j] === '+' || text[j] === '-') j++;
      if (isDigit(text[j])) {
        i = j;
        while (isDigit(text[i])) i++;
      }
    }
    return i;
  }
  while (i < text.length && (isDigit(text[i]) || text[i] === '_')) i++;
  if (text[i] === '.') {
    i++;
    while (i < text.length && (isDigit(text[i]) || text[i] === '_')) i++;
  }
  if (text[i] === 'e' || text[i] === 'E') {
    let j = i + 1;
    if (text[j] === '+' || text[j] === '-') j++;
    if (isDigit(text[j])) {
      i = j;
      while (isDigit(text[i])) i++;
    }
  }
  return i;
}

/** runEnd returns the end of the run of characters matching `allowed` from `start`. */
function runEnd(text: string, start: number, allowed: RegExp): number {
  let i = start;
  while (i < text.length && allowed.test(text[i])) i++;
  return i;
}

/** rangeDurationError words a bad `[…]` the way Prometheus' duration parser does. */
function rangeDurationError(body: string): string {
  const unit = /^[0-9.]+([^0-9.]+)/.exec(body);
  if (unit && !/^(?:ns|us|µs|μs|ms|s|m|h|d|w|y)$/.test(unit[1])) {
    return `unknown unit ${JSON.stringify(unit[1])} in duration ${JSON.stringify(body)}`;
  }
  return `not a valid duration string: ${JSON.stringify(body)}`;
}

/**
 * Lexer turns a query into tokens on demand (see the module comment): the parser asks for
 * tokens as it goes, so input that fails early is not lexed to its end first.
 */
export class Lexer {
  /** tokens are the tokens lexed so far; the last is `eof` or `error` once `ended`. */
  readonly tokens: Token[] = [];
  private i = 0;
  private ended = false;

  constructor(private readonly text: string) {}

  /** lexUpTo lexes until token `index` exists or the input has ended. */
  lexUpTo(index: number): void {
    while (!this.ended && this.tokens.length <= index) this.step();
  }

  /** step lexes one token, or records the end of input or the first error. */
  private step(): void {
    const text = this.text;
    this.skipSpaceAndComments();
    if (this.i >= text.length) {
      this.push('eof', this.i, this.i);
      this.ended = true;
      return;
    }
    const start = this.i;
    const c = text[start];
    if (c === '"' || c === '`') {
      if (!this.lexString(start)) this.ended = true;
    } else if (c === '[') {
      if (!this.lexRange(start)) this.ended = true;
    } else if (isDigit(c) || (c === '.' && isDigit(text[start + 1]))) {
      this.lexNumber(start, start);
    } else if (c === '-' && text[start + 1] === '-' && this.lexFlag(start)) {
      // consumed a parser flag
    } else if (c === '-' && (isDigit(text[start + 1]) || text[start + 1] === '.') && this.lexNegativeDuration(start)) {
      // consumed a negative duration
    } else if (isIdentStart(c)) {
      let j = start + 1;
      while (j < text.length && isIdentPart(text[j])) j++;
      this.push('identifier', start, j);
      this.i = j;
    } else if (TWO_CHAR_OPERATORS.has(text.slice(start, start + 2))) {
      this.push(text.slice(start, start + 2) as TokenType, start, start + 2);
      this.i = start + 2;
    } else if (ONE_CHAR_OPERATORS.has(c)) {
      this.push(c as TokenType, start, start + 1);
      this.i = start + 1;
    } else {
      const cp = String.fromCodePoint(text.codePointAt(start)!);
      this.error(`unexpected character ${JSON.stringify(cp)}`, start, start + cp.length);
      this.ended = true;
    }
  }

  private push(type: TokenType, start: number, end: number, value = '', number = 0): void {
    this.tokens.push({ type, text: this.text.slice(start, end), start, end, value, number });
  }

  private error(message: string, start: number, end: number): void {
    this.push('error', start, end, message);
  }

  private skipSpaceAndComments(): void {
    const text = this.text;
    while (this.i < text.length) {
      const c = text[this.i];
      if (isSpace(c)) {
        this.i++;
      } else if (c === '#') {
        while (this.i < text.length && text[this.i] !== '\n') this.i++;
      } else {
        return;
      }
    }
  }

  private lexString(start: number): boolean {
    const text = this.text;
    const quote = text[start];
    let j = start + 1;
    while (j < text.length && text[j] !== quote) {
      if (quote === '"' && text[j] === '\n') break;
      if (quote === '"' && text[j] === '\\') j++;
      j++;
    }
    if (j >= text.length || text[j] !== quote) {
      this.error('literal not terminated', start, Math.min(j, text.length));
      return false;
    }
    const literal = text.slice(start, j + 1);
    const decoded = unquoteGoString(literal);
    if (!decoded.ok) {
      this.error(decoded.message, start + decoded.offset, j + 1);
      return false;
    }
    this.push('string', start, j + 1, decoded.value);
    this.i = j + 1;
    return true;
  }

  private lexRange(start: number): boolean {
    const close = this.text.indexOf(']', start + 1);
    if (close < 0) {
      this.error("missing closing ']' in duration", start, this.text.length);
      return false;
    }
    const body = this.text.slice(start + 1, close).trim();
    const ms = parseLogQLDuration(body);
    if (ms === undefined || ms < 0) {
      this.error(rangeDurationError(body), start + 1, close);
      return false;
    }
    this.push('range', start, close + 1, body, ms);
    this.i = close + 1;
    return true;
  }

  /** lexNumber scans a number at `numberStart` (a token that began at `start`, maybe a sign). */
  private lexNumber(start: number, numberStart: number): void {
    const text = this.text;
    const numberEnd = scanNumberEnd(text, numberStart);
    const durationEnd = runEnd(text, numberEnd, DURATION_RUNES);
    if (durationEnd > numberEnd) {
      const ms = parseLogQLDuration(text.slice(start, durationEnd));
      if (ms !== undefined) {
        this.push('duration', start, durationEnd, '', ms);
        this.i = durationEnd;
        return;
      }
    }
    if (start === numberStart) {
      const bytesEnd = runEnd(text, numberEnd, BYTE_RUNES);
      if (bytesEnd > numberEnd) {
        const bytes = parseHumanByteSize(text.slice(start, bytesEnd));
        if (bytes !== undefined) {
          this.push('bytes', start, bytesEnd, '', bytes);
          this.i = bytesEnd;
          return;
        }
      }
    }
    this.push('number', numberStart, numberEnd);
    this.i = numberEnd;
  }

  /** lexNegativeDuration takes `-5m` as one duration token; a bare `-5` stays minus and number. */
  private lexNegativeDuration(start: number): boolean {
    const numberStart = start + 1;
    if (!isDigit(this.text[numberStart]) && !isDigit(this.text[numberStart + 1])) return false;
    const numberEnd = scanNumberEnd(this.text, numberStart);
    const durationEnd = runEnd(this.text, numberEnd, DURATION_RUNES);
    if (durationEnd === numberEnd) return false;
    const ms = parseLogQLDuration(this.text.slice(start, durationEnd));
    if (ms === undefined) return false;
    this.push('duration', start, durationEnd, '', ms);
    this.i = durationEnd;
    return true;
  }

  /**
   * lexFlag takes a known `--flag` at `start`: the flag's letters and dashes must end there.
   * It compares against the few known flags rather than scanning the run of letters and dashes
   * first, since that scan repeated at every `-` of a long run of them made lexing quadratic.
   */
  private lexFlag(start: number): boolean {
    for (const flag of PARSER_FLAGS) {
      const end = start + flag.length;
      if (!this.text.startsWith(flag, start) || FLAG_RUNE.test(this.text[end] ?? '')) continue;
      this.push('flag', start, end, flag);
      this.i = end;
      return true;
    }
    return false;
  }
}

/**
 * lexLogQL splits `text` into tokens, ending with an `eof` token, or with an `error` token
 * at the first character that cannot start or complete a token.
 */
export function lexLogQL(text: string): Token[] {
  const lexer = new Lexer(text);
  lexer.lexUpTo(Infinity);
  return lexer.tokens;
}
