/**
 * Evaluated values and the evaluator interface that operator modules call back into, so that
 * function and operator implementations live in their own modules without owning the walk.
 */
import type { Expr, MatrixSelector, SubqueryExpr } from '../ast.js';
import type { EvalContext } from './context.js';
import type { StepGrid } from './grid.js';
import type { Labels } from './labelset.js';
import type { RawSeries, SeriesStream } from './series.js';

/** Value is an evaluated node: a scalar per step, a string, an instant vector, or (at top level) a range vector. */
export type Value =
  | { kind: 'scalar'; values: Float64Array }
  | { kind: 'string'; value: string }
  | { kind: 'vector'; series: SeriesStream }
  | { kind: 'matrix'; series: RawSeries[] };

/** RangeInput is what a range function reads: raw series and the window end of each step. */
export interface RangeInput {
  series: RawSeries[];
  refs: Float64Array;
  rangeMs: number;
  /** extended is set for an anchored or smoothed selector, whose series hold samples past the windows. */
  extended?: { mode: 'anchored' | 'smoothed'; before: number; after: number };
}

/** NodeEvaluator evaluates subexpressions for operator modules. */
export interface NodeEvaluator {
  readonly ctx: EvalContext;
  eval(node: Expr, grid: StepGrid): Value;
  evalScalar(node: Expr, grid: StepGrid): Float64Array;
  /** evalVector yields floats only: histogram samples are left out (see floatsOnly). */
  evalVector(node: Expr, grid: StepGrid): SeriesStream;
  /** evalMixedVector yields floats and native histograms, for operators that handle both. */
  evalMixedVector(node: Expr, grid: StepGrid): SeriesStream;
  evalString(node: Expr): string;
  /**
   * rangeInput reads raw samples; histogram samples only when `withHistograms` is set; with
   * `asRuns`, float series may come in parts (RawSeries.runs) for range-function kernels.
   */
  rangeInput(node: MatrixSelector | SubqueryExpr, grid: StepGrid, withHistograms?: boolean, asRuns?: boolean): RangeInput;
  /** maybeDistinct applies the eager-mode duplicate check Prometheus runs after most operators. */
  maybeDistinct(stream: SeriesStream): SeriesStream;
  /** dropName removes a metric name now, or leaves it for the end under delayed removal. */
  dropName(labels: Labels): Labels;
}
