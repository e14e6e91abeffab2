/**
 * The call evaluators of the function table: query-time scalars (time(), start(), ...),
 * conversions (scalar(), vector()), element-wise math and date functions, clamping and rounding,
 * label rewriting, sorting, absent() and classic histogram quantiles. Each takes the whole call;
 * the function table (../functions.ts) pairs them with names and callDispatch.ts runs them.
 */
import type { Call, Expr, MatrixSelector, SubqueryExpr } from '../ast.js';
import { absent, absentOverTime } from './absent.js';
import { classicHistogram, quantileWarning, type ClassicHistogramFn } from './classicHistogram.js';
import { nativeHistogramResults, splitHistogramInput } from './histogramCalls.js';
import type { EvalContext } from './context.js';
import { distinctPerStep } from './dedupe.js';
import type { CallEvaluator } from './functionKernel.js';
import { applyDateFunction, clampValue, roundToNearest } from './functions.js';
import { isRangeGrid, stepTimes, type StepGrid } from './grid.js';
import { compileLabelReplaceRegex, labelJoin, labelReplace, validateLabelName } from './labelFunctions.js';
import { EMPTY_LABELS } from './labelset.js';
import { selectInstant } from './selectors.js';
import { countPresent, materialize, type SeriesStream, type VectorSeries } from './series.js';
import { sortByLabelValues, sortByValue } from './sorting.js';
import { UnsupportedFeatureError } from './unsupported.js';
import type { NodeEvaluator, Value } from './value.js';

/** filled is a scalar with the same value at every step. */
function filled(grid: StepGrid, value: number): Value {
  return { kind: 'scalar', values: new Float64Array(grid.count).fill(value) };
}

/** constantVector is a one-series vector without labels holding `values`. */
function constantVector(ev: NodeEvaluator, values: Float64Array): Value {
  ev.ctx.holdSamples(values.length);
  return { kind: 'vector', series: [{ labels: EMPTY_LABELS, values, present: new Uint8Array(values.length).fill(1), dropName: false }] };
}

/**
 * mapValues applies a per-step function to every value of every series, dropping the metric
 * name. `fnAt` returns the function for a step, or null to drop that step.
 */
function* mapValues(ev: NodeEvaluator, stream: SeriesStream, fnAt: (step: number) => ((v: number) => number) | null): Generator<VectorSeries> {
  for (const s of stream) {
    ev.ctx.checkAbort();
    const n = s.present.length;
    const values = new Float64Array(n);
    const present = new Uint8Array(n);
    let inputPoints = 0;
    let points = 0;
    for (let i = 0; i < n; i++) {
      if (s.present[i] === 0) continue;
      inputPoints++;
      const fn = fnAt(i);
      if (fn === null) continue;
      values[i] = fn(s.values[i]);
      present[i] = 1;
      points++;
    }
    ev.ctx.releaseSamples(inputPoints - points);
    if (points === 0) continue;
    yield { labels: ev.dropName(s.labels), values, present, dropName: true };
  }
}

/** scalarOf is scalar(): the single element's value at each step, NaN when there is not exactly one. */
function scalarOf(ev: NodeEvaluator, stream: SeriesStream, grid: StepGrid): Float64Array {
  const values = new Float64Array(grid.count);
  const counts = new Uint32Array(grid.count);
  for (const s of stream) {
    for (let i = 0; i < grid.count; i++) {
      if (s.present[i] === 0) continue;
      counts[i]++;
      values[i] = s.values[i];
    }
    ev.ctx.releaseSamples(countPresent(s));
  }
  for (let i = 0; i < grid.count; i++) if (counts[i] !== 1) values[i] = NaN;
  return values;
}

/** timestamp yields each element's sample time (for a plain selector) or the evaluation time. */
function* timestamp(ev: NodeEvaluator, arg: Expr, grid: StepGrid): Generator<VectorSeries> {
  if (arg.type === 'VectorSelector') {
    for (const s of selectInstant(ev.ctx, arg, grid, true)) yield { labels: ev.dropName(s.labels), values: s.values, present: s.present, dropName: true };
    return;
  }
  const times = stepTimes(grid);
  yield* mapValues(ev, ev.evalVector(arg, grid), (i) => () => times[i] / 1000);
}

/** relabel applies label_replace or label_join, merging series the rewrite made identical. */
function relabel(ev: NodeEvaluator, node: Call, args: readonly Expr[], grid: StepGrid): VectorSeries[] {
  const dst = ev.evalString(args[1]);
  let rewrite: (s: VectorSeries) => VectorSeries;
  if (node.func.name === 'label_replace') {
    const replacement = ev.evalString(args[2]);
    const src = ev.evalString(args[3]);
    const regex = compileLabelReplaceRegex(ev.evalString(args[4]));
    validateLabelName(dst, 'label_replace', 'destination');
    rewrite = (s) => labelReplace(s, dst, replacement, src, regex);
  } else {
    const separator = ev.evalString(args[2]);
    const srcs = args.slice(3).map((a) => ev.evalString(a));
    for (const src of srcs) validateLabelName(src, 'label_join', 'source');
    validateLabelName(dst, 'label_join', 'destination');
    rewrite = (s) => labelJoin(s, dst, separator, srcs);
  }
  const out: VectorSeries[] = [];
  for (const s of ev.evalVector(args[0], grid)) out.push(rewrite(s));
  return Array.from(distinctPerStep(out));
}

