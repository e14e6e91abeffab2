/**
 * The PromQL parser: recursive descent for the structure, precedence climbing for binary
 * operators, with Prometheus' grammar and error wording. Binding, tightest first: the postfix
 * modifiers `[range]`, `[range:step]`, `offset` and `@`; then `^` (right-associative); then
 * unary `+`/`-` (so `-2^2` is -4); then `* / % atan2`; `+ -`; comparisons and the histogram trim
 * operators; `and unless`; `or`.
 *
 * Errors are collected with positions. A syntax error stops the parse (what follows would only
 * be noise), while errors that leave the structure intact ("offset may not be set multiple
 * times") are recorded and parsing goes on, so one run reports them all.
 */
import { syntaxError, type ParseErrorDetail, type PositionRange } from '../errors.js';
import { quoteGoString, unquoteGoString } from '../common/quote.js';
import type {
  AggregateExpr,
  AggregateOp,
  AtModifier,
  BinaryExpr,
  BinaryOp,
  Call,
  Expr,
  LabelMatcher,
  MatchCardinality,
  MatchOp,
  MatrixSelector,
  NumberLiteral,
  SubqueryExpr,
  VectorMatching,
  VectorSelector,
} from './ast.js';
import { METRIC_NAME_LABEL, childrenOf, isSetOp, walkExpr } from './ast.js';
import { MAX_EXPRESSION_DEPTH, firstTooDeep, tooDeepMessage } from '../common/depth.js';
import { MAX_DURATION_SECONDS, parseDurationToken, secondsToMs } from './durations.js';
import { durationSeconds, readsQuery, type DurationBinaryOp, type DurationExpr } from './durationExpr.js';
import { AGGREGATIONS, lookupFunction, type FunctionDef } from './functions.js';
import { checkLabelRegex, type LabelRegexCheck } from './labelregex.js';
import { isValidLabelName } from './labelNames.js';
import { Lexer } from './lexer.js';
import { defaultParseOptions } from './features.js';
import { parseNumberText } from './numbers.js';
import { describeToken, type Token, type TokenKind } from './tokens.js';
import { formatGoFixed } from '../common/goFormat.js';

/** ParseOptions tunes what the parser accepts. */
export interface ParseOptions {
  /**
   * experimentalFunctions admits the functions and aggregations Prometheus marks experimental
   * (mad_over_time, sort_by_label, limitk, ...). Default true; with false they are rejected with
   * Prometheus' own message.
   */
  experimentalFunctions?: boolean;
  /** durationExpressions admits arithmetic, step(), range(), min_of and max_of in durations (promql-duration-expr; default false). */
  durationExpressions?: boolean;
  /** extendedRangeSelectors admits the `anchored` and `smoothed` modifiers (promql-extended-range-selectors; default false). */
  extendedRangeSelectors?: boolean;
  /** binopFillModifiers admits `fill`, `fill_left` and `fill_right` on binary operators (promql-binop-fill-modifiers; default false). */
  binopFillModifiers?: boolean;
}

/**
 * MAX_QUERY_LENGTH bounds the expression text (128 KiB, the limit Loki applies to LogQL),
 * checked before lexing. Prometheus sets none, but every pass over a query is linear in its
 * length and runs on the thread that serves requests: the bound keeps the worst accepted
 * expression to tens of milliseconds, and far longer text is refused at once.
 */
export const MAX_QUERY_LENGTH = 131072;

/** BINARY_OPERATORS maps operator tokens to their operator and precedence (higher binds tighter). */
const BINARY_OPERATORS: ReadonlyMap<TokenKind, { op: BinaryOp; precedence: number }> = new Map<
  TokenKind,
  { op: BinaryOp; precedence: number }
>([
  ['LOR', { op: 'or', precedence: 1 }],
  ['LAND', { op: 'and', precedence: 2 }],
  ['LUNLESS', { op: 'unless', precedence: 2 }],
  ['EQLC', { op: '==', precedence: 3 }],
  ['NEQ', { op: '!=', precedence: 3 }],
  ['LTE', { op: '<=', precedence: 3 }],
  ['LSS', { op: '<', precedence: 3 }],
  ['GTE', { op: '>=', precedence: 3 }],
  ['GTR', { op: '>', precedence: 3 }],
  ['TRIM_UPPER', { op: '</', precedence: 3 }],
  ['TRIM_LOWER', { op: '>/', precedence: 3 }],
  ['ADD', { op: '+', precedence: 4 }],
  ['SUB', { op: '-', precedence: 4 }],
  ['MUL', { op: '*', precedence: 5 }],
  ['DIV', { op: '/', precedence: 5 }],
  ['MOD', { op: '%', precedence: 5 }],
  ['ATAN2', { op: 'atan2', precedence: 5 }],
  ['POW', { op: '^', precedence: 6 }],
]);

/** POW_PRECEDENCE is the only binary level that binds tighter than a unary sign. */
const POW_PRECEDENCE = 6;

/** MATCH_OPS maps the tokens that may separate a label name from its value to matcher operators. */
const MATCH_OPS: ReadonlyMap<TokenKind, MatchOp> = new Map<TokenKind, MatchOp>([
  ['EQL', '='],
  ['NEQ', '!='],
  ['EQL_REGEX', '=~'],
  ['NEQ_REGEX', '!~'],
]);

/** NAME_KEYWORDS are keywords that still read as a metric name where an expression starts. */
const NAME_KEYWORDS: ReadonlySet<TokenKind> = new Set<TokenKind>([
  'BY',
  'WITHOUT',
  'OFFSET',
  'LAND',
  'LOR',
  'LUNLESS',
  'FILL',
  'FILL_LEFT',
  'FILL_RIGHT',
  'ANCHORED',
  'SMOOTHED',
]);

