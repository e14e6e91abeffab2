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
      return (v) => re.test(v);
    }
    case '!~': {
      const re = compileRegex(m.value, { anchored: true, dotNL: true });
      return (v) => !re.test(v);
    }
  }
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
