/**
 * sort(), sort_desc(), sort_by_label() and sort_by_label_desc() order an instant vector. Range
 * results are always ordered by labels, so in a range query they only earn a warning.
 */
import { compareLabels } from './labelset.js';
import { naturalLess } from './natsort.js';
import type { VectorSeries } from './series.js';

/** byValue orders single-step series by value, NaN last in both directions as Prometheus does. */
export function sortByValue(input: readonly VectorSeries[], ascending: boolean): VectorSeries[] {
  return input.slice().sort((a, b) => {
    const va = a.values[0];
    const vb = b.values[0];
    if (va !== va) return vb !== vb ? 0 : 1;
    if (vb !== vb) return -1;
    return ascending ? va - vb || 0 : vb - va || 0;
  });
}

/**
 * sortByLabelValues orders series by the given labels' values in natural order (numbers within
 * values compare numerically), then by their whole label sets.
 */
export function sortByLabelValues(input: readonly VectorSeries[], labelNames: readonly string[], descending: boolean): VectorSeries[] {
  return input.slice().sort((a, b) => {
    for (const label of labelNames) {
      const va = a.labels[label] ?? '';
      const vb = b.labels[label] ?? '';
      if (va === vb) continue;
      const less = naturalLess(va, vb);
      return descending ? (less ? 1 : -1) : less ? -1 : 1;
    }
    const byLabels = compareLabels(a.labels, b.labels);
    return descending ? -byLabels : byLabels;
  });
}
