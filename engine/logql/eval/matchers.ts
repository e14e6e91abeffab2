/**
 * Conversion of LogQL stream matchers to the storage's matcher type: the two spell the
 * operator in different fields.
 */
import type { LabelMatcher as AstMatcher } from '../ast.js';
import type { LabelMatcher as StorageMatcher } from '../../storage/matchers.js';

/** matcherOf converts one stream selector matcher. */
export function matcherOf(m: AstMatcher): StorageMatcher {
  return { name: m.name, type: m.op, value: m.value };
}
