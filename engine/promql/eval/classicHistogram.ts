/**
 * histogram_quantile and histogram_fraction over classic histograms: series that share every
 * label but `le` form one histogram whose buckets are cumulative counts up to `le`. The bucket
 * rules are Prometheus': buckets sorted by bound and coalesced, tiny float drifts ignored,
 * decreasing counts forced monotonic (with an info note), +Inf bucket required, linear
 * interpolation with a natural lower bound of 0.
 */
import { quoteGoString } from '../../common/quote.js';
import type { PositionRange } from '../../errors.js';
import { almostEqual } from './almost.js';
import type { EvalContext } from './context.js';
import { formatGoG } from '../../common/goFormat.js';
import { stepTime, type StepGrid } from './grid.js';
import { evalError } from './context.js';
import { DUPLICATE_LABELSET } from './dedupe.js';
import { parseGoFloat } from '../../common/goFloat.js';
import { dropMetricName, labelsKey, metricNameOf, removeLabels, withLabel, type Labels } from './labelset.js';
import type { VectorSeries } from './series.js';

/** SMALL_DELTA_TOLERANCE is the relative difference between buckets treated as float noise. */
const SMALL_DELTA_TOLERANCE = 1e-12;

const LE_ONLY: ReadonlySet<string> = new Set(['le']);

/** bucketBound reads an `le` label value with strconv.ParseFloat; null when it is not a number. */
export function bucketBound(text: string): number | null {
  const parsed = parseGoFloat(text);
  return parsed.ok ? parsed.value : null;
}

/** Buckets is a classic histogram at one step: each bucket's upper bound and cumulative count. */
export interface Buckets {
  bounds: number[];
  counts: number[];
}

/**
 * StepBuckets is Buckets gathered afresh at every step into the same arrays: its first `n`
 * entries are the step's. The arrays keep their largest length, where emptying them (length 0)
 * gave their storage back and every step allocated it again.
 */
interface StepBuckets extends Buckets {
  n: number;
}

/** sortAndCoalesce orders buckets by bound and merges equal bounds. */
function sortAndCoalesce(b: Buckets): Buckets {
  const order = b.bounds.map((_, i) => i).sort((x, y) => (b.bounds[x] < b.bounds[y] ? -1 : b.bounds[x] > b.bounds[y] ? 1 : 0));
  const bounds: number[] = [];
  const counts: number[] = [];
  for (const i of order) {
    const last = bounds.length - 1;
    if (last >= 0 && bounds[last] === b.bounds[i]) counts[last] += b.counts[i];
    else {
      bounds.push(b.bounds[i]);
      counts.push(b.counts[i]);
    }
  }
  return { bounds, counts };
}

/** Monotonicity describes the repairs ensureMonotonic made. */
interface Monotonicity {
  forced: boolean;
  minBucket: number;
  maxBucket: number;
  maxDiff: number;
}

/**
 * repairs is what the last quantile's ensureMonotonic did, and `repaired` whether it ran: one
 * object for every call, as a quantile is taken per histogram and step and an object per call
 * was most of what histogram_quantile allocated.
 */
const repairs: Monotonicity = { forced: false, minBucket: Infinity, maxBucket: -Infinity, maxDiff: 0 };
let repaired = false;

/** ensureMonotonic irons out float noise and decreasing counts of the first `n` buckets in place, noting what it did in `repairs`. */
function ensureMonotonic(b: Buckets, n: number): void {
  const result = repairs;
  result.forced = false;
  result.minBucket = Infinity;
  result.maxBucket = -Infinity;
  result.maxDiff = 0;
  repaired = true;
  let prev = b.counts[0];
  for (let i = 1; i < n; i++) {
    const curr = b.counts[i];
    if (curr === prev) continue;
    if (almostEqual(prev, curr, SMALL_DELTA_TOLERANCE)) {
      b.counts[i] = prev;
      continue;
    }
    if (curr < prev) {
      b.counts[i] = prev;
      result.forced = true;
      result.minBucket = Math.min(result.minBucket, b.bounds[i]);
      result.maxBucket = Math.max(result.maxBucket, b.bounds[i]);
      result.maxDiff = Math.max(result.maxDiff, prev - curr);
      continue;
    }
    prev = curr;
  }
}

