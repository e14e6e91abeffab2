/**
 * DeltaAccumulator turns OTLP delta-temporality points (sums, explicit histograms and
 * exponential histograms) into cumulative ones, which is what Prometheus-style storage and
 * `rate()` expect. The caller keeps one accumulator per org (series of different orgs must
 * never add up) for the life of the process, and passes it to every OTLP metrics decode.
 *
 * How it works:
 * - Each series (metric name, type and label set) has a running total. A delta point adds its
 *   value (or bucket counts, count and sum) to the total, and the series is emitted with the
 *   total at the point's time.
 * - A point whose time is not after the last point accumulated for its series is rejected
 *   (counted, with a message) rather than added: it is either a retry of a request already
 *   accepted or out of order, and adding it would double count.
 * - An explicit histogram whose bucket boundaries change restarts its totals from the new
 *   point (a counter reset, which `rate()` understands).
 * - Exponential histograms are accumulated at the lowest scale seen so far, downscaling the
 *   total or the incoming point as needed, and are kept within MAX_EXPONENTIAL_BUCKETS per side
 *   by further downscaling. The zero threshold is the largest seen.
 * - The state lives in memory only: after a restart the totals start again from zero (again a
 *   counter reset). `maxSeries` bounds the state; a new series beyond it is rejected until
 *   `prune()` drops series that have not been updated for a while.
 * - A caller that may still refuse a decoded request (an org over its ingestion rate) wraps the
 *   decode in `begin()` and `rollback()` or `commit()`: a refused request must leave the totals
 *   as they were, or its retry would be rejected as already accumulated. The journal copies a
 *   series' state before its first change, so it costs nothing when not begun.
 */
import { downscaleIndex } from './expHistogram.js';
import type { ExponentialBuckets, ExponentialHistogramPoint } from './otlpMetricsModel.js';

/** DeltaOutcome is the cumulative value for a delta point, or why the point was not taken. */
export type DeltaOutcome<T> = { ok: true; value: T } | { ok: false; reason: string };

/** DeltaAccumulatorOptions configure a DeltaAccumulator. */
export interface DeltaAccumulatorOptions {
  /** how many series may be tracked at once (default 100 000) */
  maxSeries?: number;
}

/** CumulativeHistogram is the running total of an explicit-bucket histogram. */
export interface CumulativeHistogram {
  bucketCounts: number[];
  count: number;
  sum: number;
}

/** MAX_EXPONENTIAL_BUCKETS bounds each side of an accumulated exponential histogram. */
export const MAX_EXPONENTIAL_BUCKETS = 320;

interface SumState {
  kind: 'sum';
  lastTimeMs: number;
  total: number;
}

interface HistogramState {
  kind: 'histogram';
  lastTimeMs: number;
  bounds: number[];
  counts: number[];
  count: number;
  sum: number;
}

interface ExponentialState {
  kind: 'exponential';
  lastTimeMs: number;
  scale: number;
  zeroThreshold: number;
  zeroCount: number;
  count: number;
  sum: number;
  positive: Map<number, number>;
  negative: Map<number, number>;
}

type SeriesState = SumState | HistogramState | ExponentialState;

/** DeltaAccumulator keeps the running totals of delta series; see the module comment. */
export class DeltaAccumulator {
  private readonly states = new Map<string, SeriesState>();
  private readonly maxSeries: number;
  /** journal holds the states (undefined: absent) series had before this transaction changed them. */
  private journal: Map<string, SeriesState | undefined> | undefined;

  constructor(options: DeltaAccumulatorOptions = {}) {
    this.maxSeries = options.maxSeries ?? 100_000;
  }

  /** begin starts recording changes so that rollback() can undo them; transactions do not nest. */
  begin(): void {
    this.journal = new Map();
  }

  /** commit keeps the changes made since begin(). */
  commit(): void {
    this.journal = undefined;
  }

  /** rollback restores every series changed since begin() to its state before. */
  rollback(): void {
    const journal = this.journal;
    this.journal = undefined;
    if (journal === undefined) return;
    for (const [key, before] of journal) {
      if (before === undefined) this.states.delete(key);
      else this.states.set(key, before);
    }
  }

  /** remember journals the state of `key` before its first change in a transaction. */
  private remember(key: string): void {
    if (this.journal === undefined || this.journal.has(key)) return;
    const state = this.states.get(key);
    this.journal.set(key, state === undefined ? undefined : structuredClone(state));
  }

  /** size is the number of series currently tracked. */
  get size(): number {
    return this.states.size;
  }

  /** addSum adds a delta sum point and returns the running total. */
  addSum(seriesKey: string, timeMs: number, value: number): DeltaOutcome<number> {
    const key = `sum\x00${seriesKey}`;
    const state = this.states.get(key) as SumState | undefined;
    if (state === undefined) {
      const full = this.checkRoom();
      if (full !== undefined) return full;
      this.remember(key);
      this.states.set(key, { kind: 'sum', lastTimeMs: timeMs, total: value });
      return { ok: true, value };
    }
    const late = lateReason(state.lastTimeMs, timeMs);
    if (late !== undefined) return late;
    this.remember(key);
    state.lastTimeMs = timeMs;
    state.total += value;
    return { ok: true, value: state.total };
  }

