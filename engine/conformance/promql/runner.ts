/**
 * Runs PromQL test scripts against the engine. Data is loaded into a MetricHead; each eval runs
 * as the upstream harness runs it: instant queries also at shifted times with every selector
 * pinned by `@`, and once more as a range query around the evaluation time, whose middle step
 * must agree. Each eval is classified (float, native histogram, experimental) and reported as
 * passed, failed or unsupported.
 */
import { EngineError } from '../../errors.js';
import { ALL_FEATURES_ON, cloneExpr, parsedPromQL, walkExpr, type Call, type Expr } from '../../promql/index.js';
import {
  evaluateInstant,
  evaluateRange,
  formatAnnotation,
  UnsupportedFeatureError,
  type Annotation,
  type EvalOptions,
  type VectorSample,
} from '../../promql/eval/index.js';
import { labelsKey, sortLabels, type Labels } from '../../storage/labels.js';
import { bucketBound } from '../../promql/eval/classicHistogram.js';
import { compileMatchers, matchesAll } from '../../storage/matchers.js';
import { MetricHead, type MetricQuerier } from '../../storage/metricHead.js';
import { HistogramQuerier, type MixedSeries } from '../../histogram/histogramQuerier.js';
import { storedHints } from '../../histogram/storedHints.js';
import { classicToNhcb } from './nhcb.js';
import { checkAnnotations, compareInstant, compareVector, matchesMessage, Mismatch } from './compare.js';
import { parseScript, type EvalCommand, type LoadCommand } from './script.js';
import type { SequenceValue } from './seriesDescription.js';
import { staleMarkerArray } from '../../storage/staleness.js';

/** Category groups evals by what they exercise. */
export type Category = 'float' | 'native_histogram' | 'experimental';

/** Outcome is an eval's verdict. */
export type Outcome = 'passed' | 'failed' | 'unsupported';

export const CATEGORIES: readonly Category[] = ['float', 'native_histogram', 'experimental'];

/** EvalOutcome is one eval's verdict with what explains it. */
export interface EvalOutcome {
  file: string;
  line: number;
  expr: string;
  category: Category;
  outcome: Outcome;
  /** detail says why an eval failed or is unsupported. */
  detail: string;
}

/**
 * EXPERIMENTAL_FILES exercise upstream features behind feature flags (duration expressions and
 * step(), fill modifiers, anchored/smoothed selectors, info(), type and unit labels, start
 * timestamps); every eval in them counts as experimental.
 */
export const EXPERIMENTAL_FILES: ReadonlySet<string> = new Set([
  'duration_expression',
  'fill-modifier',
  'info',
  'type_and_unit',
  'start_timestamps',
  'extended_vectors',
]);

/** QUERY_CONTEXT_FUNCTIONS resolve differently in range mode, so such queries skip that check. */
const QUERY_CONTEXT_FUNCTIONS = /(start|end|range|step)\(\)/;

/**
 * nhcbSeriesOf names the native histogram series that load_with_nhcb derives from a classic
 * histogram series (`x_bucket{le=..}`, `x_count`, `x_sum` become `x`), or null for other series.
 */
function nhcbSeriesOf(labels: Labels): Labels | null {
  const name = labels.__name__ ?? '';
  const suffix = ['_bucket', '_count', '_sum'].find((s) => name.endsWith(s));
  if (suffix === undefined) return null;
  if (suffix === '_bucket') {
    const le = labels.le === undefined ? NaN : bucketBound(labels.le);
    if (le === null || Number.isNaN(le)) return null;
  }
  const out: Record<string, string> = {};
  for (const key in labels) if (key !== 'le') out[key] = labels[key];
  out.__name__ = name.slice(0, name.length - suffix.length);
  return sortLabels(out);
}

/** TestData is what the loads so far have stored. */
class TestData {
  head = new MetricHead();
  /** querier reads the float head and the series holding native histograms. */
  querier = new HistogramQuerier(this.head);
  /** nativeSeries are the series holding native histogram samples. */
  nativeSeries: Labels[] = [];

  clear(): void {
    this.head = new MetricHead();
    this.querier = new HistogramQuerier(this.head);
    this.nativeSeries = [];
  }

