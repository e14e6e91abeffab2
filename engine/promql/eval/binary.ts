/**
 * Binary operators. Scalar/scalar and vector/scalar operations are element-wise and stream.
 * Vector/vector operations match series by signature (`on`/`ignoring`), once per series, then
 * walk the steps pairing the series present at each step, with Prometheus' cardinality checks
 * ("found duplicate series for the match group", "multiple matches for labels") and its rules
 * for the result's labels (`group_left`/`group_right` include labels, name dropping).
 */
import type { BinaryExpr, BinaryOp, VectorMatching } from '../ast.js';
import { isComparisonOp } from '../ast.js';
import { comparisonFor } from '../../common/compare.js';
import type { EvalContext } from './context.js';
import { evalError } from './context.js';
import { DUPLICATE_LABELSET } from './dedupe.js';
import type { StepGrid } from './grid.js';
import {
  METRIC_NAME,
  dropMetricName,
  formatLabelsGo,
  keepLabels,
  labelsKey,
  removeLabels,
  signatureOn,
  signatureWithout,
  withLabel,
  type Labels,
} from './labelset.js';
import { countPresent, hasHistograms, type HistogramSlots, type SeriesStream, type VectorSeries } from './series.js';
import type { FloatHistogram } from '../../histogram/floatHistogram.js';
import { histogramElem } from './histogramBinary.js';

/** changesMetricSchema tells whether the operator's result no longer measures the input metric. */
export function changesMetricSchema(op: BinaryOp): boolean {
  return op === '+' || op === '-' || op === '*' || op === '/' || op === '^' || op === '%' || op === 'atan2';
}

/** goMod is Go's math.Mod: the remainder with the dividend's sign (JavaScript's % already is). */
function goMod(a: number, b: number): number {
  return a % b;
}

/** goPow is Go's math.Pow, which differs from JavaScript for 1 and -1 raised to ±Inf or NaN. */
function goPow(a: number, b: number): number {
  if (a === 1) return 1;
  if (b === 0) return 1;
  if (a === -1 && (b === Infinity || b === -Infinity)) return 1;
  return Math.pow(a, b);
}

/** arithmetic applies an arithmetic operator. */
export function arithmetic(op: BinaryOp, a: number, b: number): number {
  switch (op) {
    case '+':
      return a + b;
    case '-':
      return a - b;
    case '*':
      return a * b;
    case '/':
      return a / b;
    case '%':
      return goMod(a, b);
    case '^':
      return goPow(a, b);
    case 'atan2':
      return Math.atan2(a, b);
    default:
      throw new Error(`arithmetic: not an arithmetic operator: ${op}`);
  }
}

/** isTrimOp tells whether `op` trims native histogram buckets, which floats do not support. */
function isTrimOp(op: BinaryOp): boolean {
  return op === '</' || op === '>/';
}

/** noteTrimOnFloats records the info Prometheus gives for a trim operator between floats. */
function noteTrimOnFloats(ctx: EvalContext, node: BinaryExpr): void {
  ctx.annotations.info(`incompatible sample types encountered for binary operator "${node.op}": float ${node.op} float`, node.pos);
}

/** scalarScalar evaluates an operator between two scalars, step by step. */
export function scalarScalar(op: BinaryOp, lhs: Float64Array, rhs: Float64Array): Float64Array {
  const out = new Float64Array(lhs.length);
  const compare = isComparisonOp(op) ? comparisonFor(op) : undefined;
  for (let i = 0; i < lhs.length; i++) out[i] = compare !== undefined ? (compare(lhs[i], rhs[i]) ? 1 : 0) : arithmetic(op, lhs[i], rhs[i]);
  return out;
}

/** nameDropped applies metric-name removal: eagerly, or as a flag under delayed removal. */
function nameDropped(ctx: EvalContext, series: VectorSeries): { labels: Labels; dropName: boolean } {
  if (ctx.delayedNameRemoval) return { labels: series.labels, dropName: true };
  return { labels: dropMetricName(series.labels), dropName: true };
}

/**
 * vectorScalar evaluates an operator between each vector element and a scalar. Comparisons
 * keep the vector's value (whichever side it is on) and filter; `bool` turns them into 0/1.
 */
