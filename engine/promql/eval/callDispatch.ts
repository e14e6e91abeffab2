/**
 * evalCall runs a function call: it looks the function's kernel up in the function table once
 * per evaluated call and hands over to it, so the loops over series and steps see only the
 * kernel itself.
 */
import type { Call } from '../ast.js';
import { functionKernel } from '../functions.js';
import type { StepGrid } from './grid.js';
import { evalRangeFunction } from './rangeFunctions.js';
import { unwrapParens } from './stepInvariant.js';
import { UnsupportedFeatureError } from './unsupported.js';
import type { NodeEvaluator, Value } from './value.js';

/** evalCall evaluates a function call over the grid. */
export function evalCall(ev: NodeEvaluator, node: Call, grid: StepGrid): Value {
  const kernel = functionKernel(node.func.name);
  if (kernel === undefined) throw new UnsupportedFeatureError(`function ${node.func.name}()`, node.pos);
  const args = node.args.map(unwrapParens);
  if (kernel.kind === 'call') return kernel.evaluate(ev, node, args, grid);
  const rangeArgIndex = args.findIndex((a) => a.type === 'MatrixSelector' || a.type === 'SubqueryExpr');
  return { kind: 'vector', series: evalRangeFunction(ev, node, args, rangeArgIndex, kernel, grid) };
}