/** bucketQuantile is Prometheus' BucketQuantile over unsorted buckets. */
export function bucketQuantile(q: number, raw: Buckets): { value: number; monotonicity: Monotonicity | null } {
  const sorted = sortAndCoalesce(raw);
  const value = sortedBucketQuantile(q, sorted, sorted.bounds.length);
  return { value, monotonicity: repaired ? { ...repairs } : null };
}

/**
 * sortedBucketQuantile is BucketQuantile over the first `n` buckets, already sorted by bound
 * and coalesced; it may change their counts. `repaired` then says whether it checked them for
 * monotonicity, and `repairs` what it changed.
 */
function sortedBucketQuantile(q: number, b: Buckets, n: number): number {
  repaired = false;
  if (q !== q) return NaN;
  if (q < 0) return -Infinity;
  if (q > 1) return Infinity;
  if (b.bounds[n - 1] !== Infinity) return NaN;
  ensureMonotonic(b, n);
  if (n < 2) return NaN;
  const observations = b.counts[n - 1];
  if (observations === 0) return NaN;
  let rank = q * observations;
  let idx = 0;
  let hiIdx = n - 1;
  while (idx < hiIdx) {
    const m = (idx + hiIdx) >>> 1;
    if (b.counts[m] >= rank) hiIdx = m;
    else idx = m + 1;
  }
  if (idx === n - 1) return b.bounds[n - 2];
  if (idx === 0 && b.bounds[0] <= 0) return b.bounds[0];
  let bucketStart = 0;
  const bucketEnd = b.bounds[idx];
  let count = b.counts[idx];
  if (idx > 0) {
    bucketStart = b.bounds[idx - 1];
    count -= b.counts[idx - 1];
    rank -= b.counts[idx - 1];
  }
  return bucketStart + (bucketEnd - bucketStart) * (rank / count);
}

/** bucketFraction is Prometheus' BucketFraction: the share of observations in [lower, upper]. */
export function bucketFraction(lower: number, upper: number, raw: Buckets): number {
  const sorted = sortAndCoalesce(raw);
  return sortedBucketFraction(lower, upper, sorted, sorted.bounds.length);
}

/** sortedBucketFraction is BucketFraction over the first `n` buckets, already sorted by bound and coalesced. */
function sortedBucketFraction(lower: number, upper: number, b: Buckets, n: number): number {
  if (b.bounds[n - 1] !== Infinity) return NaN;
  const count = b.counts[n - 1];
  if (count === 0 || lower !== lower || upper !== upper) return NaN;
  if (lower >= upper) return 0;
  let rank = 0;
  let lowerRank = 0;
  let upperRank = 0;
  let lowerSet = false;
  let upperSet = false;
  let lowerBound = b.bounds[0] <= 0 ? -Infinity : 0;
  for (let i = 0; i < n; i++) {
    if (i > 0) lowerBound = b.bounds[i - 1];
    const upperBound = b.bounds[i];
    const bucketCount = b.counts[i];
    const interpolate = (v: number): number =>
      lowerBound === -Infinity ? bucketCount : rank + ((bucketCount - rank) * (v - lowerBound)) / (upperBound - lowerBound);
    if (!lowerSet && lowerBound >= lower) {
      lowerRank = rank;
      lowerSet = true;
    }
    if (!upperSet && lowerBound >= upper) {
      upperRank = rank;
      upperSet = true;
    }
    if (lowerSet && upperSet) break;
    if (!lowerSet && lowerBound < lower && upperBound > lower) {
      lowerRank = interpolate(lower);
      lowerSet = true;
    }
    if (!upperSet && lowerBound < upper && upperBound > upper) {
      upperRank = interpolate(upper);
      upperSet = true;
    }
    if (lowerSet && upperSet) break;
    rank = bucketCount;
  }
  if (!lowerSet || lowerRank > count) lowerRank = count;
  if (!upperSet || upperRank > count) upperRank = count;
  return (upperRank - lowerRank) / count;
}