/** CALLABLE_KEYWORDS name functions when followed by `(` and metrics otherwise. */
const CALLABLE_KEYWORDS: ReadonlySet<TokenKind> = new Set<TokenKind>(['START', 'END', 'STEP', 'RANGE', 'MAX_OF', 'MIN_OF']);

/** GROUPING_LABEL_KINDS are the tokens accepted as label names in by/without/on/ignoring lists. */
const GROUPING_LABEL_KINDS: ReadonlySet<TokenKind> = new Set<TokenKind>([
  'IDENTIFIER',
  'METRIC_IDENTIFIER',
  'AGGREGATOR',
  'BOOL',
  'BY',
  'GROUP_LEFT',
  'GROUP_RIGHT',
  'FILL',
  'FILL_LEFT',
  'FILL_RIGHT',
  'IGNORING',
  'LAND',
  'LOR',
  'LUNLESS',
  'OFFSET',
  'ON',
  'START',
  'END',
  'ATAN2',
  'STEP',
  'RANGE',
  'ANCHORED',
  'SMOOTHED',
  'MAX_OF',
  'MIN_OF',
]);

/** DURATION_START_KINDS can open a range, step or offset duration. */
const DURATION_START_KINDS: ReadonlySet<TokenKind> = new Set<TokenKind>([
  'NUMBER',
  'DURATION',
  'ADD',
  'SUB',
  'LEFT_PAREN',
  'STEP',
  'RANGE',
  'MAX_OF',
  'MIN_OF',
]);

/** Bail unwinds the parser after a syntax error has been recorded. */
class Bail extends Error {}

/**
 * DurationValue is a parsed `[...]` or offset duration: its seconds, or null when unusable or
 * known only when the query runs (then `expr` holds it).
 */
interface DurationValue {
  seconds: number | null;
  pos: PositionRange;
  expr?: DurationExpr;
}

/** signDuration applies a leading sign to a duration operand; a signed literal stays a literal. */
function signDuration(sign: Token, operand: DurationExpr): DurationExpr {
  const pos = { start: sign.start, end: operand.pos.end };
  if (operand.kind === 'literal') return { ...operand, seconds: sign.kind === 'SUB' ? -operand.seconds : operand.seconds, pos };
  return { kind: 'unary', op: sign.kind === 'SUB' ? '-' : '+', expr: operand, pos };
}

/**
 * Parser holds the state of one parse: the token list, the cursor and the errors found so far.
 * One instance parses one query.
 */
class Parser {
  private readonly text: string;
  /** tokens are those lexed so far: lexing follows the parse, so an early error ends both. */
  private readonly tokens: Token[] = [];
  private readonly lexer: Lexer;
  private lexed = false;
  private readonly experimentalFunctions: boolean;
  private readonly durationExpressions: boolean;
  private readonly extendedRangeSelectors: boolean;
  private readonly binopFillModifiers: boolean;
  private readonly errors: ParseErrorDetail[] = [];
  private index = 0;
  /** nesting counts the parseExpr calls under way, so deep input stops before the stack does. */
  private nesting = 0;
  /** aggregationDepth counts aggregation bodies being parsed; Prometheus names them in errors. */
  private aggregationDepth = 0;
  /** offsetSet and atSet remember which nodes already carry a modifier. */
  private readonly offsetSet = new WeakSet<object>();
  private readonly atSet = new WeakSet<object>();
  /**
   * regexChecks remembers each matcher regex's verdict for this parse: the selector rules ask
   * again for every regex matcher, and a long selector often repeats the same pattern.
   */
  private readonly regexChecks = new Map<string, LabelRegexCheck>();
  /** emptyMatcherExempt holds info()'s label-only selectors. */
  private readonly emptyMatcherExempt = new WeakSet<VectorSelector>();

  constructor(text: string, options: ParseOptions) {
    this.text = text;
    this.lexer = new Lexer(text);
    this.experimentalFunctions = options.experimentalFunctions ?? true;
    this.durationExpressions = options.durationExpressions ?? false;
    this.extendedRangeSelectors = options.extendedRangeSelectors ?? false;
    this.binopFillModifiers = options.binopFillModifiers ?? false;
  }

  /** parse runs the whole parse and throws the collected errors, if any. */
  parse(): Expr {
    let expr: Expr | undefined;
    try {
      if (this.peek().kind === 'EOF') {
        this.addError('no expression found in input', { start: 0, end: 0 });
      } else {
        expr = this.parseExpr(1);
        if (this.peek().kind !== 'EOF') this.unexpected(this.peek());
        const tooDeep = firstTooDeep(expr, childrenOf);
        if (tooDeep !== undefined) {
          this.addError(tooDeepMessage(), tooDeep.pos);
          throw new Bail();
        }
      }
    } catch (err) {
      if (!(err instanceof Bail)) throw err;
    }
    if (this.errors.length === 0 && expr !== undefined) this.checkSelectors(expr);
    if (this.errors.length > 0 || expr === undefined) throw syntaxError(this.text, this.errors);
    return expr;
  }

  // ---- token access and errors ----

  /** lexUpTo lexes until token `i` exists or the input has ended (EOF or ERROR, which repeats). */
  private lexUpTo(i: number): void {
    while (!this.lexed && this.tokens.length <= i) {
      const token = this.lexer.next();
      if (token.kind === 'COMMENT') continue;
      this.tokens.push(token);
      if (token.kind === 'EOF' || token.kind === 'ERROR') this.lexed = true;
    }
  }

  private peek(ahead = 0): Token {
    this.lexUpTo(this.index + ahead);
    return this.tokens[Math.min(this.index + ahead, this.tokens.length - 1)];
  }

  private advance(): Token {
    this.lexUpTo(this.index + 1);
    const token = this.tokens[this.index];
    if (this.index < this.tokens.length - 1) this.index++;
    return token;
  }

