/**
 * Functions over native histograms: histogram_count/sum/avg/stddev/stdvar read one number from
 * each histogram sample (float samples are skipped), and histogram_quantile(s)/fraction
 * estimate from each histogram's buckets next to the classic `le` bucket series of the same
 * vector. A native histogram and classic buckets with the same labels at one step are both
 * dropped with a warning, as Prometheus does.
 */
import { quoteGoString } from '../../common/quote.js';
import type { PositionRange } from '../../errors.js';
import type { FloatHistogram } from '../../histogram/floatHistogram.js';
import { histogramFraction, histogramQuantile, histogramVariance } from '../../histogram/statistics.js';
import { formatOpenMetricsFloat, type ClassicHistogramFn } from './classicHistogram.js';
import type { EvalContext } from './context.js';
import type { CallEvaluator } from './functionKernel.js';
import type { StepGrid } from './grid.js';
import { dropMetricName, labelsKey, metricNameOf, removeLabels, withLabel, type Labels } from './labelset.js';
import { hasHistograms, newVectorSeries, type SeriesStream, type VectorSeries } from './series.js';

/** HISTOGRAM_PROPERTIES are the functions that read one number from a histogram. */
const HISTOGRAM_PROPERTIES: Readonly<Record<string, (h: FloatHistogram) => number>> = {
  histogram_count: (h) => h.count,
  histogram_sum: (h) => h.sum,
  histogram_avg: (h) => h.sum / h.count,
  histogram_stddev: (h) => Math.sqrt(histogramVariance(h)),
  histogram_stdvar: (h) => histogramVariance(h),
};

/** mapHistograms turns each histogram sample into a number, dropping float samples and the metric name. */
function* mapHistograms(ctx: EvalContext, stream: SeriesStream, fn: (h: FloatHistogram) => number): Generator<VectorSeries> {
  for (const s of stream) {
    if (!hasHistograms(s.histograms)) {
      ctx.releaseSamples(countOf(s.present));
      continue;
    }
    const out = newVectorSeries(ctx.delayedNameRemoval ? s.labels : dropMetricName(s.labels), s.present.length, true);
    for (let i = 0; i < s.present.length; i++) {
      const h = s.histograms[i];
      if (h === undefined || s.present[i] === 0) continue;
      out.values[i] = fn(h);
      out.present[i] = 1;
    }
    yield out;
  }
}

function countOf(present: Uint8Array): number {
  let n = 0;
  for (let i = 0; i < present.length; i++) n += present[i];
  return n;
}

/** histogramProperty is histogram_count(), histogram_sum(), histogram_avg(), histogram_stddev() and histogram_stdvar(). */
export const histogramProperty: CallEvaluator = (ev, node, args, grid) => {
  const fn = HISTOGRAM_PROPERTIES[node.func.name];
  return { kind: 'vector', series: ev.maybeDistinct(mapHistograms(ev.ctx, ev.evalMixedVector(args[0], grid), fn)) };
};

/**
 * separateConflicts removes, step by step, classic bucket samples whose labels without `le`
 * equal a native histogram series' labels at a step where that one has a histogram, and the
 * histogram itself; it warns once when it does. Returns the classic inputs to evaluate.
 */