  load(cmd: LoadCommand): void {
    const offsets = new Map(cmd.startTimestampSeries.map((e) => [labelsKey(e.labels), e.offsets]));
    for (const series of cmd.series) {
      const stOffsets = offsets.get(labelsKey(series.labels));
      // A series already holding histograms takes later samples too, so it stays one series.
      const known = this.nativeSeries.some((l) => labelsKey(l) === labelsKey(series.labels));
      if (known || stOffsets !== undefined || series.values.some((v) => v.kind === 'histogram')) {
        this.loadMixed(series.labels, series.values, cmd.intervalMs, stOffsets);
        continue;
      }
      const ts: number[] = [];
      const vals: number[] = [];
      const stale: number[] = [];
      series.values.forEach((v, i) => {
        if (v.kind === 'omitted') return;
        ts.push(i * cmd.intervalMs);
        vals.push(v.kind === 'float' ? v.value : 0);
        stale.push(v.kind === 'stale' ? 1 : 0);
      });
      if (ts.length === 0) continue;
      this.head.append({
        labels: { ...series.labels },
        timestampsMs: Float64Array.from(ts),
        values: Float64Array.from(vals),
        stale: Uint8Array.from(stale),
      });
    }
    if (cmd.withNhcb) {
      for (const native of classicToNhcb(cmd.series, cmd.intervalMs, nhcbSeriesOf)) {
        this.nativeSeries.push(native.labels);
        this.querier.add(native);
      }
    }
  }

  /** loadMixed stores a series with histogram samples (and maybe floats and staleness markers). */
  private loadMixed(labels: Labels, values: readonly SequenceValue[], intervalMs: number, stOffsets?: readonly (number | null)[]): void {
    const ts: number[] = [];
    const sts: number[] = [];
    const kept = values.filter((v) => v.kind !== 'omitted');
    values.forEach((v, i) => {
      if (v.kind === 'omitted') return;
      ts.push(i * intervalMs);
      const offset = stOffsets?.[i];
      sts.push(offset === undefined || offset === null ? 0 : i * intervalMs + offset);
    });
    const vals = new Float64Array(kept.length);
    const marker = staleMarkerArray();
    kept.forEach((v, i) => {
      if (v.kind === 'float') vals[i] = v.value;
      else if (v.kind === 'stale') vals.set(marker, i);
    });
    const histograms = storedHints(kept.map((v) => (v.kind === 'histogram' ? v.histogram : undefined)));
    this.nativeSeries.push(labels);
    const series: MixedSeries = { labels: { ...labels }, timestampsMs: Float64Array.from(ts), values: vals, histograms };
    if (stOffsets !== undefined) series.startTimestampsMs = Float64Array.from(sts);
    this.querier.add(series);
  }

  /** readsNativeSeries tells whether any selector of `expr` matches a native histogram series. */
  readsNativeSeries(expr: Expr): boolean {
    return selectsAny(expr, this.nativeSeries);
  }

}

/** selectsAny tells whether any selector of `expr` matches one of `series`. */
function selectsAny(expr: Expr, series: readonly Labels[]): boolean {
  if (series.length === 0) return false;
  let found = false;
  walkExpr(expr, (node) => {
    if (found || node.type !== 'VectorSelector') return;
    const matchers = compileMatchers(node.matchers.map((m) => ({ name: m.name, type: m.op, value: m.value })));
    if (series.some((labels) => matchesAll(labels, matchers))) found = true;
  });
  return found;
}

/** renderAnnotations splits annotations into rendered warnings and infos, as the API reports them. */
function renderAnnotations(annotations: readonly Annotation[], query: string): { warnings: string[]; infos: string[] } {
  const warnings: string[] = [];
  const infos: string[] = [];
  for (const a of annotations) (a.level === 'warning' ? warnings : infos).push(formatAnnotation(a, query));
  return { warnings, infos };
}

/**
 * atModifierVariants pins every selector and subquery (outside subqueries already pinned) to the
 * evaluation time and lists the shifted times at which the pinned query must give the same
 * result; none when the query reads the evaluation time itself.
 */
