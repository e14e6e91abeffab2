/**
 * Function calls. Range-vector functions go to rangeFunctions.ts; this module handles the rest:
 * query-time scalars (time(), start(), ...), conversions (scalar(), vector()), element-wise math
 * and date functions, clamping and rounding, label rewriting, sorting, absent() and classic
 * histogram quantiles.
 */
import type { Call, Expr } from '../ast.js';
import { absent } from './absent.js';
import { classicHistogram, quantileWarning } from './classicHistogram.js';
import { distinctPerStep } from './dedupe.js';
import { applyDateFunction, clampValue, DATE_FUNCTIONS, MATH_FUNCTIONS, roundToNearest } from './functions.js';
import { isRangeGrid, stepTimes, type StepGrid } from './grid.js';
import { compileLabelReplaceRegex, labelJoin, labelReplace, validateLabelName } from './labelFunctions.js';
import { EMPTY_LABELS } from './labelset.js';
import { evalRangeFunction } from './rangeFunctions.js';
import { selectInstant } from './selectors.js';
import { countPresent, materialize, type SeriesStream, type StepSeries } from './series.js';
import { sortByLabelValues, sortByValue } from './sorting.js';
import { unwrapParens } from './stepInvariant.js';
import { UnsupportedFeatureError } from './unsupported.js';
import type { NodeEvaluator, Value } from './value.js';

/** NATIVE_HISTOGRAM_ONLY_FUNCTIONS read only native histograms; floats yield nothing. */
const NATIVE_HISTOGRAM_ONLY_FUNCTIONS: ReadonlySet<string> = new Set([
  'histogram_count',
  'histogram_sum',
  'histogram_avg',
  'histogram_stddev',
  'histogram_stdvar',
]);

