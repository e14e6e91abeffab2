import type { LabelMatcher, Storage } from '../../../../engine/index.js';
import { closestMatches } from '../../../suggest.js';
import { formatDuration } from '../../format.js';
import type { QueryWindow } from '../../../query/timeRange.js';
import type { CheckedQuery } from './access.js';
import { countSeries, distinctValues, selectorsOf } from './selectors.js';

/** WIDE_MS is how far back an empty result looks for data that exists outside the window. */
const WIDE_MS = 7 * 86_400_000;

/**
 * emptyResultHints explains a query that returned nothing, most likely cause first: a
 * selector that matches no series at all (with the metric names or label values it probably
 * meant), data that exists only outside the window, or selectors that match but whose range
 * functions or filters leave nothing (a range too short for rate, a filter too strict).
 */
export function emptyResultHints(storage: Storage, org: string, query: CheckedQuery, window: QueryWindow): string[] {
  const hints: string[] = [];
  const lang = query.language;
  for (const sel of selectorsOf(query, window)) {
    if (countSeries(storage, org, lang, sel.matchers, sel.minMs, sel.maxMs, 1) > 0) continue;
    const wideMin = window.endMs - WIDE_MS;
    const wider = countSeries(storage, org, lang, sel.matchers, wideMin, window.endMs, 1000);
    if (wider > 0) {
      hints.push(`${sel.selector} matches ${wider} ${lang === 'promql' ? 'series' : 'streams'} in the last ${formatDuration(WIDE_MS)} but none in this window: widen start (for example now-24h).`);
      continue;
    }
    // Nothing anywhere: find the matcher that excludes everything and what was probably meant.
    const culprit = missingValueHint(storage, org, lang, sel.matchers, wideMin, window.endMs);
    if (culprit) {
      hints.push(culprit);
      continue;
    }
    hints.push(`${sel.selector} matches nothing in the last ${formatDuration(WIDE_MS)}; check the selector with list_series.`);
  }
  if (hints.length === 0) {
    hints.push(
      query.language === 'promql'
        ? 'the selectors match series, but the expression left no values: a range like [1m] may hold fewer than two samples for rate/increase (use at least 4x the scrape interval, e.g. [5m]), or a filter or comparison removed everything.'
        : query.kind === 'logs'
          ? 'the stream selector matches streams, but the line filters or parsers removed every line: loosen them, or check label filters after | json / | logfmt.'
          : 'the stream selector matches streams, but no line survived the pipeline in any range window: loosen filters or widen the range.',
    );
  }
  return hints;
}

/**
 * missingValueHint finds an equality matcher whose value does not exist, first among series
 * the other matchers select (the value most likely mistyped), then among all series, and
 * names the closest existing values.
 */
function missingValueHint(storage: Storage, org: string, lang: 'promql' | 'logql', matchers: readonly LabelMatcher[], minMs: number, maxMs: number): string | undefined {
  const equalities = matchers.filter((m) => m.type === '=' && m.value !== '');
  for (const alone of [false, true]) {
    for (const m of equalities) {
      const others = alone ? [] : matchers.filter((o) => o !== m);
      const values = distinctValues(storage, org, lang, others, m.name, minMs, maxMs);
      if (values.size === 0 || values.has(m.value)) continue;
      const what = m.name === '__name__' ? 'metric' : lang === 'promql' ? `label ${m.name}` : `tag ${m.name}`;
      const near = closestMatches(m.value, values);
      return `${what}="${m.value}" does not exist${near.length > 0 ? `; closest: ${near.map((v) => JSON.stringify(v)).join(', ')}` : ` (${values.size} values exist; see list_labels)`}.`;
    }
  }
  const absent = equalities.find((m) => distinctValues(storage, org, lang, [], m.name, minMs, maxMs, 1).size === 0);
  if (absent) return `no ${lang === 'promql' ? 'series' : 'stream'} carries ${absent.name === '__name__' ? 'any metric name' : `the ${lang === 'promql' ? 'label' : 'tag'} ${absent.name}`}; list the keys with list_labels.`;
  return undefined;
}
