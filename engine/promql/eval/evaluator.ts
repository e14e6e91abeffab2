/**
 * The tree walker. Every node is evaluated over a whole grid of steps at once: scalars become
 * one typed array, instant vectors a stream of VectorSeries. Operators that fold (aggregations,
 * element-wise functions, range functions) consume their input one series at a time, so a
 * query such as `sum by (job) (rate(x[5m]))` never holds all rate series together.
 * Function calls go through callDispatch.ts to the kernel in the function's row (../functions.ts):
 * call evaluators in calls.ts, window kernels run by rangeFunctions.ts. Operators have their own
 * modules.
 */
import { EngineError } from '../../errors.js';
import { CounterResetHint, scale, type FloatHistogram } from '../../histogram/floatHistogram.js';
import type { AggregateExpr, BinaryExpr, Expr, MatrixSelector, SubqueryExpr, UnaryExpr } from '../ast.js';
import { valueTypeOf } from '../ast.js';
import { aggregateCountValues, aggregateFolding } from './aggregate.js';
import { aggregateSelect } from './aggregateK.js';
import { floatInputFor, HistogramSums } from './histogramAggregate.js';
import { scalarScalar, setOperation, vectorScalar, vectorVector } from './binary.js';
import { evalCall } from './callDispatch.js';
import { TOO_MANY_SAMPLES, type EvalContext } from './context.js';
import { distinctPerStep } from './dedupe.js';
import { instantGrid, makeGrid, stepTimes, type StepGrid } from './grid.js';
import { dropMetricName, type Labels } from './labelset.js';
import { referenceTimes, selectInstant, selectRange, windowBounds } from './selectors.js';
import { countPresent, floatsOnly, materialize, rawFloatsOnly, type HistogramSlots, type RawSeries, type SeriesStream, type VectorSeries } from './series.js';
import { unwrapParens } from './stepInvariant.js';
import { extendedMatrix, extendedMode, extraMs } from './extendedRange.js';
import type { NodeEvaluator, RangeInput, Value } from './value.js';

export type { Value } from './value.js';

/** broadcastSeries repeats a one-step series over `count` steps. */
function broadcastSeries(series: VectorSeries, count: number): VectorSeries {
  const values = new Float64Array(count).fill(series.values[0]);
  const present = new Uint8Array(count).fill(series.present[0]);
  const out: VectorSeries = { labels: series.labels, values, present, dropName: series.dropName };
  const h = series.histograms?.[0];
  if (h !== undefined) out.histograms = new Array<typeof h>(count).fill(h);
  return out;
}

/**
 * withoutStoredHint forgets a counter hint read from storage: it was set relative to the
 * stored predecessor, not to the previous subquery step, so resets are detected afresh.
 */
function withoutStoredHint(h: FloatHistogram | undefined): FloatHistogram | undefined {
  if (h === undefined || h.counterResetHint === CounterResetHint.Gauge || h.counterResetHint === CounterResetHint.Unknown) return h;
  return { ...h, counterResetHint: CounterResetHint.Unknown };
}

/** toRawSeries turns a subquery's step series into samples at the steps where it has values. */
function toRawSeries(s: VectorSeries, times: Float64Array): RawSeries | null {
  const n = countPresent(s);
  if (n === 0) return null;
  const ts = new Float64Array(n);
  const vals = new Float64Array(n);
  const hists: HistogramSlots | undefined = s.histograms === undefined ? undefined : new Array(n);
  let k = 0;
  for (let i = 0; i < s.present.length; i++) {
    if (s.present[i] === 0) continue;
    ts[k] = times[i];
    vals[k] = s.values[i];
    if (hists !== undefined) hists[k] = withoutStoredHint(s.histograms![i]);
    k++;
  }
  const raw: RawSeries = { labels: s.labels, ts, vals, dropName: s.dropName };
  if (hists !== undefined) raw.hists = hists;
  return raw;
}

/** Evaluator walks one query's tree; the step-invariant nodes are evaluated once and repeated. */
export class Evaluator implements NodeEvaluator {
  constructor(
    readonly ctx: EvalContext,
    private readonly invariant: ReadonlySet<Expr>,
  ) {}

  /** eval evaluates `node` over `grid`, once and repeated when the node is step invariant. */
  eval(node: Expr, grid: StepGrid): Value {
    this.ctx.checkAbort();
    if (grid.count > 1 && this.invariant.has(node)) return this.broadcast(this.evalNode(node, instantGrid(grid.startMs)), grid.count);
    return this.evalNode(node, grid);
  }

  private broadcast(value: Value, count: number): Value {
    switch (value.kind) {
      case 'scalar':
        return { kind: 'scalar', values: new Float64Array(count).fill(value.values[0]) };
      case 'vector': {
        const series: VectorSeries[] = [];
        for (const s of value.series) {
          if (s.present[0] === 0) continue;
          series.push(broadcastSeries(s, count));
          this.ctx.holdSamples(count - 1);
        }
        return { kind: 'vector', series };
      }
      default:
        return value;
    }
  }

