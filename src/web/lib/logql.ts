import type { LogQueryBuilderState } from '../../dashboards/types.js';

/** selectorOf writes the builder's filters as a stream selector. */
export function selectorOf(state: LogQueryBuilderState): string {
  const matchers = state.filters.map((f) => `${f.tag}${f.op}${JSON.stringify(f.value)}`);
  return `{${matchers.join(', ')}}`;
}

/**
 * aggregateOf writes the builder's aggregation over its window, grouped by its groupBy labels:
 * count (lines per window), rate (lines per second) or error_rate (share of error lines).
 */
export function aggregateOf(state: LogQueryBuilderState): string {
  const sel = selectorOf(state);
  const by = state.groupBy.length > 0 ? ` by (${state.groupBy.join(', ')})` : '';
  const w = state.window;
  switch (state.aggregation ?? 'count') {
    case 'rate':
      return `sum${by} (rate(${sel}[${w}]))`;
    case 'error_rate':
      return `sum${by} (count_over_time(${sel} | level=~"error|fatal|critical" [${w}])) / sum${by} (count_over_time(${sel}[${w}]))`;
    default:
      return `sum${by} (count_over_time(${sel}[${w}]))`;
  }
}

/** volumeByLevel counts a log query's lines per step by level, for the log-events volume chart. */
export function volumeByLevel(logql: string, step: string): string {
  return `sum by (level) (count_over_time(${logql} [${step}]))`;
}
