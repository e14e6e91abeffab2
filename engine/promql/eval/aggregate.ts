/**
 * The folding aggregations: sum, avg, min, max, count, group, stddev, stdvar, quantile and
 * count_values. Input series are consumed one at a time and folded into per-group, per-step
 * typed-array accumulators, so the input vector is never held whole (quantile, which needs
 * every value of a step, keeps its group members). The arithmetic is Prometheus' own: Kahan
 * sums, the overflow-safe mean, Welford's variance, and its NaN rules for min and max.
 */
import { quoteGoString } from '../../common/quote.js';
import type { AggregateExpr } from '../ast.js';
import { isValidLabelName } from '../labelNames.js';
import { formatGoFloat } from '../../common/goFloat.js';
import type { EvalContext } from './context.js';
import { evalError } from './context.js';
import { formatGoG } from '../../common/goFormat.js';
import { allBuckets, type FloatHistogram } from '../../histogram/floatHistogram.js';
import type { StepGrid } from './grid.js';
import { Grouper } from './grouping.js';
import { kahanCompensation, kahanInc } from './kernels/kahan.js';
import { withLabel, type Labels } from './labelset.js';
import { countPresent, type SeriesStream, type VectorSeries } from './series.js';
import { quantileOfSorted } from './quantile.js';

/** GroupState is one output group's accumulators, one slot per step. */
interface GroupState {
  labels: Labels;
  dropName: boolean;
  seen: Uint8Array;
  value: Float64Array;
  /** comp is the Kahan compensation (sum, avg). */
  comp: Float64Array | null;
  /** count counts samples (avg, count, stddev, stdvar). */
  count: Float64Array | null;
  /** mean is the running mean (avg after overflow, stddev, stdvar). */
  mean: Float64Array | null;
  /** incremental marks steps whose avg switched to the incremental mean. */
  incremental: Uint8Array | null;
  /** members keeps the input series of a quantile group. */
  members: VectorSeries[] | null;
}

function newGroup(op: AggregateExpr['op'], labels: Labels, count: number): GroupState {
  const needs = (...ops: string[]): boolean => ops.includes(op);
  return {
    labels,
    dropName: false,
    seen: new Uint8Array(count),
    value: new Float64Array(count),
    comp: needs('sum', 'avg') ? new Float64Array(count) : null,
    count: needs('avg', 'count', 'stddev', 'stdvar') ? new Float64Array(count) : null,
    mean: needs('avg', 'stddev', 'stdvar') ? new Float64Array(count) : null,
    incremental: needs('avg') ? new Uint8Array(count) : null,
    members: op === 'quantile' ? [] : null,
  };
}