/** HistogramGroup is one classic histogram: its member bucket series and their bounds. */
interface HistogramGroup {
  labels: Labels;
  name: string;
  members: number[];
  bounds: number[];
  /**
   * byBound lists positions in `members` ordered by bound (stable, so equal bounds keep their
   * order and coalesce in it), when no bound is NaN: a step's buckets are then gathered already
   * sorted, as sortAndCoalesce would order them. Undefined sorts each step.
   */
  byBound?: number[];
}

/** withBoundOrder sets a group's byBound once its members are known. */
function withBoundOrder(group: HistogramGroup): void {
  if (group.bounds.some((b) => b !== b)) return;
  group.byBound = group.bounds.map((_, k) => k).sort((x, y) => group.bounds[x] - group.bounds[y] || x - y);
}

/**
 * stepBuckets gathers a group's buckets present at step i into `into` (its first `into.n`
 * entries), sorted by bound and coalesced; false when none is present.
 */
function stepBuckets(group: HistogramGroup, input: readonly VectorSeries[], i: number, into: StepBuckets): boolean {
  into.n = 0;
  const order = group.byBound;
  if (order === undefined) {
    const raw: Buckets = { bounds: [], counts: [] };
    for (let k = 0; k < group.members.length; k++) {
      const member = input[group.members[k]];
      if (member.present[i] === 0) continue;
      raw.bounds.push(group.bounds[k]);
      raw.counts.push(member.values[i]);
    }
    if (raw.bounds.length === 0) return false;
    const sorted = sortAndCoalesce(raw);
    for (let k = 0; k < sorted.bounds.length; k++) {
      into.bounds[k] = sorted.bounds[k];
      into.counts[k] = sorted.counts[k];
    }
    into.n = sorted.bounds.length;
    return true;
  }
  let n = 0;
  for (let j = 0; j < order.length; j++) {
    const k = order[j];
    const member = input[group.members[k]];
    if (member.present[i] === 0) continue;
    const bound = group.bounds[k];
    if (n > 0 && into.bounds[n - 1] === bound) into.counts[n - 1] += member.values[i];
    else {
      into.bounds[n] = bound;
      into.counts[n] = member.values[i];
      n++;
    }
  }
  into.n = n;
  return n > 0;
}

/**
 * ClassicHistogramFn is what to compute per histogram and step: a quantile q, or the fraction
 * between two bounds.
 */
export type ClassicHistogramFn =
  | { kind: 'quantile'; q: Float64Array }
  | { kind: 'quantiles'; label: string; qs: Float64Array[] }
  | { kind: 'fraction'; lower: Float64Array; upper: Float64Array };

/** formatOpenMetricsFloat renders a quantile for histogram_quantiles' label: Go's %g, with ".0" on integers. */
export function formatOpenMetricsFloat(v: number): string {
  const text = formatGoG(v);
  if (Number.isNaN(v) || !Number.isFinite(v)) return text;
  return /[e.]/.test(text) ? text : `${text}.0`;
}

/**
 * classicHistogram groups bucket series into histograms (every label but `le` equal) and
 * evaluates the quantile or fraction of each at every step where it has buckets.
 */
