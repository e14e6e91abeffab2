/**
 * Vector aggregations over each step: sum, avg, min, max, count, stddev, stdvar (grouped by
 * by/without), and the selectors topk, bottomk, sort, sort_desc and approx_topk, which keep
 * the selected input series. Arithmetic follows Loki's evaluator (incremental mean with its
 * infinity rules, Welford variance, NaN losing to any number in min/max); selection uses the
 * same bounded heaps, so NaN is only kept when nothing else is left.
 */
import type { VectorAggregationExpr } from '../../ast.js';
import type { EvalContext } from '../context.js';
import type { ResultLabels } from '../labelsBuilder.js';
import { groupLabels } from './grouping.js';
import { newSeries, type Grid, type StepMatrix } from './stepMatrix.js';
import type { StepSeries } from '../../../common/stepSeries.js';

interface Accumulator {
  labels: ResultLabels;
  value: number;
  mean: number;
  count: number;
}

/** Heap is a binary heap ordered by `less` (the smallest on top). */
class Heap {
  readonly items: Array<{ index: number; value: number }> = [];

  constructor(private readonly less: (a: number, b: number) => boolean) {}

  get size(): number {
    return this.items.length;
  }

  top(): { index: number; value: number } {
    return this.items[0];
  }

  push(item: { index: number; value: number }): void {
    const items = this.items;
    items.push(item);
    let i = items.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.less(items[i].value, items[parent].value)) break;
      [items[i], items[parent]] = [items[parent], items[i]];
      i = parent;
    }
  }

  pop(): void {
    const items = this.items;
    const last = items.pop()!;
    if (items.length === 0) return;
    items[0] = last;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < items.length && this.less(items[l].value, items[m].value)) m = l;
      if (r < items.length && this.less(items[r].value, items[m].value)) m = r;
      if (m === i) break;
      [items[i], items[m]] = [items[m], items[i]];
      i = m;
    }
  }
}

/** byValue is Loki's heap order for topk/sort_desc: NaN lowest, then ascending. */
const byValue = (a: number, b: number): boolean => a !== a || a < b;
/** byReverseValue is the order for bottomk/sort: NaN lowest, then descending. */
const byReverseValue = (a: number, b: number): boolean => a !== a || a > b;

/** descendingBy sorts selected samples for output (the reverse of the heap order). */
function sortedForOutput(items: Array<{ index: number; value: number }>, less: (a: number, b: number) => boolean): Array<{ index: number; value: number }> {
  return [...items].sort((x, y) => (less(y.value, x.value) ? -1 : less(x.value, y.value) ? 1 : 0));
}

function selectOp(ctx: EvalContext, expr: VectorAggregationExpr, input: StepMatrix, grid: Grid): StepMatrix {
  const op = expr.op;
  const k = op === 'topk' || op === 'bottomk' || op === 'approx_topk' ? Math.trunc(expr.param?.value ?? 0) : Infinity;
  const less = op === 'topk' || op === 'approx_topk' || op === 'sort_desc' ? byValue : byReverseValue;
  const grouping = expr.grouping;
  const groupKeys = input.series.map((s) =>
    grouping === undefined ? '' : groupLabels(ctx.labelCache, s.labels.labels, grouping.without, grouping.labels).key,
  );
  const outputs = new Map<number, StepSeries<ResultLabels>>();
  const order: number[] = [];
  for (let j = 0; j < grid.steps; j++) {
    if (k < 1) break;
    const heaps = new Map<string, Heap>();
    for (let i = 0; i < input.series.length; i++) {
      const s = input.series[i];
      if (s.present[j] !== 1) continue;
      const v = s.values[j];
      let heap = heaps.get(groupKeys[i]);
      if (heap === undefined) {
        heap = new Heap(less);
        heaps.set(groupKeys[i], heap);
      }
      if (heap.size < k) {
        heap.push({ index: i, value: v });
      } else {
        const top = heap.top().value;
        if (less(top, v) || top !== top) {
          heap.pop();
          heap.push({ index: i, value: v });
        }
      }
    }
    for (const heap of heaps.values()) {
      for (const { index, value } of sortedForOutput(heap.items, less)) {
        let out = outputs.get(index);
        if (out === undefined) {
          out = newSeries(input.series[index].labels, grid.steps);
          outputs.set(index, out);
          order.push(index);
        }
        out.values[j] = value;
        out.present[j] = 1;
      }
    }
  }
  return { kind: 'matrix', series: order.map((i) => outputs.get(i)!) };
}

function accumulate(op: VectorAggregationExpr['op'], acc: Accumulator, v: number): void {
  switch (op) {
    case 'sum':
      acc.value += v;
      break;
    case 'avg':
      acc.count++;
      if (acc.mean === Infinity || acc.mean === -Infinity) {
        if ((v === Infinity || v === -Infinity) && acc.mean > 0 === v > 0) break;
        if (v !== Infinity && v !== -Infinity && v === v) break;
      }
      acc.mean += (v - acc.mean) / acc.count;
      break;
    case 'max':
      if (acc.value < v || acc.value !== acc.value) acc.value = v;
      break;
    case 'min':
      if (acc.value > v || acc.value !== acc.value) acc.value = v;
      break;
    case 'count':
      acc.count++;
      break;
    case 'stddev':
    case 'stdvar': {
      acc.count++;
      const delta = v - acc.mean;
      acc.mean += delta / acc.count;
      acc.value += delta * (v - acc.mean);
      break;
    }
    default:
      break;
  }
}

function finish(op: VectorAggregationExpr['op'], acc: Accumulator): number {
  switch (op) {
    case 'avg':
      return acc.mean;
    case 'count':
      return acc.count;
    case 'stddev':
      return Math.sqrt(acc.value / acc.count);
    case 'stdvar':
      return acc.value / acc.count;
    default:
      return acc.value;
  }
}

/** evaluateVectorAggregation aggregates `input` step by step. */
export function evaluateVectorAggregation(ctx: EvalContext, expr: VectorAggregationExpr, input: StepMatrix, grid: Grid): StepMatrix {
  const op = expr.op;
  if (op === 'topk' || op === 'bottomk' || op === 'sort' || op === 'sort_desc' || op === 'approx_topk') {
    return selectOp(ctx, expr, input, grid);
  }
  const without = expr.grouping?.without ?? false;
  const names = expr.grouping?.labels ?? [];
  const groupOf = input.series.map((s) => groupLabels(ctx.labelCache, s.labels.labels, without, names));
  const outputs = new Map<string, StepSeries<ResultLabels>>();
  for (let j = 0; j < grid.steps; j++) {
    const accs = new Map<string, Accumulator>();
    for (let i = 0; i < input.series.length; i++) {
      const s = input.series[i];
      if (s.present[j] !== 1) continue;
      const v = s.values[j];
      const group = groupOf[i];
      const acc = accs.get(group.key);
      if (acc === undefined) {
        accs.set(group.key, { labels: group, value: op === 'stddev' || op === 'stdvar' ? 0 : v, mean: v, count: 1 });
        continue;
      }
      accumulate(op, acc, v);
    }
    for (const [key, acc] of accs) {
      let out = outputs.get(key);
      if (out === undefined) {
        out = newSeries(acc.labels, grid.steps);
        outputs.set(key, out);
      }
      out.values[j] = finish(op, acc);
      out.present[j] = 1;
    }
  }
  ctx.checkSeries(outputs.size);
  return { kind: 'matrix', series: [...outputs.values()] };
}
