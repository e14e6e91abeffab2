/**
 * Binary operators with Loki's semantics: arithmetic and comparisons between vectors and
 * scalars (a filtering comparison keeps the vector's value, `bool` returns 0/1, division or
 * modulo by zero gives NaN), one-to-one and group_left/group_right vector matching with
 * on/ignoring, and the set operators and/or/unless.
 */
import type { BinaryExpr, BinaryOp, VectorMatching } from '../../ast.js';
import type { Labels } from '../../../storage/labels.js';
import { comparisonFor, isComparisonOperator } from '../../../common/compare.js';
import type { EvalContext } from '../context.js';
import { evalError } from '../context.js';
import type { ResultLabels } from '../labelsBuilder.js';
import { labelValue, setLabel } from '../labelSet.js';
import { reduceLabels } from './grouping.js';
import { newSeries, type Grid, type StepMatrix } from './stepMatrix.js';
import type { StepSeries } from '../../../common/stepSeries.js';

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
      return b === 0 ? NaN : a / b;
    case '%':
      return b === 0 ? NaN : a % b;
    case '^':
      return Math.pow(a, b);
    default:
      return NaN;
  }
}

/** scalarBinary combines two scalars (comparisons give 0 or 1, as Loki folds literals). */
export function scalarBinary(op: BinaryOp, a: number, b: number): number {
  if (isComparisonOperator(op)) return comparisonFor(op)(a, b) ? 1 : 0;
  return arithmetic(op, a, b);
}

/**
 * vectorScalar combines every sample with a scalar. `scalarLeft` tells which side the scalar
 * was on; a filtering comparison keeps the vector's own value.
 */
export function vectorScalar(expr: BinaryExpr, vector: StepMatrix, scalar: number, scalarLeft: boolean): StepMatrix {
  const op = expr.op;
  const compare = isComparisonOperator(op) ? comparisonFor(op) : undefined;
  const out: StepSeries<ResultLabels>[] = [];
  for (const s of vector.series) {
    const r = newSeries(s.labels, s.values.length);
    let any = false;
    for (let j = 0; j < s.values.length; j++) {
      if (s.present[j] !== 1) continue;
      const v = s.values[j];
      const a = scalarLeft ? scalar : v;
      const b = scalarLeft ? v : scalar;
      let value: number;
      if (compare !== undefined) {
        const ok = compare(a, b);
        if (expr.returnBool) value = ok ? 1 : 0;
        else if (ok) value = v;
        else continue;
      } else {
        value = arithmetic(op, a, b);
      }
      r.values[j] = value;
      r.present[j] = 1;
      any = true;
    }
    if (any) out.push(r);
  }
  return { kind: 'matrix', series: out };
}

function signatureOf(ctx: EvalContext, labels: Labels, matching: VectorMatching | undefined): string {
  if (matching === undefined) return ctx.labelCache.fromLabels(labels).key;
  return reduceLabels(ctx.labelCache, labels, matching.labels, matching.on).key;
}

/** resultLabels is the label set of a matched pair, as Loki's resultMetric. */
function resultLabels(ctx: EvalContext, lhs: Labels, rhs: Labels, matching: VectorMatching | undefined): ResultLabels {
  if (matching === undefined) return ctx.labelCache.fromLabels(lhs);
  const out: Record<string, string> = {};
  for (const name in lhs) {
    if (matching.card === 'one-to-one' && matching.labels.includes(name) !== matching.on) continue;
    setLabel(out, name, lhs[name]);
  }
  for (const name of matching.include) {
    const v = labelValue(rhs, name);
    if (v !== undefined && v !== '') setLabel(out, name, v);
    else delete out[name];
  }
  const names = Object.keys(out).sort();
  return ctx.labelCache.intern(
    names,
    names.map((n) => out[n]),
  );
}

class Outputs {
  private readonly byKey = new Map<string, StepSeries<ResultLabels>>();

  constructor(private readonly steps: number) {}

  set(labels: ResultLabels, step: number, value: number): boolean {
    let s = this.byKey.get(labels.key);
    if (s === undefined) {
      s = newSeries(labels, this.steps);
      this.byKey.set(labels.key, s);
    } else if (s.present[step] === 1) {
      return false;
    }
    s.values[step] = value;
    s.present[step] = 1;
    return true;
  }

  matrix(): StepMatrix {
    return { kind: 'matrix', series: [...this.byKey.values()] };
  }
}