/** fold adds one input series into its group, step by step. */
function fold(op: AggregateExpr['op'], g: GroupState, s: VectorSeries): void {
  const { values, present } = s;
  const { seen, value } = g;
  const n = present.length;
  switch (op) {
    case 'sum': {
      const comp = g.comp!;
      for (let i = 0; i < n; i++) {
        if (present[i] === 0) continue;
        if (seen[i] === 0) {
          seen[i] = 1;
          value[i] = values[i];
          comp[i] = 0;
        } else {
          // kahanInc written out, the same operations in the same order, so the compensation
          // goes straight to its slot instead of through the helper's.
          const f = values[i];
          const sum = value[i];
          const t = sum + f;
          if (t === Infinity || t === -Infinity) comp[i] = 0;
          else if (Math.abs(sum) >= Math.abs(f)) comp[i] += sum - t + f;
          else comp[i] += f - t + sum;
          value[i] = t;
        }
      }
      return;
    }
    case 'avg': {
      const comp = g.comp!;
      const count = g.count!;
      const mean = g.mean!;
      const incremental = g.incremental!;
      for (let i = 0; i < n; i++) {
        if (present[i] === 0) continue;
        const f = values[i];
        if (seen[i] === 0) {
          seen[i] = 1;
          value[i] = f;
          mean[i] = f;
          comp[i] = 0;
          count[i] = 1;
          continue;
        }
        const c = ++count[i];
        if (incremental[i] === 0) {
          // kahanInc written out, as in sum above.
          const sum = value[i];
          const newSum = sum + f;
          if (newSum !== Infinity && newSum !== -Infinity) {
            if (Math.abs(sum) >= Math.abs(f)) comp[i] += sum - newSum + f;
            else comp[i] += f - newSum + sum;
            value[i] = newSum;
            continue;
          }
          incremental[i] = 1;
          mean[i] = value[i] / (c - 1);
          comp[i] /= c - 1;
        }
        const q = (c - 1) / c;
        mean[i] = kahanInc(f / c, q * mean[i], q * comp[i]);
        comp[i] = kahanCompensation();
      }
      return;
    }
    case 'max':
    case 'min': {
      const isMax = op === 'max';
      for (let i = 0; i < n; i++) {
        if (present[i] === 0) continue;
        const f = values[i];
        if (seen[i] === 0) {
          seen[i] = 1;
          value[i] = f;
        } else {
          const cur = value[i];
          if ((isMax ? cur < f : cur > f) || cur !== cur) value[i] = f;
        }
      }
      return;
    }
    case 'count':
    case 'group': {
      const count = g.count;
      for (let i = 0; i < n; i++) {
        if (present[i] === 0) continue;
        seen[i] = 1;
        if (count !== null) count[i]++;
      }
      return;
    }
    case 'stddev':
    case 'stdvar': {
      const count = g.count!;
      const mean = g.mean!;
      for (let i = 0; i < n; i++) {
        if (present[i] === 0) continue;
        const f = values[i];
        if (seen[i] === 0) {
          seen[i] = 1;
          count[i] = 1;
          mean[i] = f;
          value[i] = Number.isFinite(f) ? 0 : NaN;
          continue;
        }
        const c = ++count[i];
        const delta = f - mean[i];
        mean[i] += delta / c;
        value[i] += delta * (f - mean[i]);
      }
      return;
    }
    case 'quantile':
      for (let i = 0; i < n; i++) if (present[i] !== 0) seen[i] = 1;
      g.members!.push(s);
      return;
    default:
      throw new Error(`fold: unexpected aggregation ${op}`);
  }
}

/** finish turns a group's accumulators into its output series. */
function finish(op: AggregateExpr['op'], g: GroupState, q: Float64Array | null): VectorSeries {
  const n = g.seen.length;
  const values = g.value;
  switch (op) {
    case 'sum': {
      const comp = g.comp!;
      for (let i = 0; i < n; i++) if (g.seen[i] !== 0) values[i] += comp[i];
      break;
    }
    case 'avg': {
      const comp = g.comp!;
      const count = g.count!;
      const mean = g.mean!;
      const incremental = g.incremental!;
      for (let i = 0; i < n; i++) {
        if (g.seen[i] === 0) continue;
        values[i] = incremental[i] !== 0 ? mean[i] + comp[i] : values[i] / count[i] + comp[i] / count[i];
      }
      break;
    }
    case 'count':
      values.set(g.count!);
      break;
    case 'group':
      values.fill(1);
      break;
    case 'stdvar':
    case 'stddev': {
      const count = g.count!;
      for (let i = 0; i < n; i++) {
        if (g.seen[i] === 0) continue;
        const variance = values[i] / count[i];
        values[i] = op === 'stddev' ? Math.sqrt(variance) : variance;
      }
      break;
    }
    case 'quantile': {
      const members = g.members!;
      const scratch = new Float64Array(members.length);
      for (let i = 0; i < n; i++) {
        if (g.seen[i] === 0) continue;
        let k = 0;
        for (const m of members) if (m.present[i] !== 0) scratch[k++] = m.values[i];
        values[i] = quantileOfSorted(q === null ? NaN : q[i], sortNaNFirst(scratch.subarray(0, k)));
      }
      break;
    }
    default:
      break;
  }
  return { labels: g.labels, values, present: g.seen, dropName: g.dropName };
}

/** sortNaNFirst sorts in place with NaNs first, the order Prometheus' quantile() uses. */
export function sortNaNFirst(values: Float64Array): Float64Array {
  let nans = 0;
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (v !== v) nans++;
    else values[i - nans] = v;
  }
  const numbers = values.length - nans;
  values.subarray(0, numbers).sort();
  values.copyWithin(nans, 0, numbers);
  values.fill(NaN, 0, nans);
  return values;
}

