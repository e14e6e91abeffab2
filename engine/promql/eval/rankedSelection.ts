/**
 * Ranked selection: the k best of a set of values under a total order (value, then label set),
 * as a range query's topk and bottomk select at each step. Prometheus leaves the choice between
 * equal values at the k-th place to the order its intermediate results happen to come in (hash
 * map order in a range evaluation), so any fixed rule answers as it may; breaking ties by labels
 * makes the choice independent of input order. That is what lets a query be split by series:
 * the k best of all series are among the k best of each shard, so the shards' selections merge
 * into exactly the selection one evaluation makes (engine/query/shards.ts).
 */
import { inNameOrder, type Labels } from '../../storage/labels.js';
import { sortByLabels } from './labelset.js';

/**
 * labelRanks numbers label sets in label order (Prometheus' labels.Compare, names taken in
 * name order): rank i is smaller than rank j when set i sorts first. Equal sets get distinct
 * ranks in input order.
 */
export function labelRanks(labels: readonly Labels[]): Int32Array {
  const ordered = labels.map(inNameOrder);
  const order = sortByLabels(
    ordered.map((_, i) => i),
    (i) => ordered[i],
  );
  const ranks = new Int32Array(labels.length);
  for (let r = 0; r < order.length; r++) ranks[order[r]] = r;
  return ranks;
}

/**
 * selectedBefore tells whether value `v` of rank `rv` is selected before value `w` of rank `rw`:
 * the larger value first (the smaller with `smallestFirst`, for bottomk), NaN after every
 * number (both topk and bottomk give way to any number over NaN, as Prometheus' do), and equal
 * values (NaN with NaN) by rank.
 */
export function selectedBefore(v: number, rv: number, w: number, rw: number, smallestFirst: boolean): boolean {
  if (v !== v) return w !== w && rv < rw;
  if (w !== w) return true;
  if (v !== w) return smallestFirst ? v < w : v > w;
  return rv < rw;
}

/**
 * BestK keeps the best `k` candidates offered to it under `before` (a strict total order):
 * a binary heap whose root is the worst kept, so an offer costs O(log k) and most offers, worse
 * than the root, one comparison. Candidates are numbers the caller gives meaning to.
 */
export class BestK {
  private readonly kept: number[] = [];

  constructor(
    private readonly k: number,
    private readonly before: (a: number, b: number) => boolean,
  ) {}

  /** members lists the kept candidates, in no particular order. */
  get members(): readonly number[] {
    return this.kept;
  }

  offer(candidate: number): void {
    const kept = this.kept;
    if (kept.length < this.k) {
      kept.push(candidate);
      this.up(kept.length - 1);
    } else if (this.k > 0 && this.before(candidate, kept[0])) {
      kept[0] = candidate;
      this.down(0);
    }
  }

  /** up moves entry j towards the root while its parent is selected before it. */
  private up(j: number): void {
    const kept = this.kept;
    while (j > 0) {
      const parent = (j - 1) >> 1;
      if (!this.before(kept[parent], kept[j])) break;
      const t = kept[parent];
      kept[parent] = kept[j];
      kept[j] = t;
      j = parent;
    }
  }

  /** down moves entry i away from the root while a child comes after it. */
  private down(i: number): void {
    const kept = this.kept;
    const n = kept.length;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= n) return;
      let worst = left;
      if (left + 1 < n && this.before(kept[left], kept[left + 1])) worst = left + 1;
      if (!this.before(kept[i], kept[worst])) return;
      const t = kept[i];
      kept[i] = kept[worst];
      kept[worst] = t;
      i = worst;
    }
  }
}
