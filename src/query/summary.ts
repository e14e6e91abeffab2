import { labelsKey, type Labels, type SeriesColumns } from '../../engine/index.js';
import type { SseEvent } from '../http/sse.js';
import type { SeriesRenderer } from './events.js';

interface SeriesStats {
  labels: Labels;
  min: number;
  max: number;
  sum: number;
  count: number;
}

/**
 * SummaryAccumulator folds a query's points into per-series statistics as slices arrive, so
 * a summary over a long window never holds the points themselves. NaN and infinities are
 * skipped, as they are never emitted as points either.
 */
export class SummaryAccumulator {
  private readonly stats = new Map<string, SeriesStats>();

  add(series: readonly SeriesColumns[]): void {
    for (const s of series) {
      const key = labelsKey(s.labels);
      let st = this.stats.get(key);
      if (!st) this.stats.set(key, (st = { labels: s.labels, min: Infinity, max: -Infinity, sum: 0, count: 0 }));
      const v = s.values;
      for (let i = 0; i < v.length; i++) {
        const x = v[i];
        if (!Number.isFinite(x)) continue;
        if (x < st.min) st.min = x;
        if (x > st.max) st.max = x;
        st.sum += x;
        st.count++;
      }
    }
  }

  /** events renders one result per series that had at least one finite point. */
  events(renderer: SeriesRenderer): SseEvent[] {
    const out: SseEvent[] = [];
    for (const st of this.stats.values()) {
      if (st.count === 0) continue;
      const { tags, label } = renderer.of(st.labels);
      out.push({ type: 'result', data: { label, tags, min: st.min, max: st.max, avg: st.sum / st.count, sum: st.sum, count: st.count } });
    }
    return out;
  }
}