  private addError(message: string, position: PositionRange): void {
    this.errors.push({ message, position: { start: position.start, end: position.end } });
  }

  /**
   * unexpected records "unexpected <token> [in <context>][, expected <what>]" and stops the parse.
   * A lexer error token reports the lexer's own message instead.
   */
  private unexpected(token: Token, context = '', expected = ''): never {
    if (token.kind === 'ERROR') {
      this.addError(token.text, { start: token.start, end: token.end });
      throw new Bail();
    }
    const where = context !== '' ? context : this.aggregationDepth > 0 ? 'aggregation' : '';
    let message = `unexpected ${describeToken(token)}`;
    if (where !== '') message += ` in ${where}`;
    if (expected !== '') message += `, expected ${expected}`;
    this.addError(message, { start: token.start, end: token.end });
    throw new Bail();
  }

  private expect(kind: TokenKind, context = '', expected = ''): Token {
    const token = this.peek();
    if (token.kind !== kind) this.unexpected(token, context, expected);
    return this.advance();
  }

  // ---- expressions ----

  /** parseExpr parses operators of at least `minPrecedence` by precedence climbing. */
  private parseExpr(minPrecedence: number): Expr {
    if (this.nesting >= MAX_EXPRESSION_DEPTH) {
      const token = this.peek();
      if (token.kind === 'ERROR') this.unexpected(token);
      this.addError(tooDeepMessage(), { start: token.start, end: token.end });
      throw new Bail();
    }
    this.nesting++;
    let lhs = this.parseUnary();
    // Each link of a chain such as `a + b + c` adds a level to the tree above `lhs`; counting
    // them stops a long chain at its first excess operator instead of after the whole input.
    let links = 0;
    for (;;) {
      const entry = BINARY_OPERATORS.get(this.peek().kind);
      if (entry === undefined || entry.precedence < minPrecedence) {
        this.nesting--;
        return lhs;
      }
      if (this.nesting + ++links > MAX_EXPRESSION_DEPTH) {
        const token = this.peek();
        this.addError(tooDeepMessage(), { start: token.start, end: token.end });
        throw new Bail();
      }
      const opToken = this.advance();
      const modifiers = this.parseBinaryModifiers(entry.op);
      const rhs = this.parseExpr(entry.op === '^' ? entry.precedence : entry.precedence + 1);
      lhs = this.makeBinary(entry.op, opToken, lhs, rhs, modifiers);
    }
  }

  /** parseUnary handles a leading sign, which binds looser than `^` but tighter than `*`. */
  private parseUnary(): Expr {
    const token = this.peek();
    if (token.kind !== 'ADD' && token.kind !== 'SUB') return this.parsePostfix(this.parsePrimary());
    this.advance();
    const operand = this.parseExpr(POW_PRECEDENCE);
    const op = token.kind === 'SUB' ? '-' : '+';
    if (operand.type === 'NumberLiteral') {
      // A signed number is a number, as in Prometheus: `-1` is a literal, not an operation.
      return {
        ...operand,
        value: op === '-' ? -operand.value : operand.value,
        pos: { start: token.start, end: operand.pos.end },
      };
    }
    return {
      type: 'UnaryExpr',
      op,
      expr: operand,
      pos: { start: token.start, end: operand.pos.end },
      valueType: operand.valueType,
    };
  }

  /** parsePrimary parses an operand: a literal, selector, call, aggregation or parenthesis. */
  private parsePrimary(): Expr {
    const token = this.peek();
    switch (token.kind) {
      case 'NUMBER':
        return this.parseNumberLiteral();
      case 'DURATION': {
        this.advance();
        const seconds = this.durationSeconds(token);
        return numberLiteral(seconds, true, { start: token.start, end: token.end });
      }
      case 'STRING': {
        this.advance();
        return {
          type: 'StringLiteral',
          value: this.unquote(token),
          pos: { start: token.start, end: token.end },
          valueType: 'string',
        };
      }
      case 'LEFT_PAREN': {
        this.advance();
        const inner = this.parseExpr(1);
        const close = this.expect('RIGHT_PAREN');
        return {
          type: 'ParenExpr',
          expr: inner,
          pos: { start: token.start, end: close.end },
          valueType: inner.valueType,
        };
      }
      case 'LEFT_BRACE':
        return this.parseVectorSelector(null);
      case 'IDENTIFIER':
        return this.peek(1).kind === 'LEFT_PAREN' ? this.parseCall() : this.parseVectorSelector(this.advance());
      case 'METRIC_IDENTIFIER':
        return this.parseVectorSelector(this.advance());
      case 'AGGREGATOR': {
        const next = this.peek(1).kind;
        if (next === 'LEFT_PAREN' || next === 'BY' || next === 'WITHOUT') return this.parseAggregate();
        return this.parseVectorSelector(this.advance());
      }
      default:
        if (CALLABLE_KEYWORDS.has(token.kind)) {
          return this.peek(1).kind === 'LEFT_PAREN' ? this.parseCall() : this.parseVectorSelector(this.advance());
        }
        if (NAME_KEYWORDS.has(token.kind)) return this.parseVectorSelector(this.advance());
        return this.unexpected(token);
    }
  }

  /** parseNumberLiteral converts a NUMBER token, recording why when its value is unusable. */
  private parseNumberLiteral(): NumberLiteral {
    const token = this.advance();
    const parsed = parseNumberText(token.text);
    if (!parsed.ok) this.addError(parsed.message, { start: token.start, end: token.end });
    return numberLiteral(parsed.ok ? parsed.value : 0, false, { start: token.start, end: token.end });
  }

  /** durationSeconds converts a DURATION token, recording why when it is not a valid one. */
  private durationSeconds(token: Token): number {
    const parsed = parseDurationToken(token.text);
    if (!parsed.ok) {
      this.addError(parsed.message, { start: token.start, end: token.end });
      return 0;
    }
    return parsed.ms / 1000;
  }

