/**
 * SeriesStore gathers a metrics stream's `result` events (one per series and timestamp, series
 * interleaved) into series, so a chart can be redrawn from what has arrived so far.
 */

export interface Series {
  label: string;
  tags: Record<string, string>;
  /** points by timestamp (ms). */
  points: Map<number, number>;
  /** query is the index of the panel query that produced the series. */
  query: number;
  /** histogram: the series holds native histogram samples, drawn as their observation count. */
  histogram?: boolean;
}

/** HISTOGRAM_NOTE says how a panel draws native histogram series, shown beside them. */
export const HISTOGRAM_NOTE =
  'Native histogram series are drawn as their observation count (histogram_count); ask for histogram_quantile(0.9, …) or histogram_avg(…) to see latencies.';

export class SeriesStore {
  readonly series = new Map<string, Series>();
  /** histograms: some series held native histogram samples (see HISTOGRAM_NOTE). */
  histograms = false;

  add(query: number, data: Record<string, unknown>): void {
    const tags = (data.tags ?? {}) as Record<string, unknown>;
    const label = typeof data.label === 'string' ? data.label : JSON.stringify(tags);
    const key = `${query}\u0000${label}`;
    let s = this.series.get(key);
    if (!s) {
      const stringTags: Record<string, string> = {};
      for (const [k, v] of Object.entries(tags)) stringTags[k] = String(v);
      s = { label, tags: stringTags, points: new Map(), query };
      this.series.set(key, s);
    }
    if (typeof data.timestamp !== 'number') return;
    // A native histogram sample (`histogram` instead of `value`) has no one value: its
    // observation count stands for it.
    const histogram = data.histogram as { count?: unknown } | undefined;
    if (histogram !== undefined && typeof histogram.count === 'number') {
      s.points.set(data.timestamp, histogram.count);
      s.histogram = true;
      this.histograms = true;
    } else if (typeof data.value === 'number') s.points.set(data.timestamp, data.value);
  }

  /**
   * list gives the series in the order of the panel's queries, each query's in the order they
   * arrived: which query's stream answers first (or was already running when the panel took it
   * over, lib/queryPrefetch.ts) must not change the legend or a stack's order.
   */
  list(): Series[] {
    return [...this.series.values()].sort((a, b) => a.query - b.query);
  }
}

/** AlignedData is uPlot's layout: shared x values (seconds) and one y array per series. */
export type AlignedData = [number[], ...Array<Array<number | null>>];

/** align puts series on one sorted time axis, with null where a series has no point. */
export function align(series: readonly Series[]): AlignedData {
  const stamps = new Set<number>();
  for (const s of series) for (const t of s.points.keys()) stamps.add(t);
  const xs = [...stamps].sort((a, b) => a - b);
  const ys = series.map((s) => xs.map((t) => s.points.get(t) ?? null));
  return [xs.map((t) => t / 1000), ...ys];
}

export type Reducer = 'last' | 'mean' | 'max' | 'min' | 'sum';

/** reduce folds a series to one number, in time order; undefined when it has no points. */
export function reduce(series: Series, reducer: Reducer = 'last'): number | undefined {
  const values = [...series.points.entries()].sort((a, b) => a[0] - b[0]).map((e) => e[1]);
  if (values.length === 0) return undefined;
  switch (reducer) {
    case 'last':
      return values[values.length - 1];
    case 'sum':
      return values.reduce((a, b) => a + b, 0);
    case 'mean':
      return values.reduce((a, b) => a + b, 0) / values.length;
    case 'max':
      return Math.max(...values);
    case 'min':
      return Math.min(...values);
  }
}

/** movingAverage smooths a y array over `window` points, skipping gaps. */
export function movingAverage(ys: ReadonlyArray<number | null>, window = 5): Array<number | null> {
  return ys.map((y, i) => {
    if (y === null) return null;
    let sum = 0;
    let n = 0;
    for (let j = Math.max(0, i - window + 1); j <= i; j++) {
      const v = ys[j];
      if (v !== null && v !== undefined) {
        sum += v;
        n++;
      }
    }
    return n === 0 ? null : sum / n;
  });
}
