/**
 * Step invariance: a subexpression whose every selector is pinned with `@` (and that calls no
 * function reading the evaluation time, `readsEvaluationTime` in the function table) has the
 * same value at every step. Prometheus evaluates such subexpressions once and repeats the
 * result; we mark the same subexpressions, by the same rules, so results (including errors
 * raised only once) agree.
 */
import type { Call, Expr } from '../ast.js';

/** unwrapParens strips parentheses, as Prometheus does for function and aggregation arguments. */
export function unwrapParens(expr: Expr): Expr {
  let e = expr;
  while (e.type === 'ParenExpr') e = e.expr;
  return e;
}

/** Verdict is whether a node is step invariant and whether it is worth evaluating once. */
interface Verdict {
  invariant: boolean;
  wrap: boolean;
}

/**
 * stepInvariantNodes returns the outermost subexpressions to evaluate once per query (or per
 * subquery) and repeat at every step.
 */
export function stepInvariantNodes(root: Expr): ReadonlySet<Expr> {
  const marked = new Set<Expr>();
  const visit = (node: Expr): Verdict => {
    switch (node.type) {
      case 'VectorSelector':
        return { invariant: node.at !== null, wrap: node.at !== null };
      case 'AggregateExpr':
        if (node.param !== null) visit(node.param);
        return visit(unwrapParens(node.expr));
      case 'BinaryExpr': {
        const l = visit(node.lhs);
        const r = visit(node.rhs);
        if (l.invariant && r.invariant) return { invariant: true, wrap: true };
        if (l.wrap) marked.add(node.lhs);
        if (r.wrap) marked.add(node.rhs);
        return { invariant: false, wrap: false };
      }
      case 'Call':
        return visitCall(node);
      case 'MatrixSelector':
        return { invariant: visit(node.selector).invariant, wrap: false };
      case 'SubqueryExpr': {
        const inner = visit(node.expr);
        if (inner.invariant) marked.add(node.expr);
        return { invariant: node.at !== null, wrap: false };
      }
      case 'ParenExpr':
      case 'UnaryExpr':
        return visit(node.expr);
      case 'StringLiteral':
      case 'NumberLiteral':
        return { invariant: true, wrap: false };
    }
  };
  const visitCall = (node: Call): Verdict => {
    let invariant = !node.func.readsEvaluationTime;
    // timestamp(metric @ t) is invariant even though timestamp() in general is not.
    let timestampOfPinnedSelector = node.func.name === 'timestamp';
    const wraps: boolean[] = [];
    for (const raw of node.args) {
      const arg = unwrapParens(raw);
      const verdict = visit(arg);
      wraps.push(verdict.wrap);
      invariant = invariant && verdict.invariant;
      if (!verdict.invariant || arg.type !== 'VectorSelector') timestampOfPinnedSelector = false;
    }
    if (invariant || timestampOfPinnedSelector) return { invariant: true, wrap: true };
    node.args.forEach((arg, i) => {
      if (wraps[i]) marked.add(unwrapParens(arg));
    });
    return { invariant: false, wrap: false };
  };
  if (visit(root).wrap) marked.add(root);
  return marked;
}