  /** unquote decodes a STRING token; the lexer has already validated its escapes. */
  private unquote(token: Token): string {
    const result = unquoteGoString(token.text);
    if (result.ok) return result.value;
    this.addError(`error unquoting string ${quoteGoString(token.text)}: ${result.message}`, {
      start: token.start,
      end: token.end,
    });
    return '';
  }

  // ---- postfix modifiers ----

  /** parsePostfix applies `[..]`, `offset` and `@` to the expression they follow. */
  private parsePostfix(expr: Expr): Expr {
    for (;;) {
      const token = this.peek();
      switch (token.kind) {
        case 'LEFT_BRACKET':
          expr = this.parseRangeOrSubquery(expr);
          break;
        case 'OFFSET':
          expr = this.parseOffset(expr);
          break;
        case 'AT':
          expr = this.parseAt(expr);
          break;
        case 'ANCHORED':
        case 'SMOOTHED':
          this.advance();
          this.setExtendedRange(expr, token);
          break;
        default:
          return expr;
      }
    }
  }

  /**
   * setExtendedRange applies `anchored` or `smoothed` to the selector before it, with
   * Prometheus' checks and messages.
   */
  private setExtendedRange(expr: Expr, token: Token): void {
    const name = token.kind === 'ANCHORED' ? 'anchored' : 'smoothed';
    if (!this.extendedRangeSelectors) {
      this.addError(`${name} modifier is experimental and not enabled`, expr.pos);
      return;
    }
    let vs: VectorSelector;
    if (expr.type === 'VectorSelector') vs = expr;
    else if (expr.type === 'MatrixSelector') vs = expr.selector;
    else {
      this.addError(expr.type === 'SubqueryExpr' ? `${name} modifier is not supported for subqueries` : `${name} modifier not implemented`, expr.pos);
      return;
    }
    vs[name] = true;
    if (vs.anchored === true && vs.smoothed === true) this.addError('anchored and smoothed modifiers cannot be used together', expr.pos);
  }

  /** parseRangeOrSubquery reads `[range]` or `[range:step]` after `expr`. */
  private parseRangeOrSubquery(expr: Expr): Expr {
    const open = this.advance();
    const rangeContext = 'subquery or range selector';
    if (!DURATION_START_KINDS.has(this.peek().kind)) {
      this.unexpected(this.peek(), rangeContext, 'number, duration, step(), or range()');
    }
    const range = this.parsePositiveDuration(rangeContext, 'number, duration, step(), or range()');
    const after = this.peek();
    if (after.kind === 'RIGHT_BRACKET') {
      const close = this.advance();
      return this.makeMatrixSelector(expr, range, { start: open.start, end: close.end });
    }
    if (after.kind !== 'COLON') this.unexpected(after, 'subquery or range', '":" or "]"');
    this.advance();
    let step: DurationValue | null = null;
    const stepToken = this.peek();
    if (stepToken.kind !== 'RIGHT_BRACKET') {
      const stepExpected = 'number, duration, step(), range(), or "]"';
      if (!DURATION_START_KINDS.has(stepToken.kind)) this.unexpected(stepToken, 'subquery selector', stepExpected);
      step = this.parsePositiveDuration('subquery selector', stepExpected);
    }
    const close = this.expect('RIGHT_BRACKET', 'subquery selector', '"]"');
    const subquery: SubqueryExpr = {
      type: 'SubqueryExpr',
      expr,
      rangeMs: secondsToMs(range.seconds ?? 0),
      stepMs: step === null ? null : secondsToMs(step.seconds ?? 0),
      offsetMs: 0,
      at: null,
      pos: { start: expr.pos.start, end: close.end },
      valueType: 'matrix',
    };
    if (range.expr !== undefined) subquery.rangeExpr = range.expr;
    if (step?.expr !== undefined) subquery.stepExpr = step.expr;
    return subquery;
  }

  /** makeMatrixSelector turns a selector and a range into a range vector selector. */
  private makeMatrixSelector(expr: Expr, range: DurationValue, brackets: PositionRange): Expr {
    let problem = '';
    if (expr.type !== 'VectorSelector') problem = 'ranges only allowed for vector selectors';
    else if (this.offsetSet.has(expr)) problem = 'no offset modifiers allowed before range';
    else if (this.atSet.has(expr)) problem = 'no @ modifiers allowed before range';
    if (problem !== '') this.addError(problem, brackets);
    if (expr.type !== 'VectorSelector') return expr;
    const matrix: MatrixSelector = {
      type: 'MatrixSelector',
      selector: expr,
      rangeMs: secondsToMs(range.seconds ?? 0),
      pos: { start: expr.pos.start, end: brackets.end },
      valueType: 'matrix',
    };
    if (range.expr !== undefined) matrix.rangeExpr = range.expr;
    return matrix;
  }

  /**
   * parsePositiveDuration reads a range or step: a number of seconds, a duration or a duration
   * expression, which must come out positive (checked here when it is constant, when the query
   * runs otherwise).
   */
  private parsePositiveDuration(context: string, expected: string): DurationValue {
    const errorsBefore = this.errors.length;
    const first = this.peek();
    const value = this.finishDuration(this.parseDurationTerm(1, context, expected), first);
    // A literal that was itself malformed has already been explained.
    if (value.seconds !== null && value.seconds <= 0 && this.errors.length === errorsBefore) {
      this.addError('duration must be greater than 0', value.pos);
      return { seconds: null, pos: value.pos };
    }
    return value;
  }

