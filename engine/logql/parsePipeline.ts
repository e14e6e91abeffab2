/**
 * Parsing of the log side of LogQL: stream selectors, pipeline stages, label filter
 * expressions and unwrap. The embedded languages (regular expressions, patterns, templates,
 * JSON paths, `ip()` operands) are parsed here too, so that a mistake inside a string is a
 * syntax error pointing into that string, and so the evaluator receives them ready to use.
 */
import type { PositionRange } from '../errors.js';
import type {
  ComparisonOp,
  DropLabelsStage,
  JsonExtraction,
  KeepLabelsStage,
  LabelFilterExpr,
  LabelFormatStage,
  LabelMatcher,
  LabelName,
  LabelRename,
  LabelTemplate,
  LineFilterOp,
  LineFilterStage,
  LineFilterValue,
  LogfmtExtraction,
  MatchOp,
  NumberLiteral,
  PipelineStage,
  UnwrapConversion,
  UnwrapExpr,
} from './ast.js';
import { parseIpPattern } from './ipPattern.js';
import { parseJsonPath } from './jsonPath.js';
import type { Token, TokenType } from './lexer.js';
import { parsePattern } from './pattern.js';
import { checkRegex } from './regexCheck.js';
import { sourceOffsetOf } from './stringOffsets.js';
import { parseTemplate, type Template } from '../gotemplate/index.js';
import type { TokenCursor } from './tokenCursor.js';
import { parseGoFloatLiteral } from '../common/goFloat.js';

const MATCH_OPS: ReadonlySet<TokenType> = new Set<TokenType>(['=', '!=', '=~', '!~']);
const LINE_FILTER_OPS: ReadonlySet<TokenType> = new Set<TokenType>(['|=', '!=', '|~', '!~', '|>', '!>']);
const LABEL_FILTER_OPS: ReadonlySet<TokenType> = new Set<TokenType>(['=', '!=', '=~', '!~', '==', '>', '>=', '<', '<=']);
const UNWRAP_CONVERSIONS: ReadonlySet<string> = new Set(['bytes', 'duration', 'duration_seconds']);
/** SET_OPERATOR_WORDS end a stage's argument list: they belong to the expression around it. */
const SET_OPERATOR_WORDS: ReadonlySet<string> = new Set(['or', 'and', 'unless']);

/** failInString reports `message` at `offset` inside the decoded value of string `token`. */
export function failInString(c: TokenCursor, token: Token, offset: number, message: string): never {
  const at = sourceOffsetOf(token.text, token.start, offset);
  return c.failAt({ start: at, end: at + 1 }, message);
}

/**
 * checkRegexToken fails unless string `token` holds a pattern the regex engine accepts (valid
 * RE2 syntax within its size budget), pointing into the string at the offending part; returns
 * the pattern's named groups.
 */
export function checkRegexToken(c: TokenCursor, token: Token, prefix = ''): string[] {
  const result = checkRegex(token.value);
  if (!result.ok) failInString(c, token, result.offset, prefix + result.message);
  return result.captureNames;
}

/** parseNumberToken converts a number token, failing with Loki's message for Go-invalid floats. */
export function parseNumberToken(c: TokenCursor, token: Token, negative: boolean, start = token.start): NumberLiteral {
  const parsed = parseGoFloatLiteral(token.text);
  if (!parsed.ok) c.failAt(token, `unable to parse literal as a float: ${parsed.message}`);
  return { kind: 'NumberLiteral', value: negative ? -parsed.value : parsed.value, pos: { start, end: token.end } };
}

/** parseLabelMatcher parses `name op "value"`, validating regular expressions. */
export function parseLabelMatcher(c: TokenCursor): LabelMatcher {
  const name = c.expect('identifier', 'IDENTIFIER');
  const opToken = c.peek();
  if (!MATCH_OPS.has(opToken.type)) c.fail(opToken, ['=', '!=', '=~', '!~']);
  c.next();
  const value = c.expect('string', 'STRING');
  const op = opToken.type as MatchOp;
  if (op === '=~' || op === '!~') checkRegexToken(c, value);
  return { kind: 'LabelMatcher', name: name.text, op, value: value.value, pos: { start: name.start, end: value.end } };
}

