/**
 * The depth of a LogQL tree as the passes over it recurse: through binary operators,
 * aggregations and label_replace, into a range's selector, and through the `and`/`or` chains
 * of label filters (`| a="1" and b="2" and …` is as deep as it has terms). The parser refuses
 * trees deeper than MAX_EXPRESSION_DEPTH with this.
 */
import { firstTooDeep } from '../common/depth.js';
import type { PositionRange } from '../errors.js';
import type { Expr, LabelFilterExpr, LogRangeExpr } from './ast.js';

type DepthNode = Expr | LogRangeExpr | LabelFilterExpr;

function depthChildren(node: DepthNode): readonly DepthNode[] {
  switch (node.kind) {
    case 'BinaryExpr':
      return [node.lhs, node.rhs];
    case 'VectorAggregation':
    case 'LabelReplace':
      return [node.expr];
    case 'RangeAggregation':
      return [node.range];
    case 'LogRange':
      return [node.selector, ...(node.unwrap?.postFilters ?? [])];
    case 'LogSelector':
      return node.pipeline.flatMap((stage) => (stage.kind === 'LabelFilterStage' ? [stage.filter] : []));
    case 'BinaryLabelFilter':
      return [node.left, node.right];
    default:
      return [];
  }
}

/** tooDeepPosition is where `expr` first exceeds MAX_EXPRESSION_DEPTH, or undefined. */
export function tooDeepPosition(expr: Expr): PositionRange | undefined {
  return firstTooDeep<DepthNode>(expr, depthChildren)?.pos;
}