  evalScalar(node: Expr, grid: StepGrid): Float64Array {
    const v = this.eval(node, grid);
    if (v.kind !== 'scalar') throw new Error(`expected a scalar from ${node.type}`);
    return v.values;
  }

  evalVector(node: Expr, grid: StepGrid): SeriesStream {
    return floatsOnly(this.evalMixedVector(node, grid));
  }

  evalMixedVector(node: Expr, grid: StepGrid): SeriesStream {
    const v = this.eval(node, grid);
    if (v.kind !== 'vector') throw new Error(`expected an instant vector from ${node.type}`);
    return v.series;
  }

  evalString(node: Expr): string {
    const e = unwrapParens(node);
    if (e.type !== 'StringLiteral') throw new Error(`expected a string literal, got ${e.type}`);
    return e.value;
  }

  maybeDistinct(stream: SeriesStream): SeriesStream {
    return this.ctx.delayedNameRemoval ? stream : distinctPerStep(stream);
  }

  dropName(labels: Labels): Labels {
    return this.ctx.delayedNameRemoval ? labels : dropMetricName(labels);
  }

  private evalNode(node: Expr, grid: StepGrid): Value {
    switch (node.type) {
      case 'NumberLiteral':
        return { kind: 'scalar', values: new Float64Array(grid.count).fill(node.value) };
      case 'StringLiteral':
        return { kind: 'string', value: node.value };
      case 'ParenExpr':
        return this.eval(node.expr, grid);
      case 'UnaryExpr':
        return this.evalUnary(node, grid);
      case 'VectorSelector':
        return { kind: 'vector', series: selectInstant(this.ctx, node, grid) };
      case 'MatrixSelector':
      case 'SubqueryExpr':
        return { kind: 'matrix', series: this.topLevelMatrix(node, grid) };
      case 'AggregateExpr':
        return { kind: 'vector', series: this.evalAggregate(node, grid) };
      case 'BinaryExpr':
        return this.evalBinary(node, grid);
      case 'Call':
        return evalCall(this, node, grid);
    }
  }

  /** evalUnary negates (dropping the metric name) or, for `+`, passes through. */
  private evalUnary(node: UnaryExpr, grid: StepGrid): Value {
    const inner = this.eval(node.expr, grid);
    if (node.op === '+') return inner;
    if (inner.kind === 'scalar') return { kind: 'scalar', values: inner.values.map((v) => -v) };
    if (inner.kind !== 'vector') throw new Error('unary minus on a non-numeric value');
    const source = inner.series;
    const negate = function* (ev: Evaluator): Generator<VectorSeries> {
      for (const s of source) {
        const out: VectorSeries = { labels: ev.dropName(s.labels), values: s.values.map((v) => -v), present: s.present, dropName: true };
        if (s.histograms !== undefined) out.histograms = s.histograms.map((h) => (h === undefined ? undefined : scale(h, -1)));
        yield out;
      }
    };
    return { kind: 'vector', series: this.maybeDistinct(negate(this)) };
  }

  /** rangeInput evaluates a matrix selector or subquery into raw series plus per-step window ends. */
  rangeInput(node: MatrixSelector | SubqueryExpr, grid: StepGrid, withHistograms = false, asRuns = false): RangeInput {
    const input = this.mixedRangeInput(node, grid, asRuns);
    if (withHistograms) return input;
    const series: RawSeries[] = [];
    for (const s of input.series) {
      const floats = rawFloatsOnly(s);
      if (floats !== null) series.push(floats);
    }
    return { ...input, series };
  }

