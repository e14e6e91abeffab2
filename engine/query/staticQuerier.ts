import { lowerBound, upperBound, type LabelSetVisitor, type MetricQuerier } from '../storage/metricHead.js';
import { compileMatchers, matchesAll, type LabelMatcher } from '../storage/matchers.js';
import type { SeriesColumns } from '../storage/seriesColumns.js';

/**
 * StaticQuerier answers the evaluator's reads from series shipped with a task. The planner
 * already fetched everything the query's selectors can touch, so this only filters by matchers
 * and narrows each series to the requested range with zero-copy views.
 */
export class StaticQuerier implements MetricQuerier {
  constructor(private readonly series: readonly SeriesColumns[]) {}

  get seriesCount(): number {
    return this.series.length;
  }

  select(matchers: readonly LabelMatcher[], minMs: number, maxMs: number): SeriesColumns[] {
    const compiled = compileMatchers(matchers);
    const out: SeriesColumns[] = [];
    for (const s of this.series) {
      if (!matchesAll(s.labels, compiled)) continue;
      const from = lowerBound(s.timestampsMs, minMs);
      const to = upperBound(s.timestampsMs, maxMs);
      if (to > from) out.push({ labels: s.labels, timestampsMs: s.timestampsMs.subarray(from, to), values: s.values.subarray(from, to) });
    }
    return out;
  }

  labelNames(matchers: readonly LabelMatcher[], minMs: number, maxMs: number): string[] {
    const names = new Set<string>();
    for (const s of this.select(matchers, minMs, maxMs)) for (const n in s.labels) names.add(n);
    return [...names].sort();
  }

  labelValues(name: string, matchers: readonly LabelMatcher[], minMs: number, maxMs: number): string[] {
    const values = new Set<string>();
    for (const s of this.select(matchers, minMs, maxMs)) if (s.labels[name] !== undefined) values.add(s.labels[name]);
    return [...values].sort();
  }

  forEachLabelSet(matchers: readonly LabelMatcher[], minMs: number, maxMs: number, visit: LabelSetVisitor): void {
    for (const s of this.select(matchers, minMs, maxMs)) if (visit(s.labels) === false) return;
  }
}