/** parseSelector parses `{a="b", c=~"d"}`. */
export function parseSelector(c: TokenCursor): { matchers: LabelMatcher[]; pos: PositionRange } {
  const open = c.expect('{', '{');
  const matchers: LabelMatcher[] = [];
  if (!c.at('}')) {
    matchers.push(parseLabelMatcher(c));
    while (c.at(',')) {
      c.next();
      matchers.push(parseLabelMatcher(c));
    }
  }
  const close = c.expect('}', '}', ',');
  return { matchers, pos: { start: open.start, end: close.end } };
}

/** atLineFilter reports whether a line filter operator is next. */
export function atLineFilter(c: TokenCursor): boolean {
  return LINE_FILTER_OPS.has(c.peek().type);
}

/** atLineFilterValue reports whether a line filter operand starts `ahead` tokens on. */
function atLineFilterValue(c: TokenCursor, ahead: number): boolean {
  return c.at('string', ahead) || (c.atWord('ip', ahead) && c.at('(', ahead + 1));
}

function parseLineFilterValue(c: TokenCursor, op: LineFilterOp): LineFilterValue {
  if (c.atWord('ip') && c.at('(', 1)) {
    const ipToken = c.next();
    c.next();
    const pattern = c.expect('string', 'STRING');
    const close = c.expect(')', ')');
    const ip = parseIpPattern(pattern.value);
    if (!ip) c.failAt(pattern, `ip: invalid pattern: ${JSON.stringify(pattern.value)}`);
    return { kind: 'LineFilterIp', pattern: pattern.value, ip, pos: { start: ipToken.start, end: close.end } };
  }
  const token = c.peek();
  if (token.type !== 'string') c.fail(token, ['STRING', 'ip']);
  c.next();
  const value: LineFilterValue = { kind: 'LineFilterLiteral', value: token.value, pos: { start: token.start, end: token.end } };
  if (op === '|~' || op === '!~') checkRegexToken(c, token);
  if (op === '|>' || op === '!>') {
    const parsed = parsePattern(token.value, 'line-filter');
    if (!parsed.ok) failInString(c, token, parsed.offset, parsed.message);
    value.pattern = parsed.pattern;
  }
  return value;
}

/** parseLineFilter parses `|= "a" or "b"` and the other five operators. */
export function parseLineFilter(c: TokenCursor): LineFilterStage {
  const opToken = c.next();
  const op = opToken.type as LineFilterOp;
  const values = [parseLineFilterValue(c, op)];
  while (c.atWord('or') && atLineFilterValue(c, 1)) {
    c.next();
    values.push(parseLineFilterValue(c, op));
  }
  return { kind: 'LineFilter', op, values, pos: { start: opToken.start, end: c.lastEnd() } };
}

/**
 * startsLabelFilter reports whether a label filter starts `ahead` tokens on: a name followed
 * by a comparison, or parentheses around one. It keeps `or`, `and` and `,` that do not join
 * two filters for the expression around the pipeline.
 */
export function startsLabelFilter(c: TokenCursor, ahead: number): boolean {
  let k = ahead;
  while (c.at('(', k)) k++;
  return c.at('identifier', k) && LABEL_FILTER_OPS.has(c.peek(k + 1).type);
}

/** parseLabelFilter parses a label filter expression: `or` binds loosest, then `and`/`,`/juxtaposition. */
export function parseLabelFilter(c: TokenCursor): LabelFilterExpr {
  let left = parseLabelFilterConjunction(c);
  while (c.atWord('or') && startsLabelFilter(c, 1)) {
    c.next();
    const right = parseLabelFilterConjunction(c);
    left = { kind: 'BinaryLabelFilter', op: 'or', left, right, pos: { start: left.pos.start, end: right.pos.end } };
  }
  return left;
}