  /**
   * finishDuration folds a duration expression made of literals to its value; one that reads
   * step() or range() is kept for resolveDurations. Arithmetic is Prometheus' duration
   * expression feature: with it disabled only a (signed) literal is accepted.
   */
  private finishDuration(expr: DurationExpr, blame: Token): DurationValue {
    const literal = expr.kind === 'literal' || (expr.kind === 'unary' && expr.expr.kind === 'literal');
    if (!literal && !this.durationExpressions) {
      this.addError('experimental duration expression is not enabled', expr.pos);
      return { seconds: null, pos: expr.pos };
    }
    if (readsQuery(expr)) return { seconds: null, pos: expr.pos, expr };
    let seconds: number;
    try {
      seconds = durationSeconds(expr, { stepMs: 0, rangeMs: 0 });
    } catch {
      // Division or modulo by zero: already reported at the operator.
      return { seconds: null, pos: expr.pos };
    }
    if (!Number.isFinite(seconds) || Math.abs(seconds) > MAX_DURATION_SECONDS) {
      this.addError('duration out of range', literal ? { start: blame.start, end: blame.end } : expr.pos);
      return { seconds: null, pos: expr.pos };
    }
    return { seconds, pos: expr.pos };
  }

  private literalSeconds(token: Token): number {
    if (token.kind === 'DURATION') return this.durationSeconds(token);
    const parsed = parseNumberText(token.text);
    if (!parsed.ok) {
      this.addError(parsed.message, { start: token.start, end: token.end });
      return 0;
    }
    return parsed.value;
  }

  /** parseDurationTerm parses the duration-expression grammar by precedence climbing. */
  private parseDurationTerm(minPrecedence: number, context: string, expected: string): DurationExpr {
    let lhs = this.parseDurationUnary(context, expected);
    for (;;) {
      const token = this.peek();
      const entry = BINARY_OPERATORS.get(token.kind);
      if (entry === undefined || entry.precedence < 4 || entry.precedence < minPrecedence || entry.op === 'atan2') {
        return lhs;
      }
      this.advance();
      const rhs = this.parseDurationTerm(entry.op === '^' ? entry.precedence : entry.precedence + 1, context, expected);
      const op = entry.op as DurationBinaryOp;
      if ((op === '/' || op === '%') && rhs.kind === 'literal' && rhs.seconds === 0) {
        this.addError(op === '/' ? 'division by zero' : 'modulo by zero', { start: token.start, end: token.end });
      }
      lhs = { kind: 'binary', op, lhs, rhs, pos: { start: lhs.pos.start, end: rhs.pos.end } };
    }
  }

  /** parseDurationUnary reads a signed operand: the sign binds looser than `^`, as for numbers. */
  private parseDurationUnary(context: string, expected: string): DurationExpr {
    const token = this.peek();
    if (token.kind !== 'ADD' && token.kind !== 'SUB') return this.parseDurationPrimary(context, expected);
    this.advance();
    const operand = this.parseDurationTerm(POW_PRECEDENCE, context, expected);
    return signDuration(token, operand);
  }

  /** parseDurationPrimary reads a literal, a parenthesis, step(), range(), min_of() or max_of(). */
  private parseDurationPrimary(context: string, expected: string): DurationExpr {
    const token = this.peek();
    switch (token.kind) {
      case 'NUMBER':
      case 'DURATION':
        this.advance();
        return { kind: 'literal', seconds: this.literalSeconds(token), duration: token.kind === 'DURATION', pos: { start: token.start, end: token.end } };
      case 'LEFT_PAREN': {
        this.advance();
        const inner = this.parseDurationTerm(1, context, expected);
        const close = this.expect('RIGHT_PAREN', context, expected);
        return { kind: 'paren', expr: inner, pos: { start: token.start, end: close.end } };
      }
      case 'STEP':
      case 'RANGE': {
        this.advance();
        this.expect('LEFT_PAREN', context, expected);
        const close = this.expect('RIGHT_PAREN', context, expected);
        return { kind: token.kind === 'STEP' ? 'step' : 'range', pos: { start: token.start, end: close.end } };
      }
      case 'MAX_OF':
      case 'MIN_OF': {
        this.advance();
        this.expect('LEFT_PAREN', context, expected);
        const lhs = this.parseDurationTerm(1, context, expected);
        this.expect('COMMA', context, expected);
        const rhs = this.parseDurationTerm(1, context, expected);
        const close = this.expect('RIGHT_PAREN', context, expected);
        return { kind: token.kind === 'MAX_OF' ? 'max_of' : 'min_of', lhs, rhs, pos: { start: token.start, end: close.end } };
      }
      default:
        return this.unexpected(token, context, expected);
    }
  }

  /**
   * parseOffset reads `offset <duration>` and moves it onto the selector or subquery it shifts.
   * The duration is a signed literal, step(), range(), min_of/max_of or a parenthesis: any
   * operator after it applies to the shifted selector (`x offset 1m * 2` doubles `x offset 1m`).
   */
  private parseOffset(expr: Expr): Expr {
    this.advance();
    const expected = 'number, duration, step(), or range()';
    const first = this.peek();
    const signed = first.kind === 'ADD' || first.kind === 'SUB';
    const operandAt = signed ? this.peek(1) : first;
    if (!DURATION_START_KINDS.has(operandAt.kind) || operandAt.kind === 'ADD' || operandAt.kind === 'SUB') {
      this.unexpected(operandAt, 'offset', expected);
    }
    if (signed) this.advance();
    const operand = this.parseDurationPrimary('offset', expected);
    const duration = signed ? signDuration(first, operand) : operand;
    const value = this.finishDuration(duration, first);
    const end = this.tokens[this.index - 1].end;
    const target = this.modifierTarget(
      expr,
      'offset modifier must be preceded by an instant vector selector or range vector selector or a subquery',
    );
    if (target === null) return expr;
    if (this.offsetSet.has(target)) {
      this.addError('offset may not be set multiple times', expr.pos);
    } else {
      this.offsetSet.add(target);
      target.offsetMs = value.seconds === null ? 0 : secondsToMs(value.seconds);
      if (value.expr !== undefined) target.offsetExpr = value.expr;
    }
    expr.pos = { start: expr.pos.start, end };
    return expr;
  }

