import { logSelectionsFor, selectionsFor, type LabelMatcher, type LogSelection, type Storage } from '../../../../engine/index.js';
import type { QueryWindow } from '../../../query/timeRange.js';
import type { CheckedQuery } from './access.js';

/**
 * What a query's selectors match, without running it: the selectors with the data range each
 * reads, how many series (or log streams) each matches, and how many stored samples or lines
 * it reaches. Explaining a query and explaining an empty result both start here.
 */

export const LOOKBACK_MS = 5 * 60_000;

export interface SelectorReach {
  /** selector is the matchers as selector text. */
  selector: string;
  matchers: LabelMatcher[];
  minMs: number;
  maxMs: number;
  /** logSelection is the planner's own selection of a LogQL selector, which reading its data needs. */
  logSelection?: LogSelection;
}

/** selectorsOf lists a query's selectors with the time range each reads over `window`. */
export function selectorsOf(query: CheckedQuery, window: QueryWindow): SelectorReach[] {
  if (query.language === 'promql') {
    const planCtx = { queryStartMs: window.startMs, queryEndMs: window.endMs, lookbackMs: LOOKBACK_MS, defaultSubqueryStepMs: 60_000 };
    return selectionsFor(query.expr, window.startMs, window.endMs, planCtx).map((s) => ({ selector: selectorText(s.matchers), matchers: s.matchers, minMs: s.minMs, maxMs: s.maxMs }));
  }
  return logSelectionsFor(query.expr, window.startMs, window.endMs).map((s) => ({
    selector: selectorText(s.matchers),
    matchers: s.matchers,
    minMs: Number(s.minNs / 1_000_000n),
    maxMs: Number(s.maxNs / 1_000_000n),
    logSelection: s,
  }));
}

/** selectorText writes matchers back as a selector, the metric name in front when it is an equality. */
export function selectorText(matchers: readonly LabelMatcher[]): string {
  const name = matchers.find((m) => m.name === '__name__' && m.type === '=');
  const rest = matchers.filter((m) => m !== name).map((m) => `${m.name}${m.type}${JSON.stringify(m.value)}`);
  return `${name?.value ?? ''}{${rest.join(', ')}}`;
}

/** countSeries counts distinct series (metrics) or streams with tag sets (logs) matching in [minMs, maxMs], stopping past `cap`. */
export function countSeries(storage: Storage, org: string, language: 'promql' | 'logql', matchers: LabelMatcher[], minMs: number, maxMs: number, cap = 100_000): number {
  let n = 0;
  const visit = (): boolean => ++n <= cap;
  if (language === 'promql') storage.metricLabelSets(org).forEachLabelSet(matchers, minMs, maxMs, visit);
  else storage.logTagSets(org).forEachTagSet(matchers, BigInt(minMs) * 1_000_000n, BigInt(maxMs) * 1_000_000n + 999_999n, visit);
  return n;
}

/** distinctValues lists the values of `key` among series matching `matchers`, up to `cap` of them. */
export function distinctValues(storage: Storage, org: string, language: 'promql' | 'logql', matchers: LabelMatcher[], key: string, minMs: number, maxMs: number, cap = 5000): Set<string> {
  const values = new Set<string>();
  const carrying: LabelMatcher[] = [...matchers, { name: key, type: '!=', value: '' }];
  const visit = (labels: Record<string, string>): boolean => {
    values.add(labels[key]);
    return values.size < cap;
  };
  if (language === 'promql') storage.metricLabelSets(org).forEachLabelSet(carrying, minMs, maxMs, visit);
  else storage.logTagSets(org).forEachTagSet(carrying, BigInt(minMs) * 1_000_000n, BigInt(maxMs) * 1_000_000n + 999_999n, visit);
  return values;
}
