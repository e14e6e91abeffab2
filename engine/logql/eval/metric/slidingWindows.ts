/**
 * Range aggregations over windows that slide along one series, whose each window's answer
 * would otherwise read every sample of the window again at every step.
 */

/**
 * SlidingQuantile is quantile_over_time over windows sliding along one series. Sorting each
 * window's samples (quantileOf) costs its size times a logarithm at every step, so a range query whose windows
 * are much longer than its step (`[6h]` every 15 s, or `[1h]` every minute over a day) sorted
 * every sample hundreds of times: 32 s for 1M lines over 6 h at a 15 s step. Here the series is
 * sorted once: each sample gets its rank in the series' order (Loki's: NaN first, then
 * ascending, -0 before +0), a Fenwick tree counts the ranks present in the window as samples
 * enter and leave it, and the window's k-th smallest is found by descending the tree. Each
 * step then costs a few logarithms. The answer is the one quantileOf gives: the same two
 * order statistics, the same interpolation.
 */
export class SlidingQuantile {
  /** rankOf[i] is sample i's place in the series' order (ties take consecutive places). */
  private readonly rankOf: Int32Array;
  /** byRank[r] is the value at place r. */
  private readonly byRank: Float64Array;
  /** tree is a Fenwick tree over places 1..n counting the samples in the window. */
  private readonly tree: Int32Array;
  /** top is the highest power of two not above n, where the descent starts. */
  private readonly top: number;
  private count = 0;

  constructor(
    values: Float64Array,
    private readonly n: number,
  ) {
    // Float64Array's sort puts -0 before +0 and NaN last; Loki's order puts NaN first.
    const sorted = values.slice(0, n).sort();
    let nans = 0;
    while (nans < n && sorted[n - 1 - nans] !== sorted[n - 1 - nans]) nans++;
    const numeric = n - nans;
    const byRank = new Float64Array(n);
    byRank.fill(NaN, 0, nans);
    byRank.set(sorted.subarray(0, numeric), nans);
    const rankOf = new Int32Array(n);
    // used[s] counts the samples placed so far in the run of equal values starting at s.
    const used = new Int32Array(numeric);
    let nansPlaced = 0;
    for (let i = 0; i < n; i++) {
      const v = values[i];
      if (v !== v) {
        rankOf[i] = nansPlaced++;
      } else {
        const start = firstNotBefore(sorted, numeric, v);
        rankOf[i] = nans + start + used[start]++;
      }
    }
    this.rankOf = rankOf;
    this.byRank = byRank;
    this.tree = new Int32Array(n + 1);
    let top = 1;
    while (top * 2 <= n) top *= 2;
    this.top = top;
  }

  /** add puts sample i in the window. */
  add(i: number): void {
    const tree = this.tree;
    for (let r = this.rankOf[i] + 1; r <= this.n; r += r & -r) tree[r]++;
    this.count++;
  }

  /** remove takes sample i out of the window. */
  remove(i: number): void {
    const tree = this.tree;
    for (let r = this.rankOf[i] + 1; r <= this.n; r += r & -r) tree[r]--;
    this.count--;
  }

  /** quantile is quantileOf(q) over the samples in the window (at least one). */
  quantile(q: number): number {
    if (q < 0) return -Infinity;
    if (q > 1) return Infinity;
    const n = this.count;
    const rank = q * (n - 1);
    const lower = Math.max(0, Math.floor(rank));
    const upper = Math.min(n - 1, lower + 1);
    const weight = rank - Math.floor(rank);
    return this.kth(lower) * (1 - weight) + this.kth(upper) * weight;
  }

  /** kth is the value of the window's k-th smallest sample, k from 0. */
  private kth(k: number): number {
    const tree = this.tree;
    let place = 0;
    let remaining = k + 1;
    for (let step = this.top; step > 0; step >>= 1) {
      const next = place + step;
      if (next <= this.n && tree[next] < remaining) {
        place = next;
        remaining -= tree[next];
      }
    }
    return this.byRank[place];
  }
}

/**
 * firstNotBefore is the first index of sorted[0, length) whose value does not come before `v`
 * in Float64Array's order, where -0 comes before +0.
 */
function firstNotBefore(sorted: Float64Array, length: number, v: number): number {
  let lo = 0;
  let hi = length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const x = sorted[mid];
    if (x < v || (x === 0 && v === 0 && 1 / x < 1 / v)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * SlidingExtreme answers min_over_time or max_over_time for windows sliding along one series,
 * as minOf and maxOf do over each window (NaN only when every sample is NaN; of equal extremes
 * the earliest, so -0 and +0 come out as they went in), in one pass over the series: a queue
 * of the samples that can still be the window's extreme, oldest first, each better than those
 * before it.
 */
export class SlidingExtreme {
  private readonly queue: Int32Array;
  private head = 0;
  private tail = 0;

  constructor(
    private readonly values: Float64Array,
    n: number,
    private readonly max: boolean,
  ) {
    this.queue = new Int32Array(n);
  }

  /** add puts sample i in the window; samples come in index order. */
  add(i: number): void {
    const values = this.values;
    const v = values[i];
    if (v !== v) return;
    const queue = this.queue;
    if (this.max) while (this.tail > this.head && values[queue[this.tail - 1]] < v) this.tail--;
    else while (this.tail > this.head && values[queue[this.tail - 1]] > v) this.tail--;
    queue[this.tail++] = i;
  }

  /** remove takes sample i out of the window; samples leave in index order. */
  remove(i: number): void {
    if (this.tail > this.head && this.queue[this.head] === i) this.head++;
  }

  /** value is the window's extreme, NaN when it holds only NaN. */
  value(): number {
    return this.tail > this.head ? this.values[this.queue[this.head]] : NaN;
  }
}
