/**
 * The template lexer: splits text into items the way Go's text/template lexer does. Outside
 * actions it yields text with the `{{-` / `-}}` trim markers already applied and drops
 * comments; inside an action it yields words, punctuation, literals and spaces. Errors are
 * worded like Go's and thrown as TemplateSyntaxError.
 */
import { scanTemplateNumber } from './numberLiteral.js';
import { failSyntax } from './syntaxError.js';

/** ItemType is the class of a lexed item. */
export type ItemType =
  | 'text'
  | 'leftDelim'
  | 'rightDelim'
  | 'space'
  | 'identifier'
  | 'keyword'
  | 'field'
  | 'variable'
  | 'dot'
  | 'string'
  | 'rawString'
  | 'number'
  | 'char'
  | 'bool'
  | 'nil'
  | 'pipe'
  | 'leftParen'
  | 'rightParen'
  | 'declare'
  | 'assign'
  | 'comma'
  | 'eof';

/** Item is one lexed item with its text and offsets. */
export interface Item {
  type: ItemType;
  text: string;
  start: number;
  end: number;
}

const KEYWORDS = new Set(['if', 'else', 'end', 'range', 'with', 'define', 'template', 'block', 'break', 'continue']);
const SPACE_CHARS = ' \t\r\n';

function isSpaceChar(c: string | undefined): boolean {
  return c !== undefined && SPACE_CHARS.includes(c);
}

function isDecimalDigit(c: string | undefined): boolean {
  return c !== undefined && c >= '0' && c <= '9';
}