export function* vectorScalar(ctx: EvalContext, node: BinaryExpr, vector: SeriesStream, scalar: Float64Array, scalarOnLeft: boolean): Generator<VectorSeries> {
  const op = node.op;
  const trims = isTrimOp(op);
  const compare = isComparisonOp(op) ? comparisonFor(op) : undefined;
  const dropsName = changesMetricSchema(op) || node.returnBool;
  for (const series of vector) {
    ctx.checkAbort();
    const n = series.present.length;
    const values = new Float64Array(n);
    const present = new Uint8Array(n);
    let histograms: HistogramSlots | undefined;
    let points = 0;
    for (let i = 0; i < n; i++) {
      if (series.present[i] === 0) continue;
      const v = series.values[i];
      const s = scalar[i];
      const a = scalarOnLeft ? s : v;
      const b = scalarOnLeft ? v : s;
      const h = series.histograms?.[i];
      if (h !== undefined) {
        const r = histogramElem(ctx, op, a, scalarOnLeft ? undefined : h, b, scalarOnLeft ? h : undefined, node.pos);
        if (r === null || (!r.keep && !node.returnBool)) continue;
        if (node.returnBool) values[i] = r.keep ? 1 : 0;
        else (histograms ??= new Array(n))[i] = r.histogram;
        present[i] = 1;
        points++;
        continue;
      }
      if (trims) {
        // Trimming applies to histogram buckets only.
        noteTrimOnFloats(ctx, node);
        continue;
      }
      if (compare !== undefined) {
        const keep = compare(a, b);
        if (node.returnBool) values[i] = keep ? 1 : 0;
        else if (keep) values[i] = v;
        else continue;
      } else {
        values[i] = arithmetic(op, a, b);
      }
      present[i] = 1;
      points++;
    }
    ctx.releaseSamples(countPresent(series));
    if (points === 0) continue;
    ctx.holdSamples(points);
    const named = dropsName ? nameDropped(ctx, series) : { labels: series.labels, dropName: series.dropName };
    const out: VectorSeries = { labels: named.labels, values, present, dropName: named.dropName };
    if (histograms !== undefined) out.histograms = histograms;
    yield out;
  }
}

/** signatureFunction builds the match signature of `on(...)` or `ignoring(...)`. */
function signatureFunction(matching: VectorMatching): (labels: Labels) => string {
  if (matching.on) {
    const names = [...new Set(matching.labels)].sort();
    return (labels) => signatureOn(labels, names);
  }
  const names = new Set([...matching.labels, METRIC_NAME]);
  return (labels) => signatureWithout(labels, names);
}

/** OutputCollector gathers result series by label set, rejecting two values for one labels at one step. */
class OutputCollector {
  private readonly byKey = new Map<string, VectorSeries>();
  readonly series: VectorSeries[] = [];

  constructor(private readonly count: number) {}

  target(labels: Labels, dropName: boolean): VectorSeries {
    const key = labelsKey(labels);
    let out = this.byKey.get(key);
    if (out === undefined) {
      out = { labels, values: new Float64Array(this.count), present: new Uint8Array(this.count), dropName };
      this.byKey.set(key, out);
      this.series.push(out);
    }
    return out;
  }

  write(out: VectorSeries, step: number, value: number, histogram?: FloatHistogram): void {
    if (out.present[step] !== 0) throw evalError(DUPLICATE_LABELSET);
    out.present[step] = 1;
    out.values[step] = value;
    if (histogram !== undefined) (out.histograms ??= new Array(this.count))[step] = histogram;
  }

  /** nonEmpty drops series that never received a value. */
  nonEmpty(): VectorSeries[] {
    return this.series.filter((s) => countPresent(s) > 0);
  }
}

/** ordinals numbers the distinct signatures of both sides, shared so equal signatures get equal numbers. */
function ordinals(sig: (labels: Labels) => string, lhs: VectorSeries[], rhs: VectorSeries[]): { left: Int32Array; right: Int32Array; count: number } {
  const ids = new Map<string, number>();
  const number = (series: VectorSeries[]): Int32Array => {
    const out = new Int32Array(series.length);
    for (let i = 0; i < series.length; i++) {
      const key = sig(series[i].labels);
      let id = ids.get(key);
      if (id === undefined) {
        id = ids.size;
        ids.set(key, id);
      }
      out[i] = id;
    }
    return out;
  };
  const left = number(lhs);
  const right = number(rhs);
  return { left, right, count: ids.size };
}

/** MAX_PRESENCE_CELLS bounds the (signature, step) presence table setOperation keeps at once, in bytes. */
const MAX_PRESENCE_CELLS = 1 << 24;

/**
 * setOperation evaluates `and`, `or` and `unless`: per step, a left series is kept or dropped by
 * whether any right series with its signature is present; `or` adds the right series whose
 * signature no left series has at that step. Series by series where a (signature, step) table
 * of at most `maxPresenceCells` bytes holds the deciding side's presence, else step by step.
 */
