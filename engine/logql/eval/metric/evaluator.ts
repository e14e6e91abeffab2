/**
 * The metric evaluator: walks a checked LogQL sample expression and evaluates every node over
 * the whole query grid at once. Range aggregations read the storage; everything above them
 * works on the resulting step matrices.
 */
import type { Expr, RangeAggregationExpr, SampleExpr, VectorAggregationExpr } from '../../ast.js';
import { EngineError } from '../../../errors.js';
import type { EvalContext } from '../context.js';
import type { SeriesColumns } from '../../../storage/seriesColumns.js';
import { scalarBinary, vectorScalar, vectorVector } from './binary.js';
import { evaluateLabelReplace } from './labelReplace.js';
import { evaluateRangeAggregation } from './rangeAggregation.js';
import { newSeries, type Grid, type StepMatrix, type StepValue } from './stepMatrix.js';
import { evaluateVectorAggregation } from './vectorAggregation.js';

/** PUSHDOWN_OPS are the range aggregations whose samples a parent `sum` may group at extraction. */
const PUSHDOWN_OPS: ReadonlySet<string> = new Set(['bytes_over_time', 'bytes_rate', 'sum_over_time', 'rate', 'count_over_time']);

function asSample(expr: Expr): SampleExpr {
  if (expr.kind === 'LogSelector') {
    throw new EngineError('COMPILE_ERROR', 'unexpected log query in a metric expression', expr.pos);
  }
  return expr;
}

function toMatrix(ctx: EvalContext, value: StepValue, grid: Grid): StepMatrix {
  if (value.kind === 'matrix') return value;
  const s = newSeries(ctx.labelCache.intern([], []), grid.steps);
  s.values.fill(value.value);
  s.present.fill(1);
  return { kind: 'matrix', series: [s] };
}

function evaluateVector(ctx: EvalContext, expr: VectorAggregationExpr, grid: Grid): StepMatrix {
  const inner = expr.expr;
  let input: StepValue;
  if (expr.op === 'sum' && inner.kind === 'RangeAggregation' && ctx.answered?.has(inner) !== true && inner.grouping === undefined && PUSHDOWN_OPS.has(inner.op)) {
    // Grouping the samples while extracting gives the same sums with fewer series.
    input = evaluateRangeAggregation(ctx, inner, grid, expr.grouping ?? { kind: 'Grouping', without: false, labels: [], pos: expr.pos });
  } else {
    input = evaluate(ctx, inner, grid);
  }
  return evaluateVectorAggregation(ctx, expr, toMatrix(ctx, input, grid), grid);
}

/** evaluate evaluates any sample expression over `grid`. */
export function evaluate(ctx: EvalContext, expr: SampleExpr, grid: Grid): StepValue {
  ctx.checkAbort();
  const answered = ctx.answered?.get(expr);
  if (answered !== undefined) return answeredMatrix(ctx, answered, grid);
  switch (expr.kind) {
    case 'NumberLiteral':
      return { kind: 'scalar', value: expr.value };
    case 'Vector': {
      const s = newSeries(ctx.labelCache.intern([], []), grid.steps);
      s.values.fill(expr.value);
      s.present.fill(1);
      return { kind: 'matrix', series: [s] };
    }
    case 'RangeAggregation':
      return evaluateRangeAggregation(ctx, expr as RangeAggregationExpr, grid);
    case 'VectorAggregation':
      return evaluateVector(ctx, expr, grid);
    case 'LabelReplace':
      return evaluateLabelReplace(ctx, expr, toMatrix(ctx, evaluate(ctx, expr.expr, grid), grid));
    case 'BinaryExpr': {
      const lhs = evaluate(ctx, asSample(expr.lhs), grid);
      const rhs = evaluate(ctx, asSample(expr.rhs), grid);
      if (lhs.kind === 'scalar' && rhs.kind === 'scalar') return { kind: 'scalar', value: scalarBinary(expr.op, lhs.value, rhs.value) };
      if (lhs.kind === 'scalar') return vectorScalar(expr, rhs as StepMatrix, lhs.value, true);
      if (rhs.kind === 'scalar') return vectorScalar(expr, lhs, rhs.value, false);
      return vectorVector(ctx, expr, lhs, rhs, grid);
    }
  }
}

/** answeredMatrix lays series answered elsewhere (EvalContext.answered), points at the grid's steps, onto the grid. */
function answeredMatrix(ctx: EvalContext, answered: readonly SeriesColumns[], grid: Grid): StepMatrix {
  const series = answered.map((s) => {
    const names = Object.keys(s.labels).sort();
    const out = newSeries(ctx.labelCache.intern(names, names.map((n) => s.labels[n])), grid.steps);
    for (let k = 0; k < s.timestampsMs.length; k++) {
      const step = Math.round((s.timestampsMs[k] - grid.startMs) / grid.stepMs);
      if (step < 0 || step >= grid.steps) continue;
      out.values[step] = s.values[k];
      out.present[step] = 1;
    }
    return out;
  });
  return { kind: 'matrix', series };
}

/** hasSort tells whether the expression sorts its result by value (then its order is kept). */
export function hasSort(expr: Expr): boolean {
  switch (expr.kind) {
    case 'VectorAggregation':
      return expr.op === 'sort' || expr.op === 'sort_desc' || hasSort(expr.expr);
    case 'LabelReplace':
      return hasSort(expr.expr);
    case 'BinaryExpr':
      return hasSort(expr.lhs) || hasSort(expr.rhs);
    default:
      return false;
  }
}

/** hasApproxTopk tells whether approx_topk appears (it is instant-only). */
export function hasApproxTopk(expr: Expr): boolean {
  switch (expr.kind) {
    case 'VectorAggregation':
      return expr.op === 'approx_topk' || hasApproxTopk(expr.expr);
    case 'LabelReplace':
      return hasApproxTopk(expr.expr);
    case 'BinaryExpr':
      return hasApproxTopk(expr.lhs) || hasApproxTopk(expr.rhs);
    default:
      return false;
  }
}