function isAlnum(c: string | undefined): boolean {
  if (c === undefined) return false;
  if (c === '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) return true;
  return c > '\x7f' && /[\p{L}\p{Nd}]/u.test(c);
}

/** describeRune renders a character as Go's %#U does, for error messages. */
export function describeRune(c: string): string {
  const cp = c.codePointAt(0)!;
  return `U+${cp.toString(16).toUpperCase().padStart(4, '0')} ${JSON.stringify(c)}`;
}

function wordType(word: string): ItemType {
  if (KEYWORDS.has(word)) return 'keyword';
  if (word === 'true' || word === 'false') return 'bool';
  if (word === 'nil') return 'nil';
  return 'identifier';
}

/** Lexer walks the input once; see the module comment. */
class Lexer {
  private readonly items: Item[] = [];
  private i = 0;
  /** trimNextText is set by `-}}`: the next text loses its leading spaces. */
  private trimNextText = false;

  constructor(private readonly input: string) {}

  run(): Item[] {
    while (this.lexTextThenDelim()) {
      // each round has lexed one text run and one action or comment
    }
    this.push('eof', this.input.length, this.input.length);
    return this.items;
  }

  private push(type: ItemType, start: number, end: number): void {
    this.items.push({ type, text: this.input.slice(start, end), start, end });
  }

  /** atTrimmedRightDelim is true before ` -}}`. */
  private atTrimmedRightDelim(at: number): boolean {
    const input = this.input;
    return isSpaceChar(input[at]) && input[at + 1] === '-' && input.startsWith('}}', at + 2);
  }

  /** lexTextThenDelim lexes text up to the next `{{` and what follows; false at the end. */
  private lexTextThenDelim(): boolean {
    const input = this.input;
    const open = input.indexOf('{{', this.i);
    let textStart = this.i;
    let textEnd = open < 0 ? input.length : open;
    const leftTrim = open >= 0 && input[open + 2] === '-' && isSpaceChar(input[open + 3]);
    if (this.trimNextText) while (textStart < textEnd && isSpaceChar(input[textStart])) textStart++;
    if (leftTrim) while (textEnd > textStart && isSpaceChar(input[textEnd - 1])) textEnd--;
    if (textEnd > textStart) this.push('text', textStart, textEnd);
    if (open < 0) return false;
    this.i = open + (leftTrim ? 4 : 2);
    if (input.startsWith('/*', this.i)) this.lexComment(open);
    else this.lexAction(open);
    return true;
  }

  /** lexComment skips `/* … *\/` and its closing delimiter; comments must fill the action. */
  private lexComment(open: number): void {
    const input = this.input;
    const close = input.indexOf('*/', this.i + 2);
    if (close < 0) failSyntax('unclosed comment', open);
    this.i = close + 2;
    const rightTrim = this.atTrimmedRightDelim(this.i);
    if (!rightTrim && !input.startsWith('}}', this.i)) failSyntax('comment ends before closing delimiter', open);
    this.i += rightTrim ? 4 : 2;
    this.trimNextText = rightTrim;
  }

  /** lexAction lexes the inside of `{{ … }}` through its right delimiter. */
  private lexAction(open: number): void {
    this.push('leftDelim', open, this.i);
    let parenDepth = 0;
    while (true) {
      const start = this.i;
      if (this.atTrimmedRightDelim(start) || this.input.startsWith('}}', start)) {
        if (parenDepth > 0) failSyntax('unclosed left paren', start);
        const width = this.input[start] === '}' ? 2 : 4;
        this.push('rightDelim', start, start + width);
        this.i += width;
        this.trimNextText = width === 4;
        return;
      }
      if (start >= this.input.length) failSyntax('unclosed action', open);
      const c = this.input[start];
      if (c === '(') parenDepth++;
      if (c === ')') {
        parenDepth--;
        if (parenDepth < 0) failSyntax(`unexpected right paren ${describeRune(c)}`, start);
      }
      this.lexActionItem(start, c);
    }
  }

  /** lexActionItem lexes the one item starting with `c` at `start`. */
  private lexActionItem(start: number, c: string): void {
    const input = this.input;
    if (isSpaceChar(c)) {
      let i = start;
      while (isSpaceChar(input[i]) && !(input[i + 1] === '-' && input.startsWith('}}', i + 2))) i++;
      this.i = i === start ? i + 1 : i;
      this.push('space', start, this.i);
    } else if (c === '=' || c === '|' || c === ',' || c === '(' || c === ')') {
      this.i = start + 1;
      this.push(PUNCTUATION[c], start, this.i);
    } else if (c === ':') {
      if (input[start + 1] !== '=') failSyntax('expected :=', start);
      this.i = start + 2;
      this.push('declare', start, this.i);
    } else if (c === '"') {
      this.lexQuoted(start, '"', 'string', 'unterminated quoted string');
    } else if (c === '`') {
      const close = input.indexOf('`', start + 1);
      if (close < 0) failSyntax('unterminated raw quoted string', start);
      this.i = close + 1;
      this.push('rawString', start, this.i);
    } else if (c === "'") {
      this.lexQuoted(start, "'", 'char', 'unterminated character constant');
    } else if (c === '$') {
      this.i = this.skipAlnum(start + 1);
      this.push('variable', start, this.i);
    } else if (c === '.' && !isDecimalDigit(input[start + 1])) {
      this.i = this.skipAlnum(start + 1);
      this.push(this.i > start + 1 ? 'field' : 'dot', start, this.i);
    } else if (c === '+' || c === '-' || c === '.' || isDecimalDigit(c)) {
      this.lexNumber(start, c);
    } else if (isAlnum(c)) {
      this.i = this.skipAlnum(start);
      this.push(wordType(input.slice(start, this.i)), start, this.i);
    } else {
      const cp = String.fromCodePoint(input.codePointAt(start)!);
      failSyntax(`unrecognized character in action: ${describeRune(cp)}`, start);
    }
  }

  private skipAlnum(from: number): number {
    let i = from;
    while (isAlnum(this.input[i])) i++;
    return i;
  }

  /** lexQuoted lexes a `quote`-delimited literal with backslash escapes on one line. */
  private lexQuoted(start: number, quote: string, type: ItemType, unterminated: string): void {
    const input = this.input;
    let i = start + 1;
    while (input[i] !== quote) {
      if (input[i] === undefined || input[i] === '\n') failSyntax(unterminated, start);
      if (input[i] === '\\') i++;
      i++;
    }
    this.i = i + 1;
    this.push(type, start, this.i);
  }

  /** lexNumber lexes a number; a bare sign or point, or letters glued on, are bad syntax. */
  private lexNumber(start: number, c: string): void {
    let i = scanTemplateNumber(this.input, start);
    const bare = i === start + 1 && (c === '+' || c === '-' || c === '.');
    if (bare || isAlnum(this.input[i])) {
      while (isAlnum(this.input[i]) || this.input[i] === '.') i++;
      failSyntax(`bad number syntax: ${JSON.stringify(this.input.slice(start, i))}`, start);
    }
    this.i = i;
    this.push('number', start, i);
  }
}

const PUNCTUATION: Record<string, ItemType> = {
  '=': 'assign',
  '|': 'pipe',
  ',': 'comma',
  '(': 'leftParen',
  ')': 'rightParen',
};

/** lexTemplate splits the template into items, applying trim markers to the text as Go does. */
export function lexTemplate(input: string): Item[] {
  return new Lexer(input).run();
}