export function setOperation(ctx: EvalContext, node: BinaryExpr, lhs: VectorSeries[], rhs: VectorSeries[], grid: StepGrid, maxPresenceCells = MAX_PRESENCE_CELLS): VectorSeries[] {
  const sig = signatureFunction(node.matching);
  const { left, right, count } = ordinals(sig, lhs, rhs);
  const collector = new OutputCollector(grid.count);
  const leftOut = lhs.map((s) => collector.target(s.labels, s.dropName));
  const rightOut = node.op === 'or' ? rhs.map((s) => collector.target(s.labels, s.dropName)) : [];
  const steps = grid.count;
  if (count * steps <= maxPresenceCells) {
    // Series by series: first where each signature of the deciding side is present, then each
    // series kept or dropped along its steps (reading every series' values in order).
    const decidedBy = node.op === 'or' ? lhs : rhs;
    const decidingSig = node.op === 'or' ? left : right;
    const present = new Uint8Array(count * steps);
    for (let i = 0; i < decidedBy.length; i++) {
      ctx.checkAbort();
      const base = decidingSig[i] * steps;
      const p = decidedBy[i].present;
      for (let step = 0; step < steps; step++) if (p[step] !== 0) present[base + step] = 1;
    }
    /** keep writes `series` at the steps where it is present and its signature's presence is `want` (any, when undefined). */
    const keep = (series: VectorSeries, out: VectorSeries, sig: number, want: boolean | undefined): void => {
      ctx.checkAbort();
      const base = sig * steps;
      for (let step = 0; step < steps; step++) {
        if (series.present[step] === 0) continue;
        if (want !== undefined && (present[base + step] !== 0) !== want) continue;
        collector.write(out, step, series.values[step], series.histograms?.[step]);
      }
    };
    if (node.op === 'or') {
      for (let l = 0; l < lhs.length; l++) keep(lhs[l], leftOut[l], left[l], undefined);
      for (let r = 0; r < rhs.length; r++) keep(rhs[r], rightOut[r], right[r], false);
    } else {
      for (let l = 0; l < lhs.length; l++) keep(lhs[l], leftOut[l], left[l], node.op === 'and');
    }
    return settle(ctx, collector.nonEmpty(), lhs, rhs);
  }
  const mark = new Uint8Array(count);
  for (let step = 0; step < grid.count; step++) {
    ctx.checkAbort();
    mark.fill(0);
    if (node.op === 'or') {
      for (let l = 0; l < lhs.length; l++) {
        if (lhs[l].present[step] === 0) continue;
        mark[left[l]] = 1;
        collector.write(leftOut[l], step, lhs[l].values[step], lhs[l].histograms?.[step]);
      }
      for (let r = 0; r < rhs.length; r++) {
        if (rhs[r].present[step] === 0 || mark[right[r]] !== 0) continue;
        collector.write(rightOut[r], step, rhs[r].values[step], rhs[r].histograms?.[step]);
      }
      continue;
    }
    for (let r = 0; r < rhs.length; r++) if (rhs[r].present[step] !== 0) mark[right[r]] = 1;
    const wantMatch = node.op === 'and';
    for (let l = 0; l < lhs.length; l++) {
      if (lhs[l].present[step] === 0) continue;
      if ((mark[left[l]] !== 0) !== wantMatch) continue;
      collector.write(leftOut[l], step, lhs[l].values[step], lhs[l].histograms?.[step]);
    }
  }
  return settle(ctx, collector.nonEmpty(), lhs, rhs);
}

/** matchGroupLabels is the label set a match group is reported with in errors. */
function matchGroupLabels(labels: Labels, matching: VectorMatching, withoutName = false): Labels {
  const names = new Set(matching.labels);
  if (withoutName && !matching.on) names.add(METRIC_NAME);
  return matching.on ? keepLabels(labels, names) : removeLabels(labels, names);
}

/**
 * vectorVector evaluates an arithmetic or comparison operator between two vectors under
 * one-to-one, many-to-one (group_left) or one-to-many (group_right) matching.
 */
