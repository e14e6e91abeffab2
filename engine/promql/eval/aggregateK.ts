/**
 * The selecting aggregations: topk, bottomk, limitk and limit_ratio. They output input series
 * unchanged, so they keep their members; selection runs per step with the same binary heap
 * Prometheus uses (Go's container/heap), which also fixes the order of an instant result.
 */
import type { AggregateExpr } from '../ast.js';
import type { EvalContext } from './context.js';
import { evalError } from './context.js';
import { formatGoG } from '../../common/goFormat.js';
import type { StepGrid } from './grid.js';
import { Grouper } from './grouping.js';
import { dropMetricName, type Labels } from './labelset.js';
import { labelsHash } from './xxhash.js';
import { paramExtremes } from './aggregate.js';
import { materialize, type SeriesStream, type VectorSeries } from './series.js';
import { labelRanks, selectedBefore } from './rankedSelection.js';

const MIN_INT64 = -9223372036854775808;
const MAX_INT64 = 9223372036854775807;

/**
 * ValueHeap is Go's container/heap over (series index, value) entries with the ordering of
 * Prometheus' vectorByValueHeap (ascending, NaN lowest) or its reverse (descending, NaN first).
 */
class ValueHeap {
  readonly idx: number[] = [];
  readonly val: number[] = [];

  constructor(private readonly descending: boolean) {}

  get length(): number {
    return this.idx.length;
  }

  less(i: number, j: number): boolean {
    const a = this.val[i];
    const b = this.val[j];
    if (a !== a) return true;
    return this.descending ? a > b : a < b;
  }

  swap(i: number, j: number): void {
    const ti = this.idx[i];
    this.idx[i] = this.idx[j];
    this.idx[j] = ti;
    const tv = this.val[i];
    this.val[i] = this.val[j];
    this.val[j] = tv;
  }

  private up(j: number): void {
    for (;;) {
      const i = Math.trunc((j - 1) / 2);
      if (i === j || !this.less(j, i)) break;
      this.swap(i, j);
      j = i;
    }
  }

  private down(i0: number, n: number): boolean {
    let i = i0;
    for (;;) {
      const j1 = 2 * i + 1;
      if (j1 >= n) break;
      let j = j1;
      const j2 = j1 + 1;
      if (j2 < n && this.less(j2, j1)) j = j2;
      if (!this.less(j, i)) break;
      this.swap(i, j);
      i = j;
    }
    return i > i0;
  }

  push(index: number, value: number): void {
    this.idx.push(index);
    this.val.push(value);
    this.up(this.idx.length - 1);
  }

  /** replaceTop overwrites the root and restores the heap, as heap.Fix(h, 0). */
  replaceTop(index: number, value: number): void {
    this.idx[0] = index;
    this.val[0] = value;
    if (!this.down(0, this.idx.length)) this.up(0);
  }

  /**
   * sortReversed orders the entries as Go's sort.Sort(sort.Reverse(heap)): insertion sort for
   * small heaps (what Go does up to 12 elements), a stable merge otherwise.
   */
  sortReversed(): number[] {
    const n = this.idx.length;
    const order = Array.from({ length: n }, (_, i) => i);
    const lessRev = (a: number, b: number): boolean => {
      const va = this.val[b];
      const vb = this.val[a];
      if (va !== va) return true;
      return this.descending ? va > vb : va < vb;
    };
    if (n <= 12) {
      for (let i = 1; i < n; i++) {
        for (let j = i; j > 0 && lessRev(order[j], order[j - 1]); j--) {
          const t = order[j];
          order[j] = order[j - 1];
          order[j - 1] = t;
        }
      }
    } else {
      order.sort((a, b) => (lessRev(a, b) ? -1 : lessRev(b, a) ? 1 : 0));
    }
    return order.map((i) => this.idx[i]);
  }
}

/** MAX_UINT64 is 2^64 - 1 as a float, the divisor Prometheus normalises label hashes by. */
const MAX_UINT64 = Number((1n << 64n) - 1n);

/**
 * ratioOffset maps a label set to a fraction in [0, 1) from Prometheus' label hash, so that
 * limit_ratio picks the same series Prometheus picks.
 */
function ratioOffset(labels: Labels): number {
  return Number(labelsHash(labels)) / MAX_UINT64;
}

/** ratioAdmits tells whether a series with `offset` is sampled at ratio `r` in [-1, 1]. */
function ratioAdmits(r: number, offset: number): boolean {
  return (r >= 0 && offset < r) || (r < 0 && offset >= 1 + r);
}

