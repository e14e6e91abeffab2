/**
 * Range aggregations (`count_over_time`, `rate`, `quantile_over_time(…) by (…)`, …): read the
 * log range once for the whole query, whatever the number of steps. Counts and byte sums are
 * added straight into every step whose window (t - offset - range, t - offset] holds the line;
 * the other functions keep each series' samples and slide the windows over them in one pass.
 * Series still carrying `__error__` fail the query, as in Loki; `absent_over_time` reports the
 * steps with no data.
 */
import type { Grouping, LabelMatcher, RangeAggregationExpr } from '../../ast.js';
import type { EvalContext } from '../context.js';
import type { GroupingSpec } from '../labelsBuilder.js';
import { ERROR_LABEL } from '../labelsBuilder.js';
import { extractSamples, extractWindows, type ExtractionPlan, type SeriesSamples, type ValueSource } from './extract.js';
import { isFailedSeries, pipelineError } from './pipelineError.js';
import { slideWindows, type Windows } from './rangeKernels.js';
import { msToNs } from './relativeTime.js';
import { newSeries, type Grid, type StepMatrix } from './stepMatrix.js';
import type { StepSeries } from '../../../common/stepSeries.js';
import type { ResultLabels } from '../labelsBuilder.js';

function valueSource(expr: RangeAggregationExpr): ValueSource {
  if (expr.range.unwrap !== undefined) return 'unwrap';
  return expr.op === 'bytes_over_time' || expr.op === 'bytes_rate' ? 'bytes' : 'count';
}

/**
 * extractionPlan decides the grouping applied while extracting and Loki's parser hints: with
 * unwrap the unwrapped label leaves the series; a singleton grouping (`sum(…)` pushed down, or
 * absent_over_time) lets parsers skip lines when nothing reads a label. Here only what the
 * aggregation reads is weighed; the pipeline adds what its own stages read.
 */
function extractionPlan(expr: RangeAggregationExpr, pushedDown: Grouping | undefined): ExtractionPlan {
  const grouping = expr.grouping ?? pushedDown;
  const source = valueSource(expr);
  const unwrap = expr.range.unwrap;
  let spec: GroupingSpec | undefined;
  let noLabels = false;
  if (grouping !== undefined) {
    spec = { without: grouping.without, names: [...grouping.labels].sort() };
    noLabels = !grouping.without && grouping.labels.length === 0;
  }
  if (unwrap !== undefined && (spec === undefined || spec.without)) {
    spec = { without: true, names: [...(spec?.names ?? []), unwrap.label].sort() };
  }
  if (expr.op === 'absent_over_time') noLabels = true;
  // An unwrapped label (and its post-filters) or a grouping label is read by the aggregation.
  if (unwrap !== undefined || (grouping !== undefined && grouping.labels.length > 0)) noLabels = false;
  const preserveError = grouping !== undefined && !grouping.without && grouping.labels.includes(ERROR_LABEL);
  const plan: ExtractionPlan = { range: expr.range, source, noLabels, preserveError };
  if (spec !== undefined) plan.grouping = spec;
  // Grouping by names reads only those (and an unwrapped label); without, every label stays.
  if (grouping !== undefined && !grouping.without) plan.labelsRead = unwrap === undefined ? grouping.labels : [...grouping.labels, unwrap.label];
  return plan;
}

/** absentLabels are the labels absent_over_time reports: the selector's equality matchers. */
function absentLabels(matchers: readonly LabelMatcher[]): Array<[string, string]> {
  const kept = new Map<string, string>();
  const dropped = new Set<string>();
  for (const m of matchers) {
    if (m.op === '=' && !kept.has(m.name)) kept.set(m.name, m.value);
    else dropped.add(m.name);
  }
  for (const name of dropped) kept.delete(name);
  return [...kept.entries()].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
}

/** ADDITIVE_OPS only need each window's sample count and value sum. */
const ADDITIVE_OPS: ReadonlySet<string> = new Set(['count_over_time', 'bytes_over_time', 'bytes_rate', 'absent_over_time']);

/** additiveValue turns a window's count and sum into the aggregation's value. */
function additiveValue(expr: RangeAggregationExpr, count: number, sum: number, rangeSec: number): number {
  switch (expr.op) {
    case 'rate':
      return count / rangeSec;
    case 'bytes_over_time':
      return sum;
    case 'bytes_rate':
      return sum / rangeSec;
    default:
      return count;
  }
}

