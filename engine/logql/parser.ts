/**
 * The LogQL parser: a hand-written precedence-climbing parser over the lexer's tokens that
 * accepts the language of Loki's yacc grammar (pkg/logql/syntax/syntax.y) and builds the
 * tree in ast.ts. It reports the first syntax error as an INVALID_EXPR EngineError with a
 * `line:col` position and Loki's wording. Semantic rules Loki applies after parsing (which
 * aggregations take unwrap or grouping, parameter values, operand types of binary
 * operators) are left to checker.ts, so a tool can still parse and print such a query.
 */
import type {
  BinaryExpr,
  BinaryOp,
  Expr,
  Grouping,
  LabelReplaceExpr,
  LogRangeExpr,
  LogSelectorExpr,
  NumberLiteral,
  PipelineStage,
  RangeAggregationExpr,
  RangeAggregationOp,
  SampleExpr,
  UnwrapExpr,
  VectorAggregationExpr,
  VectorAggregationOp,
  VectorExpr,
  VectorMatching,
  LabelMatcher,
} from './ast.js';
import { RANGE_AGGREGATION_OPS, VECTOR_AGGREGATION_OPS } from './ast.js';
import type { PositionRange } from '../errors.js';
import { Lexer } from './lexer.js';
import type { TokenType } from './lexer.js';
import {
  atLineFilter,
  checkRegexToken,
  parseLabelFilter,
  parseLineFilter,
  parseLogPipeline,
  parseNumberToken,
  parseSelector,
  parseStageAfterPipe,
  startsLabelFilter,
} from './parsePipeline.js';
import { TokenCursor } from './tokenCursor.js';
import { tooDeepPosition } from './depth.js';
import { MAX_EXPRESSION_DEPTH, tooDeepMessage } from '../common/depth.js';
import { parseGoFloatLiteral } from '../common/goFloat.js';

/** MAX_QUERY_LENGTH is Loki's limit on query text (128 KiB), checked before lexing. */
export const MAX_QUERY_LENGTH = 131072;

const RANGE_OPS: ReadonlySet<string> = new Set(RANGE_AGGREGATION_OPS);
const VECTOR_OPS: ReadonlySet<string> = new Set(VECTOR_AGGREGATION_OPS);

/** BINARY_PRECEDENCE ranks the binary operators, loosest first, as in Loki's grammar. */
const BINARY_PRECEDENCE: Readonly<Record<BinaryOp, number>> = {
  or: 1,
  and: 2,
  unless: 2,
  '==': 3,
  '!=': 3,
  '>': 3,
  '>=': 3,
  '<': 3,
  '<=': 3,
  '+': 4,
  '-': 4,
  '*': 5,
  '/': 5,
  '%': 5,
  '^': 6,
};

/** binaryPrecedence is exported for the printer, which must parenthesise the same way. */
export function binaryPrecedence(op: BinaryOp): number {
  return BINARY_PRECEDENCE[op];
}

/** isRightAssociative is true for `^` only. */
export function isRightAssociative(op: BinaryOp): boolean {
  return op === '^';
}

const SYMBOL_OPS: ReadonlySet<string> = new Set(['+', '-', '*', '/', '%', '^', '==', '!=', '>', '>=', '<', '<=']);
const WORD_OPS: ReadonlySet<string> = new Set(['or', 'and', 'unless']);

function binaryOpAt(c: TokenCursor): BinaryOp | undefined {
  const token = c.peek();
  if (SYMBOL_OPS.has(token.type)) return token.type as BinaryOp;
  const word = c.word();
  if (word !== undefined && WORD_OPS.has(word)) return word as BinaryOp;
  return undefined;
}

/** parseLabelNames parses `(a, b)` for grouping and vector matching; keywords are not label names here, as in Loki. */
function parseLabelNames(c: TokenCursor): string[] {
  c.expect('(', '(');
  const labels: string[] = [];
  if (c.at(')')) {
    c.next();
    return labels;
  }
  while (true) {
    if (!c.atPlainIdentifier()) c.fail(c.peek(), labels.length === 0 ? ['IDENTIFIER', ')'] : ['IDENTIFIER']);
    labels.push(c.next().text);
    if (c.at(')')) {
      c.next();
      return labels;
    }
    c.expect(',', ',', ')');
  }
}

