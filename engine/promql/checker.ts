/**
 * The PromQL type checker. The parser guarantees structure; this pass guarantees meaning: every
 * operand has a type its operator accepts, every call matches its signature, and modifiers are
 * used only where they mean something. Messages and positions follow Prometheus, and the first
 * problem in evaluation order (children before parents) is the one reported.
 */
import { quoteGoString } from '../common/quote.js';
import { compileError, type PositionRange } from '../errors.js';
import {
  documentedTypeName,
  isComparisonOp,
  isSetOp,
  valueTypeOf,
  type AggregateExpr,
  type BinaryExpr,
  type Call,
  type Expr,
  type ValueType,
} from './ast.js';
import { AGGREGATIONS, argTypeAt } from './functions.js';
import { parsePromQL, type ParseOptions } from './parser.js';
import { defaultParseOptions } from './features.js';

/** CheckProblem is one semantic error and where it is. */
interface CheckProblem {
  message: string;
  position: PositionRange;
}

/** Checker walks a tree once, keeping the first problem it meets. */
class Checker {
  problem: CheckProblem | null = null;

  /** report keeps the first problem only: later ones are often consequences of it. */
  private report(message: string, position: PositionRange): void {
    if (this.problem === null) this.problem = { message, position };
  }

  /** check validates `node` and its subtree, returning the node's value type. */
  check(node: Expr): ValueType {
    switch (node.type) {
      case 'NumberLiteral':
      case 'StringLiteral':
      case 'VectorSelector':
        break;
      case 'MatrixSelector':
        this.check(node.selector);
        break;
      case 'ParenExpr':
        return this.check(node.expr);
      case 'UnaryExpr': {
        const inner = this.check(node.expr);
        if (inner !== 'scalar' && inner !== 'vector') {
          this.report(
            `unary expression only allowed on expressions of type scalar or instant vector, got ${quoteGoString(documentedTypeName(inner))}`,
            node.pos,
          );
        }
        return inner;
      }
      case 'SubqueryExpr': {
        const inner = this.check(node.expr);
        if (inner !== 'vector') this.report(`subquery is only allowed on instant vector, got ${inner} instead`, node.pos);
        break;
      }
      case 'AggregateExpr':
        this.checkAggregate(node);
        break;
      case 'BinaryExpr':
        return this.checkBinary(node);
      case 'Call':
        this.checkCall(node);
        break;
    }
    // Composite nodes return the type their checked children give them above: deriving it
    // from scratch here would rewalk each operand once per level of a long operator chain.
    return valueTypeOf(node);
  }

  private expectType(node: Expr, want: ValueType, context: string): void {
    const got = this.check(node);
    if (got !== want) {
      this.report(`expected type ${documentedTypeName(want)} in ${context}, got ${documentedTypeName(got)}`, node.pos);
    }
  }

  private checkAggregate(node: AggregateExpr): void {
    this.expectType(node.expr, 'vector', 'aggregation expression');
    const paramType = AGGREGATIONS[node.op].paramType;
    if (paramType !== null && node.param !== null) this.expectType(node.param, paramType, 'aggregation parameter');
  }

  /** checkBinary validates a binary operation and returns its type: scalar only between scalars. */
  private checkBinary(node: BinaryExpr): ValueType {
    const lhsType = this.check(node.lhs);
    const rhsType = this.check(node.rhs);
    const type: ValueType = lhsType === 'scalar' && rhsType === 'scalar' ? 'scalar' : 'vector';
    const { matching } = node;
    const opRange = { start: node.opPos.start, end: node.rhs.pos.start };
    const comparison = isComparisonOp(node.op);
    if (node.returnBool && !comparison) this.report('bool modifier can only be used on comparison operators', opRange);
    if (comparison && !node.returnBool && lhsType === 'scalar' && rhsType === 'scalar') {
      this.report('comparisons between scalars must use BOOL modifier', opRange);
    }
    if (matching.on) {
      for (const label of matching.labels) {
        if (matching.include.includes(label)) {
          this.report(`label ${quoteGoString(label)} must not occur in ON and GROUP clause at once`, opRange);
        }
      }
    }
    if (lhsType !== 'scalar' && lhsType !== 'vector') {
      this.report('binary expression must contain only scalar and instant vector types', node.lhs.pos);
    }
    if (rhsType !== 'scalar' && rhsType !== 'vector') {
      this.report('binary expression must contain only scalar and instant vector types', node.rhs.pos);
    }
    const grouped = matching.card === 'many-to-one' || matching.card === 'one-to-many';
    if (lhsType !== 'vector' || rhsType !== 'vector') {
      if (matching.on || matching.labels.length > 0 || grouped) {
        this.report('vector matching only allowed between instant vectors', node.pos);
      }
    } else if (isSetOp(node.op)) {
      if (grouped) this.report(`no grouping allowed for ${quoteGoString(node.op)} operation`, node.pos);
      if (matching.card !== 'many-to-many') this.report('set operations must always be many-to-many', node.pos);
    }
    if ((lhsType === 'scalar' || rhsType === 'scalar') && isSetOp(node.op)) {
      this.report(`set operator ${quoteGoString(node.op)} not allowed in binary scalar expression`, node.pos);
    }
    return type;
  }

  private checkCall(node: Call): void {
    const { func, args } = node;
    const name = quoteGoString(func.name);
    if (func.variadic === 0) {
      if (args.length !== func.argTypes.length) {
        this.report(`expected ${func.argTypes.length} argument(s) in call to ${name}, got ${args.length}`, node.pos);
      }
    } else if (args.length < func.minArgs) {
      this.report(`expected at least ${func.minArgs} argument(s) in call to ${name}, got ${args.length}`, node.pos);
    } else if (args.length > func.maxArgs) {
      this.report(`expected at most ${func.maxArgs} argument(s) in call to ${name}, got ${args.length}`, node.pos);
    }
    if (func.name === 'info' && args.length > 1) this.checkInfoSelector(node);
    for (let i = 0; i < args.length; i++) {
      const want = argTypeAt(func, i);
      if (want === undefined) break;
      const got = this.check(args[i]);
      if (got !== want) {
        this.report(
          `expected type ${documentedTypeName(want)} in call to function ${name}, got ${documentedTypeName(got)}`,
          args[i].pos,
        );
      }
    }
  }

  /** checkInfoSelector enforces that info()'s second argument only lists data label matchers. */
  private checkInfoSelector(node: Call): void {
    const selector = node.args[1];
    if (valueTypeOf(selector) !== 'vector') {
      this.report(
        `expected type instant vector in call to function "info", got ${documentedTypeName(valueTypeOf(selector))}`,
        node.pos,
      );
    }
    if (selector.type !== 'VectorSelector') this.report('expected label selectors only', selector.pos);
    else if (selector.name !== null) this.report('expected label selectors only, got vector selector instead', selector.pos);
  }
}

/**
 * checkPromQL type-checks a parsed expression, throwing a COMPILE_ERROR EngineError positioned
 * in `text` (the query the tree was parsed from) for the first semantic problem.
 */
export function checkPromQL(expr: Expr, text: string): void {
  const checker = new Checker();
  checker.check(expr);
  if (checker.problem !== null) throw compileError(text, checker.problem.message, checker.problem.position);
}

/** parseAndCheckPromQL parses and type-checks `text`, the usual entry point for a query. */
export function parseAndCheckPromQL(text: string, options: ParseOptions = defaultParseOptions()): Expr {
  const expr = parsePromQL(text, options);
  checkPromQL(expr, text);
  return expr;
}
