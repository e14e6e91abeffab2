/**
 * Range-vector functions (rate, *_over_time, deriv, ...). Each raw series is windowed for all
 * steps with two pointers, run through its kernel in one pass, and yielded before the next
 * series is read, so downstream aggregations fold them without holding them all.
 */
import { quoteGoString } from '../../common/quote.js';
import type { Call, Expr, MatrixSelector, SubqueryExpr } from '../ast.js';
import { METRIC_NAME_LABEL } from '../ast.js';
import { quantileWarning } from './classicHistogram.js';
import { distinctSeries } from './dedupe.js';
import { stepTimes, type StepGrid } from './grid.js';
import type { WindowFunction } from './functionKernel.js';
import type { KernelOutput } from './kernels/types.js';
import { dropMetricName, metricNameOf } from './labelset.js';
import { hasHistograms, rawFloatsOnly, type HistogramSlots, type SeriesStream, type VectorSeries } from './series.js';
import { histogramWindows } from './histogramWindows.js';
import { kernelOverRuns, RunWindows } from './runWindows.js';
import { checkExtendedCall, extendedMode } from './extendedRange.js';
import { extendedWindows } from './extendedWindows.js';
import { START_TIMESTAMP_FUNCTIONS, startTimestampWindows } from './startTimestampWindows.js';
import type { NodeEvaluator, RangeInput } from './value.js';

/** COUNTER_SUFFIXES are the name endings that mark a metric as a counter for rate()'s info note. */
const COUNTER_SUFFIXES = ['_total', '_sum', '_count', '_bucket'];

/**
 * selectsOneName tells whether a range argument reads a plain selector pinned to one metric
 * name: its series then differ in labels other than the name, so dropping the name cannot make
 * two of them equal and the duplicate check can be skipped.
 */
function selectsOneName(arg: Expr): boolean {
  return arg.type === 'MatrixSelector' && arg.selector.matchers.some((m) => m.name === METRIC_NAME_LABEL && m.op === '=');
}

/** evalRangeFunction evaluates a call whose argument `rangeArgIndex` is a range vector, with its window kernel. */
export function evalRangeFunction(ev: NodeEvaluator, node: Call, args: readonly Expr[], rangeArgIndex: number, fn: WindowFunction, grid: StepGrid): SeriesStream {
  const params = args.filter((_, i) => i !== rangeArgIndex).map((a) => ev.evalScalar(a, grid));
  const rangeArg = args[rangeArgIndex] as MatrixSelector | SubqueryExpr;
  if (rangeArg.type === 'MatrixSelector') checkExtendedCall(node, extendedMode(rangeArg.selector));
  const input = ev.rangeInput(rangeArg, grid, true, true);
  const stream = applyKernel(ev, node, input, params, grid, fn, rangeArg);
  if (ev.ctx.delayedNameRemoval || fn.keepsName || selectsOneName(rangeArg)) return stream;
  return distinctSeries(stream);
}