/** validateParam applies Prometheus' checks on the k or ratio parameter; false means "no result". */
function validateParam(ctx: EvalContext, node: AggregateExpr, param: Float64Array): boolean {
  const { min, max, hasNaN } = paramExtremes(param);
  if (node.op === 'limit_ratio') {
    if (!hasNaN && max === 0 && min === 0) return false;
    if (hasNaN) throw evalError('Ratio value is NaN');
    if (max > 1) ctx.annotations.warn(`ratio value should be between -1 and 1, got ${formatGoG(max)}, capping to 1`, node.param!.pos);
    if (min < -1) ctx.annotations.warn(`ratio value should be between -1 and 1, got ${formatGoG(min)}, capping to -1`, node.param!.pos);
    return true;
  }
  if (!hasNaN && max < 1) return false;
  if (hasNaN) throw evalError('Parameter value is NaN');
  if (min <= MIN_INT64) throw evalError(`Scalar value ${formatGoG(min)} underflows int64`);
  if (max >= MAX_INT64) throw evalError(`Scalar value ${formatGoG(max)} overflows int64`);
  return true;
}

/**
 * aggregateSelect evaluates topk, bottomk, limitk and limit_ratio. An instant result lists each
 * group's selection in Prometheus' order (topk descending, bottomk ascending).
 */
export function aggregateSelect(ctx: EvalContext, node: AggregateExpr, stream: SeriesStream, grid: StepGrid, param: Float64Array): VectorSeries[] {
  const input = materialize(stream);
  if (!validateParam(ctx, node, param)) return [];
  const op = node.op;
  const grouper = new Grouper(node.grouping, node.without);
  const groupOf = new Int32Array(input.length);
  const groupIds = new Map<string, number>();
  for (let s = 0; s < input.length; s++) {
    const key = grouper.key(input[s].labels);
    let id = groupIds.get(key);
    if (id === undefined) {
      id = groupIds.size;
      groupIds.set(key, id);
    }
    groupOf[s] = id;
  }
  const offsets = op === 'limit_ratio' ? input.map((s) => ratioOffset(s.labels)) : null;
  // A range query selects by value and then labels (rankedSelection.ts); an instant query's
  // selection and order are Prometheus' heap's, which depend on the order series come in.
  const ranked = (op === 'topk' || op === 'bottomk') && ctx.queryStepMs > 0 ? new RankedSteps(ctx, input, groupOf, groupIds.size, op === 'bottomk') : undefined;
  const outputs = new Map<number, VectorSeries>();
  const ordered: VectorSeries[] = [];
  const emit = (s: number, step: number): void => {
    let out = outputs.get(s);
    if (out === undefined) {
      out = { labels: input[s].labels, values: new Float64Array(grid.count), present: new Uint8Array(grid.count), dropName: input[s].dropName };
      outputs.set(s, out);
      if (grid.count > 1) ordered.push(out);
    }
    out.values[step] = input[s].values[step];
    out.present[step] = 1;
    const histogram = input[s].histograms?.[step];
    if (histogram !== undefined) (out.histograms ??= new Array(grid.count))[step] = histogram;
    if (grid.count === 1) ordered.push(out);
  };
  if (ranked !== undefined) {
    const { min, max } = paramExtremes(param);
    // With one k for every step, all steps at once; a k that changes (scalar()) one step at a time.
    if (min === max && ranked.select(0, grid.count, Math.min(Math.trunc(min), input.length), emit)) return ordered;
  }
  for (let step = 0; step < grid.count; step++) {
    ctx.checkAbort();
    const p = param[step];
    let k = 0;
    let ratio = 0;
    if (op === 'limit_ratio') {
      if (p === 0) continue;
      ratio = Math.max(-1, Math.min(1, p));
    } else {
      k = Math.min(Math.trunc(p), input.length);
      if (k < 1) continue;
    }
    if (ranked !== undefined) {
      ranked.select(step, step + 1, k, emit);
      continue;
    }
    const heaps: (ValueHeap | undefined)[] = new Array(groupIds.size);
    for (let s = 0; s < input.length; s++) {
      const series = input[s];
      if (series.present[step] === 0) continue;
      const v = series.values[step];
      const g = groupOf[s];
      let heap = heaps[g];
      if (heap === undefined) heaps[g] = heap = new ValueHeap(op === 'bottomk');
      switch (op) {
        case 'topk':
        case 'bottomk': {
          if (heap.length < k) {
            heap.push(s, v);
            break;
          }
          const top = heap.val[0];
          const replace = (op === 'topk' ? top < v : top > v) || (top !== top && v === v);
          if (replace) heap.replaceTop(s, v);
          break;
        }
        case 'limitk':
          if (heap.length < k) heap.push(s, v);
          break;
        case 'limit_ratio':
          if (ratioAdmits(ratio, offsets![s])) heap.push(s, v);
          break;
        default:
          throw new Error(`aggregateSelect: unexpected aggregation ${op}`);
      }
    }
    for (const heap of heaps) {
      if (heap === undefined) continue;
      const members = op === 'topk' || op === 'bottomk' ? heap.sortReversed() : heap.idx;
      for (const s of members) emit(s, step);
    }
  }
  return ordered;
}