function atGrouping(c: TokenCursor): boolean {
  return (c.atWord('by') || c.atWord('without')) && c.at('(', 1);
}

function parseGrouping(c: TokenCursor): Grouping {
  const keyword = c.next();
  const labels = parseLabelNames(c);
  return {
    kind: 'Grouping',
    without: keyword.text.toLowerCase() === 'without',
    labels,
    pos: { start: keyword.start, end: c.lastEnd() },
  };
}

/**
 * requireMetric rejects a log query where the grammar needs a metric expression. A token
 * that cannot follow the argument (such as a range after a bare selector) is the clearer
 * error, so it is reported first.
 */
function requireMetric(c: TokenCursor, expr: Expr, follow: TokenType): SampleExpr {
  if (expr.kind === 'LogSelector') {
    if (!c.at(follow)) c.fail(c.peek(), [follow]);
    c.failAt(expr.pos, 'syntax error: unexpected log query, expecting metric expression');
  }
  return expr;
}

/**
 * RangeParts accumulates a log range while its pieces are read: Loki accepts the range and
 * offset before or after the pipeline, and parentheses around a prefix of it.
 */
interface RangeParts {
  matchers: LabelMatcher[];
  selectorStart: number;
  selectorEnd: number;
  stages: PipelineStage[];
  unwrap?: UnwrapExpr;
  rangeMs?: number;
  offsetMs: number;
}

/** Parser holds the cursor; one instance parses one query. */
class Parser {
  constructor(private readonly c: TokenCursor) {}

  parseQuery(): Expr {
    const expr = this.parseExpr(0);
    if (!this.c.at('eof')) this.c.fail(this.c.peek());
    const tooDeep = tooDeepPosition(expr);
    if (tooDeep !== undefined) this.c.failAt(tooDeep, tooDeepMessage());
    return expr;
  }

  private parseExpr(minPrecedence: number): Expr {
    const c: TokenCursor = this.c;
    c.descend();
    let lhs = this.parseOperand();
    // Each link of a chain such as `a + b + c` adds a level to the tree above `lhs`; counting
    // them stops a long chain at its first excess operator instead of after the whole input.
    let links = 0;
    while (true) {
      const op = binaryOpAt(c);
      if (op === undefined) break;
      const precedence = BINARY_PRECEDENCE[op];
      if (precedence < minPrecedence) break;
      if (c.nestingDepth() + ++links > MAX_EXPRESSION_DEPTH) c.failAt(c.peek(), tooDeepMessage());
      c.next();
      let returnBool = false;
      if (c.atWord('bool')) {
        c.next();
        returnBool = true;
      }
      const matching = this.parseVectorMatching();
      const rhs = this.parseExpr(isRightAssociative(op) ? precedence : precedence + 1);
      const binary: BinaryExpr = { kind: 'BinaryExpr', op, lhs, rhs, returnBool, pos: { start: lhs.pos.start, end: rhs.pos.end } };
      if (matching !== undefined) binary.matching = matching;
      lhs = binary;
    }
    c.ascend();
    return lhs;
  }

  private parseVectorMatching(): VectorMatching | undefined {
    const c: TokenCursor = this.c;
    if (!c.atWord('on') && !c.atWord('ignoring')) return undefined;
    const keyword = c.next();
    const labels = parseLabelNames(c);
    const matching: VectorMatching = {
      kind: 'VectorMatching',
      on: keyword.text.toLowerCase() === 'on',
      labels,
      card: 'one-to-one',
      include: [],
      pos: { start: keyword.start, end: c.lastEnd() },
    };
    if (c.atWord('group_left') || c.atWord('group_right')) {
      const group = c.next();
      matching.card = group.text.toLowerCase() === 'group_left' ? 'many-to-one' : 'one-to-many';
      if (c.at('(')) matching.include = parseLabelNames(c);
      matching.pos = { start: keyword.start, end: c.lastEnd() };
    }
    return matching;
  }