function atModifierVariants(expr: Expr, evalMs: number): { expr: Expr; evalMs: number }[] {
  const pinned = cloneExpr(expr);
  let unsafe = false;
  const visit = (node: Expr, underPinnedSubquery: boolean): void => {
    let pinnedHere = underPinnedSubquery;
    if (!underPinnedSubquery) {
      switch (node.type) {
        case 'VectorSelector':
          node.at ??= { kind: 'timestamp', ms: evalMs };
          break;
        case 'MatrixSelector':
          node.selector.at ??= { kind: 'timestamp', ms: evalMs };
          break;
        case 'SubqueryExpr':
          node.at ??= { kind: 'timestamp', ms: evalMs };
          pinnedHere = true;
          break;
        case 'Call':
          if ((node as Call).func.readsEvaluationTime) unsafe = true;
          break;
        default:
          break;
      }
    }
    switch (node.type) {
      case 'MatrixSelector':
        return;
      case 'SubqueryExpr':
      case 'ParenExpr':
      case 'UnaryExpr':
        visit(node.expr, pinnedHere);
        return;
      case 'AggregateExpr':
        if (node.param !== null) visit(node.param, pinnedHere);
        visit(node.expr, pinnedHere);
        return;
      case 'BinaryExpr':
        visit(node.lhs, pinnedHere);
        visit(node.rhs, pinnedHere);
        return;
      case 'Call':
        for (const arg of node.args) visit(arg, pinnedHere);
        return;
      default:
        return;
    }
  };
  visit(pinned, false);
  if (unsafe) return [];
  const times = evalMs === 0 ? [-1000, 0, 1000] : [-10 * evalMs, 0, Math.trunc(evalMs / 5), evalMs, 10 * evalMs];
  return times.map((t) => ({ expr: pinned, evalMs: t }));
}

/** errorMessage extracts the text an expected failure is matched against. */
function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** Unsupported marks an eval the engine cannot run for lack of a feature. */
class Unsupported extends Error {}