function separateConflicts(ctx: EvalContext, classic: VectorSeries[], native: VectorSeries[], pos: PositionRange): VectorSeries[] {
  if (native.length === 0 || classic.length === 0) return classic;
  const nativeByKey = new Map<string, VectorSeries>();
  for (const s of native) nativeByKey.set(labelsKey(s.labels), s);
  let conflicted = false;
  const cleared: [VectorSeries, number][] = [];
  const out = classic.map((s) => {
    const n = nativeByKey.get(labelsKey(removeLabels(s.labels, LE_ONLY)));
    if (n === undefined) return s;
    let present: Uint8Array | null = null;
    for (let i = 0; i < s.present.length; i++) {
      if (s.present[i] === 0 || n.histograms?.[i] === undefined) continue;
      present ??= s.present.slice();
      present[i] = 0;
      // Cleared once every bucket series has been checked against it.
      cleared.push([n, i]);
      conflicted = true;
    }
    return present === null ? s : { ...s, present };
  });
  for (const [n, i] of cleared) n.histograms![i] = undefined;
  if (conflicted) {
    const name = metricNameOf(native[0].labels);
    ctx.annotations.warn(`vector contains a mix of classic and native histograms${name === '' ? '' : ` for metric name ${quoteGoString(name)}`}`, pos);
  }
  // A bucket series left without samples must not form a (NaN) group of its own.
  return conflicted ? out.filter((s) => countOf(s.present) > 0) : out;
}

const LE_ONLY: ReadonlySet<string> = new Set(['le']);

/**
 * splitHistogramInput separates a materialised vector into classic bucket series (floats) and
 * native histogram series, handling conflicts between them (see separateConflicts).
 */
export function splitHistogramInput(ctx: EvalContext, input: VectorSeries[], pos: PositionRange): { classic: VectorSeries[]; native: VectorSeries[] } {
  const classic: VectorSeries[] = [];
  const native: VectorSeries[] = [];
  for (const s of input) {
    if (!hasHistograms(s.histograms)) {
      classic.push(s);
      continue;
    }
    native.push({ ...s, histograms: s.histograms.slice() });
    const present = s.present.slice();
    let left = 0;
    for (let i = 0; i < present.length; i++) {
      if (s.histograms[i] !== undefined) present[i] = 0;
      left += present[i];
    }
    if (left > 0) classic.push({ labels: s.labels, values: s.values, present, dropName: s.dropName });
  }
  return { classic: separateConflicts(ctx, classic, native, pos), native };
}

/**
 * nativeHistogramResults evaluates a quantile, quantiles or fraction over each native histogram
 * series at every step where it holds a histogram, with the info notes NaN observations call for.
 */
export function nativeHistogramResults(ctx: EvalContext, fn: ClassicHistogramFn, native: VectorSeries[], grid: StepGrid, pos: PositionRange): VectorSeries[] {
  const out: VectorSeries[] = [];
  const note = (text: string, labels: Labels): void => {
    const name = metricNameOf(labels);
    ctx.annotations.info(name === '' ? text : `${text} for metric name ${quoteGoString(name)}`, pos);
  };
  const qCount = fn.kind === 'quantiles' ? fn.qs.length : 1;
  for (let qi = 0; qi < qCount; qi++) {
    for (const s of native) {
      const baseLabels = ctx.delayedNameRemoval ? s.labels : dropMetricName(s.labels);
      const result = newVectorSeries(baseLabels, grid.count, true);
      let any = false;
      for (let i = 0; i < grid.count; i++) {
        const h = s.histograms?.[i];
        if (h === undefined || s.present[i] === 0) continue;
        let value: number;
        if (fn.kind === 'fraction') {
          const f = histogramFraction(fn.lower[i], fn.upper[i], h);
          if (f.nanExcluded) note('input to histogram_fraction has NaN observations, which are excluded from all fractions', s.labels);
          value = f.value;
        } else {
          const q = fn.kind === 'quantile' ? fn.q[i] : fn.qs[qi][i];
          const r = histogramQuantile(q, h);
          if (r.note === 'nanResult') note('input to histogram_quantile has NaN observations, result is NaN', s.labels);
          if (r.note === 'skewed') note('input to histogram_quantile has NaN observations, result is skewed higher', s.labels);
          value = r.value;
          if (fn.kind === 'quantiles') result.labels = withLabel(baseLabels, fn.label, formatOpenMetricsFloat(q));
        }
        result.values[i] = value;
        result.present[i] = 1;
        any = true;
      }
      if (any) {
        ctx.holdSamples(grid.count);
        out.push(result);
      }
    }
  }
  return out;
}