  private parseOperand(): Expr {
    const c: TokenCursor = this.c;
    const token = c.peek();
    switch (token.type) {
      case '{':
        return this.parseLogSelector();
      case '(': {
        c.next();
        const inner = this.parseExpr(0);
        const close = c.expect(')', ')');
        return { ...inner, pos: { start: token.start, end: close.end } };
      }
      case 'number':
        return parseNumberToken(c, c.next(), false);
      case '+':
      case '-':
        if (!c.at('number', 1)) c.fail(token);
        c.next();
        return parseNumberToken(c, c.next(), token.type === '-', token.start);
      case 'identifier': {
        const word = token.text.toLowerCase();
        if (RANGE_OPS.has(word) && c.at('(', 1)) return this.parseRangeAggregation();
        if (VECTOR_OPS.has(word) && (c.at('(', 1) || ((c.atWord('by', 1) || c.atWord('without', 1)) && c.at('(', 2)))) {
          return this.parseVectorAggregation();
        }
        if (word === 'vector' && c.at('(', 1)) return this.parseVector();
        if (word === 'label_replace' && c.at('(', 1)) return this.parseLabelReplace();
        return c.fail(token);
      }
      default:
        return c.fail(token);
    }
  }

  private parseLogSelector(): LogSelectorExpr {
    const { matchers, pos } = parseSelector(this.c);
    const pipeline = parseLogPipeline(this.c);
    return { kind: 'LogSelector', matchers, pipeline, pos: { start: pos.start, end: this.c.lastEnd() } };
  }

  /** parseParam reads `NUMBER ,` at the start of an aggregation's arguments, if present. */
  private parseParam(): NumberLiteral | undefined {
    const c: TokenCursor = this.c;
    if (!c.at('number') || !c.at(',', 1)) return undefined;
    const literal = parseNumberToken(c, c.next(), false);
    c.next();
    return literal;
  }

  private parseRangeAggregation(): RangeAggregationExpr {
    const c: TokenCursor = this.c;
    const opToken = c.next();
    c.next();
    const param = this.parseParam();
    const range = this.parseLogRange(param === undefined ? ['NUMBER', '{', '('] : ['{', '(']);
    c.expect(')', ')');
    const node: RangeAggregationExpr = {
      kind: 'RangeAggregation',
      op: opToken.text.toLowerCase() as RangeAggregationOp,
      range,
      pos: { start: opToken.start, end: c.lastEnd() },
    };
    if (param !== undefined) node.param = param;
    if (atGrouping(c)) {
      node.grouping = parseGrouping(c);
      node.pos = { start: opToken.start, end: c.lastEnd() };
    }
    return node;
  }

  private parseLogRange(expected: string[]): LogRangeExpr {
    const c: TokenCursor = this.c;
    const start = c.peek().start;
    const parts = this.parseRangeParts(expected);
    if (parts.rangeMs === undefined) c.fail(c.peek(), ['RANGE']);
    const lastStage = parts.stages[parts.stages.length - 1];
    const selector: LogSelectorExpr = {
      kind: 'LogSelector',
      matchers: parts.matchers,
      pipeline: parts.stages,
      pos: { start: parts.selectorStart, end: lastStage === undefined ? parts.selectorEnd : lastStage.pos.end },
    };
    const range: LogRangeExpr = {
      kind: 'LogRange',
      selector,
      rangeMs: parts.rangeMs,
      offsetMs: parts.offsetMs,
      pos: { start, end: c.lastEnd() },
    };
    if (parts.unwrap !== undefined) range.unwrap = parts.unwrap;
    return range;
  }

  private parseRangeParts(expected: string[]): RangeParts {
    const c: TokenCursor = this.c;
    let parts: RangeParts;
    if (c.at('(')) {
      c.next();
      c.descend();
      parts = this.parseRangeParts(['{', '(']);
      c.ascend();
      c.expect(')', ')');
    } else if (c.at('{')) {
      const { matchers, pos } = parseSelector(c);
      parts = { matchers, selectorStart: pos.start, selectorEnd: pos.end, stages: [], offsetMs: 0 };
    } else {
      return c.fail(c.peek(), expected);
    }
    this.continueRange(parts);
    return parts;
  }

