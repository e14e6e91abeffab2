/**
 * Range-function kernels over a series held in parts (RawSeries.runs: a segment, the next
 * segment, the head). Each step's window is evaluated in the one part that holds all of its
 * samples; only the few windows that span two parts read a joined copy of their own samples.
 * Joining the parts whole copied every sample of the series on every query: for a day's
 * histogram_quantile over 2,000 bucket series, whose recent half spans two segments and the
 * head, the copy and the collections it caused were a third of that half's worker time.
 * A window's result depends only on the samples inside it, so evaluating it in any array
 * that holds exactly those samples gives the same answer; kernels that slide a sum from
 * window to window start it afresh at each stretch, so theirs agree within rounding.
 */
import { upperBound } from '../../storage/bounds.js';
import type { EvalContext } from './context.js';
import type { KernelOutput, RangeKernel, SharedWindows } from './kernels/types.js';
import { windowBounds } from './selectors.js';
import type { SampleRun } from './series.js';

/** StepViews are the step arrays a kernel reads for a stretch of steps: views of the whole grid's arrays. */
interface StepViews extends SharedWindows {
  /** reused is set here, by windowsOver, when a series reads the windows found for an earlier one. */
  reused: boolean;
  from: number;
  to: number;
  refs: Float64Array;
  lo: Int32Array;
  hi: Int32Array;
  stepTimes: Float64Array;
  params: readonly Float64Array[];
  /** boundsOf is the timestamp array whose windows `lo` and `hi` hold now, with their largest window's sample count. */
  boundsOf?: Float64Array;
  largest: number;
}

/** MAX_KEPT_VIEWS bounds the stretches whose step views a RunWindows keeps. */
const MAX_KEPT_VIEWS = 64;

/**
 * RunWindows is what kernelOverRuns needs besides the runs, for every series of one range
 * function call: each step's window, the kernel's parameters, and scratch for the windows'
 * bounds (`lo`, `hi`, one slot per step). Series scraped together have their runs' edges at
 * the same steps, so the views of a stretch are made once and kept: made per series, they
 * were most of the objects a query over 10,000 series allocated, and their collection a
 * visible part of its time.
 */
export class RunWindows {
  private readonly views = new Map<number, StepViews>();

  constructor(
    readonly refs: Float64Array,
    readonly rangeMs: number,
    private readonly stepTimes: Float64Array,
    private readonly params: readonly Float64Array[],
    private readonly lo: Int32Array,
    private readonly hi: Int32Array,
  ) {}

  /** stepViews are the step arrays' views for steps `from..to-1`. */
  stepViews(from: number, to: number): StepViews {
    const key = from * (this.refs.length + 1) + to;
    let views = this.views.get(key);
    if (views === undefined) {
      if (this.views.size >= MAX_KEPT_VIEWS) this.views.clear();
      const whole = from === 0 && to === this.refs.length;
      views = whole
        ? { from, to, refs: this.refs, lo: this.lo, hi: this.hi, stepTimes: this.stepTimes, params: this.params, largest: 0, reused: false, derived: undefined }
        : {
            from,
            to,
            largest: 0,
            reused: false,
            derived: undefined,
            refs: this.refs.subarray(from, to),
            lo: this.lo.subarray(from, to),
            hi: this.hi.subarray(from, to),
            stepTimes: this.stepTimes.subarray(from, to),
            params: this.params.map((p) => p.subarray(from, to)),
          };
      this.views.set(key, views);
    }
    return views;
  }

  /**
   * windowsOver fills the stretch's `lo` and `hi` with the windows over `ts` and returns the
   * largest window's sample count. Series scraped together share one timestamp array per
   * segment (the reader hands every series of a column the same view), and their windows are
   * then the same: they are found once, not per series (at ~8 ns a step, that was a fifth of a
   * 1,000-series rate's worker time). Filling a stretch overwrites the steps it shares with
   * any other, whose windows are then found again when next asked for.
   */
  windowsOver(views: StepViews, ts: Float64Array): number {
    if (views.boundsOf === ts) {
      views.reused = true;
      return views.largest;
    }
    for (const other of this.views.values()) {
      if (other !== views && other.boundsOf !== undefined && other.from < views.to && views.from < other.to) forget(other);
    }
    forget(views);
    views.largest = windowBounds(ts, views.refs, this.rangeMs, views.lo, views.hi);
    views.boundsOf = ts;
    return views.largest;
  }
}

/** forget marks a stretch's windows as not found: its bounds, and what kernels derived from them, are stale. */
function forget(views: StepViews): void {
  views.boundsOf = undefined;
  views.reused = false;
  views.derived = undefined;
}

