/**
 * Grouping of series by `by (…)` / `without (…)` for vector aggregations, and the matching
 * signatures of binary operators (`on (…)` / `ignoring (…)`): both reduce a label set to the
 * labels that decide which series belong together.
 */
import type { Labels } from '../../../storage/labels.js';
import type { LabelCache, ResultLabels } from '../labelsBuilder.js';

/** reduceLabels keeps the listed labels (`keep`) or all but the listed ones (`!keep`). */
export function reduceLabels(cache: LabelCache, labels: Labels, names: readonly string[], keep: boolean): ResultLabels {
  const outNames: string[] = [];
  const outValues: string[] = [];
  for (const name in labels) {
    if (names.includes(name) !== keep) continue;
    outNames.push(name);
    outValues.push(labels[name]);
  }
  return cache.intern(outNames, outValues);
}

/** groupLabels applies a vector aggregation's grouping (without also drops __name__). */
export function groupLabels(cache: LabelCache, labels: Labels, without: boolean, names: readonly string[]): ResultLabels {
  if (without) return reduceLabels(cache, labels, [...names, '__name__'], false);
  return reduceLabels(cache, labels, names, true);
}