  /** addHistogram adds a delta explicit-bucket histogram point and returns the running totals. */
  addHistogram(
    seriesKey: string,
    timeMs: number,
    bounds: readonly number[],
    bucketCounts: readonly number[],
    count: number,
    sum: number,
  ): DeltaOutcome<CumulativeHistogram> {
    const key = `histogram\x00${seriesKey}`;
    const state = this.states.get(key) as HistogramState | undefined;
    if (state === undefined || !sameBounds(state.bounds, bounds)) {
      if (state === undefined) {
        const full = this.checkRoom();
        if (full !== undefined) return full;
      } else {
        const late = lateReason(state.lastTimeMs, timeMs);
        if (late !== undefined) return late;
      }
      const fresh: HistogramState = {
        kind: 'histogram',
        lastTimeMs: timeMs,
        bounds: bounds.slice(),
        counts: bucketCounts.slice(),
        count,
        sum,
      };
      this.remember(key);
      this.states.set(key, fresh);
      return { ok: true, value: { bucketCounts: fresh.counts.slice(), count, sum } };
    }
    const late = lateReason(state.lastTimeMs, timeMs);
    if (late !== undefined) return late;
    this.remember(key);
    state.lastTimeMs = timeMs;
    for (let i = 0; i < state.counts.length; i++) state.counts[i] += bucketCounts[i] ?? 0;
    state.count += count;
    state.sum += sum;
    return { ok: true, value: { bucketCounts: state.counts.slice(), count: state.count, sum: state.sum } };
  }

  /**
   * addExponential adds a delta exponential histogram point and returns the running total as
   * a point (at the accumulated scale) with the input's attributes, times and flags.
   */
  addExponential(seriesKey: string, point: ExponentialHistogramPoint): DeltaOutcome<ExponentialHistogramPoint> {
    const key = `exponential\x00${seriesKey}`;
    let state = this.states.get(key) as ExponentialState | undefined;
    this.remember(key);
    if (state === undefined) {
      const full = this.checkRoom();
      if (full !== undefined) return full;
      state = {
        kind: 'exponential',
        lastTimeMs: Number.NEGATIVE_INFINITY,
        scale: point.scale,
        zeroThreshold: 0,
        zeroCount: 0,
        count: 0,
        sum: 0,
        positive: new Map(),
        negative: new Map(),
      };
      this.states.set(key, state);
    } else {
      const late = lateReason(state.lastTimeMs, point.timeMs);
      if (late !== undefined) return late;
    }
    state.lastTimeMs = point.timeMs;
    if (point.scale < state.scale) downscaleState(state, state.scale - point.scale);
    const shift = point.scale - state.scale;
    addBuckets(state.positive, point.positive, shift);
    addBuckets(state.negative, point.negative, shift);
    state.zeroThreshold = Math.max(state.zeroThreshold, point.zeroThreshold);
    state.zeroCount += point.zeroCount;
    state.count += point.count;
    state.sum += point.sum ?? 0;
    while (span(state.positive) > MAX_EXPONENTIAL_BUCKETS || span(state.negative) > MAX_EXPONENTIAL_BUCKETS) {
      downscaleState(state, 1);
    }
    return {
      ok: true,
      value: {
        attributes: point.attributes,
        startTimeMs: point.startTimeMs,
        timeMs: point.timeMs,
        flags: point.flags,
        count: state.count,
        sum: point.sum === undefined ? undefined : state.sum,
        scale: state.scale,
        zeroCount: state.zeroCount,
        zeroThreshold: state.zeroThreshold,
        positive: denseBuckets(state.positive),
        negative: denseBuckets(state.negative),
      },
    };
  }

  /** prune forgets series last updated before `olderThanMs` and returns how many it dropped. */
  prune(olderThanMs: number): number {
    let dropped = 0;
    for (const [key, state] of this.states) {
      if (state.lastTimeMs < olderThanMs) {
        this.states.delete(key);
        dropped++;
      }
    }
    return dropped;
  }

  /** clear forgets every series. */
  clear(): void {
    this.states.clear();
  }

  private checkRoom(): { ok: false; reason: string } | undefined {
    if (this.states.size < this.maxSeries) return undefined;
    return { ok: false, reason: `delta temporality state is full (${this.maxSeries} series); new delta series are refused` };
  }
}

function lateReason(lastTimeMs: number, timeMs: number): { ok: false; reason: string } | undefined {
  if (timeMs > lastTimeMs) return undefined;
  return {
    ok: false,
    reason:
      `delta point at ${new Date(timeMs).toISOString()} is not after the last accumulated point at ` +
      `${new Date(lastTimeMs).toISOString()} (a retry or out of order); not added, to avoid double counting`,
  };
}

function sameBounds(a: readonly number[], b: readonly number[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function addBuckets(into: Map<number, number>, from: ExponentialBuckets, shift: number): void {
  for (let k = 0; k < from.counts.length; k++) {
    const c = from.counts[k];
    if (c === 0) continue;
    const index = downscaleIndex(from.offset + k, shift);
    into.set(index, (into.get(index) ?? 0) + c);
  }
}

function downscaleState(state: ExponentialState, by: number): void {
  state.scale -= by;
  state.positive = downscaleMap(state.positive, by);
  state.negative = downscaleMap(state.negative, by);
}

function downscaleMap(buckets: Map<number, number>, by: number): Map<number, number> {
  const out = new Map<number, number>();
  for (const [index, c] of buckets) {
    const i = downscaleIndex(index, by);
    out.set(i, (out.get(i) ?? 0) + c);
  }
  return out;
}

function span(buckets: Map<number, number>): number {
  if (buckets.size === 0) return 0;
  let min = Infinity;
  let max = -Infinity;
  for (const index of buckets.keys()) {
    if (index < min) min = index;
    if (index > max) max = index;
  }
  return max - min + 1;
}

function denseBuckets(buckets: Map<number, number>): ExponentialBuckets {
  if (buckets.size === 0) return { offset: 0, counts: [] };
  let min = Infinity;
  let max = -Infinity;
  for (const index of buckets.keys()) {
    if (index < min) min = index;
    if (index > max) max = index;
  }
  const counts = new Array<number>(max - min + 1).fill(0);
  for (const [index, c] of buckets) counts[index - min] = c;
  return { offset: min, counts };
}