  /** parseAt reads `@ <timestamp>`, `@ start()` or `@ end()` and pins the selector or subquery. */
  private parseAt(expr: Expr): Expr {
    this.advance();
    const first = this.peek();
    let at: AtModifier;
    if (first.kind === 'START' || first.kind === 'END') {
      this.advance();
      this.expect('LEFT_PAREN', '@', 'timestamp');
      this.expect('RIGHT_PAREN', '@', 'timestamp');
      at = { kind: first.kind === 'START' ? 'start' : 'end' };
    } else {
      const signed = first.kind === 'ADD' || first.kind === 'SUB';
      const literal = signed ? this.peek(1) : first;
      if (literal.kind !== 'NUMBER' && literal.kind !== 'DURATION') this.unexpected(literal, '@', 'timestamp');
      if (signed) this.advance();
      this.advance();
      const magnitude = this.literalSeconds(literal);
      const seconds = first.kind === 'SUB' ? -magnitude : magnitude;
      if (!Number.isFinite(seconds) || Math.abs(seconds) >= 2 ** 63) {
        this.addError(`timestamp out of bounds for @ modifier: ${formatGoFixed(seconds)}`, expr.pos);
      }
      at = { kind: 'timestamp', ms: Number.isFinite(seconds) ? Math.round(seconds * 1000) + 0 : 0 };
    }
    const end = this.tokens[this.index - 1].end;
    const target = this.modifierTarget(
      expr,
      '@ modifier must be preceded by an instant vector selector or range vector selector or a subquery',
    );
    if (target === null) return expr;
    if (this.atSet.has(target)) {
      this.addError('@ <timestamp> may not be set multiple times', expr.pos);
      return expr;
    }
    this.atSet.add(target);
    target.at = at;
    expr.pos = { start: expr.pos.start, end };
    return expr;
  }

  /** modifierTarget finds the node an offset or `@` belongs to, recording `problem` if none. */
  private modifierTarget(expr: Expr, problem: string): VectorSelector | SubqueryExpr | null {
    switch (expr.type) {
      case 'VectorSelector':
      case 'SubqueryExpr':
        return expr;
      case 'MatrixSelector':
        return expr.selector;
      default:
        this.addError(problem, expr.pos);
        return null;
    }
  }

  // ---- binary operators ----

  /** parseBinaryModifiers reads what may follow a binary operator: bool, on/ignoring, group_x. */
  private parseBinaryModifiers(op: BinaryOp): { returnBool: boolean; matching: VectorMatching; fillPos: boolean } {
    let returnBool = false;
    if (this.peek().kind === 'BOOL') {
      this.advance();
      returnBool = true;
    }
    let card: MatchCardinality = 'one-to-one';
    let on = false;
    let labels: string[] = [];
    let include: string[] = [];
    const matchKind = this.peek().kind;
    if (matchKind === 'ON' || matchKind === 'IGNORING') {
      this.advance();
      on = matchKind === 'ON';
      labels = this.parseGroupingLabels();
      const groupKind = this.peek().kind;
      if (groupKind === 'GROUP_LEFT' || groupKind === 'GROUP_RIGHT') {
        this.advance();
        card = groupKind === 'GROUP_LEFT' ? 'many-to-one' : 'one-to-many';
        if (this.peek().kind === 'LEFT_PAREN') include = this.parseGroupingLabels();
      }
    }
    if (isSetOp(op) && card === 'one-to-one') card = 'many-to-many';
    const fill = this.parseFillModifiers();
    const matching: VectorMatching = { card, on, labels, include };
    if (fill !== null) matching.fill = fill;
    return { returnBool, matching, fillPos: fill !== null };
  }

  /**
   * parseFillModifiers reads `fill(v)`, or `fill_left(v)` and/or `fill_right(v)` in either
   * order: the values that stand in for a missing side of a vector match (null: none written).
   */
  private parseFillModifiers(): { lhs: number | null; rhs: number | null } | null {
    let lhs: number | null = null;
    let rhs: number | null = null;
    let seen = false;
    for (;;) {
      const kind = this.peek().kind;
      // Without a parenthesis the keyword is the right operand's metric name (`x + fill`).
      if ((kind !== 'FILL' && kind !== 'FILL_LEFT' && kind !== 'FILL_RIGHT') || this.peek(1).kind !== 'LEFT_PAREN') break;
      // fill() stands alone; fill_left and fill_right may each appear once.
      if ((seen && kind === 'FILL') || (kind === 'FILL_LEFT' && lhs !== null) || (kind === 'FILL_RIGHT' && rhs !== null) || (seen && lhs !== null && rhs !== null)) {
        this.unexpected(this.peek());
      }
      seen = true;
      this.advance();
      const value = this.parseFillValue();
      if (kind !== 'FILL_RIGHT') lhs = value;
      if (kind !== 'FILL_LEFT') rhs = value;
      if (kind === 'FILL') break;
    }
    return seen ? { lhs, rhs } : null;
  }

  /** parseFillValue reads `(number)`, optionally signed. */
  private parseFillValue(): number {
    this.expect('LEFT_PAREN');
    const sign = this.peek().kind;
    if (sign === 'ADD' || sign === 'SUB') this.advance();
    const value = this.peek();
    if (value.kind !== 'NUMBER' && value.kind !== 'DURATION') this.unexpected(value);
    this.advance();
    this.expect('RIGHT_PAREN');
    const magnitude = this.literalSeconds(value);
    return sign === 'SUB' ? -magnitude : magnitude;
  }