  /** continueRange reads range, offset, stages and unwrap in any order Loki allows. */
  private continueRange(parts: RangeParts): void {
    const c: TokenCursor = this.c;
    while (true) {
      if (c.at('range') && parts.rangeMs === undefined) {
        parts.rangeMs = c.next().number;
        if (c.atWord('offset')) {
          c.next();
          parts.offsetMs = c.expect('duration', 'DURATION').number;
        }
        continue;
      }
      if (parts.unwrap !== undefined) {
        if (!c.at('|')) return;
        c.next();
        if (!startsLabelFilter(c, 0)) c.fail(c.peek());
        parts.unwrap.postFilters.push(parseLabelFilter(c));
        parts.unwrap.pos = { start: parts.unwrap.pos.start, end: c.lastEnd() };
        continue;
      }
      if (atLineFilter(c)) {
        parts.stages.push(parseLineFilter(c));
        continue;
      }
      if (c.at('|')) {
        const pipe = c.next();
        const stage = parseStageAfterPipe(c, pipe.start, true);
        if (stage.kind === 'Unwrap') parts.unwrap = stage;
        else parts.stages.push(stage);
        continue;
      }
      return;
    }
  }

  private parseVectorAggregation(): VectorAggregationExpr {
    const c: TokenCursor = this.c;
    const opToken = c.next();
    let grouping = atGrouping(c) ? parseGrouping(c) : undefined;
    c.expect('(', '(');
    const param = this.parseParam();
    const expr = requireMetric(c, this.parseExpr(0), ')');
    c.expect(')', ')');
    if (atGrouping(c)) {
      if (grouping !== undefined) c.fail(c.peek());
      grouping = parseGrouping(c);
    }
    const node: VectorAggregationExpr = {
      kind: 'VectorAggregation',
      op: opToken.text.toLowerCase() as VectorAggregationOp,
      expr,
      pos: { start: opToken.start, end: c.lastEnd() },
    };
    if (param !== undefined) node.param = param;
    if (grouping !== undefined) node.grouping = grouping;
    return node;
  }

  private parseVector(): VectorExpr {
    const c: TokenCursor = this.c;
    const opToken = c.next();
    c.next();
    const number = c.expect('number', 'NUMBER');
    const parsed = parseGoFloatLiteral(number.text);
    if (!parsed.ok) c.failAt(number, `unable to parse vectorExpr as a float: ${parsed.message}`);
    const close = c.expect(')', ')');
    return { kind: 'Vector', value: parsed.value, pos: { start: opToken.start, end: close.end } };
  }

  private parseLabelReplace(): LabelReplaceExpr {
    const c: TokenCursor = this.c;
    const opToken = c.next();
    c.next();
    const expr = requireMetric(c, this.parseExpr(0), ',');
    const strings: string[] = [];
    for (let k = 0; k < 4; k++) {
      c.expect(',', ',');
      const token = c.expect('string', 'STRING');
      if (k === 3) checkRegexToken(c, token, 'invalid regex in label_replace: ');
      strings.push(token.value);
    }
    const close = c.expect(')', ')');
    const pos: PositionRange = { start: opToken.start, end: close.end };
    return { kind: 'LabelReplace', expr, dst: strings[0], replacement: strings[1], src: strings[2], regex: strings[3], pos };
  }
}

/**
 * parseLogQL parses a LogQL query. It throws an INVALID_EXPR EngineError (see
 * engine/errors.ts `syntaxError`) for the first syntax error; run checkLogQL on the result
 * before evaluating it.
 */
export function parseLogQL(text: string): Expr {
  const c = new TokenCursor(text, new Lexer(text));
  if (text.length >= MAX_QUERY_LENGTH) {
    c.failAt({ start: 0, end: 0 }, `input size too long (${text.length} > ${MAX_QUERY_LENGTH})`);
  }
  return new Parser(c).parseQuery();
}
