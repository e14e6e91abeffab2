/**
 * Aggregations over vectors that may hold native histograms, with Prometheus' rules: sum and
 * avg add histograms (a group mixing floats and histograms at a step yields nothing and a
 * warning), count and group count both kinds, limitk and limit_ratio keep samples as they are,
 * and the others read floats only, noting the histograms they ignored.
 */
import type { AggregateExpr } from '../ast.js';
import { compact, CounterResetHint, HistogramError, type FloatHistogram } from '../../histogram/floatHistogram.js';
import { CompensatedSum } from '../../histogram/compensatedSum.js';
import { CompensatedMean } from '../../histogram/compensatedMean.js';
import type { EvalContext } from './context.js';
import { Grouper } from './grouping.js';
import { metricNameOf, type Labels } from './labelset.js';
import { floatPart, floatsOnly, hasHistograms, type SeriesStream, type VectorSeries } from './series.js';

/** IGNORING_OPS read floats only and note ignored histograms. */
const IGNORING_OPS = new Set(['min', 'max', 'stddev', 'stdvar', 'quantile', 'topk', 'bottomk']);

/**
 * floatInputFor prepares an aggregation's input for the float folding: histograms removed
 * where the operator ignores them (with its info note) and kept for the counting ones.
 */
export function* floatInputFor(ctx: EvalContext, node: AggregateExpr, input: SeriesStream): Generator<VectorSeries> {
  if (node.op === 'count' || node.op === 'group' || node.op === 'limitk' || node.op === 'limit_ratio') {
    yield* input;
    return;
  }
  let noted = !IGNORING_OPS.has(node.op);
  const tagged = function* (): Generator<VectorSeries> {
    for (const s of input) {
      if (!noted && hasHistograms(s.histograms)) {
        noted = true;
        ctx.histogramNotes.ignoredInAggregation(node.op, node.expr.pos);
      }
      yield s;
    }
  };
  yield* floatsOnly(tagged());
}

/** HistogramGroup accumulates one group's histograms per step. */
interface HistogramGroup {
  key: string;
  labels: Labels;
  /** sum holds a running sum for sum, a running mean for avg. */
  sum: (CompensatedSum | CompensatedMean | undefined)[];
  count: Float64Array;
  failed: Uint8Array;
  reset: Uint8Array;
  notReset: Uint8Array;
}

/**
 * HistogramSums folds the histogram samples of sum and avg; floats are folded elsewhere and
 * the two are merged by `merge`.
 */
export class HistogramSums {
  private readonly groups = new Map<string, HistogramGroup>();
  private readonly grouper: Grouper;

  constructor(
    private readonly ctx: EvalContext,
    private readonly node: AggregateExpr,
    private readonly steps: number,
  ) {
    this.grouper = new Grouper(node.grouping, node.without);
  }

  /** split takes the histogram samples out of a stream, passing the floats on. */
  *split(input: SeriesStream): Generator<VectorSeries> {
    for (const s of input) {
      if (hasHistograms(s.histograms)) this.add(s);
      const floats = floatPart(s);
      if (floats !== undefined) yield floats;
    }
  }

  private add(s: VectorSeries): void {
    const key = this.grouper.key(s.labels);
    let g = this.groups.get(key);
    if (g === undefined) {
      const n = this.steps;
      g = { key, labels: this.grouper.labels(s.labels), sum: new Array(n), count: new Float64Array(n), failed: new Uint8Array(n), reset: new Uint8Array(n), notReset: new Uint8Array(n) };
      this.groups.set(key, g);
    }
    const pos = this.node.expr.pos;
    for (let i = 0; i < this.steps; i++) {
      const h = s.histograms?.[i];
      if (h === undefined || s.present[i] === 0) continue;
      g.count[i]++;
      if (h.counterResetHint === CounterResetHint.CounterReset) g.reset[i] = 1;
      if (h.counterResetHint === CounterResetHint.NotCounterReset) g.notReset[i] = 1;
      if (g.failed[i] !== 0) continue;
      const sum = (g.sum[i] ??= this.node.op === 'avg' ? new CompensatedMean() : new CompensatedSum());
      try {
        if (sum.add(h)?.boundsReconciled === true) this.ctx.histogramNotes.customBucketsReconciled('aggregation', pos);
      } catch (err) {
        if (!(err instanceof HistogramError)) throw err;
        this.ctx.histogramNotes.mixedExponentialAndCustom(metricNameOf(s.labels), pos);
        g.failed[i] = 1;
      }
    }
  }

  /**
   * merge joins the float results with the histogram sums: a group with both kinds at a step
   * yields nothing there, with Prometheus' warning.
   */
  merge(floats: VectorSeries[]): VectorSeries[] {
    if (this.groups.size === 0) return floats;
    const pos = this.node.expr.pos;
    const byKey = new Map<string, VectorSeries>();
    for (const f of floats) byKey.set(this.grouper.key(f.labels), f);
    const out = floats.slice();
    for (const g of this.groups.values()) {
      let series = byKey.get(g.key);
      if (series === undefined) {
        series = { labels: g.labels, values: new Float64Array(this.steps), present: new Uint8Array(this.steps), dropName: false };
        this.ctx.holdSamples(this.steps);
        out.push(series);
      } else {
        series.present = series.present.slice();
      }
      const histograms: (FloatHistogram | undefined)[] = new Array(this.steps);
      for (let i = 0; i < this.steps; i++) {
        if (g.count[i] === 0) continue;
        if (series.present[i] !== 0) {
          this.ctx.histogramNotes.mixedFloatsAndHistogramsInAggregation(pos);
          series.present[i] = 0;
          continue;
        }
        if (g.reset[i] !== 0 && g.notReset[i] !== 0) this.ctx.histogramNotes.counterResetCollision('aggregation', pos);
        const sum = g.sum[i]?.result();
        if (g.failed[i] !== 0 || sum === undefined) continue;
        histograms[i] = compact(sum);
        series.present[i] = 1;
      }
      series.histograms = histograms;
    }
    return out.filter((s) => s.present.some((p) => p !== 0));
  }
}