  private makeBinary(
    op: BinaryOp,
    opToken: Token,
    lhs: Expr,
    rhs: Expr,
    modifiers: { returnBool: boolean; matching: VectorMatching; fillPos: boolean },
  ): BinaryExpr {
    const pos = { start: lhs.pos.start, end: rhs.pos.end };
    if (modifiers.fillPos && !this.binopFillModifiers) this.addError('binop fill modifiers are experimental and not enabled', pos);
    // The operands were built by this parse, so their types are current; deriving them again
    // would walk the whole left operand at every link of a long chain.
    const lhsType = lhs.valueType;
    const rhsType = rhs.valueType;
    return {
      type: 'BinaryExpr',
      op,
      lhs,
      rhs,
      returnBool: modifiers.returnBool,
      matching: modifiers.matching,
      opPos: { start: opToken.start, end: opToken.end },
      pos,
      valueType: lhsType === 'scalar' && rhsType === 'scalar' ? 'scalar' : 'vector',
    };
  }

  /** parseGroupingLabels reads `(label, ...)` after by, without, on, ignoring or group_x. */
  private parseGroupingLabels(): string[] {
    this.expect('LEFT_PAREN', 'grouping opts', '"("');
    const labels: string[] = [];
    if (this.peek().kind === 'RIGHT_PAREN') {
      this.advance();
      return labels;
    }
    for (;;) {
      const token = this.peek();
      if (token.kind === 'STRING') {
        this.advance();
        const name = this.unquote(token);
        if (!isValidLabelName(name)) {
          this.addError(`invalid label name for grouping: ${quoteGoString(name)}`, { start: token.start, end: token.end });
        }
        labels.push(name);
      } else if (GROUPING_LABEL_KINDS.has(token.kind)) {
        this.advance();
        labels.push(token.text);
      } else {
        this.unexpected(token, 'grouping opts', 'label');
      }
      const next = this.peek();
      if (next.kind === 'RIGHT_PAREN') {
        this.advance();
        return labels;
      }
      if (next.kind !== 'COMMA') this.unexpected(next, 'grouping opts', '"," or ")"');
      this.advance();
      if (this.peek().kind === 'RIGHT_PAREN') {
        this.advance();
        return labels;
      }
    }
  }

  // ---- aggregations and calls ----

  /**
   * parseAggregate reads `op [by|without (...)] (args) [by|without (...)]` and checks the
   * argument count, which depends on whether the operator takes a parameter.
   */
  private parseAggregate(): Expr {
    const opToken = this.advance();
    const op = opToken.text.toLowerCase() as AggregateOp;
    let grouping: string[] = [];
    let without = false;
    let modifierSeen = false;
    const modifier = this.peek().kind;
    if (modifier === 'BY' || modifier === 'WITHOUT') {
      this.advance();
      without = modifier === 'WITHOUT';
      grouping = this.parseGroupingLabels();
      modifierSeen = true;
    }
    this.aggregationDepth++;
    if (this.peek().kind !== 'LEFT_PAREN') this.unexpected(this.peek(), 'aggregation');
    const { args, end: bodyEnd } = this.parseCallArgs();
    this.aggregationDepth--;
    let end = bodyEnd;
    const after = this.peek().kind;
    if (!modifierSeen && (after === 'BY' || after === 'WITHOUT')) {
      this.advance();
      without = after === 'WITHOUT';
      grouping = this.parseGroupingLabels();
      end = this.tokens[this.index - 1].end;
    }
    const pos = { start: opToken.start, end };
    const definition = AGGREGATIONS[op];
    if (args.length === 0) {
      this.addError('no arguments for aggregate expression provided', pos);
      return numberLiteral(0, false, pos);
    }
    if (definition.experimental && !this.experimentalFunctions) {
      this.addError(`${op}() is experimental and must be enabled with --enable-feature=promql-experimental-functions`, pos);
      return numberLiteral(0, false, pos);
    }
    const wanted = definition.paramType === null ? 1 : 2;
    if (args.length !== wanted) {
      this.addError(
        `wrong number of arguments for aggregate expression provided, expected ${wanted}, got ${args.length}`,
        pos,
      );
      return numberLiteral(0, false, pos);
    }
    const node: AggregateExpr = {
      type: 'AggregateExpr',
      op,
      expr: args[wanted - 1],
      param: wanted === 2 ? args[0] : null,
      grouping,
      without,
      pos,
      valueType: 'vector',
    };
    return node;
  }

  /** parseCall reads `name(args)` and resolves `name` against the function table. */
  private parseCall(): Expr {
    const nameToken = this.advance();
    const name = nameToken.text;
    const namePos = { start: nameToken.start, end: nameToken.end };
    let func: FunctionDef | undefined = lookupFunction(name);
    if (func === undefined) {
      this.addError(`unknown function with name ${quoteGoString(name)}`, namePos);
    } else if (func.experimental && !this.experimentalFunctions) {
      this.addError(`function ${quoteGoString(name)} is not enabled`, namePos);
    }
    const { args, end } = this.parseCallArgs();
    func ??= unknownFunction(name);
    if (func.name === 'info' && args.length > 1 && args[1].type === 'VectorSelector') {
      this.emptyMatcherExempt.add(args[1]);
    }
    const call: Call = {
      type: 'Call',
      func,
      args,
      pos: { start: nameToken.start, end },
      valueType: func.returnType,
    };
    return call;
  }

  /** parseCallArgs reads `(expr, ...)`; a trailing comma is reported but tolerated. */
  private parseCallArgs(): { args: Expr[]; end: number } {
    this.expect('LEFT_PAREN');
    const args: Expr[] = [];
    if (this.peek().kind === 'RIGHT_PAREN') return { args, end: this.advance().end };
    for (;;) {
      args.push(this.parseExpr(1));
      const next = this.peek();
      if (next.kind === 'RIGHT_PAREN') return { args, end: this.advance().end };
      if (next.kind !== 'COMMA') this.unexpected(next);
      this.advance();
      if (this.peek().kind === 'RIGHT_PAREN') {
        this.addError('trailing commas not allowed in function call args', { start: next.start, end: next.end });
        return { args, end: this.advance().end };
      }
    }
  }

