import type { SegmentEntry } from './catalog.js';
import { METRIC_NAME } from './labels.js';
import { compileMatcher, type LabelMatcher, type ValueTest } from './matchers.js';

/**
 * Pruning decides from the catalog alone whether a segment can hold anything a selection
 * wants, so segments that cannot are never opened. A test answers "maybe" whenever the
 * catalog lacks the facts to say no.
 */

interface ValueMatcher {
  name: string;
  /** equals is set for `=` matchers, which a set lookup decides without scanning values. */
  equals: string | undefined;
  test: ValueTest;
}

function compileFor(matchers: readonly LabelMatcher[], wanted: (name: string) => boolean): ValueMatcher[] {
  return matchers
    .filter((m) => wanted(m.name))
    .map((m) => ({ name: m.name, equals: m.type === '=' ? m.value : undefined, test: compileMatcher(m) }));
}

/** anyValuePasses tells whether some value of `values` satisfies the matcher. */
function anyValuePasses(values: ReadonlySet<string>, m: ValueMatcher): boolean {
  if (m.equals !== undefined) return values.has(m.equals);
  for (const v of values) if (m.test(v)) return true;
  return false;
}

/** MetricSegmentFilter is a compiled selection's test for metric segments. */
export type MetricSegmentFilter = (entry: SegmentEntry, minMs: number, maxMs: number) => boolean;

/** metricSegmentFilter prunes on time overlap and on the metric name matchers of the selection. */
export function metricSegmentFilter(matchers: readonly LabelMatcher[]): MetricSegmentFilter {
  const nameMatchers = compileFor(matchers, (name) => name === METRIC_NAME);
  return (entry, minMs, maxMs) => {
    if (entry.meta.maxMs < minMs || entry.meta.minMs > maxMs) return false;
    const names = entry.metricNames;
    if (names === undefined) return true;
    for (const m of nameMatchers) if (!anyValuePasses(names, m)) return false;
    return true;
  };
}

/** LogSegmentFilter is a compiled selection's test for log segments. */
export type LogSegmentFilter = (entry: SegmentEntry, minNs: bigint, maxNs: bigint) => boolean;

/**
 * logSegmentFilter prunes on time overlap and on matchers over the tags the segment indexed.
 * `level` is never pruned on: the level column overrides a stream tag of that name.
 */
export function logSegmentFilter(matchers: readonly LabelMatcher[]): LogSegmentFilter {
  const compiled = compileFor(matchers, (name) => name !== 'level');
  return (entry, minNs, maxNs) => {
    if (entry.maxNs < minNs || entry.minNs > maxNs) return false;
    for (const m of compiled) {
      const values = entry.tagValues.get(m.name);
      if (values !== undefined && !anyValuePasses(values, m)) return false;
    }
    return true;
  };
}
