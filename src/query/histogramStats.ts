/**
 * What the plain-number views of query results (SSE summaries, the tool gateway's series lines
 * and charts) say about native histogram samples. A histogram sample has no single value; these
 * views read its observation count (what histogram_count gives: a rate of observations for
 * `rate(x[5m])`, a count for `increase`) as the point's value, and give the distribution as
 * percentiles of the series' histograms added over the window, interpolated as
 * histogram_quantile does, with the mean observation (sum over count).
 */
import { CompensatedSum, HistogramError, histogramQuantile, type FloatHistogram, type SeriesColumns } from '../../engine/index.js';

/** PERCENTILES are the quantiles the views report, by the names they use. */
export const PERCENTILES: ReadonlyArray<readonly [string, number]> = [
  ['p50', 0.5],
  ['p90', 0.9],
  ['p95', 0.95],
  ['p99', 0.99],
];

/** hasHistogramSamples tells whether any sample of the series is a native histogram. */
export function hasHistogramSamples(s: SeriesColumns): boolean {
  return s.histograms !== undefined && s.histograms.some((h) => h !== undefined);
}

/**
 * countValues is the series' values with each histogram sample replaced by its observation
 * count; the series' own array when it has none.
 */
export function countValues(s: SeriesColumns): Float64Array {
  const hs = s.histograms;
  if (hs === undefined || !hasHistogramSamples(s)) return s.values;
  const out = Float64Array.from(s.values);
  for (let i = 0; i < out.length; i++) {
    const h = hs[i];
    if (h !== undefined) out[i] = h.count;
  }
  return out;
}

/**
 * WindowHistogram adds a series' histogram samples as they arrive, to describe the window's
 * distribution. Histograms that cannot be added (exponential beside custom buckets) leave it
 * without one rather than failing the query.
 */
export class WindowHistogram {
  private total: CompensatedSum | undefined;
  private unaddable = false;

  /** add adds every histogram sample of `s`. */
  addSeries(s: SeriesColumns): void {
    const hs = s.histograms;
    if (hs === undefined) return;
    for (const h of hs) if (h !== undefined) this.add(h);
  }

  add(h: FloatHistogram): void {
    if (this.unaddable) return;
    try {
      (this.total ??= new CompensatedSum()).add(h);
    } catch (err) {
      if (!(err instanceof HistogramError)) throw err;
      this.unaddable = true;
      this.total = undefined;
    }
  }

  /**
   * stats is the window's distribution: percentiles (finite ones only) and the mean
   * observation, or undefined when no histogram was added or they could not be.
   */
  stats(): { percentiles: Record<string, number>; mean: number | undefined } | undefined {
    const h = this.unaddable ? undefined : this.total?.result();
    if (h === undefined) return undefined;
    const percentiles: Record<string, number> = {};
    for (const [name, q] of PERCENTILES) {
      const v = histogramQuantile(q, h).value;
      if (Number.isFinite(v)) percentiles[name] = v;
    }
    const mean = h.count !== 0 && Number.isFinite(h.sum / h.count) ? h.sum / h.count : undefined;
    return { percentiles, mean };
  }
}