/** applyKernel runs `fn`'s kernel over every series of `input` and yields the non-empty results. */
function* applyKernel(
  ev: NodeEvaluator,
  node: Call,
  input: RangeInput,
  params: Float64Array[],
  grid: StepGrid,
  fn: WindowFunction,
  rangeArg: Expr,
): Generator<VectorSeries> {
  const ctx = ev.ctx;
  const kernel = fn.kernel;
  const count = grid.count;
  const lo = new Int32Array(count);
  const hi = new Int32Array(count);
  const times = stepTimes(grid);
  const keepsName = fn.keepsName;
  const checkCounter = fn.notesNonCounter;
  /** notedNames are the metric names already checked for a counter suffix. */
  const notedNames = new Set<string>();
  const outputs = new OutputSlabs(count);
  const runWindows = new RunWindows(input.refs, input.rangeMs, times, params, lo, hi);
  for (const mixed of input.series) {
    ctx.checkAbort();
    const s = rawFloatsOnly(mixed) ?? { ...mixed, ts: new Float64Array(0), vals: new Float64Array(0), hists: undefined };
    let out: KernelOutput & { histograms?: HistogramSlots };
    if (input.extended !== undefined) {
      out = extendedWindows(ctx, node.func.name, mixed, input, rangeArg.pos);
    } else if (mixed.sts !== undefined && !hasHistograms(mixed.hists) && START_TIMESTAMP_FUNCTIONS.has(node.func.name)) {
      out = startTimestampWindows(ctx, node.func.name, mixed, input, rangeArg.pos);
    } else if (s.runs !== undefined) {
      out = outputs.next();
      kernelOverRuns(ctx, kernel, s.runs, runWindows, out);
      if (out.invalidParam !== undefined) ctx.annotations.warn(quantileWarning(out.invalidParam), node.args[0].pos);
    } else {
      // lo and hi are the run windows' own: they are filled through them, which know what they hold.
      const allSteps = runWindows.stepViews(0, count);
      ctx.checkTransient(runWindows.windowsOver(allSteps, s.ts));
      out = outputs.next();
      kernel({ ts: s.ts, vals: s.vals, resetFree: s.resetFree, lo, hi, refs: input.refs, rangeMs: input.rangeMs, stepTimes: times, params, windows: allSteps }, out);
      if (out.invalidParam !== undefined) ctx.annotations.warn(quantileWarning(out.invalidParam), node.args[0].pos);
      if (hasHistograms(mixed.hists)) {
        runWindows.windowsOver(allSteps, mixed.ts);
        out = histogramWindows(ctx, node.func.name, { ...mixed, hists: mixed.hists }, input.refs, input.rangeMs, lo, hi, out, rangeArg.pos);
      }
    }
    let points = 0;
    for (let i = 0; i < count; i++) points += out.present[i];
    if (points === 0) continue;
    ctx.holdSamples(points);
    if (checkCounter) {
      const metric = metricNameOf(s.labels);
      if (metric !== '' && !notedNames.has(metric)) {
        notedNames.add(metric);
        if (!COUNTER_SUFFIXES.some((suffix) => metric.endsWith(suffix))) {
          ctx.annotations.info(`metric might not be a counter, name does not end in _total/_sum/_count/_bucket: ${quoteGoString(metric)}`, rangeArg.pos);
        }
      }
    }
    const dropName = !keepsName || s.dropName;
    const labels = dropName && !ctx.delayedNameRemoval ? dropMetricName(s.labels) : s.labels;
    const series: VectorSeries = { labels, values: out.values, present: out.present, dropName };
    if (out.histograms !== undefined) series.histograms = out.histograms;
    yield series;
  }
}

/** MAX_SLAB_SERIES is how many series' outputs one OutputSlabs allocation holds at most. */
const MAX_SLAB_SERIES = 16;

/**
 * OutputSlabs hands out each series' kernel output (a values and a presence array of one slot
 * per step) as views into shared allocations: a typed array's own allocation cost about a
 * microsecond, two per series, which on a 1,000-series range query was as much as the
 * windows' bounds. Slabs double from one series to MAX_SLAB_SERIES, so a query of few series
 * allocates little more than before; a slab is freed once no series of it is held (an
 * aggregation that keeps a few series, as topk, may so keep up to MAX_SLAB_SERIES times their
 * outputs).
 */
class OutputSlabs {
  private values = new Float64Array(0);
  private present = new Uint8Array(0);
  private used = 0;
  private capacity = 0;

  constructor(private readonly steps: number) {}

  next(): KernelOutput {
    if (this.used === this.capacity) {
      this.capacity = Math.min(MAX_SLAB_SERIES, Math.max(1, this.capacity * 2));
      this.values = new Float64Array(this.steps * this.capacity);
      this.present = new Uint8Array(this.steps * this.capacity);
      this.used = 0;
    }
    const from = this.used * this.steps;
    this.used++;
    return { values: this.values.subarray(from, from + this.steps), present: this.present.subarray(from, from + this.steps) };
  }
}