  /** mixedRangeInput reads a range argument's samples, floats and histograms alike. */
  private mixedRangeInput(node: MatrixSelector | SubqueryExpr, grid: StepGrid, asRuns: boolean): RangeInput {
    if (node.type === 'MatrixSelector') {
      const vs = node.selector;
      const refs = referenceTimes(this.ctx, grid, vs.at, vs.offsetMs);
      const mode = extendedMode(vs);
      if (mode !== null) {
        const extra = extraMs(mode, this.ctx.lookbackDeltaMs);
        return { series: selectRange(this.ctx, vs, node.rangeMs, refs, extra), refs, rangeMs: node.rangeMs, extended: { mode, ...extra } };
      }
      return { series: selectRange(this.ctx, vs, node.rangeMs, refs, undefined, asRuns), refs, rangeMs: node.rangeMs };
    }
    // A subquery evaluates its expression on its own grid: every multiple of its step after the
    // first window's start, up to the last window's end.
    const refs = referenceTimes(this.ctx, grid, node.at, node.offsetMs);
    const step = node.stepMs ?? this.ctx.noStepSubqueryIntervalMs;
    const start = Math.floor((refs[0] - node.rangeMs) / step) * step + step;
    const end = refs[refs.length - 1];
    if (end < start) return { series: [], refs, rangeMs: node.rangeMs };
    // Every series of the inner expression holds one sample per inner step, so a grid with more
    // steps than the sample budget can never be evaluated: refuse it before allocating it
    // (`x[30d:1ms]` would otherwise ask for billions of steps).
    if (Math.floor((end - start) / step) + 1 > this.ctx.maxSamples) throw new EngineError('RESOURCE_EXHAUSTED', TOO_MANY_SAMPLES);
    const subGrid = makeGrid(start, end, step);
    const times = stepTimes(subGrid);
    const series: RawSeries[] = [];
    for (const s of this.evalMixedVector(node.expr, subGrid)) {
      const raw = toRawSeries(s, times);
      if (raw !== null) series.push(raw);
    }
    return { series, refs, rangeMs: node.rangeMs };
  }

  /** topLevelMatrix evaluates a range vector returned as an instant query's result. */
  private topLevelMatrix(node: MatrixSelector | SubqueryExpr, grid: StepGrid): RawSeries[] {
    const input = this.rangeInput(node, grid, true);
    const out: RawSeries[] = [];
    const lo = new Int32Array(1);
    const hi = new Int32Array(1);
    if (input.extended !== undefined) return extendedMatrix(input);
    for (const s of input.series) {
      windowBounds(s.ts, input.refs.subarray(0, 1), input.rangeMs, lo, hi);
      if (hi[0] <= lo[0]) continue;
      const raw: RawSeries = { labels: s.labels, ts: s.ts.slice(lo[0], hi[0]), vals: s.vals.slice(lo[0], hi[0]), dropName: s.dropName };
      if (s.hists !== undefined) raw.hists = s.hists.slice(lo[0], hi[0]);
      out.push(raw);
    }
    return out;
  }

  private evalAggregate(node: AggregateExpr, grid: StepGrid): VectorSeries[] {
    const expr = unwrapParens(node.expr);
    switch (node.op) {
      case 'count_values': {
        const label = this.evalString(node.param!);
        return aggregateCountValues(this.ctx, node, this.evalMixedVector(expr, grid), grid, label);
      }
      case 'topk':
      case 'bottomk':
      case 'limitk':
      case 'limit_ratio': {
        const param = this.evalScalar(unwrapParens(node.param!), grid);
        return aggregateSelect(this.ctx, node, floatInputFor(this.ctx, node, this.evalMixedVector(expr, grid)), grid, param);
      }
      case 'quantile': {
        const q = this.evalScalar(unwrapParens(node.param!), grid);
        return aggregateFolding(this.ctx, node, floatInputFor(this.ctx, node, this.evalMixedVector(expr, grid)), grid, q);
      }
      case 'sum':
      case 'avg': {
        const sums = new HistogramSums(this.ctx, node, grid.count);
        return sums.merge(aggregateFolding(this.ctx, node, sums.split(this.evalMixedVector(expr, grid)), grid, null));
      }
      default:
        return aggregateFolding(this.ctx, node, floatInputFor(this.ctx, node, this.evalMixedVector(expr, grid)), grid, null);
    }
  }

  private evalBinary(node: BinaryExpr, grid: StepGrid): Value {
    const lt = valueTypeOf(node.lhs);
    const rt = valueTypeOf(node.rhs);
    if (lt === 'scalar' && rt === 'scalar') {
      return { kind: 'scalar', values: scalarScalar(node.op, this.evalScalar(node.lhs, grid), this.evalScalar(node.rhs, grid)) };
    }
    if (lt === 'vector' && rt === 'scalar') {
      const vector = this.evalMixedVector(node.lhs, grid);
      const scalar = this.evalScalar(node.rhs, grid);
      return { kind: 'vector', series: this.maybeDistinct(vectorScalar(this.ctx, node, vector, scalar, false)) };
    }
    if (lt === 'scalar' && rt === 'vector') {
      const scalar = this.evalScalar(node.lhs, grid);
      const vector = this.evalMixedVector(node.rhs, grid);
      return { kind: 'vector', series: this.maybeDistinct(vectorScalar(this.ctx, node, vector, scalar, true)) };
    }
    const lhs = materialize(this.evalMixedVector(node.lhs, grid));
    const rhs = materialize(this.evalMixedVector(node.rhs, grid));
    if (node.op === 'and' || node.op === 'or' || node.op === 'unless') {
      return { kind: 'vector', series: setOperation(this.ctx, node, lhs, rhs, grid) };
    }
    return { kind: 'vector', series: vectorVector(this.ctx, node, lhs, rhs, grid) };
  }
}