/** UNSUPPORTED_FUNCTIONS need features this engine does not have yet. */
const UNSUPPORTED_FUNCTIONS: ReadonlyMap<string, string> = new Map([
  ['info', 'info()'],
  ['start_timestamp', 'start_timestamp() (start timestamps)'],
]);

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
function* mapValues(ev: NodeEvaluator, stream: SeriesStream, fnAt: (step: number) => ((v: number) => number) | null): Generator<StepSeries> {
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
function* timestamp(ev: NodeEvaluator, arg: Expr, grid: StepGrid): Generator<StepSeries> {
  if (arg.type === 'VectorSelector') {
    for (const s of selectInstant(ev.ctx, arg, grid, true)) yield { labels: ev.dropName(s.labels), values: s.values, present: s.present, dropName: true };
    return;
  }
  const times = stepTimes(grid);
  yield* mapValues(ev, ev.evalVector(arg, grid), (i) => () => times[i] / 1000);
}

/** relabel applies label_replace or label_join, merging series the rewrite made identical. */
function relabel(ev: NodeEvaluator, node: Call, args: readonly Expr[], grid: StepGrid): StepSeries[] {
  const dst = ev.evalString(args[1]);
  let rewrite: (s: StepSeries) => StepSeries;
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
  const out: StepSeries[] = [];
  for (const s of ev.evalVector(args[0], grid)) out.push(rewrite(s));
  return Array.from(distinctPerStep(out));
}

/** sort orders an instant vector; range results are always ordered by labels, so it warns there. */
function sort(ev: NodeEvaluator, node: Call, args: readonly Expr[], grid: StepGrid): StepSeries[] {
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

/** evalHistogramCall evaluates histogram_quantile, histogram_quantiles and histogram_fraction over classic buckets. */
function evalHistogramCall(ev: NodeEvaluator, node: Call, args: readonly Expr[], grid: StepGrid): StepSeries[] {
  const ctx = ev.ctx;
  switch (node.func.name) {
    case 'histogram_quantile': {
      const q = ev.evalScalar(args[0], grid);
      warnInvalidQuantiles(ev, q, args[0]);
      const input = materialize(ev.evalVector(args[1], grid));
      return classicHistogram(ctx, { kind: 'quantile', q }, input, grid, args[1].pos);
    }
    case 'histogram_quantiles': {
      const label = ev.evalString(args[1]);
      const qs = args.slice(2).map((a) => ev.evalScalar(a, grid));
      qs.forEach((q, k) => warnInvalidQuantiles(ev, q, args[k + 2]));
      const input = materialize(ev.evalVector(args[0], grid));
      return classicHistogram(ctx, { kind: 'quantiles', label, qs }, input, grid, args[0].pos);
    }
    default: {
      const lower = ev.evalScalar(args[0], grid);
      const upper = ev.evalScalar(args[1], grid);
      const input = materialize(ev.evalVector(args[2], grid));
      return classicHistogram(ctx, { kind: 'fraction', lower, upper }, input, grid, args[2].pos);
    }
  }
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

/** evalCall evaluates a function call over the grid. */
export function evalCall(ev: NodeEvaluator, node: Call, grid: StepGrid): Value {
  const ctx = ev.ctx;
  const name = node.func.name;
  const args = node.args.map(unwrapParens);
  const unsupported = UNSUPPORTED_FUNCTIONS.get(name);
  if (unsupported !== undefined) throw new UnsupportedFeatureError(unsupported, node.pos);
  const rangeArgIndex = args.findIndex((a) => a.type === 'MatrixSelector' || a.type === 'SubqueryExpr');
  if (rangeArgIndex >= 0) return { kind: 'vector', series: evalRangeFunction(ev, node, args, rangeArgIndex, grid) };

  switch (name) {
    case 'time':
      return { kind: 'scalar', values: stepTimes(grid).map((t) => t / 1000) };
    case 'pi':
      return filled(grid, Math.PI);
    case 'start':
      return filled(grid, ctx.queryStartMs / 1000);
    case 'end':
      return filled(grid, ctx.queryEndMs / 1000);
    case 'range':
      return filled(grid, (ctx.queryEndMs - ctx.queryStartMs) / 1000);
    case 'step':
      return filled(grid, ctx.queryStepMs / 1000);
    case 'min_of':
    case 'max_of': {
      const a = ev.evalScalar(args[0], grid);
      const b = ev.evalScalar(args[1], grid);
      const pick = name === 'min_of' ? Math.min : Math.max;
      return { kind: 'scalar', values: a.map((v, i) => pick(v, b[i])) };
    }
    case 'vector':
      return constantVector(ev, ev.evalScalar(args[0], grid));
    case 'scalar':
      return { kind: 'scalar', values: scalarOf(ev, ev.evalVector(args[0], grid), grid) };
    case 'absent':
      return { kind: 'vector', series: absent(ctx, ev.evalVector(args[0], grid), args[0], grid) };
    case 'timestamp':
      return { kind: 'vector', series: ev.maybeDistinct(timestamp(ev, args[0], grid)) };
    case 'label_replace':
    case 'label_join':
      return { kind: 'vector', series: relabel(ev, node, args, grid) };
    case 'sort':
    case 'sort_desc':
    case 'sort_by_label':
    case 'sort_by_label_desc':
      return { kind: 'vector', series: sort(ev, node, args, grid) };
    case 'histogram_quantile':
    case 'histogram_quantiles':
    case 'histogram_fraction':
      return { kind: 'vector', series: ev.maybeDistinct(evalHistogramCall(ev, node, args, grid)) };
    case 'clamp':
    case 'clamp_min':
    case 'clamp_max':
      return { kind: 'vector', series: ev.maybeDistinct(clampFunction(ev, name, args, grid)) };
    case 'round': {
      const toNearest = args.length > 1 ? ev.evalScalar(args[1], grid) : null;
      const stream = mapValues(ev, ev.evalVector(args[0], grid), (i) => {
        const to = toNearest === null ? 1 : toNearest[i];
        return (v) => roundToNearest(v, to);
      });
      return { kind: 'vector', series: ev.maybeDistinct(stream) };
    }
    default:
      break;
  }
  if (NATIVE_HISTOGRAM_ONLY_FUNCTIONS.has(name)) {
    for (const s of ev.evalVector(args[0], grid)) ctx.releaseSamples(countPresent(s));
    return { kind: 'vector', series: [] };
  }
  const math = MATH_FUNCTIONS.get(name);
  if (math !== undefined) return { kind: 'vector', series: ev.maybeDistinct(mapValues(ev, ev.evalVector(args[0], grid), () => math)) };
  const date = DATE_FUNCTIONS.get(name);
  if (date !== undefined) {
    if (args.length === 0) return constantVector(ev, stepTimes(grid).map((t) => applyDateFunction(date, Math.trunc(t / 1000))));
    return { kind: 'vector', series: ev.maybeDistinct(mapValues(ev, ev.evalVector(args[0], grid), () => (v) => applyDateFunction(date, v))) };
  }
  throw new UnsupportedFeatureError(`function ${name}()`, node.pos);
}
