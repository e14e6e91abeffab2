import { compileRegex } from '../regex/index.js';

/** LabelMatcher is one `name op "value"` term of a selector, shared by PromQL and LogQL. */
export interface LabelMatcher {
  name: string;
  type: '=' | '!=' | '=~' | '!~';
  value: string;
}

/** ValueTest decides a matcher for one label value; an absent label is the empty string, as in Prometheus. */
export type ValueTest = (value: string) => boolean;

/**
 * compileMatcher builds the test once so scans over many series do no per-series set-up.
 * Regex matchers are anchored and let `.` match newlines, as Prometheus and Loki compile them
 * (`^(?s:pattern)$`). The flags are passed as options rather than spliced into the pattern so
 * the pattern is exactly the one the query parser checked.
 */
export function compileMatcher(m: LabelMatcher): ValueTest {
  switch (m.type) {
    case '=':
      return (v) => v === m.value;
    case '!=':
      return (v) => v !== m.value;
    case '=~': {
      const re = compileRegex(m.value, { anchored: true, dotNL: true });
      return remembered((v) => re.test(v));
    }
    case '!~': {
      const re = compileRegex(m.value, { anchored: true, dotNL: true });
      return remembered((v) => !re.test(v));
    }
  }
}

/** MAX_REMEMBERED_VALUES bounds a regex matcher's memo: labels with more distinct values than this (ids, pod names) are tested every time. */
const MAX_REMEMBERED_VALUES = 1024;

/**
 * remembered memoises a regex test by label value. A selector's scan tests every candidate
 * series, and most labels repeat a few values over many series (a route, an instance, a
 * status code): on 10,000 series of a segment, testing two regexes per series took most of a
 * selection's time; a lookup per series and one test per distinct value is several times less.
 */
function remembered(test: ValueTest): ValueTest {
  const known = new Map<string, boolean>();
  return (v) => {
    let result = known.get(v);
    if (result === undefined) {
      result = test(v);
      if (known.size < MAX_REMEMBERED_VALUES) known.set(v, result);
    }
    return result;
  };
}

export interface CompiledMatcher {
  name: string;
  test: ValueTest;
  /** matchesEmpty tells whether series lacking the label match, so postings lookups know when they may skip them. */
  matchesEmpty: boolean;
}

export function compileMatchers(matchers: readonly LabelMatcher[]): CompiledMatcher[] {
  return matchers.map((m) => {
    const test = compileMatcher(m);
    return { name: m.name, test, matchesEmpty: test('') };
  });
}

/** matchesAll applies compiled matchers to a label set. */
export function matchesAll(labels: Readonly<Record<string, string>>, matchers: readonly CompiledMatcher[]): boolean {
  for (const m of matchers) if (!m.test(labels[m.name] ?? '')) return false;
  return true;
}
