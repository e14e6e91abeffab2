/**
 * `drop` and `keep` take the same list: label names, and `name op "value"` matchers that apply
 * only where the value passes. Both read it through labelSpecs.
 */
import type { LabelMatcher, LabelName } from '../../ast.js';
import { stringValueTest } from './labelFilter.js';

/** LabelSpec is one entry of the list: a name, and the test its value must pass when a matcher gave one. */
export interface LabelSpec {
  name: string;
  test?: (value: string) => boolean;
}

/** labelSpecs compiles the list once per query. */
export function labelSpecs(labels: ReadonlyArray<LabelName | LabelMatcher>): LabelSpec[] {
  return labels.map((l) => (l.kind === 'LabelName' ? { name: l.name } : { name: l.name, test: stringValueTest(l) }));
}