/** sort orders an instant vector; range results are always ordered by labels, so it warns there. */
function sort(ev: NodeEvaluator, node: Call, args: readonly Expr[], grid: StepGrid): VectorSeries[] {
  const name = node.func.name;
  const input = materialize(ev.evalVector(args[0], grid));
  if (isRangeGrid(grid)) {
    ev.ctx.annotations.warn('sort is ineffective for range queries since results are always ordered by labels', node.pos);
    return input;
  }
  if (name === 'sort' || name === 'sort_desc') return sortByValue(input, name === 'sort');
  return sortByLabelValues(
    input,
    args.slice(1).map((a) => ev.evalString(a)),
    name === 'sort_by_label_desc',
  );
}

/** warnInvalidQuantiles notes every quantile outside [0, 1] met at any step. */
function warnInvalidQuantiles(ev: NodeEvaluator, q: Float64Array, arg: Expr): void {
  for (const v of q) if (v !== v || v < 0 || v > 1) ev.ctx.annotations.warn(quantileWarning(v), arg.pos);
}

/** histogramQuantileOf is histogram_quantile(φ, buckets) over classic buckets and native histograms. */
export const histogramQuantileOf: CallEvaluator = (ev, _node, args, grid) => {
  const q = ev.evalScalar(args[0], grid);
  warnInvalidQuantiles(ev, q, args[0]);
  return { kind: 'vector', series: ev.maybeDistinct(bothHistogramKinds(ev, { kind: 'quantile', q }, args[1], grid)) };
};

/** histogramQuantilesOf is histogram_quantiles(buckets, label, φ...): one output series per quantile. */
export const histogramQuantilesOf: CallEvaluator = (ev, _node, args, grid) => {
  const label = ev.evalString(args[1]);
  const qs = args.slice(2).map((a) => ev.evalScalar(a, grid));
  qs.forEach((q, k) => warnInvalidQuantiles(ev, q, args[k + 2]));
  return { kind: 'vector', series: ev.maybeDistinct(bothHistogramKinds(ev, { kind: 'quantiles', label, qs }, args[0], grid)) };
};

/** histogramFractionOf is histogram_fraction(lower, upper, buckets). */
export const histogramFractionOf: CallEvaluator = (ev, _node, args, grid) => {
  const lower = ev.evalScalar(args[0], grid);
  const upper = ev.evalScalar(args[1], grid);
  return { kind: 'vector', series: ev.maybeDistinct(bothHistogramKinds(ev, { kind: 'fraction', lower, upper }, args[2], grid)) };
};

/** bothHistogramKinds evaluates `fn` over the native histograms and the classic bucket series of `arg`. */
function bothHistogramKinds(ev: NodeEvaluator, fn: ClassicHistogramFn, arg: Expr, grid: StepGrid): VectorSeries[] {
  const { classic, native } = splitHistogramInput(ev.ctx, materialize(ev.evalMixedVector(arg, grid)), arg.pos);
  return [...nativeHistogramResults(ev.ctx, fn, native, grid, arg.pos), ...classicHistogram(ev.ctx, fn, classic, grid, arg.pos)];
}

/** clampFunction evaluates clamp, clamp_min and clamp_max; a step whose max is below its min yields nothing. */
function clampFunction(ev: NodeEvaluator, name: string, args: readonly Expr[], grid: StepGrid): SeriesStream {
  const params = args.slice(1).map((a) => ev.evalScalar(a, grid));
  const min = name === 'clamp_max' ? null : params[0];
  const max = name === 'clamp' ? params[1] : name === 'clamp_max' ? params[0] : null;
  return mapValues(ev, ev.evalVector(args[0], grid), (i) => {
    const lo = min === null ? -Infinity : min[i];
    const hi = max === null ? Infinity : max[i];
    return hi < lo ? null : (v) => clampValue(v, lo, hi);
  });
}

/** timeOfStep is time(): each step's evaluation time in seconds. */
export const timeOfStep: CallEvaluator = (_ev, _node, _args, grid) => ({ kind: 'scalar', values: stepTimes(grid).map((t) => t / 1000) });

/** queryScalar is a function of the query alone (pi(), start(), end(), range(), step()), the same at every step. */
export function queryScalar(valueOf: (ctx: EvalContext) => number): CallEvaluator {
  return (ev, _node, _args, grid) => filled(grid, valueOf(ev.ctx));
}