/** paramExtremes summarises a per-step parameter: its minimum, maximum and whether any is NaN. */
export function paramExtremes(param: Float64Array): { min: number; max: number; hasNaN: boolean } {
  let min = Infinity;
  let max = -Infinity;
  let hasNaN = false;
  for (let i = 0; i < param.length; i++) {
    const v = param[i];
    if (v !== v) hasNaN = true;
    else {
      if (v < min) min = v;
      if (v > max) max = v;
    }
  }
  return { min, max, hasNaN };
}

/**
 * aggregateFolding evaluates sum, avg, min, max, count, group, stddev, stdvar and quantile.
 * Groups are output in the order their first series arrived.
 */
export function aggregateFolding(ctx: EvalContext, node: AggregateExpr, input: SeriesStream, grid: StepGrid, q: Float64Array | null): VectorSeries[] {
  const op = node.op;
  if (op === 'quantile' && q !== null && node.param !== null) {
    const { min, max, hasNaN } = paramExtremes(q);
    const warn = (v: number): void => ctx.annotations.warn(`quantile value should be between 0 and 1, got ${formatGoG(v)}`, node.param!.pos);
    if (hasNaN) warn(NaN);
    else {
      if (max > 1) warn(max);
      if (min < 0) warn(min);
    }
  }
  const grouper = new Grouper(node.grouping, node.without);
  const groups = new Map<string, GroupState>();
  const order: GroupState[] = [];
  for (const series of input) {
    ctx.checkAbort();
    const key = grouper.key(series.labels);
    let group = groups.get(key);
    if (group === undefined) {
      group = newGroup(op, grouper.labels(series.labels), grid.count);
      groups.set(key, group);
      order.push(group);
      ctx.holdSamples(grid.count);
    }
    if (series.dropName) group.dropName = true;
    fold(op, group, series);
    if (op !== 'quantile') ctx.releaseSamples(countPresent(series));
  }
  const out: VectorSeries[] = [];
  for (const group of order) {
    const series = finish(op, group, q);
    if (countPresent(series) > 0) out.push(series);
  }
  return out;
}

/**
 * aggregateCountValues evaluates count_values: per step, the number of series per distinct
 * value, the value written into the label `label`.
 */
export function aggregateCountValues(ctx: EvalContext, node: AggregateExpr, input: SeriesStream, grid: StepGrid, label: string): VectorSeries[] {
  if (!isValidLabelName(label)) throw evalError(`invalid label name ${quoteGoString(label)}`);
  const grouping = node.without ? node.grouping : [...node.grouping, label];
  const grouper = new Grouper(grouping, node.without);
  const groups = new Map<string, VectorSeries>();
  const order: VectorSeries[] = [];
  for (const series of input) {
    ctx.checkAbort();
    for (let i = 0; i < grid.count; i++) {
      if (series.present[i] === 0) continue;
      const h = series.histograms?.[i];
      const labels = withLabel(series.labels, label, h === undefined ? formatGoFloat(series.values[i]) : formatHistogramGo(h));
      const key = grouper.key(labels);
      let group = groups.get(key);
      if (group === undefined) {
        group = { labels: grouper.labels(labels), values: new Float64Array(grid.count), present: new Uint8Array(grid.count), dropName: false };
        groups.set(key, group);
        order.push(group);
        ctx.holdSamples(grid.count);
      }
      group.present[i] = 1;
      group.values[i]++;
    }
  }
  return order;
}

/**
 * formatHistogramGo renders a histogram as Prometheus' FloatHistogram.String does, the value
 * count_values gives a histogram: `{count:4, sum:5, [-2,-1):1, [-0.001,0.001]:2, (1,2]:1}`
 * (non-empty buckets only, most negative first).
 */
export function formatHistogramGo(h: FloatHistogram): string {
  let out = `{count:${formatGoG(h.count)}, sum:${formatGoG(h.sum)}`;
  for (const b of allBuckets(h)) {
    if (b.count === 0) continue;
    out += `, ${b.lowerInclusive ? '[' : '('}${formatGoG(b.lower)},${formatGoG(b.upper)}${b.upperInclusive ? ']' : ')'}:${formatGoG(b.count)}`;
  }
  return out + '}';
}
