/**
 * TokenCursor is the parser's view of the token list: lookahead, consumption, and the one
 * place syntax errors are built, so every error reads `syntax error: unexpected X, expecting
 * Y` with Loki's token names and points at the offending token.
 */
import { MAX_EXPRESSION_DEPTH, tooDeepMessage } from '../common/depth.js';
import type { PositionRange } from '../errors.js';
import { syntaxError } from '../errors.js';
import { RANGE_AGGREGATION_OPS, VECTOR_AGGREGATION_OPS } from './ast.js';
import type { Lexer, Token, TokenType } from './lexer.js';

/** KEYWORDS are words Loki always lexes as keywords; errors name them by their text. */
const KEYWORDS = new Set([
  'by',
  'without',
  'bool',
  'offset',
  'on',
  'ignoring',
  'group_left',
  'group_right',
  'or',
  'and',
  'unless',
  'json',
  'regexp',
  'logfmt',
  'unpack',
  'pattern',
  'label_format',
  'line_format',
  'decolorize',
  'drop',
  'keep',
  'unwrap',
  'label_replace',
]);

/** FUNCTION_WORDS are keywords only when a `(` follows, as in Loki's lexer. */
const FUNCTION_WORDS: ReadonlySet<string> = new Set([
  ...RANGE_AGGREGATION_OPS,
  ...VECTOR_AGGREGATION_OPS,
  'vector',
  'bytes',
  'duration',
  'duration_seconds',
  'ip',
]);

/** TokenCursor walks one query's tokens; see the module comment. */
export class TokenCursor {
  private index = 0;
  /** nesting counts the recursive parse calls under way; see descend. */
  private nesting = 0;

  private readonly tokens: Token[];

  constructor(
    readonly text: string,
    private readonly lexer: Lexer,
  ) {
    this.tokens = lexer.tokens;
  }

  /** peek returns the token `ahead` positions on without consuming; the last token repeats. */
  peek(ahead = 0): Token {
    this.lexer.lexUpTo(this.index + ahead);
    return this.tokens[Math.min(this.index + ahead, this.tokens.length - 1)];
  }

  /** next consumes and returns the current token. */
  next(): Token {
    const token = this.peek();
    if (token.type === 'error') this.fail(token);
    this.lexer.lexUpTo(this.index + 1);
    if (this.index < this.tokens.length - 1) this.index++;
    return token;
  }

  /**
   * descend is called on entering a parse function that may recurse into itself; past
   * MAX_EXPRESSION_DEPTH levels it fails at the current token, before the call stack would.
   * ascend undoes it on a normal return (a failure ends the whole parse).
   */
  descend(): void {
    if (this.nesting >= MAX_EXPRESSION_DEPTH) {
      const token = this.peek();
      if (token.type === 'error') this.fail(token);
      this.failAt(token, tooDeepMessage());
    }
    this.nesting++;
  }

  ascend(): void {
    this.nesting--;
  }

  /** nestingDepth is how many descend calls are under way. */
  nestingDepth(): number {
    return this.nesting;
  }

  /** lastEnd is the end offset of the most recently consumed token. */
  lastEnd(): number {
    return this.index === 0 ? 0 : this.tokens[this.index - 1].end;
  }

  /** at reports whether the current token has type `type`. */
  at(type: TokenType, ahead = 0): boolean {
    return this.peek(ahead).type === type;
  }

  /** atWord reports whether the token `ahead` is the identifier `word`, ignoring case. */
  atWord(word: string, ahead = 0): boolean {
    const token = this.peek(ahead);
    return token.type === 'identifier' && token.text.toLowerCase() === word;
  }

  /** word returns the lowercased identifier at `ahead`, or undefined for other tokens. */
  word(ahead = 0): string | undefined {
    const token = this.peek(ahead);
    return token.type === 'identifier' ? token.text.toLowerCase() : undefined;
  }

  /** expect consumes a token of `type` or fails naming what was expected. */
  expect(type: TokenType, ...expected: string[]): Token {
    if (!this.at(type)) this.fail(this.peek(), expected.length > 0 ? expected : [describeType(type)]);
    return this.next();
  }

  /** expectWord consumes the keyword `word` or fails. */
  expectWord(word: string): Token {
    if (!this.atWord(word)) this.fail(this.peek(), [word]);
    return this.next();
  }

  /** fail throws the syntax error for an unexpected `token`, or the lexer's error it carries. */
  fail(token: Token, expected: string[] = []): never {
    if (token.type === 'error') this.failAt(token, token.value);
    let message = `syntax error: unexpected ${this.describe(token)}`;
    if (expected.length > 0) message += `, expecting ${expected.join(' or ')}`;
    this.failAt(token, message);
  }

  /** failAt throws a syntax error with `message` at `range`. */
  failAt(range: PositionRange, message: string): never {
    throw syntaxError(this.text, [{ message, position: { start: range.start, end: range.end } }]);
  }

  /**
   * atPlainIdentifier reports whether the token `ahead` is an identifier that Loki's lexer
   * would return as IDENTIFIER: not a keyword, and not a function name followed by `(`.
   */
  atPlainIdentifier(ahead = 0): boolean {
    const word = this.word(ahead);
    if (word === undefined || KEYWORDS.has(word)) return false;
    return !(FUNCTION_WORDS.has(word) && this.at('(', ahead + 1));
  }

  /** followedByParen reports whether `token` is directly followed by `(`. */
  private followedByParen(token: Token): boolean {
    const index = this.tokens.indexOf(token);
    this.lexer.lexUpTo(index + 1);
    return this.tokens[index + 1]?.type === '(';
  }

  /** describe names a token the way Loki's parser does in its errors. */
  describe(token: Token): string {
    switch (token.type) {
      case 'eof':
        return 'end of input';
      case 'identifier': {
        const word = token.text.toLowerCase();
        if (KEYWORDS.has(word)) return word;
        if (FUNCTION_WORDS.has(word) && this.followedByParen(token)) return word;
        return `IDENTIFIER ${JSON.stringify(token.text)}`;
      }
      case 'number':
        return `NUMBER ${JSON.stringify(token.text)}`;
      case 'duration':
        return `DURATION ${JSON.stringify(token.text)}`;
      case 'bytes':
        return `BYTES ${JSON.stringify(token.text)}`;
      case 'string':
        return 'STRING';
      case 'range':
        return 'RANGE';
      default:
        return token.text;
    }
  }
}

/** describeType names a token type in an "expecting" list. */
export function describeType(type: TokenType): string {
  switch (type) {
    case 'identifier':
      return 'IDENTIFIER';
    case 'number':
      return 'NUMBER';
    case 'duration':
      return 'DURATION';
    case 'bytes':
      return 'BYTES';
    case 'string':
      return 'STRING';
    case 'range':
      return 'RANGE';
    case 'eof':
      return 'end of input';
    default:
      return type;
  }
}