export function vectorVector(ctx: EvalContext, node: BinaryExpr, lhsIn: VectorSeries[], rhsIn: VectorSeries[], grid: StepGrid): VectorSeries[] {
  const op = node.op;
  const matching = node.matching;
  const trims = isTrimOp(op);
  const swapped = matching.card === 'one-to-many';
  // After the swap "many" is the side whose labels the result keeps, "one" the matched side.
  const many = swapped ? rhsIn : lhsIn;
  const one = swapped ? lhsIn : rhsIn;
  const sig = signatureFunction(matching);
  const { left: manySig, right: oneSig, count } = ordinals(sig, many, one);
  const compare = isComparisonOp(op) ? comparisonFor(op) : undefined;
  const dropName = !ctx.delayedNameRemoval && node.returnBool;
  const schemaChange = changesMetricSchema(op);
  const include = matching.include;
  const keepNames = new Set(matching.labels);
  const resultCache = new Map<number, VectorSeries>();
  const collector = new OutputCollector(grid.count);

  /** resultSeries is the output series of one (many, one) pair, built once. */
  const resultSeries = (m: number, o: number): VectorSeries => {
    const cacheKey = m * (one.length + 1) + o + 1;
    let out = resultCache.get(cacheKey);
    if (out !== undefined) return out;
    let labels = many[m].labels;
    if (dropName || schemaChange) labels = dropMetricName(labels);
    if (matching.card === 'one-to-one') labels = matching.on ? keepLabels(labels, keepNames) : removeLabels(labels, keepNames);
    for (const name of include) labels = withLabel(labels, name, o < 0 ? '' : (one[o].labels[name] ?? ''));
    out = collector.target(labels, node.returnBool);
    resultCache.set(cacheKey, out);
    return out;
  };

  const fill = matching.fill;
  /** fillSeries are the result series of filled pairs, by their labels. */
  const fillSeries = (labels: Labels): VectorSeries => {
    let out = labels;
    if (dropName || schemaChange) out = dropMetricName(out);
    if (matching.card === 'one-to-one') out = matching.on ? keepLabels(out, keepNames) : removeLabels(out, keepNames);
    for (const name of include) out = withLabel(out, name, '');
    return collector.target(out, node.returnBool);
  };

  const pairs = fill?.lhs == null && fill?.rhs == null && !trims ? fixedPairs(manySig, oneSig, count, matching.card === 'one-to-one') : undefined;
  if (pairs !== undefined && !many.some((s) => hasHistograms(s.histograms)) && !one.some((s) => hasHistograms(s.histograms))) {
    // Each "many" series has at most one partner, the same at every step, so each pair is
    // computed along its steps in one pass (see fixedPairs). Under group_left or group_right two
    // pairs may still make one output series, which only the step-by-step matching reports as
    // Prometheus words it; such queries go that way.
    const targets: VectorSeries[] = [];
    for (let p = 0; p < pairs.length; p += 2) targets.push(resultSeries(pairs[p], pairs[p + 1]));
    if (matching.card === 'one-to-one' || new Set(targets).size === targets.length) {
      for (let p = 0; p < pairs.length; p += 2) {
        ctx.checkAbort();
        const { values: manyValues, present: manyPresent } = many[pairs[p]];
        const { values: oneValues, present: onePresent } = one[pairs[p + 1]];
        const target = targets[p >> 1];
        for (let step = 0; step < grid.count; step++) {
          if (manyPresent[step] === 0 || onePresent[step] === 0) continue;
          const a = swapped ? oneValues[step] : manyValues[step];
          const b = swapped ? manyValues[step] : oneValues[step];
          let value: number;
          if (compare === undefined) value = arithmetic(op, a, b);
          else if (node.returnBool) value = compare(a, b) ? 1 : 0;
          else if (compare(a, b)) value = a;
          else continue;
          collector.write(target, step, value);
        }
      }
      return settle(ctx, collector.nonEmpty(), lhsIn, rhsIn);
    }
  }

  const oneAt = new Int32Array(count);
  const matchedOnce = new Uint8Array(count);
  const matchedResults: (Set<VectorSeries> | undefined)[] = new Array(count);

  /** combine computes one pair at `step` and records it in `out`, with the cardinality checks. */
  const combine = (
    step: number,
    s: number,
    manyValue: number,
    oneValue: number,
    hm: FloatHistogram | undefined,
    ho: FloatHistogram | undefined,
    out: () => VectorSeries,
  ): void => {
    const a = swapped ? oneValue : manyValue;
    const b = swapped ? manyValue : oneValue;
    let value: number;
    let keep = true;
    let histogram: FloatHistogram | undefined;
    if (hm !== undefined || ho !== undefined) {
      const r = histogramElem(ctx, op, a, swapped ? ho : hm, b, swapped ? hm : ho, node.pos);
      if (r === null) return;
      keep = r.keep;
      value = node.returnBool ? (keep ? 1 : 0) : r.value;
      if (!node.returnBool) histogram = r.histogram;
    } else if (trims) {
      // Trimming applies to histogram buckets only: a pair of floats yields nothing.
      noteTrimOnFloats(ctx, node);
      return;
    } else if (compare !== undefined) {
      keep = compare(a, b);
      value = node.returnBool ? (keep ? 1 : 0) : a;
    } else {
      value = arithmetic(op, a, b);
    }
    const target = out();
    if (matching.card === 'one-to-one') {
      if (matchedOnce[s] !== 0) throw evalError('multiple matches for labels: many-to-one matching must be explicit (group_left/group_right)');
      matchedOnce[s] = 1;
    } else {
      let seen = matchedResults[s];
      if (seen === undefined) matchedResults[s] = seen = new Set();
      if (seen.has(target)) throw evalError('multiple matches for labels: grouping labels must ensure unique matches');
      seen.add(target);
    }
    if (!keep && !node.returnBool) return;
    collector.write(target, step, value, histogram);
  };

  for (let step = 0; step < grid.count; step++) {
    ctx.checkAbort();
    oneAt.fill(-1);
    for (let o = 0; o < one.length; o++) {
      if (one[o].present[step] === 0) continue;
      const s = oneSig[o];
      const prior = oneAt[s];
      if (prior >= 0) {
        const side = swapped ? 'left' : 'right';
        const group = formatLabelsGo(matchGroupLabels(one[o].labels, matching));
        let first = formatLabelsGo(one[o].labels);
        let second = formatLabelsGo(one[prior].labels);
        if (first > second) [first, second] = [second, first];
        throw evalError(
          `found duplicate series for the match group ${group} on the ${side} hand-side of the operation: [${first}, ${second}]` +
            ';many-to-many matching not allowed: matching labels must be unique on one side',
        );
      }
      oneAt[s] = o;
    }
    matchedOnce.fill(0);
    matchedResults.fill(undefined);
    for (let m = 0; m < many.length; m++) {
      if (many[m].present[step] === 0) continue;
      const s = manySig[m];
      const o = oneAt[s];
      if (o >= 0) {
        combine(step, s, many[m].values[step], one[o].values[step], many[m].histograms?.[step], one[o].histograms?.[step], () => resultSeries(m, o));
      } else if (fill?.rhs != null) {
        // A missing "one" side takes the fill value (fill_right, or fill_left under group_right).
        combine(step, s, many[m].values[step], fill.rhs, many[m].histograms?.[step], undefined, () => resultSeries(m, -1));
      }
    }
    if (fill?.lhs == null) continue;
    // A "one" series nothing matched is paired with the fill value, under its match labels.
    for (let o = 0; o < one.length; o++) {
      if (one[o].present[step] === 0) continue;
      const s = oneSig[o];
      if (matching.card === 'one-to-one' ? matchedOnce[s] !== 0 : (matchedResults[s]?.size ?? 0) > 0) continue;
      combine(step, s, fill.lhs, one[o].values[step], undefined, one[o].histograms?.[step], () => fillSeries(matchGroupLabels(one[o].labels, matching, true)));
    }
  }
  return settle(ctx, collector.nonEmpty(), lhsIn, rhsIn);
}

