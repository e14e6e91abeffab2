/**
 * The PromQL printer: one canonical spelling per tree, in the shape Prometheus' String()
 * produces (`sum by (job) (rate(x{job="api"}[5m]))`: lower-case keywords, single spaces around
 * binary operators, durations in canonical units). Printing a parsed query and parsing the
 * result gives the same tree back. Label matchers keep the query's order, which is what makes
 * that round trip exact.
 *
 * Trees built by hand (rewrites) may lack the ParenExpr nodes the parser keeps; the printer adds
 * parentheses wherever precedence would otherwise change the meaning.
 */
import { formatPromDuration } from '../common/duration.js';
import { quoteGoString } from '../common/quote.js';
import { METRIC_NAME_LABEL, type AtModifier, type BinaryExpr, type BinaryOp, type Expr, type LabelMatcher, type VectorMatching, type VectorSelector } from './ast.js';
import { formatGoFloat } from '../common/goFloat.js';
import { printDuration, type DurationExpr } from './durationExpr.js';

/** PRECEDENCE of each binary operator; higher binds tighter. Unary signs sit between 5 and 6. */
const PRECEDENCE: Readonly<Record<BinaryOp, number>> = {
  or: 1,
  and: 2,
  unless: 2,
  '==': 3,
  '!=': 3,
  '<=': 3,
  '<': 3,
  '>=': 3,
  '>': 3,
  '</': 3,
  '>/': 3,
  '+': 4,
  '-': 4,
  '*': 5,
  '/': 5,
  '%': 5,
  atan2: 5,
  '^': 6,
};

const LEGACY_LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

/** formatLabelName writes a label name bare when it can be, quoted otherwise (UTF-8 names). */
function formatLabelName(name: string): string {
  return LEGACY_LABEL_NAME.test(name) ? name : quoteGoString(name);
}

function formatLabelList(labels: readonly string[]): string {
  return labels.map(formatLabelName).join(', ');
}

/**
 * formatDuration writes milliseconds as a Prometheus duration; a sub-millisecond value, which
 * only a float-seconds literal can produce, stays in seconds so it reads back unchanged.
 */
function formatDuration(ms: number): string {
  if (Number.isInteger(ms)) return formatPromDuration(ms);
  return formatGoFloat(ms / 1000);
}

function formatMatcher(m: LabelMatcher): string {
  return `${formatLabelName(m.name)}${m.op}${quoteGoString(m.value)}`;
}

/** formatModifiers renders the `@` and `offset` suffix, in Prometheus' order. */
function formatModifiers(at: AtModifier | null, offsetMs: number, offsetExpr?: DurationExpr): string {
  let out = '';
  if (at !== null) {
    if (at.kind === 'timestamp') out += ` @ ${(at.ms / 1000).toFixed(3)}`;
    else out += ` @ ${at.kind}()`;
  }
  if (offsetExpr !== undefined) out += ` offset ${formatDurationExpr(offsetExpr)}`;
  else if (offsetMs > 0) out += ` offset ${formatDuration(offsetMs)}`;
  else if (offsetMs < 0) out += ` offset -${formatDuration(-offsetMs)}`;
  return out;
}

/** formatDurationExpr renders a duration expression, its literals as durations. */
function formatDurationExpr(expr: DurationExpr): string {
  return printDuration(expr, (seconds) => (seconds < 0 ? `-${formatDuration(-seconds * 1000)}` : formatDuration(seconds * 1000)));
}

/** formatRange renders a range or step, written as an expression or resolved to a duration. */
function formatRange(ms: number, expr: DurationExpr | undefined): string {
  return expr === undefined ? formatDuration(ms) : formatDurationExpr(expr);
}

/** formatSelectorBody renders a selector's name and matchers without modifiers. */
function formatSelectorBody(node: VectorSelector): string {
  let matchers = node.matchers;
  if (node.name !== null) {
    const nameIndex = matchers.findIndex((m) => m.name === METRIC_NAME_LABEL && m.op === '=' && m.value === node.name);
    if (nameIndex >= 0) matchers = matchers.filter((_, i) => i !== nameIndex);
  }
  const name = node.name ?? '';
  if (matchers.length === 0 && name !== '') return name;
  return `${name}{${matchers.map(formatMatcher).join(',')}}`;
}

function formatMatching(node: BinaryExpr): string {
  const m: VectorMatching = node.matching;
  const grouped = m.card === 'many-to-one' || m.card === 'one-to-many';
  let out = '';
  if (m.labels.length > 0 || m.on || grouped) out += ` ${m.on ? 'on' : 'ignoring'} (${formatLabelList(m.labels)})`;
  if (grouped) out += ` group_${m.card === 'many-to-one' ? 'left' : 'right'} (${formatLabelList(m.include)})`;
  const fill = m.fill;
  if (fill !== undefined) {
    if (fill.lhs !== null && fill.rhs !== null && Object.is(fill.lhs, fill.rhs)) out += ` fill (${formatGoFloat(fill.lhs)})`;
    else {
      if (fill.lhs !== null) out += ` fill_left (${formatGoFloat(fill.lhs)})`;
      if (fill.rhs !== null) out += ` fill_right (${formatGoFloat(fill.rhs)})`;
    }
  }
  return out;
}