function parseLabelFilterConjunction(c: TokenCursor): LabelFilterExpr {
  let left = parseLabelFilterPrimary(c);
  while (true) {
    if ((c.atWord('and') || c.at(',')) && startsLabelFilter(c, 1)) {
      c.next();
    } else if (!(startsLabelFilter(c, 0) && !c.atWord('or') && !c.atWord('and'))) {
      break;
    }
    const right = parseLabelFilterPrimary(c);
    left = { kind: 'BinaryLabelFilter', op: 'and', left, right, pos: { start: left.pos.start, end: right.pos.end } };
  }
  return left;
}

function parseLabelFilterPrimary(c: TokenCursor): LabelFilterExpr {
  if (c.at('(')) {
    const open = c.next();
    c.descend();
    const inner = parseLabelFilter(c);
    c.ascend();
    const close = c.expect(')', ')');
    return { ...inner, pos: { start: open.start, end: close.end } };
  }
  const name = c.peek();
  if (name.type !== 'identifier') c.fail(name, ['IDENTIFIER', '(']);
  c.next();
  const opToken = c.peek();
  if (!LABEL_FILTER_OPS.has(opToken.type)) c.fail(opToken);
  c.next();
  const op = opToken.type;
  const value = c.peek();
  const pos = (): PositionRange => ({ start: name.start, end: c.lastEnd() });
  const isMatch = op === '=' || op === '!=' || op === '=~' || op === '!~';

  if (isMatch && value.type === 'string') {
    c.next();
    if (op === '=~' || op === '!~') checkRegexToken(c, value);
    return { kind: 'StringLabelFilter', name: name.text, op: op as MatchOp, value: value.value, pos: pos() };
  }
  if ((op === '=' || op === '!=') && c.atWord('ip') && c.at('(', 1)) {
    c.next();
    c.next();
    const pattern = c.expect('string', 'STRING');
    c.expect(')', ')');
    const ip = parseIpPattern(pattern.value);
    if (!ip) c.failAt(pattern, `ip: invalid pattern: ${JSON.stringify(pattern.value)}`);
    return { kind: 'IpLabelFilter', name: name.text, op, pattern: pattern.value, ip, pos: pos() };
  }
  if (op === '=~' || op === '!~') c.fail(value, ['STRING']);

  const comparison: ComparisonOp = op === '=' ? '==' : (op as ComparisonOp);
  if (value.type === 'duration') {
    c.next();
    return { kind: 'DurationLabelFilter', name: name.text, op: comparison, durationMs: value.number, pos: pos() };
  }
  if (value.type === 'bytes') {
    c.next();
    return { kind: 'BytesLabelFilter', name: name.text, op: comparison, bytes: value.number, pos: pos() };
  }
  if (value.type === 'number' || ((value.type === '-' || value.type === '+') && c.at('number', 1))) {
    const negative = value.type === '-';
    if (value.type !== 'number') c.next();
    const literal = parseNumberToken(c, c.next(), negative, value.start);
    return { kind: 'NumericLabelFilter', name: name.text, op: comparison, value: literal.value, pos: pos() };
  }
  const expected = op === '=' || op === '!=' ? ['STRING', 'ip', 'NUMBER', 'DURATION', 'BYTES'] : ['NUMBER', 'DURATION', 'BYTES'];
  return c.fail(value, expected.length > 4 ? [] : expected);
}

/** atExtractionStart reports whether a `name` or `name="…"` argument of a parser stage follows. */
function atExtractionStart(c: TokenCursor): boolean {
  const word = c.word();
  return word !== undefined && !SET_OPERATOR_WORDS.has(word);
}

/** parseExtractions parses `a, b="expr"` after json or logfmt. */
function parseExtractions(c: TokenCursor): Array<{ name: Token; expression: Token | undefined; start: number }> {
  const out: Array<{ name: Token; expression: Token | undefined; start: number }> = [];
  do {
    if (out.length > 0) c.next();
    const name = c.expect('identifier', 'IDENTIFIER');
    let expression: Token | undefined;
    if (c.at('=')) {
      c.next();
      expression = c.expect('string', 'STRING');
    }
    out.push({ name, expression, start: name.start });
  } while (c.at(','));
  return out;
}

