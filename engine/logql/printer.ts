/**
 * printLogQL renders a tree back to LogQL in one canonical form: single spaces around
 * operators and stages, double-quoted strings (raw strings where backslashes or quotes
 * would need escaping), `and` for every conjunction, durations in Prometheus form, byte
 * sizes in their largest exact unit, and parentheses only where precedence needs them. Parsing the output
 * gives the same tree (positions aside), which is what lets the service log, cache and
 * compare queries by their printed text.
 */
import { quoteGoString } from '../common/quote.js';
import type {
  BinaryExpr,
  Expr,
  Grouping,
  LabelFilterExpr,
  LabelMatcher,
  LabelName,
  LineFilterValue,
  LogRangeExpr,
  LogSelectorExpr,
  PipelineStage,
  UnwrapExpr,
  VectorMatching,
} from './ast.js';
import { binaryPrecedence, isRightAssociative } from './parser.js';
import { formatByteSize, formatLogQLDuration, formatNumber } from './units.js';

/**
 * quoteString quotes a string value. Values with backslashes or double quotes (typical of
 * regular expressions and templates) print as raw backtick strings when that is lossless,
 * since that is how people write them; everything else is double-quoted.
 */
export function quoteString(value: string): string {
  if ((value.includes('\\') || value.includes('"')) && !/[`\x00-\x1f\x7f]/.test(value)) return `\`${value}\``;
  return quoteGoString(value);
}

function printMatcher(m: LabelMatcher): string {
  return `${m.name}${m.op}${quoteString(m.value)}`;
}

function printLabelNames(labels: readonly string[]): string {
  return `(${labels.join(', ')})`;
}

function printGrouping(g: Grouping): string {
  return `${g.without ? 'without' : 'by'} ${printLabelNames(g.labels)}`;
}

function printLineFilterValue(v: LineFilterValue): string {
  return v.kind === 'LineFilterIp' ? `ip(${quoteString(v.pattern)})` : quoteString(v.value);
}

/** printLabelFilter prints a label filter expression; see printLabelFilterOperand for parentheses. */
export function printLabelFilter(f: LabelFilterExpr): string {
  switch (f.kind) {
    case 'StringLabelFilter':
      return `${f.name}${f.op}${quoteString(f.value)}`;
    case 'NumericLabelFilter':
      return `${f.name} ${f.op} ${formatNumber(f.value)}`;
    case 'DurationLabelFilter':
      return `${f.name} ${f.op} ${formatLogQLDuration(f.durationMs)}`;
    case 'BytesLabelFilter':
      return `${f.name} ${f.op} ${formatByteSize(f.bytes)}`;
    case 'IpLabelFilter':
      return `${f.name} ${f.op} ip(${quoteString(f.pattern)})`;
    case 'BinaryLabelFilter':
      return `${printLabelFilterOperand(f.left, f.op, false)} ${f.op} ${printLabelFilterOperand(f.right, f.op, true)}`;
  }
}

/**
 * printLabelFilterOperand parenthesises an `or` inside an `and`, and a right operand with the
 * same operator, so the left-associative parse rebuilds the same tree.
 */
function printLabelFilterOperand(f: LabelFilterExpr, parentOp: 'and' | 'or', isRight: boolean): string {
  const text = printLabelFilter(f);
  if (f.kind !== 'BinaryLabelFilter') return text;
  const needsParens = (parentOp === 'and' && f.op === 'or') || (isRight && f.op === parentOp);
  return needsParens ? `(${text})` : text;
}

function printLabelList(labels: ReadonlyArray<LabelName | LabelMatcher>): string {
  return labels.map((l) => (l.kind === 'LabelName' ? l.name : printMatcher(l))).join(', ');
}

function printExtraction(name: string, expression: string): string {
  return name === expression ? name : `${name}=${quoteString(expression)}`;
}

/** printStage prints one pipeline stage, starting with its operator. */
export function printStage(stage: PipelineStage): string {
  switch (stage.kind) {
    case 'LineFilter':
      return `${stage.op} ${stage.values.map(printLineFilterValue).join(' or ')}`;
    case 'JsonParser': {
      const args = stage.extractions.map((e) => printExtraction(e.name, e.expression)).join(', ');
      return args === '' ? '| json' : `| json ${args}`;
    }
    case 'LogfmtParser': {
      const words = ['| logfmt'];
      if (stage.strict) words.push('--strict');
      if (stage.keepEmpty) words.push('--keep-empty');
      if (stage.extractions.length > 0) words.push(stage.extractions.map((e) => printExtraction(e.name, e.key)).join(', '));
      return words.join(' ');
    }
    case 'RegexpParser':
      return `| regexp ${quoteString(stage.regex)}`;
    case 'PatternParser':
      return `| pattern ${quoteString(stage.pattern)}`;
    case 'UnpackParser':
      return '| unpack';
    case 'LabelFilterStage':
      return `| ${printLabelFilter(stage.filter)}`;
    case 'LineFormat':
      return `| line_format ${quoteString(stage.template)}`;
    case 'LabelFormat':
      return `| label_format ${stage.operations
        .map((op) => (op.kind === 'LabelRename' ? `${op.dst}=${op.src}` : `${op.dst}=${quoteString(op.template)}`))
        .join(', ')}`;
    case 'DropLabels':
      return `| drop ${printLabelList(stage.labels)}`;
    case 'KeepLabels':
      return `| keep ${printLabelList(stage.labels)}`;
    case 'Decolorize':
      return '| decolorize';
  }
}

function printLogSelector(e: LogSelectorExpr): string {
  const selector = `{${e.matchers.map(printMatcher).join(', ')}}`;
  if (e.pipeline.length === 0) return selector;
  return `${selector} ${e.pipeline.map(printStage).join(' ')}`;
}

function printUnwrap(u: UnwrapExpr): string {
  let text = u.conversion === undefined ? `| unwrap ${u.label}` : `| unwrap ${u.conversion}(${u.label})`;
  for (const f of u.postFilters) text += ` | ${printLabelFilter(f)}`;
  return text;
}

function printLogRange(r: LogRangeExpr): string {
  let text = printLogSelector(r.selector);
  if (r.unwrap !== undefined) text += ` ${printUnwrap(r.unwrap)}`;
  const spaced = r.selector.pipeline.length > 0 || r.unwrap !== undefined;
  text += `${spaced ? ' ' : ''}[${formatLogQLDuration(r.rangeMs)}]`;
  if (r.offsetMs !== 0) text += ` offset ${formatLogQLDuration(r.offsetMs)}`;
  return text;
}

function printMatching(m: VectorMatching, rhsStartsWithParen: boolean): string {
  let text = ` ${m.on ? 'on' : 'ignoring'} ${printLabelNames(m.labels)}`;
  if (m.card !== 'one-to-one') {
    text += m.card === 'many-to-one' ? ' group_left' : ' group_right';
    if (m.include.length > 0 || rhsStartsWithParen) text += ` ${printLabelNames(m.include)}`;
  }
  return text;
}

/**
 * printOperand prints a binary operand, in parentheses when its own operator binds looser
 * than the parent's (or equally, on the side associativity does not group), and always for
 * a log query, whose pipeline would otherwise absorb a following `or` or `and`.
 */
function printOperand(e: Expr, parent: BinaryExpr, isRight: boolean): string {
  const text = printLogQL(e);
  if (e.kind === 'LogSelector') return `(${text})`;
  if (e.kind !== 'BinaryExpr') return text;
  const mine = binaryPrecedence(e.op);
  const theirs = binaryPrecedence(parent.op);
  const groupsLeft = !isRightAssociative(parent.op);
  const needsParens = mine < theirs || (mine === theirs && (isRight ? groupsLeft : !groupsLeft));
  return needsParens ? `(${text})` : text;
}

function printBinary(e: BinaryExpr): string {
  const lhs = printOperand(e.lhs, e, false);
  const rhs = printOperand(e.rhs, e, true);
  let op = e.op as string;
  if (e.returnBool) op += ' bool';
  if (e.matching !== undefined) op += printMatching(e.matching, rhs.startsWith('('));
  return `${lhs} ${op} ${rhs}`;
}

/** printLogQL renders `expr` as canonical LogQL text. */
export function printLogQL(expr: Expr): string {
  switch (expr.kind) {
    case 'LogSelector':
      return printLogSelector(expr);
    case 'RangeAggregation': {
      const param = expr.param === undefined ? '' : `${formatNumber(expr.param.value)}, `;
      const grouping = expr.grouping === undefined ? '' : ` ${printGrouping(expr.grouping)}`;
      return `${expr.op}(${param}${printLogRange(expr.range)})${grouping}`;
    }
    case 'VectorAggregation': {
      const grouping = expr.grouping === undefined ? '' : ` ${printGrouping(expr.grouping)} `;
      const param = expr.param === undefined ? '' : `${formatNumber(expr.param.value)}, `;
      return `${expr.op}${grouping}(${param}${printLogQL(expr.expr)})`;
    }
    case 'BinaryExpr':
      return printBinary(expr);
    case 'NumberLiteral':
      return formatNumber(expr.value);
    case 'Vector':
      return `vector(${formatNumber(expr.value)})`;
    case 'LabelReplace':
      return `label_replace(${printLogQL(expr.expr)}, ${[expr.dst, expr.replacement, expr.src, expr.regex].map(quoteString).join(', ')})`;
  }
}