/** vectorVector combines two vectors step by step. */
export function vectorVector(ctx: EvalContext, expr: BinaryExpr, lhs: StepMatrix, rhs: StepMatrix, grid: Grid): StepMatrix {
  const matching = expr.matching;
  const lsig = lhs.series.map((s) => signatureOf(ctx, s.labels.labels, matching));
  const rsig = rhs.series.map((s) => signatureOf(ctx, s.labels.labels, matching));
  const outputs = new Outputs(grid.steps);
  const op = expr.op;
  for (let j = 0; j < grid.steps; j++) {
    ctx.checkAbort();
    const left = lhs.series.map((_, i) => i).filter((i) => lhs.series[i].present[j] === 1);
    const right = rhs.series.map((_, i) => i).filter((i) => rhs.series[i].present[j] === 1);
    if (op === 'and' || op === 'or' || op === 'unless') {
      setOperation(op, lhs, rhs, lsig, rsig, left, right, j, outputs);
      continue;
    }
    binaryStep(ctx, expr, lhs, rhs, lsig, rsig, left, right, j, outputs);
  }
  return outputs.matrix();
}

function setOperation(
  op: 'and' | 'or' | 'unless',
  lhs: StepMatrix,
  rhs: StepMatrix,
  lsig: string[],
  rsig: string[],
  left: number[],
  right: number[],
  j: number,
  outputs: Outputs,
): void {
  const emit = (s: StepSeries<ResultLabels>): void => {
    outputs.set(s.labels, j, s.values[j]);
  };
  if (op === 'and') {
    if (left.length === 0 || right.length === 0) return;
    const rs = new Set(right.map((i) => rsig[i]));
    for (const i of left) if (rs.has(lsig[i])) emit(lhs.series[i]);
    return;
  }
  if (op === 'or') {
    const ls = new Set(left.map((i) => lsig[i]));
    for (const i of left) emit(lhs.series[i]);
    for (const i of right) if (!ls.has(rsig[i])) emit(rhs.series[i]);
    return;
  }
  if (right.length === 0) {
    for (const i of left) emit(lhs.series[i]);
    return;
  }
  const rs = new Set(right.map((i) => rsig[i]));
  for (const i of left) if (!rs.has(lsig[i])) emit(lhs.series[i]);
}

function binaryStep(
  ctx: EvalContext,
  expr: BinaryExpr,
  lhs: StepMatrix,
  rhs: StepMatrix,
  lsig: string[],
  rsig: string[],
  left: number[],
  right: number[],
  j: number,
  outputs: Outputs,
): void {
  const matching = expr.matching;
  const card = matching?.card ?? 'one-to-one';
  const swapped = card === 'one-to-many';
  const [oneSide, oneSig, oneIdx, manySide, manySig, manyIdx] = swapped
    ? [lhs, lsig, left, rhs, rsig, right]
    : [rhs, rsig, right, lhs, lsig, left];
  const bySig = new Map<string, number>();
  for (const i of oneIdx) {
    if (bySig.has(oneSig[i])) {
      const side = swapped ? 'left' : 'right';
      throw evalError(`found duplicate series on the ${side} hand-side;many-to-many matching not allowed: matching labels must be unique on one side`);
    }
    bySig.set(oneSig[i], i);
  }
  const matched = new Map<string, Set<string>>();
  const compare = isComparisonOperator(expr.op) ? comparisonFor(expr.op) : undefined;
  for (const i of manyIdx) {
    const sig = manySig[i];
    const o = bySig.get(sig);
    if (o === undefined) continue;
    const manySeries = manySide.series[i];
    const oneSeries = oneSide.series[o];
    const labels = resultLabels(ctx, manySeries.labels.labels, oneSeries.labels.labels, matching);
    const seen = matched.get(sig);
    if (card === 'one-to-one') {
      if (seen !== undefined) throw evalError('multiple matches for labels: many-to-one matching must be explicit (group_left/group_right)');
      matched.set(sig, new Set());
    } else if (seen === undefined) {
      matched.set(sig, new Set([labels.key]));
    } else if (seen.has(labels.key)) {
      throw evalError('multiple matches for labels: grouping labels must ensure unique matches');
    } else {
      seen.add(labels.key);
    }
    const l = swapped ? oneSeries : manySeries;
    const r = swapped ? manySeries : oneSeries;
    const a = l.values[j];
    const b = r.values[j];
    let value: number;
    if (compare !== undefined) {
      const ok = compare(a, b);
      if (expr.returnBool) value = ok ? 1 : 0;
      else if (ok) value = a;
      else continue;
    } else {
      value = arithmetic(expr.op, a, b);
    }
    outputs.set(labels, j, value);
  }
}