function parseJsonStage(c: TokenCursor, start: number): PipelineStage {
  const extractions: JsonExtraction[] = [];
  if (atExtractionStart(c)) {
    for (const { name, expression } of parseExtractions(c)) {
      const text = expression ? expression.value : name.text;
      const parsed = parseJsonPath(text);
      if (!parsed.ok) {
        if (expression) failInString(c, expression, parsed.offset, parsed.message);
        c.failAt(name, parsed.message);
      }
      const end = (expression ?? name).end;
      extractions.push({ kind: 'JsonExtraction', name: name.text, expression: text, path: parsed.path, pos: { start: name.start, end } });
    }
  }
  return { kind: 'JsonParser', extractions, pos: { start, end: c.lastEnd() } };
}

function parseLogfmtStage(c: TokenCursor, start: number): PipelineStage {
  let strict = false;
  let keepEmpty = false;
  while (c.at('flag')) {
    const flag = c.next();
    if (flag.value === '--strict') strict = true;
    else keepEmpty = true;
  }
  const extractions: LogfmtExtraction[] = [];
  if (atExtractionStart(c)) {
    for (const { name, expression } of parseExtractions(c)) {
      const end = (expression ?? name).end;
      const key = expression ? expression.value : name.text;
      extractions.push({ kind: 'LogfmtExtraction', name: name.text, key, pos: { start: name.start, end } });
    }
  }
  return { kind: 'LogfmtParser', strict, keepEmpty, extractions, pos: { start, end: c.lastEnd() } };
}

function parseTemplateToken(c: TokenCursor, token: Token, prefix: string): Template {
  const parsed = parseTemplate(token.value);
  if (!parsed.ok) failInString(c, token, parsed.offset, prefix + parsed.message);
  return parsed.template;
}

function parseLabelFormatStage(c: TokenCursor, start: number): LabelFormatStage {
  const operations: Array<LabelRename | LabelTemplate> = [];
  do {
    if (operations.length > 0) c.next();
    const dst = c.expect('identifier', 'IDENTIFIER');
    c.expect('=', '=');
    const value = c.peek();
    if (value.type === 'identifier') {
      c.next();
      operations.push({ kind: 'LabelRename', dst: dst.text, src: value.text, pos: { start: dst.start, end: value.end } });
    } else if (value.type === 'string') {
      c.next();
      const parsed = parseTemplateToken(c, value, `invalid template for label '${dst.text}': `);
      operations.push({ kind: 'LabelTemplate', dst: dst.text, template: value.value, parsed, pos: { start: dst.start, end: value.end } });
    } else {
      c.fail(value, ['IDENTIFIER', 'STRING']);
    }
  } while (c.at(','));
  return { kind: 'LabelFormat', operations, pos: { start, end: c.lastEnd() } };
}

function parseLabelList(c: TokenCursor): Array<LabelName | LabelMatcher> {
  const labels: Array<LabelName | LabelMatcher> = [];
  do {
    if (labels.length > 0) c.next();
    if (!c.at('identifier')) c.fail(c.peek(), ['IDENTIFIER']);
    if (MATCH_OPS.has(c.peek(1).type)) {
      labels.push(parseLabelMatcher(c));
    } else {
      const name = c.next();
      labels.push({ kind: 'LabelName', name: name.text, pos: { start: name.start, end: name.end } });
    }
  } while (c.at(','));
  return labels;
}

function parseUnwrap(c: TokenCursor, start: number): UnwrapExpr {
  const word = c.word();
  let conversion: UnwrapConversion | undefined;
  let label: Token;
  if (word !== undefined && UNWRAP_CONVERSIONS.has(word) && c.at('(', 1)) {
    c.next();
    c.next();
    label = c.expect('identifier', 'IDENTIFIER');
    c.expect(')', ')');
    conversion = word as UnwrapConversion;
  } else {
    label = c.expect('identifier', 'IDENTIFIER');
  }
  const unwrap: UnwrapExpr = { kind: 'Unwrap', label: label.text, postFilters: [], pos: { start, end: c.lastEnd() } };
  if (conversion !== undefined) unwrap.conversion = conversion;
  return unwrap;
}

