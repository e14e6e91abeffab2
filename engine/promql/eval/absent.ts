/**
 * absent() and absent_over_time(): a one-series vector with value 1 at the steps where the
 * argument has nothing, labelled with what the argument's selector pins down by equality.
 */
import type { Expr } from '../ast.js';
import { METRIC_NAME_LABEL } from '../ast.js';
import type { EvalContext } from './context.js';
import type { StepGrid } from './grid.js';
import { EMPTY_LABELS, withLabel, type Labels } from './labelset.js';
import { windowBounds } from './selectors.js';
import { countPresent, type SeriesStream, type VectorSeries } from './series.js';
import { unwrapParens } from './stepInvariant.js';
import type { RangeInput } from './value.js';

/**
 * absentLabels derives the labels from a plain selector argument: each equality matcher's
 * label, except names matched more than once or by anything but equality (and never the
 * metric name). Other arguments give no labels.
 */
export function absentLabels(arg: Expr): Labels {
  const e = unwrapParens(arg);
  const selector = e.type === 'VectorSelector' ? e : e.type === 'MatrixSelector' ? e.selector : null;
  if (selector === null) return EMPTY_LABELS;
  let labels: Labels = EMPTY_LABELS;
  const seen = new Set<string>();
  for (const m of selector.matchers) {
    if (m.name === METRIC_NAME_LABEL) continue;
    if (m.op === '=' && !seen.has(m.name)) {
      labels = withLabel(labels, m.name, m.value);
      seen.add(m.name);
    } else {
      labels = withLabel(labels, m.name, '');
    }
  }
  return labels;
}

/** absentSeries builds the result from the steps at which something was seen. */
function absentSeries(ctx: EvalContext, seen: Uint8Array, arg: Expr): VectorSeries[] {
  const present = seen.map((v) => 1 - v);
  if (present.every((v) => v === 0)) return [];
  ctx.holdSamples(present.length);
  return [{ labels: absentLabels(arg), values: new Float64Array(present.length).fill(1), present, dropName: true }];
}

/** absent yields 1 at the steps where the input vector is empty. */
export function absent(ctx: EvalContext, stream: SeriesStream, arg: Expr, grid: StepGrid): VectorSeries[] {
  const seen = new Uint8Array(grid.count);
  for (const s of stream) {
    for (let i = 0; i < grid.count; i++) seen[i] |= s.present[i];
    ctx.releaseSamples(countPresent(s));
  }
  return absentSeries(ctx, seen, arg);
}

/** absentOverTime yields 1 at the steps where no series has a sample in its window. */
export function absentOverTime(ctx: EvalContext, input: RangeInput, arg: Expr, grid: StepGrid): VectorSeries[] {
  const seen = new Uint8Array(grid.count);
  const lo = new Int32Array(grid.count);
  const hi = new Int32Array(grid.count);
  for (const s of input.series) {
    windowBounds(s.ts, input.refs, input.rangeMs, lo, hi);
    for (let i = 0; i < grid.count; i++) if (hi[i] > lo[i]) seen[i] = 1;
  }
  return absentSeries(ctx, seen, arg);
}