  // ---- selectors ----

  /** parseVectorSelector reads an optional `{...}` after the metric name (when there is one). */
  private parseVectorSelector(nameToken: Token | null): VectorSelector {
    const matchers: LabelMatcher[] = [];
    let start = nameToken?.start ?? this.peek().start;
    let end = nameToken?.end ?? start;
    if (nameToken !== null) matchers.push({ name: METRIC_NAME_LABEL, op: '=', value: nameToken.text });
    if (this.peek().kind === 'LEFT_BRACE') {
      const open = this.advance();
      if (nameToken === null) start = open.start;
      end = this.parseMatcherList(matchers);
    }
    return {
      type: 'VectorSelector',
      name: nameToken === null ? null : nameToken.text,
      matchers,
      offsetMs: 0,
      at: null,
      pos: { start, end },
      valueType: 'vector',
    };
  }

  /** parseMatcherList reads matchers up to and including `}`, returning the end offset. */
  private parseMatcherList(matchers: LabelMatcher[]): number {
    const context = 'label matching';
    for (;;) {
      const token = this.peek();
      if (token.kind === 'RIGHT_BRACE') return this.advance().end;
      if (token.kind === 'IDENTIFIER' || token.kind === 'STRING') {
        this.advance();
        const name = token.kind === 'STRING' ? this.unquote(token) : token.text;
        const opToken = this.peek();
        const op = MATCH_OPS.get(opToken.kind);
        if (op === undefined) {
          if (token.kind === 'IDENTIFIER') this.unexpected(opToken, context, 'label matching operator');
          // A lone quoted string is the metric name: {"my.metric"}.
          matchers.push({ name: METRIC_NAME_LABEL, op: '=', value: name });
        } else {
          this.advance();
          const valueToken = this.peek();
          if (valueToken.kind !== 'STRING') this.unexpected(valueToken, context, 'string');
          this.advance();
          const value = this.unquote(valueToken);
          if (op === '=~' || op === '!~') {
            const check = this.checkRegex(value);
            if (!check.ok) this.addError(check.message, { start: token.start, end: valueToken.end });
          }
          matchers.push({ name, op, value });
        }
      } else {
        this.unexpected(token, context, 'identifier or "}"');
      }
      const next = this.peek();
      if (next.kind === 'RIGHT_BRACE') return this.advance().end;
      if (next.kind !== 'COMMA') this.unexpected(next, context, '"," or "}"');
      this.advance();
    }
  }

  /** checkRegex is checkLabelRegex, once per distinct pattern of this parse. */
  private checkRegex(pattern: string): LabelRegexCheck {
    let check = this.regexChecks.get(pattern);
    if (check === undefined) {
      check = checkLabelRegex(pattern);
      this.regexChecks.set(pattern, check);
    }
    return check;
  }

  /**
   * checkSelectors applies the whole-selector rules once the tree is complete: a bare metric
   * name may not be repeated as `__name__`, and a selector must not match every series.
   */
  private checkSelectors(root: Expr): void {
    walkExpr(root, (node) => {
      if (node.type !== 'VectorSelector') return;
      if (node.name !== null) {
        for (const m of node.matchers.slice(1)) {
          if (m.name === METRIC_NAME_LABEL) {
            this.addError(
              `metric name must not be set twice: ${quoteGoString(node.name)} or ${quoteGoString(m.value)}`,
              node.pos,
            );
          }
        }
        return;
      }
      if (this.emptyMatcherExempt.has(node)) return;
      if (node.matchers.every((m) => matchesEmpty(m, (pattern) => this.checkRegex(pattern)))) {
        this.addError('vector selector must contain at least one non-empty matcher', node.pos);
      }
    });
  }
}

/** matchesEmpty reports whether a matcher accepts the empty label value (an absent label). */
function matchesEmpty(m: LabelMatcher, checkRegex: (pattern: string) => LabelRegexCheck): boolean {
  switch (m.op) {
    case '=':
      return m.value === '';
    case '!=':
      return m.value !== '';
    case '=~':
    case '!~': {
      const check = checkRegex(m.value);
      const matches = check.ok && check.matchesEmpty;
      return m.op === '=~' ? matches : !matches;
    }
  }
}

/** numberLiteral builds a NumberLiteral node. */
function numberLiteral(value: number, duration: boolean, pos: PositionRange): NumberLiteral {
  return { type: 'NumberLiteral', value, duration, pos, valueType: 'scalar' };
}

/** unknownFunction stands in for a name that is not in the table; the parse fails anyway. */
function unknownFunction(name: string): FunctionDef {
  return { name, argTypes: [], variadic: -1, minArgs: 0, maxArgs: Infinity, returnType: 'vector', experimental: false, shard: null, readsEvaluationTime: false, readsQueryWindow: false, costGrowsWithWindow: false };
}


/**
 * parsePromQL parses a PromQL expression into its syntax tree. It throws an INVALID_EXPR
 * EngineError listing every problem found, each as `line:col: parse error: ...`. The tree is
 * not yet type-checked; see checkPromQL and parseAndCheckPromQL. Without options it admits
 * what the server's feature flags admit (see features.ts); with options, each one left out is
 * off (experimental functions excepted).
 */
export function parsePromQL(text: string, options: ParseOptions = defaultParseOptions()): Expr {
  if (text.length > MAX_QUERY_LENGTH) {
    throw syntaxError(text, [
      { message: `input size too long (${text.length} > ${MAX_QUERY_LENGTH})`, position: { start: 0, end: 0 } },
    ]);
  }
  return new Parser(text, options).parse();
}
