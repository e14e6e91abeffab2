/**
 * Entry points for LogQL metric queries: an instant query evaluates one step and returns a
 * vector (or a scalar); a range query evaluates every step from start to end and returns a
 * matrix sorted by labels. Both expect a parsed and checked expression.
 */
import type { Expr, SampleExpr } from '../ast.js';
import { EngineError } from '../../errors.js';
import type { LogReader } from '../../storage/logHead.js';
import { EvalContext, TOO_MANY_SAMPLES } from './context.js';
import { compareLabelSets } from './labelSet.js';
import { evaluate, hasApproxTopk, hasSort } from './metric/evaluator.js';
import { makeGrid, stepTime, type Grid, type StepValue } from './metric/stepMatrix.js';
import type { SeriesColumns } from '../../storage/seriesColumns.js';
import type { EvalOptions, InstantResult, RangeResult } from './types.js';

function sampleExpr(expr: Expr): SampleExpr {
  if (expr.kind === 'LogSelector') {
    throw new EngineError('COMPILE_ERROR', 'log queries are not metric queries; use evaluateLogQuery', expr.pos);
  }
  return expr;
}

function toSeries(value: StepValue, grid: Grid, ctx: EvalContext): SeriesColumns[] {
  const out: SeriesColumns[] = [];
  if (value.kind === 'scalar') {
    const timestampsMs = new Float64Array(grid.steps);
    for (let j = 0; j < grid.steps; j++) timestampsMs[j] = stepTime(grid, j);
    out.push({ labels: {}, timestampsMs, values: new Float64Array(grid.steps).fill(value.value) });
    return out;
  }
  let points = 0;
  for (const s of value.series) {
    let n = 0;
    for (let j = 0; j < grid.steps; j++) n += s.present[j];
    if (n === 0) continue;
    points += n;
    if (points > ctx.maxSamples) throw new EngineError('RESOURCE_EXHAUSTED', TOO_MANY_SAMPLES);
    const timestampsMs = new Float64Array(n);
    const values = new Float64Array(n);
    let k = 0;
    for (let j = 0; j < grid.steps; j++) {
      if (s.present[j] !== 1) continue;
      timestampsMs[k] = stepTime(grid, j);
      values[k] = s.values[j];
      k++;
    }
    out.push({ labels: s.labels.labels, timestampsMs, values });
  }
  ctx.checkSeries(out.length);
  return out;
}

/** evaluateLogQLInstant evaluates `expr` at `timeMs`. */
export function evaluateLogQLInstant(expr: Expr, reader: LogReader, timeMs: number, options: EvalOptions = {}): InstantResult {
  const ctx = new EvalContext(reader, options);
  const grid = makeGrid(timeMs, timeMs, 0);
  const value = evaluate(ctx, sampleExpr(expr), grid);
  if (value.kind === 'scalar') return { resultType: 'scalar', timestampMs: timeMs, value: value.value };
  const series = toSeries(value, grid, ctx);
  if (!hasSort(expr)) series.sort((a, b) => compareLabelSets(a.labels, b.labels));
  return { resultType: 'vector', series };
}

/**
 * evaluateLogQLAnswered evaluates `expr` over a window (one step when `instant`) with the
 * subexpressions in `answered` taken as given (their series at the window's steps) instead of
 * read: the rest of a sharded query over its merged parts. It reads no lines; an instant
 * answer keeps the order a sort gives it, as evaluateLogQLInstant's does.
 */
export function evaluateLogQLAnswered(
  expr: Expr,
  answered: ReadonlyMap<SampleExpr, readonly SeriesColumns[]>,
  window: { startMs: number; endMs: number; stepMs: number; instant?: boolean },
  options: EvalOptions = {},
): SeriesColumns[] {
  const ctx = new EvalContext(NO_LINES, options);
  ctx.answered = answered;
  const grid = window.instant === true ? makeGrid(window.startMs, window.startMs, 0) : makeGrid(window.startMs, window.endMs, window.stepMs);
  const series = toSeries(evaluate(ctx, sampleExpr(expr), grid), grid, ctx);
  if (window.instant !== true || !hasSort(expr)) series.sort((a, b) => compareLabelSets(a.labels, b.labels));
  return series;
}

/** NO_LINES is the reader of an evaluation whose every read was answered elsewhere. */
const NO_LINES: LogReader = {
  select() {
    throw new Error('an answered evaluation read lines');
  },
};

/** evaluateLogQLRange evaluates `expr` at every step from `startMs` to `endMs`. */
export function evaluateLogQLRange(
  expr: Expr,
  reader: LogReader,
  startMs: number,
  endMs: number,
  stepMs: number,
  options: EvalOptions = {},
): RangeResult {
  if (!(stepMs > 0)) throw new EngineError('VALIDATION_FAILED', 'zero or negative query resolution step widths are not accepted');
  if (endMs < startMs) throw new EngineError('VALIDATION_FAILED', 'end timestamp must not be before start time');
  const sample = sampleExpr(expr);
  if (hasApproxTopk(sample)) throw new EngineError('COMPILE_ERROR', 'approx_topk is only supported on instant queries', sample.pos);
  const ctx = new EvalContext(reader, options);
  const grid = makeGrid(startMs, endMs, stepMs);
  const series = toSeries(evaluate(ctx, sample, grid), grid, ctx);
  series.sort((a, b) => compareLabelSets(a.labels, b.labels));
  return { resultType: 'matrix', series };
}
