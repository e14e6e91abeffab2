/**
 * checkLogQL applies the rules Loki enforces after parsing, throwing a COMPILE_ERROR
 * EngineError positioned at the offending part of the query. These are the rules that
 * depend on meaning rather than shape: which range aggregations need or refuse `unwrap`,
 * which accept grouping or a parameter, what topk's parameter may be, what the operands of a
 * binary operator may be, the stream selector's need for a non-empty matcher, and the
 * constraints of individual stages. Messages use Loki's wording where it has one.
 */
import type { PositionRange } from '../errors.js';
import { compileError } from '../errors.js';
import type {
  BinaryExpr,
  Expr,
  LabelFormatStage,
  LabelMatcher,
  LineFilterStage,
  LogSelectorExpr,
  RangeAggregationExpr,
  RangeAggregationOp,
  SampleExpr,
  VectorAggregationExpr,
} from './ast.js';
import { regexMatchesEmpty } from './regexCheck.js';
import { formatGoFixed } from '../common/goFormat.js';

/** CheckOptions describe the request a query belongs to, for rules that depend on it. */
export interface CheckOptions {
  /** rangeQuery marks a query run over a time range (query_range), which approx_topk refuses. */
  rangeQuery?: boolean;
}

/** ERROR_LABEL is the label Loki's pipeline uses to report a stage failure on a line. */
const ERROR_LABEL = '__error__';

/** EMPTY_MATCHER_ERROR is Loki's message for a selector that could match every stream. */
export const EMPTY_MATCHER_ERROR =
  'queries require at least one regexp or equality matcher that does not have an empty-compatible value. ' +
  'For instance, app=~".*" does not meet this requirement, but app=~".+" will';

const GROUPING_ALLOWED: ReadonlySet<RangeAggregationOp> = new Set<RangeAggregationOp>([
  'avg_over_time',
  'stddev_over_time',
  'stdvar_over_time',
  'quantile_over_time',
  'max_over_time',
  'min_over_time',
  'first_over_time',
  'last_over_time',
]);

const UNWRAP_ALLOWED: ReadonlySet<RangeAggregationOp> = new Set<RangeAggregationOp>([
  'avg_over_time',
  'sum_over_time',
  'max_over_time',
  'min_over_time',
  'stddev_over_time',
  'stdvar_over_time',
  'quantile_over_time',
  'rate',
  'rate_counter',
  'absent_over_time',
  'first_over_time',
  'last_over_time',
]);

const WITHOUT_UNWRAP_ALLOWED: ReadonlySet<RangeAggregationOp> = new Set<RangeAggregationOp>([
  'bytes_over_time',
  'bytes_rate',
  'count_over_time',
  'rate',
  'absent_over_time',
]);

const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

/** matcherSelects is Loki's test for a matcher that narrows the streams: it rejects "". */
function matcherSelects(m: LabelMatcher): boolean {
  switch (m.op) {
    case '=':
      return m.value !== '';
    case '!=':
      return m.value === '';
    case '=~':
      return !regexMatchesEmpty(m.value);
    case '!~':
      return regexMatchesEmpty(m.value);
  }
}

/** Checker walks one query; see checkLogQL. */
class Checker {
  constructor(
    private readonly text: string,
    private readonly options: CheckOptions,
  ) {}

  private fail(message: string, position: PositionRange): never {
    throw compileError(this.text, message, position);
  }

  check(expr: Expr): void {
    if (expr.kind === 'LogSelector') this.checkLogSelector(expr);
    else this.checkSample(expr);
  }

  private checkSample(expr: SampleExpr): void {
    switch (expr.kind) {
      case 'RangeAggregation':
        this.checkRangeAggregation(expr);
        break;
      case 'VectorAggregation':
        this.checkVectorAggregation(expr);
        break;
      case 'BinaryExpr':
        this.checkBinary(expr);
        break;
      case 'LabelReplace':
        if (!LABEL_NAME.test(expr.dst)) {
          this.fail(`invalid destination label name in label_replace(): ${expr.dst}`, expr.pos);
        }
        this.checkSample(expr.expr);
        break;
      case 'NumberLiteral':
      case 'Vector':
        break;
    }
  }

  private checkLogSelector(expr: LogSelectorExpr): void {
    if (!expr.matchers.some(matcherSelects)) this.fail(EMPTY_MATCHER_ERROR, expr.pos);
    for (const stage of expr.pipeline) {
      if (stage.kind === 'LineFilter') this.checkLineFilter(stage);
      else if (stage.kind === 'LabelFormat') this.checkLabelFormat(stage);
    }
  }

  private checkLineFilter(stage: LineFilterStage): void {
    if (stage.op === '|=' || stage.op === '!=') return;
    for (const value of stage.values) {
      if (value.kind === 'LineFilterIp') this.fail(`ip: invalid operation: ${stage.op} ip() is not supported`, value.pos);
    }
  }