/** checkFailure decides an evaluation error: fine when the eval expects this failure. */
function checkFailure(cmd: EvalCommand, err: unknown): void {
  if (err instanceof UnsupportedFeatureError) throw new Unsupported(err.message);
  // Only the engine's own errors count as failing a query; anything else is a crash.
  if (!(err instanceof EngineError)) throw new Mismatch(`engine error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
  if (cmd.fail === null) throw new Mismatch(`error evaluating query: ${errorMessage(err)}`);
  if (!matchesMessage(cmd.fail, errorMessage(err))) throw new Mismatch(`expected a different error, got: ${errorMessage(err)}`);
}

/** runInstantCase runs one instant evaluation (original or pinned variant) with all its checks. */
function runInstantCase(cmd: EvalCommand, expr: Expr, evalMs: number, querier: MetricQuerier, options: EvalOptions): void {
  let result;
  try {
    result = evaluateInstant(expr, querier, evalMs, options);
  } catch (err) {
    checkFailure(cmd, err);
    return;
  }
  if (cmd.fail !== null) throw new Mismatch('expected an error but got none');
  const { warnings, infos } = renderAnnotations(result.annotations, cmd.expr);
  checkAnnotations(cmd, warnings, infos);
  compareInstant(cmd, result.value);
  if (cmd.rangeVector || cmd.expectString !== null || result.value.type === 'string') return;
  if (QUERY_CONTEXT_FUNCTIONS.test(cmd.expr)) return;
  let range;
  try {
    range = evaluateRange(expr, querier, evalMs - 60_000, evalMs + 60_000, 60_000, options);
  } catch (err) {
    if (err instanceof UnsupportedFeatureError) throw new Unsupported(err.message);
    throw new Mismatch(`error evaluating query in range mode: ${errorMessage(err)}`);
  }
  if (cmd.ordered) return;
  const vector: VectorSample[] = [];
  for (const s of range.series) {
    const i = s.timestampsMs.indexOf(evalMs);
    if (i >= 0) {
      const sample: VectorSample = { labels: s.labels, timestampMs: evalMs, value: s.values[i] };
      const histogram = s.histograms?.[i];
      if (histogram !== undefined) sample.histogram = histogram;
      vector.push(sample);
    }
  }
  try {
    if (result.value.type === 'scalar') {
      if (vector.length === 0) throw new Mismatch('no scalar value in range mode');
      compareInstant(cmd, { type: 'scalar', timestampMs: evalMs, value: vector[0].value });
    } else {
      compareVector(cmd, vector);
    }
  } catch (err) {
    if (err instanceof Mismatch) throw new Mismatch(`range mode: ${err.message}`);
    throw err;
  }
}

/** runRangeCase runs a range evaluation with its checks. */
function runRangeCase(cmd: EvalCommand, expr: Expr, querier: MetricQuerier, options: EvalOptions): void {
  let result;
  try {
    result = evaluateRange(expr, querier, cmd.startMs, cmd.endMs, cmd.stepMs, options);
  } catch (err) {
    checkFailure(cmd, err);
    return;
  }
  if (cmd.fail !== null) throw new Mismatch('expected an error but got none');
  const { warnings, infos } = renderAnnotations(result.annotations, cmd.expr);
  checkAnnotations(cmd, warnings, infos);
  compareInstant(cmd, { type: 'matrix', series: result.series });
}

/** Verdict is the outcome of running one eval under one set of engine options. */
interface Verdict {
  outcome: Outcome;
  detail: string;
}

/** runEval runs an eval (already parsed) and converts its checks into a verdict. */
function runEval(cmd: EvalCommand, expr: Expr, data: TestData, options: EvalOptions): Verdict {
  try {
    if (cmd.parseError !== null) throw new Mismatch(cmd.parseError);
    if (cmd.instant) {
      runInstantCase(cmd, expr, cmd.evalMs, data.querier, options);
      for (const variant of atModifierVariants(expr, cmd.evalMs)) {
        try {
          runInstantCase(cmd, variant.expr, variant.evalMs, data.querier, options);
        } catch (err) {
          if (err instanceof Mismatch) throw new Mismatch(`with @ ${variant.evalMs}ms: ${err.message}`);
          throw err;
        }
      }
    } else {
      runRangeCase(cmd, expr, data.querier, options);
    }
    return { outcome: 'passed', detail: '' };
  } catch (err) {
    if (err instanceof Unsupported) return { outcome: 'unsupported', detail: err.message };
    if (err instanceof Mismatch) return { outcome: 'failed', detail: err.message };
    return { outcome: 'failed', detail: `runner error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}` };
  }
}

/** evaluateCommand classifies and runs one eval. */
function evaluateCommand(file: string, cmd: EvalCommand, data: TestData): EvalOutcome {
  const base = { file, line: cmd.line, expr: cmd.expr };
  let category: Category = EXPERIMENTAL_FILES.has(file) ? 'experimental' : 'float';
  if (category === 'float' && cmd.hasHistogramExpectation) category = 'native_histogram';
  let expr: Expr;
  try {
    // The corpus runs with every feature flag on, as Prometheus' own test harness does; through
    // the parse cache the workers use, so every eval runs on a frozen, shared tree.
    expr = parsedPromQL(cmd.expr, ALL_FEATURES_ON);
  } catch (err) {
    if (category !== 'float') return { ...base, category, outcome: 'unsupported', detail: `not parsed: ${errorMessage(err)}` };
    const expected = cmd.fail !== null && matchesMessage(cmd.fail, errorMessage(err));
    return { ...base, category, outcome: expected ? 'passed' : 'failed', detail: expected ? '' : `parse error: ${errorMessage(err)}` };
  }
  if (data.readsNativeSeries(expr) && category === 'float') category = 'native_histogram';
  const eager = runEval(cmd, expr, data, { delayedNameRemoval: false });
  if (eager.outcome !== 'failed') return { ...base, category, ...eager };
  // Upstream evaluates with delayed name removal (an experimental feature); an eval that only
  // passes with it depends on that feature.
  const delayed = runEval(cmd, expr, data, { delayedNameRemoval: true });
  if (delayed.outcome === 'passed') return { ...base, category: 'experimental', outcome: 'passed', detail: 'passes with delayed name removal only' };
  return { ...base, category, ...eager };
}

/** runScript runs every eval of one script; `file` is its name without `.test`. */
export function runScript(file: string, text: string): EvalOutcome[] {
  const outcomes: EvalOutcome[] = [];
  const data = new TestData();
  for (const cmd of parseScript(text)) {
    switch (cmd.kind) {
      case 'clear':
        data.clear();
        break;
      case 'load':
        data.load(cmd);
        break;
      case 'eval':
        outcomes.push(evaluateCommand(file, cmd, data));
        break;
    }
  }
  return outcomes;
}