/** MAX_FLAT_SLOTS bounds the heap entries RankedSteps keeps for several steps at once (about 16 bytes each). */
const MAX_FLAT_SLOTS = 1 << 20;

/**
 * RankedSteps selects a range query's topk or bottomk: per group and step the k best present
 * values, ties broken by the series' labels as the result will show them (without the metric
 * name where its removal is pending), so the selection does not depend on input order.
 */
class RankedSteps {
  private readonly ranks: Int32Array;
  private readonly sizes: Int32Array;

  constructor(
    private readonly ctx: EvalContext,
    private readonly input: readonly VectorSeries[],
    private readonly groupOf: Int32Array,
    groups: number,
    private readonly smallestFirst: boolean,
  ) {
    this.ranks = labelRanks(input.map((s) => (ctx.delayedNameRemoval && s.dropName ? dropMetricName(s.labels) : s.labels)));
    this.sizes = new Int32Array(groups);
    for (let s = 0; s < input.length; s++) this.sizes[groupOf[s]]++;
  }

  /**
   * select selects steps [from, to) with one `k` and hands each choice to `emit`, series by
   * series: each series' values are read in order, where going step by step reads one value of
   * every series per step (a cache miss each over many series). Every (group, step) keeps its
   * heap in flat arrays, the values and ranks it compares beside the candidates, the worst at the
   * root. Over several steps it returns false, having done nothing, when those arrays would
   * exceed MAX_FLAT_SLOTS entries; one step needs at most one entry per series.
   */
  select(from: number, to: number, k: number, emit: (s: number, step: number) => void): boolean {
    if (k < 1) return true;
    const { input, groupOf, sizes, ranks, smallestFirst } = this;
    const steps = to - from;
    // Group g's heaps take min(k, its series) entries for each step, from offset[g] on.
    const capacity = new Int32Array(sizes.length);
    const offset = new Int32Array(sizes.length);
    let entries = 0;
    for (let g = 0; g < sizes.length; g++) {
      capacity[g] = Math.min(k, sizes[g]);
      offset[g] = entries;
      entries += capacity[g] * steps;
    }
    if (steps > 1 && entries > MAX_FLAT_SLOTS) return false;
    const kept = new Int32Array(entries);
    const keptValue = new Float64Array(entries);
    const keptRank = new Int32Array(entries);
    const length = new Int32Array(sizes.length * steps);
    for (let s = 0; s < input.length; s++) {
      this.ctx.checkAbort();
      const { values, present } = input[s];
      const r = ranks[s];
      const g = groupOf[s];
      for (let step = from; step < to; step++) {
        if (present[step] === 0) continue;
        const v = values[step];
        const slot = g * steps + step - from;
        const base = offset[g] + (step - from) * capacity[g];
        const n = length[slot];
        let at: number;
        if (n < k) {
          // Push: parents selected before v move down.
          length[slot] = n + 1;
          at = n;
          while (at > 0) {
            const parent = (at - 1) >> 1;
            if (!selectedBefore(keptValue[base + parent], keptRank[base + parent], v, r, smallestFirst)) break;
            kept[base + at] = kept[base + parent];
            keptValue[base + at] = keptValue[base + parent];
            keptRank[base + at] = keptRank[base + parent];
            at = parent;
          }
        } else if (selectedBefore(v, r, keptValue[base], keptRank[base], smallestFirst)) {
          // Replace the worst: children that v is selected before move up.
          at = 0;
          for (;;) {
            const left = 2 * at + 1;
            if (left >= n) break;
            let worst = left;
            if (left + 1 < n && selectedBefore(keptValue[base + left], keptRank[base + left], keptValue[base + left + 1], keptRank[base + left + 1], smallestFirst)) worst = left + 1;
            if (!selectedBefore(v, r, keptValue[base + worst], keptRank[base + worst], smallestFirst)) break;
            kept[base + at] = kept[base + worst];
            keptValue[base + at] = keptValue[base + worst];
            keptRank[base + at] = keptRank[base + worst];
            at = worst;
          }
        } else {
          continue;
        }
        kept[base + at] = s;
        keptValue[base + at] = v;
        keptRank[base + at] = r;
      }
    }
    for (let g = 0; g < sizes.length; g++) {
      for (let step = 0; step < steps; step++) {
        const base = offset[g] + step * capacity[g];
        const n = length[g * steps + step];
        for (let j = 0; j < n; j++) emit(kept[base + j], from + step);
      }
    }
    return true;
  }
}