  private checkLabelFormat(stage: LabelFormatStage): void {
    const seen = new Set<string>();
    for (const op of stage.operations) {
      if (op.dst === ERROR_LABEL) this.fail(`${ERROR_LABEL} cannot be formatted`, op.pos);
      if (seen.has(op.dst)) this.fail(`multiple label name '${op.dst}' not allowed in a single format operation`, op.pos);
      seen.add(op.dst);
    }
  }

  private checkRangeAggregation(expr: RangeAggregationExpr): void {
    const { op, param, grouping, range } = expr;
    if (param !== undefined && op !== 'quantile_over_time') {
      this.fail(`parameter ${param.value} not supported for operation ${op}`, param.pos);
    }
    if (param === undefined && op === 'quantile_over_time') {
      this.fail(`parameter required for operation ${op}`, expr.pos);
    }
    if (grouping !== undefined && !GROUPING_ALLOWED.has(op)) {
      this.fail(`grouping not allowed for ${op} aggregation`, grouping.pos);
    }
    if (range.unwrap !== undefined) {
      if (!UNWRAP_ALLOWED.has(op)) this.fail(`invalid aggregation ${op} with unwrap`, range.unwrap.pos);
    } else if (!WITHOUT_UNWRAP_ALLOWED.has(op)) {
      this.fail(`invalid aggregation ${op} without unwrap`, expr.pos);
    }
    this.checkLogSelector(range.selector);
  }

  private checkVectorAggregation(expr: VectorAggregationExpr): void {
    const { op, param, grouping } = expr;
    if (op === 'topk' || op === 'bottomk' || op === 'approx_topk') {
      if (param === undefined) this.fail(`parameter required for operation ${op}`, expr.pos);
      if (!Number.isInteger(param.value)) this.fail(`invalid parameter ${op}(${param.value},`, param.pos);
      if (param.value <= 0) this.fail(`invalid parameter (must be greater than 0) ${op}(${param.value}`, param.pos);
      if (op === 'approx_topk') {
        if (grouping !== undefined) this.fail(`grouping not allowed for ${op} aggregation`, grouping.pos);
        if (this.options.rangeQuery) this.fail(`${op} is only supported on instant queries`, expr.pos);
      }
    } else if (param !== undefined) {
      this.fail(`unsupported parameter for operation ${op}(${param.value},`, param.pos);
    }
    if ((op === 'sort' || op === 'sort_desc') && grouping !== undefined && grouping.labels.length > 0) {
      this.fail(`sort and sort_desc doesn't allow grouping by`, grouping.pos);
    }
    this.checkSample(expr.expr);
  }

  private checkBinary(expr: BinaryExpr): void {
    const { op, lhs, rhs, matching } = expr;
    if (lhs.kind === 'LogSelector') {
      this.fail(`unexpected type for left leg of binary operation (${op}): log query`, lhs.pos);
    }
    if (rhs.kind === 'LogSelector') {
      this.fail(`unexpected type for right leg of binary operation (${op}): log query`, rhs.pos);
    }
    const isSet = op === 'and' || op === 'or' || op === 'unless';
    const isComparison = op === '==' || op === '!=' || op === '>' || op === '>=' || op === '<' || op === '<=';
    if (isSet) {
      if (lhs.kind === 'NumberLiteral') {
        this.fail(`unexpected literal for left leg of logical/set binary operation (${op}): ${formatGoFixed(lhs.value)}`, lhs.pos);
      }
      if (rhs.kind === 'NumberLiteral') {
        this.fail(`unexpected literal for right leg of logical/set binary operation (${op}): ${formatGoFixed(rhs.value)}`, rhs.pos);
      }
    }
    if (expr.returnBool && !isComparison) this.fail('bool modifier can only be used on comparison operators', expr.pos);
    if (matching !== undefined) {
      if (isScalar(lhs) || isScalar(rhs)) this.fail('vector matching only allowed between vectors', matching.pos);
      if (isSet && matching.card !== 'one-to-one') {
        this.fail(`no grouping allowed for "${op}" operation`, matching.pos);
      }
      if (matching.on) {
        for (const label of matching.include) {
          if (matching.labels.includes(label)) {
            this.fail(`label "${label}" must not occur in ON and GROUP clause at once`, matching.pos);
          }
        }
      }
    }
    this.checkSample(lhs);
    this.checkSample(rhs);
  }
}

/** isScalar reports whether a metric expression evaluates to a scalar rather than a vector. */
function isScalar(expr: SampleExpr): boolean {
  if (expr.kind === 'NumberLiteral') return true;
  if (expr.kind === 'BinaryExpr') {
    return expr.lhs.kind !== 'LogSelector' && expr.rhs.kind !== 'LogSelector' && isScalar(expr.lhs) && isScalar(expr.rhs);
  }
  return false;
}

/**
 * checkLogQL validates a parsed query against Loki's semantic rules, throwing a COMPILE_ERROR
 * EngineError for the first violation. `text` is the query the tree was parsed from (for the
 * error's line and column).
 */
export function checkLogQL(expr: Expr, text: string, options: CheckOptions = {}): void {
  new Checker(text, options).check(expr);
}
