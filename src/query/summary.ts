import { bucketQuantile as histogramBucketQuantile, labelsKey, seriesKeyOf, sortByLabels, type Labels, type SeriesColumns } from '../../engine/index.js';
import { PERCENTILES, WindowHistogram } from './histogramStats.js';
import type { SseEvent } from '../http/sse.js';
import type { SeriesRenderer } from './events.js';

interface SeriesStats {
  labels: Labels;
  min: number;
  max: number;
  sum: number;
  count: number;
  /** histograms adds the series' native histogram samples over the window (for percentiles). */
  histograms?: WindowHistogram;
}

/**
 * bucketQuantile is the quantile of a classic histogram given each bucket's upper bound and
 * its cumulative total, as histogram_quantile computes it (the engine's own function: linear
 * interpolation inside the bucket, a rank in the +Inf bucket answering the highest finite
 * bound, counts made monotonic as Prometheus makes them); undefined where it has no answer
 * (no +Inf bucket, fewer than two buckets, no observations).
 */
export function bucketQuantile(q: number, buckets: ReadonlyArray<{ le: number; total: number }>): number | undefined {
  const { value } = histogramBucketQuantile(q, { bounds: buckets.map((b) => b.le), counts: buckets.map((b) => b.total) });
  return Number.isNaN(value) ? undefined : value;
}

/**
 * SummaryAccumulator folds a query's points into per-series statistics as slices arrive, so a
 * summary over a long window never holds the points themselves. NaN and infinities are
 * skipped, as they are never emitted as points either.
 *
 * Series that differ only by `le` are a classic histogram: they are summarised together, once,
 * under their labels without `le`. Their percentiles come from the bucket totals over the
 * window (meaningful for the usual `rate(..._bucket[...])` or `increase` queries), and the
 * plain statistics describe the `+Inf` bucket, i.e. the observation count per step.
 *
 * A native histogram sample counts by its observation count (what histogram_count gives) in
 * the plain statistics, and the series' histograms added over the window give its
 * percentiles, interpolated as histogram_quantile does, and `observationAvg` (their sum over
 * their count, what histogram_avg gives for the window's total).
 */
export class SummaryAccumulator {
  private readonly stats = new Map<string, SeriesStats>();

  add(series: readonly SeriesColumns[]): void {
    for (const s of series) {
      const key = seriesKeyOf(s);
      let st = this.stats.get(key);
      if (!st) this.stats.set(key, (st = { labels: s.labels, min: Infinity, max: -Infinity, sum: 0, count: 0 }));
      const v = s.values;
      const hs = s.histograms;
      for (let i = 0; i < v.length; i++) {
        const h = hs?.[i];
        if (h !== undefined) (st.histograms ??= new WindowHistogram()).add(h);
        const x = h === undefined ? v[i] : h.count;
        if (!Number.isFinite(x)) continue;
        if (x < st.min) st.min = x;
        if (x > st.max) st.max = x;
        st.sum += x;
        st.count++;
      }
    }
  }

  events(renderer: SeriesRenderer): SseEvent[] {
    const histograms = new Map<string, { labels: Labels; buckets: Array<{ le: number; stats: SeriesStats }> }>();
    const plain: SeriesStats[] = [];
    // In label order, as a range result lists its series: the events do not depend on how the
    // steps were split into slices or served from the results cache.
    for (const st of sortByLabels([...this.stats.values()], (x) => x.labels)) {
      const le = st.labels.le;
      const bound = le === undefined ? NaN : le === '+Inf' ? Infinity : Number(le);
      if (Number.isNaN(bound)) {
        plain.push(st);
        continue;
      }
      const { le: _le, ...rest } = st.labels;
      const key = labelsKey(rest);
      let group = histograms.get(key);
      if (!group) histograms.set(key, (group = { labels: rest, buckets: [] }));
      group.buckets.push({ le: bound, stats: st });
    }
    const out: SseEvent[] = [];
    for (const group of histograms.values()) {
      const inf = group.buckets.find((b) => b.le === Infinity);
      if (!inf || group.buckets.length < 2) {
        plain.push(...group.buckets.map((b) => b.stats));
        continue;
      }
      const event = statsEvent(renderer, group.labels, inf.stats);
      if (!event) continue;
      const totals = group.buckets.map((b) => ({ le: b.le, total: b.stats.sum }));
      for (const [name, q] of PERCENTILES) {
        const value = bucketQuantile(q, totals);
        if (value !== undefined && Number.isFinite(value)) (event.data as Record<string, unknown>)[name] = value;
      }
      out.push(event);
    }
    for (const st of plain) {
      const event = statsEvent(renderer, st.labels, st);
      if (!event) continue;
      const window = st.histograms?.stats();
      if (window !== undefined) {
        Object.assign(event.data as Record<string, unknown>, window.percentiles);
        if (window.mean !== undefined) (event.data as Record<string, unknown>).observationAvg = window.mean;
      }
      out.push(event);
    }
    return out;
  }
}

function statsEvent(renderer: SeriesRenderer, labels: Labels, st: SeriesStats): SseEvent | undefined {
  if (st.count === 0) return undefined;
  const { tags, label } = renderer.of(labels);
  return { type: 'result', data: { label, tags, min: st.min, max: st.max, avg: st.sum / st.count, sum: st.sum, count: st.count } };
}