/**
 * fixedPairs pairs each "many" series with the "one" series of its match signature when no
 * signature has more than one series on the "one" side (and, for one-to-one matching, on the
 * "many" side too): then matching can neither fail for duplicates nor change partner from step
 * to step, and the pairs (many index, one index, flattened, in the many side's order) are the
 * whole matching. Undefined when a signature repeats where it must not, which the step-by-step
 * matching must judge at each step.
 */
function fixedPairs(manySig: Int32Array, oneSig: Int32Array, count: number, uniqueMany: boolean): Int32Array | undefined {
  const oneOf = new Int32Array(count).fill(-1);
  for (let o = 0; o < oneSig.length; o++) {
    if (oneOf[oneSig[o]] !== -1) return undefined;
    oneOf[oneSig[o]] = o;
  }
  const seen = new Uint8Array(count);
  const pairs: number[] = [];
  for (let m = 0; m < manySig.length; m++) {
    const s = manySig[m];
    if (uniqueMany && seen[s] !== 0) return undefined;
    seen[s] = 1;
    if (oneOf[s] !== -1) pairs.push(m, oneOf[s]);
  }
  return Int32Array.from(pairs);
}

/** settle accounts for an operator's output replacing its inputs in memory. */
function settle(ctx: EvalContext, result: VectorSeries[], lhs: VectorSeries[], rhs: VectorSeries[]): VectorSeries[] {
  let points = 0;
  for (const s of result) points += countPresent(s);
  for (const s of lhs) points -= countPresent(s);
  for (const s of rhs) points -= countPresent(s);
  if (points > 0) ctx.holdSamples(points);
  else ctx.releaseSamples(-points);
  return result;
}