/** scalarPair applies `pick` to two scalar arguments step by step (min_of, max_of). */
export function scalarPair(pick: (a: number, b: number) => number): CallEvaluator {
  return (ev, _node, args, grid) => {
    const a = ev.evalScalar(args[0], grid);
    const b = ev.evalScalar(args[1], grid);
    return { kind: 'scalar', values: a.map((v, i) => pick(v, b[i])) };
  };
}

/** vectorOf is vector(): the scalar as one series without labels. */
export const vectorOf: CallEvaluator = (ev, _node, args, grid) => constantVector(ev, ev.evalScalar(args[0], grid));

/** scalarOfVector is scalar(). */
export const scalarOfVector: CallEvaluator = (ev, _node, args, grid) => ({ kind: 'scalar', values: scalarOf(ev, ev.evalVector(args[0], grid), grid) });

/** absentOf is absent(). */
export const absentOf: CallEvaluator = (ev, _node, args, grid) => ({ kind: 'vector', series: absent(ev.ctx, ev.evalMixedVector(args[0], grid), args[0], grid) });

/** absentOverTimeOf is absent_over_time(): it looks across the series of its range, so it is no window kernel. */
export const absentOverTimeOf: CallEvaluator = (ev, _node, args, grid) => {
  const rangeArg = args[0] as MatrixSelector | SubqueryExpr;
  return { kind: 'vector', series: absentOverTime(ev.ctx, ev.rangeInput(rangeArg, grid, true), rangeArg, grid) };
};

/** timestampOf is timestamp(). */
export const timestampOf: CallEvaluator = (ev, _node, args, grid) => ({ kind: 'vector', series: ev.maybeDistinct(timestamp(ev, args[0], grid)) });

/** relabelled is label_replace() and label_join(). */
export const relabelled: CallEvaluator = (ev, node, args, grid) => ({ kind: 'vector', series: relabel(ev, node, args, grid) });

/** sorted is sort(), sort_desc(), sort_by_label() and sort_by_label_desc(). */
export const sorted: CallEvaluator = (ev, node, args, grid) => ({ kind: 'vector', series: sort(ev, node, args, grid) });


/** clamped is clamp(), clamp_min() and clamp_max(). */
export const clamped: CallEvaluator = (ev, node, args, grid) => ({ kind: 'vector', series: ev.maybeDistinct(clampFunction(ev, node.func.name, args, grid)) });

/** rounded is round(), to the nearest integer or multiple of its second argument. */
export const rounded: CallEvaluator = (ev, _node, args, grid) => {
  const toNearest = args.length > 1 ? ev.evalScalar(args[1], grid) : null;
  const stream = mapValues(ev, ev.evalVector(args[0], grid), (i) => {
    const to = toNearest === null ? 1 : toNearest[i];
    return (v) => roundToNearest(v, to);
  });
  return { kind: 'vector', series: ev.maybeDistinct(stream) };
};

/** elementwise applies `fn` to every sample of its one vector argument. */
export function elementwise(fn: (v: number) => number): CallEvaluator {
  return (ev, _node, args, grid) => ({ kind: 'vector', series: ev.maybeDistinct(mapValues(ev, ev.evalVector(args[0], grid), () => fn)) });
}

/** datePart extracts a calendar field from each sample, or from the step time without an argument. */
export function datePart(field: (d: Date) => number): CallEvaluator {
  const ofSeconds = (v: number): number => applyDateFunction(field, v);
  return (ev, _node, args, grid) => {
    if (args.length === 0) return constantVector(ev, stepTimes(grid).map((t) => applyDateFunction(field, Math.trunc(t / 1000))));
    return { kind: 'vector', series: ev.maybeDistinct(mapValues(ev, ev.evalVector(args[0], grid), () => ofSeconds)) };
  };
}

/** unsupported rejects a function that needs a feature this engine does not have yet. */
export function unsupported(feature: string): CallEvaluator {
  return (_ev, node) => {
    throw new UnsupportedFeatureError(feature, node.pos);
  };
}

/**
 * startTimestampOf is start_timestamp(v): the start time (seconds) of the sample each series
 * has at the step. Only a selector's own series carry start timestamps; any other expression
 * gives an empty result, as in Prometheus.
 */
export const startTimestampOf: CallEvaluator = (ev, _node, args, grid) => {
  let arg = args[0];
  while (arg.type === 'ParenExpr') arg = arg.expr;
  if (arg.type !== 'VectorSelector') {
    materialize(ev.evalMixedVector(arg, grid));
    return { kind: 'vector', series: [] };
  }
  const out: VectorSeries[] = [];
  for (const s of selectInstant(ev.ctx, arg, grid, false, true)) out.push({ ...s, labels: ev.dropName(s.labels), dropName: true });
  return { kind: 'vector', series: out };
};