export function classicHistogram(ctx: EvalContext, fn: ClassicHistogramFn, input: VectorSeries[], grid: StepGrid, vectorPos: PositionRange): VectorSeries[] {
  const groups = new Map<string, HistogramGroup>();
  const order: HistogramGroup[] = [];
  const bounds: number[] = new Array(input.length);
  const badBucket: boolean[] = new Array(input.length).fill(false);
  for (let s = 0; s < input.length; s++) {
    const labels = input[s].labels;
    const le = bucketBound(labels.le ?? '');
    if (le === null) {
      badBucket[s] = true;
      continue;
    }
    bounds[s] = le;
    const withoutLe = removeLabels(labels, LE_ONLY);
    const key = labelsKey(withoutLe);
    let group = groups.get(key);
    if (group === undefined) {
      group = { labels: withoutLe, name: metricNameOf(labels), members: [], bounds: [] };
      groups.set(key, group);
      order.push(group);
    }
    group.members.push(s);
    group.bounds.push(le);
  }
  for (let s = 0; s < input.length; s++) {
    if (!badBucket[s]) continue;
    let present = false;
    for (let i = 0; i < grid.count && !present; i++) present = input[s].present[i] !== 0;
    if (!present) continue;
    const name = ctx.delayedNameRemoval ? metricNameOf(input[s].labels) : '';
    const le = input[s].labels.le ?? '';
    let message = `bucket label "le" is missing or has a malformed value of ${quoteGoString(le)}`;
    if (name !== '') message += ` for metric name ${quoteGoString(name)}`;
    ctx.annotations.warn(message, vectorPos);
  }
  for (const group of order) withBoundOrder(group);
  const outputs = new Map<string, VectorSeries>();
  const out: VectorSeries[] = [];
  /** outputFor is the result series with these labels, made the first time they are written. */
  const outputFor = (labels: Labels): VectorSeries => {
    const key = labelsKey(labels);
    let series = outputs.get(key);
    if (series === undefined) {
      series = { labels, values: new Float64Array(grid.count), present: new Uint8Array(grid.count), dropName: true };
      outputs.set(key, series);
      out.push(series);
      ctx.holdSamples(grid.count);
    }
    return series;
  };
  /** write stores one result, failing if two histograms produce the same labels at a step. */
  const write = (series: VectorSeries, step: number, value: number): void => {
    if (series.present[step] !== 0) throw evalError(DUPLICATE_LABELSET);
    series.values[step] = value;
    series.present[step] = 1;
  };
  const quantile = (group: HistogramGroup, q: number, step: number, buckets: StepBuckets): number => {
    const value = sortedBucketQuantile(q, buckets, buckets.n);
    if (repaired && repairs.forced) {
      const name = ctx.delayedNameRemoval ? group.name : '';
      ctx.annotations.forcedMonotonicity(name, vectorPos, stepTime(grid, step), repairs.minBucket, repairs.maxBucket, repairs.maxDiff);
    }
    return value;
  };
  const qCount = fn.kind === 'quantiles' ? fn.qs.length : 1;
  // One buckets object for every step: each step's buckets are gathered into it afresh.
  const buckets: StepBuckets = { bounds: [], counts: [], n: 0 };
  for (let qi = 0; qi < qCount; qi++) {
    for (const group of order) {
      const labels = ctx.delayedNameRemoval ? group.labels : dropMetricName(group.labels);
      // The series written to, made on first write; with several quantiles, per quantile value.
      let series: VectorSeries | undefined;
      let seriesQ = NaN;
      for (let i = 0; i < grid.count; i++) {
        if (!stepBuckets(group, input, i, buckets)) continue;
        switch (fn.kind) {
          case 'quantile':
            series ??= outputFor(labels);
            write(series, i, quantile(group, fn.q[i], i, buckets));
            break;
          case 'quantiles': {
            const q = fn.qs[qi][i];
            if (series === undefined || !Object.is(q, seriesQ)) {
              series = outputFor(withLabel(labels, fn.label, formatOpenMetricsFloat(q)));
              seriesQ = q;
            }
            write(series, i, quantile(group, q, i, buckets));
            break;
          }
          case 'fraction':
            series ??= outputFor(labels);
            write(series, i, sortedBucketFraction(fn.lower[i], fn.upper[i], buckets, buckets.n));
            break;
        }
      }
    }
  }
  return out;
}

/** quantileWarning is the annotation for a quantile outside [0, 1]. */
export function quantileWarning(q: number): string {
  return `quantile value should be between 0 and 1, got ${formatGoG(q)}`;
}