/**
 * kernelOverRuns runs `kernel` over a series given as runs in time order, none overlapping
 * the next, writing every step's result into `out` as one call over the joined series would.
 * The steps fall into stretches found by binary search at each boundary between two runs:
 * those whose windows read one run (or none), and those whose windows reach across the
 * boundary; the kernel is called once per stretch on views of the step arrays.
 */
export function kernelOverRuns(ctx: EvalContext, kernel: RangeKernel, runs: readonly SampleRun[], input: RunWindows, out: KernelOutput): void {
  const { refs, rangeMs } = input;
  const count = refs.length;
  let from = 0;
  for (let r = 0; r + 1 < runs.length && from < count; r++) {
    const ending = runs[r].ts;
    // Windows from spanFrom on reach the next run; those before spanTo still reach this one.
    const spanFrom = Math.max(from, firstStepReaching(refs, 0, runs[r + 1].ts[0]));
    const spanTo = firstStepReaching(refs, rangeMs, ending[ending.length - 1]);
    if (spanFrom > from) evaluateStretch(ctx, kernel, runs[r], input, out, from, spanFrom);
    if (spanTo > spanFrom) {
      evaluateStretch(ctx, kernel, joinedSamples(runs, refs[spanFrom] - rangeMs, refs[spanTo - 1]), input, out, spanFrom, spanTo);
      from = spanTo;
    } else {
      from = spanFrom;
    }
  }
  if (from < count) evaluateStretch(ctx, kernel, runs[runs.length - 1], input, out, from, count);
}

/**
 * firstStepReaching is the first step whose window edge `refs[i] - offsetMs` is at or past
 * `t`: with offset 0 the first window whose end takes a sample at `t`, with the range the first
 * whose (open) start leaves it out.
 */
function firstStepReaching(refs: Float64Array, offsetMs: number, t: number): number {
  let lo = 0;
  let hi = refs.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (refs[mid] - offsetMs < t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** evaluateStretch runs the kernel for steps `from..to-1` over `run`, which holds every sample of their windows. */
function evaluateStretch(ctx: EvalContext, kernel: RangeKernel, run: SampleRun, input: RunWindows, out: KernelOutput, from: number, to: number): void {
  const views = input.stepViews(from, to);
  const { refs, lo, hi, stepTimes, params } = views;
  ctx.checkTransient(input.windowsOver(views, run.ts));
  const whole = from === 0 && to === input.refs.length;
  const part: KernelOutput = whole ? out : { values: out.values.subarray(from, to), present: out.present.subarray(from, to) };
  kernel({ ts: run.ts, vals: run.vals, resetFree: run.resetFree, lo, hi, refs, rangeMs: input.rangeMs, stepTimes, params, windows: views }, part);
  if (part.invalidParam !== undefined) out.invalidParam = part.invalidParam;
}

/**
 * joinScratch holds the joined samples of the windows that span runs: a kernel is done with
 * them when it returns, so one pair of arrays (grown as needed, up to MAX_SCRATCH_SAMPLES)
 * serves every such stretch. A larger join (windows of days over dense data) gets its own
 * arrays, so a worker does not keep an outsized scratch for the rest of its life.
 */
const MAX_SCRATCH_SAMPLES = 1 << 18;

let joinScratch = { ts: new Float64Array(256), vals: new Float64Array(256) };

/** joinedSamples gathers the samples of every run with `start < t <= end` into views of joinScratch. */
function joinedSamples(runs: readonly SampleRun[], start: number, end: number): SampleRun {
  let total = 0;
  for (const run of runs) total += Math.max(0, upperBound(run.ts, end) - upperBound(run.ts, start));
  if (total > joinScratch.ts.length && total <= MAX_SCRATCH_SAMPLES) {
    const size = Math.min(MAX_SCRATCH_SAMPLES, Math.max(total, 2 * joinScratch.ts.length));
    joinScratch = { ts: new Float64Array(size), vals: new Float64Array(size) };
  }
  const { ts, vals } = total <= joinScratch.ts.length ? joinScratch : { ts: new Float64Array(total), vals: new Float64Array(total) };
  let at = 0;
  for (const run of runs) {
    const a = upperBound(run.ts, start);
    const b = upperBound(run.ts, end);
    if (b <= a) continue;
    ts.set(run.ts.subarray(a, b), at);
    vals.set(run.vals.subarray(a, b), at);
    at += b - a;
  }
  return { ts: ts.subarray(0, total), vals: vals.subarray(0, total) };
}