/**
 * firstFailure picks the series whose `__error__` fails the query: the one present at the
 * earliest step, ties broken by labels, so the message does not depend on series order.
 */
function firstFailure(series: readonly StepSeries<ResultLabels>[]): StepSeries<ResultLabels> | undefined {
  let failed: { step: number; series: StepSeries<ResultLabels> } | undefined;
  for (const s of series) {
    if (!isFailedSeries(s.labels.labels)) continue;
    const first = s.present.indexOf(1);
    if (first < 0) continue;
    if (failed === undefined || first < failed.step || (first === failed.step && s.labels.key < failed.series.labels.key)) {
      failed = { step: first, series: s };
    }
  }
  return failed?.series;
}

/** evaluateRangeAggregation evaluates one range aggregation over the grid. */
export function evaluateRangeAggregation(ctx: EvalContext, expr: RangeAggregationExpr, grid: Grid, pushedDown?: Grouping): StepMatrix {
  const rangeNs = Math.round(expr.range.rangeMs * 1e6);
  const offsetNs = Math.round(expr.range.offsetMs * 1e6);
  const baseNs = msToNs(grid.startMs) - BigInt(offsetNs) - BigInt(rangeNs);
  const maxNs = msToNs(grid.endMs) - BigInt(offsetNs);
  const plan = extractionPlan(expr, pushedDown);
  const hasUnwrap = expr.range.unwrap !== undefined;
  const series: StepSeries<ResultLabels>[] = [];

  if (!hasUnwrap && (ADDITIVE_OPS.has(expr.op) || expr.op === 'rate')) {
    const windows = { stepNs: Math.round(grid.stepMs * 1e6), rangeNs, steps: grid.steps };
    const rangeSec = rangeNs / 1e9;
    const accumulated = extractWindows(ctx, plan, baseNs, maxNs, windows);
    for (const w of accumulated) {
      const out = newSeries(w.labels, grid.steps);
      let any = false;
      for (let j = 0; j < grid.steps; j++) {
        const count = w.counts[j];
        if (count <= 0) continue;
        any = true;
        out.present[j] = 1;
        out.values[j] = additiveValue(expr, count, w.sums[j], rangeSec);
      }
      if (any) series.push(out);
    }
    ctx.releaseSamples(2 * grid.steps * accumulated.length);
  } else {
    let samples: SeriesSamples[];
    const shared = ctx.sharedExtractions;
    if (shared !== undefined && hasUnwrap) {
      const found = shared.samples(expr.range, expr.grouping, pushedDown, baseNs, maxNs, () => extractSamples(ctx, plan, baseNs, maxNs));
      samples = found.samples;
      // Samples another evaluation extracted count against this one's budget as its own would.
      if (found.reused) for (const s of samples) ctx.holdSamples(s.length);
    } else {
      samples = extractSamples(ctx, plan, baseNs, maxNs);
    }
    const ends = new Float64Array(grid.steps);
    for (let j = 0; j < grid.steps; j++) ends[j] = Math.round(j * grid.stepMs * 1e6) + rangeNs;
    const windows: Windows = { ends, rangeNs };
    const param = expr.param?.value ?? 0;
    let held = 0;
    for (const s of samples) {
      ctx.checkAbort();
      held += s.length;
      const out = newSeries(s.labels, grid.steps);
      if (slideWindows(expr.op, s, windows, param, hasUnwrap, out)) series.push(out);
    }
    ctx.releaseSamples(held);
  }

  const failed = firstFailure(series);
  if (failed !== undefined) throw pipelineError(failed.labels.labels);

  if (expr.op === 'absent_over_time') {
    const entries = absentLabels(expr.range.selector.matchers);
    const absent = newSeries(
      ctx.labelCache.intern(
        entries.map((e) => e[0]),
        entries.map((e) => e[1]),
      ),
      grid.steps,
    );
    let any = false;
    for (let j = 0; j < grid.steps; j++) {
      if (series.some((s) => s.present[j] === 1)) continue;
      absent.present[j] = 1;
      absent.values[j] = 1;
      any = true;
    }
    return { kind: 'matrix', series: any ? [absent] : [] };
  }
  ctx.checkSeries(series.length);
  return { kind: 'matrix', series };
}