/**
 * parseStageAfterPipe parses the stage after a `|` (already consumed at `pipeStart`). It
 * returns an UnwrapExpr for `| unwrap …` when `allowUnwrap`, and fails on it otherwise.
 */
export function parseStageAfterPipe(c: TokenCursor, pipeStart: number, allowUnwrap: boolean): PipelineStage | UnwrapExpr {
  const word = c.word();
  const keyword = c.peek();
  switch (word) {
    case 'json':
      c.next();
      return parseJsonStage(c, pipeStart);
    case 'logfmt':
      c.next();
      return parseLogfmtStage(c, pipeStart);
    case 'regexp': {
      c.next();
      const re = c.expect('string', 'STRING');
      const result = checkRegex(re.value);
      if (!result.ok) failInString(c, re, result.offset, `invalid regexp parser: ${result.message}`);
      const seen = new Set<string>();
      for (const name of result.captureNames) {
        if (!/^[a-zA-Z_][a-zA-Z0-9_]*$/.test(name)) c.failAt(re, `invalid regexp parser: invalid extracted label name '${name}'`);
        if (seen.has(name)) c.failAt(re, `invalid regexp parser: duplicate extracted label name '${name}'`);
        seen.add(name);
      }
      if (seen.size === 0) c.failAt(re, 'invalid regexp parser: at least one named capture must be supplied');
      return { kind: 'RegexpParser', regex: re.value, captures: result.captureNames, pos: { start: pipeStart, end: re.end } };
    }
    case 'pattern': {
      c.next();
      const pattern = c.expect('string', 'STRING');
      const parsed = parsePattern(pattern.value, 'parser');
      if (!parsed.ok) failInString(c, pattern, parsed.offset, `invalid pattern parser: ${parsed.message}`);
      return { kind: 'PatternParser', pattern: pattern.value, parsed: parsed.pattern, pos: { start: pipeStart, end: pattern.end } };
    }
    case 'unpack':
      c.next();
      return { kind: 'UnpackParser', pos: { start: pipeStart, end: keyword.end } };
    case 'decolorize':
      c.next();
      return { kind: 'Decolorize', pos: { start: pipeStart, end: keyword.end } };
    case 'line_format': {
      c.next();
      const template = c.expect('string', 'STRING');
      const parsed = parseTemplateToken(c, template, 'invalid line template: ');
      return { kind: 'LineFormat', template: template.value, parsed, pos: { start: pipeStart, end: template.end } };
    }
    case 'label_format':
      c.next();
      return parseLabelFormatStage(c, pipeStart);
    case 'drop': {
      c.next();
      const labels = parseLabelList(c);
      const stage: DropLabelsStage = { kind: 'DropLabels', labels, pos: { start: pipeStart, end: c.lastEnd() } };
      return stage;
    }
    case 'keep': {
      c.next();
      const labels = parseLabelList(c);
      const stage: KeepLabelsStage = { kind: 'KeepLabels', labels, pos: { start: pipeStart, end: c.lastEnd() } };
      return stage;
    }
    case 'unwrap':
      if (!allowUnwrap) c.fail(keyword);
      c.next();
      return parseUnwrap(c, pipeStart);
    default:
      if (!startsLabelFilter(c, 0)) c.fail(keyword);
      return { kind: 'LabelFilterStage', filter: parseLabelFilter(c), pos: { start: pipeStart, end: c.lastEnd() } };
  }
}

/**
 * parseLogPipeline parses the stages after a selector of a log query: line filters and
 * `| stage`s until something else follows. Unwrap is not allowed here.
 */
export function parseLogPipeline(c: TokenCursor): PipelineStage[] {
  const stages: PipelineStage[] = [];
  while (true) {
    if (atLineFilter(c)) {
      stages.push(parseLineFilter(c));
    } else if (c.at('|')) {
      const pipe = c.next();
      stages.push(parseStageAfterPipe(c, pipe.start, false) as PipelineStage);
    } else {
      return stages;
    }
  }
}