/** isNegativeLiteral spots literals that print with a leading sign. */
function isNegativeLiteral(node: Expr): boolean {
  return node.type === 'NumberLiteral' && (node.value < 0 || Object.is(node.value, -0));
}

/** needsParensAsOperand decides whether `child` must be wrapped to stay the operand of `parent`. */
function needsParensAsOperand(child: Expr, parentOp: BinaryOp, side: 'lhs' | 'rhs'): boolean {
  const parentPrecedence = PRECEDENCE[parentOp];
  if (child.type === 'BinaryExpr') {
    const childPrecedence = PRECEDENCE[child.op];
    if (childPrecedence !== parentPrecedence) return childPrecedence < parentPrecedence;
    // Equal precedence: the parser groups left, except for right-associative `^`.
    return parentOp === '^' ? side === 'lhs' : side === 'rhs';
  }
  // A sign binds looser than `^`: (-a) ^ b needs its parentheses.
  if (parentOp === '^' && side === 'lhs') return child.type === 'UnaryExpr' || isNegativeLiteral(child);
  return false;
}

/** needsParensAsPostfixBase decides whether a range, subquery or modifier base must be wrapped. */
function needsParensAsPostfixBase(child: Expr): boolean {
  return child.type === 'BinaryExpr' || child.type === 'UnaryExpr' || isNegativeLiteral(child);
}

function wrapIf(condition: boolean, text: string): string {
  return condition ? `(${text})` : text;
}

/** printPromQL renders `expr` as canonical PromQL text. */
export function printPromQL(expr: Expr): string {
  switch (expr.type) {
    case 'NumberLiteral':
      if (expr.duration) {
        const ms = expr.value * 1000;
        return ms < 0 ? `-${formatDuration(-ms)}` : formatDuration(ms);
      }
      return formatGoFloat(expr.value);
    case 'StringLiteral':
      return quoteGoString(expr.value);
    case 'VectorSelector':
      return formatSelectorBody(expr) + formatModifiers(expr.at, expr.offsetMs, expr.offsetExpr) + (expr.smoothed === true ? ' smoothed' : expr.anchored === true ? ' anchored' : '');
    case 'MatrixSelector': {
      const vs = expr.selector;
      const extended = vs.anchored === true ? ' anchored' : vs.smoothed === true ? ' smoothed' : '';
      return `${formatSelectorBody(vs)}[${formatRange(expr.rangeMs, expr.rangeExpr)}]${formatModifiers(vs.at, vs.offsetMs, vs.offsetExpr)}${extended}`;
    }
    case 'SubqueryExpr': {
      const base = wrapIf(needsParensAsPostfixBase(expr.expr), printPromQL(expr.expr));
      const step = expr.stepMs === null ? '' : formatRange(expr.stepMs, expr.stepExpr);
      return `${base}[${formatRange(expr.rangeMs, expr.rangeExpr)}:${step}]${formatModifiers(expr.at, expr.offsetMs, expr.offsetExpr)}`;
    }
    case 'AggregateExpr': {
      let out: string = expr.op;
      if (expr.without) out += ` without (${formatLabelList(expr.grouping)}) `;
      else if (expr.grouping.length > 0) out += ` by (${formatLabelList(expr.grouping)}) `;
      const param = expr.param === null ? '' : `${printPromQL(expr.param)}, `;
      return `${out}(${param}${printPromQL(expr.expr)})`;
    }
    case 'BinaryExpr': {
      const lhs = wrapIf(needsParensAsOperand(expr.lhs, expr.op, 'lhs'), printPromQL(expr.lhs));
      const rhs = wrapIf(needsParensAsOperand(expr.rhs, expr.op, 'rhs'), printPromQL(expr.rhs));
      return `${lhs} ${expr.op}${expr.returnBool ? ' bool' : ''}${formatMatching(expr)} ${rhs}`;
    }
    case 'UnaryExpr': {
      const inner = expr.expr;
      const wrap = (inner.type === 'BinaryExpr' && PRECEDENCE[inner.op] < PRECEDENCE['^']) || isNegativeLiteral(inner);
      return `${expr.op}${wrapIf(wrap, printPromQL(inner))}`;
    }
    case 'ParenExpr':
      return `(${printPromQL(expr.expr)})`;
    case 'Call':
      return `${expr.func.name}(${expr.args.map(printPromQL).join(', ')})`;
  }
}
