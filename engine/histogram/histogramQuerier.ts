/**
 * An in-memory store of series that hold native histogram samples (possibly mixed with floats),
 * answering selects next to another querier (the float head). It is how the conformance loader
 * and benchmarks hand histograms to the engine until the WAL, head and segments store them;
 * a storage reader does the same by returning HistogramSeriesColumns from `select`.
 */
import { lowerBound, upperBound } from '../storage/bounds.js';
import { compileMatchers, matchesAll, type LabelMatcher } from '../storage/matchers.js';
import type { MetricQuerier } from '../storage/metricHead.js';
import { labelsKey, type Labels } from '../storage/labels.js';
import type { SeriesColumns } from '../storage/seriesColumns.js';
import type { FloatHistogram } from './floatHistogram.js';

/** MixedSeries is one series' samples: `histograms[i]` set where sample i is a histogram. */
export interface MixedSeries extends SeriesColumns {
  histograms: (FloatHistogram | undefined)[];
  /** startTimestampsMs are the samples' start timestamps (0: none), when the series has any. */
  startTimestampsMs?: Float64Array;
}

/** HistogramQuerier answers from the histogram series it holds and from the querier it wraps. */
export class HistogramQuerier implements MetricQuerier {
  private readonly series: MixedSeries[] = [];

  constructor(private readonly floats: MetricQuerier) {}

  /**
   * add stores a series; its timestamps must ascend. Samples for a series already held (a
   * later load of the same labels) are merged into it in time order.
   */
  add(series: MixedSeries): void {
    const key = labelsKey(series.labels);
    const i = this.series.findIndex((s) => labelsKey(s.labels) === key);
    if (i < 0) {
      this.series.push(series);
      return;
    }
    const a = this.series[i];
    const order = [...a.timestampsMs.keys()].map((k) => ({ from: a, k })).concat([...series.timestampsMs.keys()].map((k) => ({ from: series, k })));
    order.sort((x, y) => x.from.timestampsMs[x.k] - y.from.timestampsMs[y.k]);
    const merged: MixedSeries = {
      labels: a.labels,
      timestampsMs: Float64Array.from(order, (o) => o.from.timestampsMs[o.k]),
      values: Float64Array.from(order, (o) => o.from.values[o.k]),
      histograms: order.map((o) => o.from.histograms[o.k]),
    };
    if (a.startTimestampsMs !== undefined || series.startTimestampsMs !== undefined) {
      merged.startTimestampsMs = Float64Array.from(order, (o) => o.from.startTimestampsMs?.[o.k] ?? 0);
    }
    this.series[i] = merged;
  }

  /** size is the number of histogram series held. */
  get size(): number {
    return this.series.length;
  }

  private matching(matchers: readonly LabelMatcher[]): MixedSeries[] {
    const compiled = compileMatchers(matchers);
    return this.series.filter((s) => matchesAll(s.labels, compiled));
  }

  select(matchers: readonly LabelMatcher[], minMs: number, maxMs: number): SeriesColumns[] {
    const out: SeriesColumns[] = this.floats.select(matchers, minMs, maxMs);
    for (const s of this.matching(matchers)) {
      const from = lowerBound(s.timestampsMs, minMs);
      const to = upperBound(s.timestampsMs, maxMs);
      if (to <= from) continue;
      const part: MixedSeries = {
        labels: s.labels,
        timestampsMs: s.timestampsMs.subarray(from, to),
        values: s.values.subarray(from, to),
        histograms: s.histograms.slice(from, to),
      };
      if (s.startTimestampsMs !== undefined) part.startTimestampsMs = s.startTimestampsMs.subarray(from, to);
      out.push(part);
    }
    return out;
  }

  labelNames(matchers: readonly LabelMatcher[], minMs: number, maxMs: number): string[] {
    const names = new Set(this.floats.labelNames(matchers, minMs, maxMs));
    for (const s of this.matching(matchers)) for (const name of Object.keys(s.labels)) names.add(name);
    return [...names].sort();
  }

  labelValues(name: string, matchers: readonly LabelMatcher[], minMs: number, maxMs: number): string[] {
    const values = new Set(this.floats.labelValues(name, matchers, minMs, maxMs));
    for (const s of this.matching(matchers)) {
      const v = (s.labels as Labels)[name];
      if (v !== undefined && v !== '') values.add(v);
    }
    return [...values].sort();
  }
}
