/**
 * The PromQL evaluator: instant and range queries over a MetricQuerier, with Prometheus 3
 * semantics for floats. Results are plain data (see types.ts); warnings and infos come back as
 * annotations next to them. Native histograms are not evaluated yet: queries that need them
 * fail with UnsupportedFeatureError.
 */
import { statsOnlySelectors } from './histogramStatsSelectors.js';
import { EngineError } from '../../errors.js';
import type { MetricQuerier } from '../../storage/metricHead.js';
import type { Expr } from '../ast.js';
import { documentedTypeName, valueTypeOf } from '../ast.js';
import { resolveDurations } from '../durationExpr.js';
import { EvalContext } from './context.js';
import { mergeSameLabels, DUPLICATE_LABELSET } from './dedupe.js';
import { Evaluator } from './evaluator.js';
import { instantGrid, makeGrid, stepTime } from './grid.js';
import { dropMetricName, labelsKey, sortByLabels } from './labelset.js';
import { hasHistograms, materialize, type VectorSeries } from './series.js';
import type { FloatHistogram } from '../../histogram/floatHistogram.js';
import { stepInvariantNodes } from './stepInvariant.js';
import type { EvalOptions, InstantResult, RangeResult, ResultSeries, VectorSample } from './types.js';
import { evalError } from './context.js';

export { formatAnnotation } from './annotations.js';
export { UnsupportedFeatureError } from './unsupported.js';
export { SampleKind, DEFAULT_LOOKBACK_DELTA_MS, DEFAULT_MAX_SAMPLES, DEFAULT_NO_STEP_SUBQUERY_INTERVAL_MS } from './types.js';
export type {
  Annotation,
  AnnotationLevel,
  EvalOptions,
  InstantResult,
  InstantValue,
  RangeResult,
  ResultSeries,
  VectorSample,
} from './types.js';
export type { HistogramSeriesColumns } from './selectors.js';
export { TOO_MANY_SAMPLES } from './context.js';

/** finalLabels applies a pending name removal to a result series. */
function finalSeries(series: VectorSeries[], delayed: boolean): VectorSeries[] {
  if (!delayed) return series;
  return series.map((s) => (s.dropName ? { ...s, labels: dropMetricName(s.labels), dropName: false } : s));
}

/**
 * evaluateInstant evaluates `expr` (parsed and checked) at `timeMs`. Vector results keep the
 * order the query produced (sort() and topk() orders are meaningful); range vector results are
 * sorted by labels.
 */
export function evaluateInstant(parsed: Expr, querier: MetricQuerier, timeMs: number, options: EvalOptions = {}): InstantResult {
  // An instant query has neither step nor range: step() and range() are 0 in it.
  const expr = resolveDurations(parsed, { stepMs: 0, rangeMs: 0 });
  const ctx = new EvalContext(querier, options, timeMs, timeMs, 0);
  ctx.statsOnlySelectors = statsOnlySelectors(expr);
  const evaluator = new Evaluator(ctx, stepInvariantNodes(expr));
  const value = evaluator.eval(expr, instantGrid(timeMs));
  switch (value.kind) {
    case 'scalar':
      return { value: { type: 'scalar', timestampMs: timeMs, value: value.values[0] }, annotations: ctx.annotations.list() };
    case 'string':
      return { value: { type: 'string', timestampMs: timeMs, value: value.value }, annotations: ctx.annotations.list() };
    case 'vector': {
      const series = finalSeries(materialize(value.series), ctx.delayedNameRemoval);
      const seen = ctx.delayedNameRemoval ? new Set<string>() : undefined;
      const samples: VectorSample[] = [];
      for (const s of series) {
        if (s.present[0] === 0) continue;
        if (seen !== undefined) {
          const key = labelsKey(s.labels);
          if (seen.has(key)) throw evalError(DUPLICATE_LABELSET);
          seen.add(key);
        }
        const sample: VectorSample = { labels: s.labels, timestampMs: timeMs, value: s.values[0] };
        const histogram = s.histograms?.[0];
        if (histogram !== undefined) sample.histogram = histogram;
        samples.push(sample);
      }
      return { value: { type: 'vector', samples }, annotations: ctx.annotations.list() };
    }
    case 'matrix': {
      const byKey = new Map<string, ResultSeries>();
      for (const raw of value.series) {
        const labels = ctx.delayedNameRemoval && raw.dropName ? dropMetricName(raw.labels) : raw.labels;
        const key = labelsKey(labels);
        if (byKey.has(key)) throw evalError(DUPLICATE_LABELSET);
        const out: ResultSeries = { labels, timestampsMs: raw.ts, values: raw.vals };
        if (raw.hists !== undefined && raw.hists.some((h) => h !== undefined)) out.histograms = raw.hists;
        byKey.set(key, out);
      }
      const series = sortByLabels([...byKey.values()], (s) => s.labels);
      return { value: { type: 'matrix', series }, annotations: ctx.annotations.list() };
    }
  }
}

/**
 * evaluateRange evaluates `expr` (a scalar or instant vector expression) at every step from
 * `startMs` to `endMs`. Series come back sorted by labels, each with only the steps at which it
 * has a value.
 */
export function evaluateRange(parsed: Expr, querier: MetricQuerier, startMs: number, endMs: number, stepMs: number, options: EvalOptions = {}): RangeResult {
  const type = valueTypeOf(parsed);
  if (type !== 'scalar' && type !== 'vector') {
    throw new EngineError('VALIDATION_FAILED', `invalid expression type "${documentedTypeName(type)}" for range query, must be Scalar or instant Vector`);
  }
  if (!(stepMs > 0)) throw new EngineError('VALIDATION_FAILED', 'zero or negative query resolution step widths are not accepted');
  if (endMs < startMs) throw new EngineError('VALIDATION_FAILED', 'end timestamp must not be before start time');
  const expr = resolveDurations(parsed, { stepMs, rangeMs: options.queryRangeMs ?? endMs - startMs });
  const grid = makeGrid(startMs, endMs, stepMs);
  const ctx = new EvalContext(querier, options, startMs, endMs, stepMs);
  ctx.statsOnlySelectors = statsOnlySelectors(expr);
  const evaluator = new Evaluator(ctx, stepInvariantNodes(expr));
  const value = evaluator.eval(expr, grid);
  let series: VectorSeries[];
  if (value.kind === 'scalar') {
    series = [{ labels: {}, values: value.values, present: new Uint8Array(grid.count).fill(1), dropName: false }];
  } else if (value.kind === 'vector') {
    series = mergeSameLabels(finalSeries(materialize(value.series), ctx.delayedNameRemoval));
  } else {
    throw new Error(`evaluateRange: unexpected ${value.kind} result`);
  }
  const out: ResultSeries[] = [];
  for (const s of series) {
    let n = 0;
    for (let i = 0; i < grid.count; i++) n += s.present[i];
    if (n === 0) continue;
    const timestampsMs = new Float64Array(n);
    const values = new Float64Array(n);
    const histograms = hasHistograms(s.histograms) ? new Array<FloatHistogram | undefined>(n) : undefined;
    let k = 0;
    for (let i = 0; i < grid.count; i++) {
      if (s.present[i] === 0) continue;
      timestampsMs[k] = stepTime(grid, i);
      values[k] = s.values[i];
      if (histograms !== undefined) histograms[k] = s.histograms![i];
      k++;
    }
    const result: ResultSeries = { labels: s.labels, timestampsMs, values };
    if (histograms !== undefined) result.histograms = histograms;
    out.push(result);
  }
  sortByLabels(out, (s) => s.labels);
  return { series: out, annotations: ctx.annotations.list() };
}
