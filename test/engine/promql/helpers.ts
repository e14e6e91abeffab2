/**
 * Test helpers for the PromQL front end.
 */
import type { Expr } from '../../../engine/promql/index.js';

/**
 * stripPositions copies a tree without its source positions, so trees parsed from differently
 * spelled queries can be compared for meaning.
 */
export function stripPositions(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(stripPositions);
  if (node === null || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === 'pos' || key === 'opPos') continue;
    out[key] = stripPositions(value);
  }
  return out;
}

/**
 * shape renders a tree as a fully parenthesised S-expression, to pin grouping and
 * associativity in one readable string: `-2^2` is `(- (^ 2 2))`.
 */
export function shape(node: Expr): string {
  switch (node.type) {
    case 'NumberLiteral':
      return String(node.value);
    case 'StringLiteral':
      return JSON.stringify(node.value);
    case 'VectorSelector': {
      let out = node.name ?? '{}';
      if (node.offsetMs !== 0) out = `(offset ${out} ${node.offsetMs})`;
      if (node.at !== null) out = `(@ ${out} ${node.at.kind === 'timestamp' ? node.at.ms : node.at.kind})`;
      return out;
    }
    case 'MatrixSelector':
      return `(range ${shape(node.selector)} ${node.rangeMs})`;
    case 'SubqueryExpr':
      return `(subquery ${shape(node.expr)} ${node.rangeMs} ${node.stepMs ?? '_'})`;
    case 'AggregateExpr':
      return `(${node.op}${node.param === null ? '' : ' ' + shape(node.param)} ${shape(node.expr)})`;
    case 'BinaryExpr':
      return `(${node.op}${node.returnBool ? ' bool' : ''} ${shape(node.lhs)} ${shape(node.rhs)})`;
    case 'UnaryExpr':
      return `(${node.op} ${shape(node.expr)})`;
    case 'ParenExpr':
      return `[${shape(node.expr)}]`;
    case 'Call':
      return `(${node.func.name}${node.args.map((a) => ' ' + shape(a)).join('')})`;
  }
}
