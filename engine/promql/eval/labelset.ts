/**
 * Label-set operations the evaluator needs beyond storage's: dropping the metric name, keeping
 * or removing names, computing match signatures, ordering and printing as Prometheus does.
 * Label sets stay the storage's sorted plain objects; every function returns a new object (or
 * the input when nothing changes) and never mutates.
 */
import { quoteGoString } from '../../common/quote.js';
import { METRIC_NAME, labelPairKey, type Labels } from '../../storage/labels.js';

export { METRIC_NAME, labelsKey } from '../../storage/labels.js';
export type { Labels } from '../../storage/labels.js';

/** EMPTY_LABELS is the shared empty label set. */
export const EMPTY_LABELS: Labels = Object.freeze({});

/** METADATA_LABELS are the schema labels Prometheus drops together with the metric name. */
const METADATA_LABELS: ReadonlySet<string> = new Set([METRIC_NAME, '__type__', '__unit__']);

/** dropMetricName removes `__name__` (and the schema labels `__type__`, `__unit__`). */
export function dropMetricName(labels: Labels): Labels {
  let found = false;
  for (const name in labels) {
    if (METADATA_LABELS.has(name)) {
      found = true;
      break;
    }
  }
  if (!found) return labels;
  const out: Record<string, string> = {};
  for (const name in labels) if (!METADATA_LABELS.has(name)) out[name] = labels[name];
  return out;
}

/** keepLabels returns only the labels whose names are in `names`. */
export function keepLabels(labels: Labels, names: ReadonlySet<string>): Labels {
  const out: Record<string, string> = {};
  for (const name in labels) if (names.has(name)) out[name] = labels[name];
  return out;
}

/** removeLabels returns the labels whose names are not in `names`. */
export function removeLabels(labels: Labels, names: ReadonlySet<string>): Labels {
  const out: Record<string, string> = {};
  for (const name in labels) if (!names.has(name)) out[name] = labels[name];
  return out;
}

/**
 * withLabel sets one label, keeping names sorted; an empty value removes the label, as a
 * Prometheus label builder does.
 */
export function withLabel(labels: Labels, name: string, value: string): Labels {
  if (value === '') {
    if (!(name in labels)) return labels;
    const out: Record<string, string> = {};
    for (const key in labels) if (key !== name) out[key] = labels[key];
    return out;
  }
  if (labels[name] === value) return labels;
  const names = Object.keys(labels);
  if (!(name in labels)) {
    names.push(name);
    names.sort();
  }
  const out: Record<string, string> = {};
  for (const key of names) out[key] = key === name ? value : labels[key];
  return out;
}

/**
 * signatureOn is the identity of the given label names' values: series with equal signatures
 * match in `on(...)` vector matching and share a group in `by (...)` aggregation.
 */
export function signatureOn(labels: Labels, sortedNames: readonly string[]): string {
  let key = '';
  for (const name of sortedNames) {
    const value = labels[name];
    if (value !== undefined) key += labelPairKey(name, value);
  }
  return key;
}

/** signatureWithout is the identity of every label except the given names. */
export function signatureWithout(labels: Labels, names: ReadonlySet<string>): string {
  let key = '';
  for (const name in labels) if (!names.has(name)) key += labelPairKey(name, labels[name]);
  return key;
}

/** compareStrings orders two strings by code units, as a plain `<` does. */
function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** compareLabels orders label sets as Prometheus' labels.Compare: pairwise by name, then value, shorter first. */
export function compareLabels(a: Labels, b: Labels): number {
  return compareNamedLabels(a, Object.keys(a), b, Object.keys(b));
}

/** compareNamedLabels is compareLabels given each set's names (Object.keys), for callers comparing one set with several. */
function compareNamedLabels(a: Labels, an: readonly string[], b: Labels, bn: readonly string[]): number {
  const n = Math.min(an.length, bn.length);
  for (let i = 0; i < n; i++) {
    const byName = compareStrings(an[i], bn[i]);
    if (byName !== 0) return byName;
    const byValue = compareStrings(a[an[i]], b[bn[i]]);
    if (byValue !== 0) return byValue;
  }
  return an.length - bn.length;
}

/**
 * sortKey encodes a label set so that comparing keys as strings orders label sets exactly as
 * compareLabels does: name and value separated by \x00, pairs terminated by \x01, both below any
 * character a name or value holds. Sorting many series by precomputed keys avoids re-walking
 * label objects in every comparison.
 */
export function sortKey(labels: Labels): string {
  let key = '';
  for (const name in labels) key += name + '\x00' + labels[name] + '\x01';
  return key;
}

/**
 * sortByLabels orders items by their label sets, computing each sort key once. Items already in
 * order are left as they are after one pass of comparisons: a segment keeps its series sorted,
 * so most selections arrive sorted, and their keys were the largest part of what a selection
 * over many series allocated.
 */
export function sortByLabels<T>(items: T[], labelsOf: (item: T) => Labels): T[] {
  if (inLabelOrder(items, labelsOf)) return items;
  const keyed = items.map((item) => ({ item, key: sortKey(labelsOf(item)) }));
  keyed.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  for (let i = 0; i < items.length; i++) items[i] = keyed[i].item;
  return items;
}

/** inLabelOrder tells whether items are sorted by their label sets, reading each set's names once. */
function inLabelOrder<T>(items: readonly T[], labelsOf: (item: T) => Labels): boolean {
  if (items.length < 2) return true;
  let previous = labelsOf(items[0]);
  let previousNames = Object.keys(previous);
  for (let i = 1; i < items.length; i++) {
    const labels = labelsOf(items[i]);
    const names = Object.keys(labels);
    if (compareNamedLabels(previous, previousNames, labels, names) > 0) return false;
    previous = labels;
    previousNames = names;
  }
  return true;
}

/** isLegacyLabelName tells whether a label name needs no quoting when printed. */
function isLegacyLabelName(name: string): boolean {
  return /^[a-zA-Z_][a-zA-Z0-9_]*$/.test(name);
}

/**
 * formatLabelsGo prints a label set the way Prometheus' labels.String does in error messages:
 * `{__name__="up", job="api"}`, with Go-quoted values.
 */
export function formatLabelsGo(labels: Labels): string {
  const parts: string[] = [];
  for (const name in labels) {
    const printedName = isLegacyLabelName(name) ? name : quoteGoString(name);
    parts.push(`${printedName}=${quoteGoString(labels[name])}`);
  }
  return `{${parts.join(', ')}}`;
}

/** metricNameOf returns the series' metric name, or '' when it has none. */
export function metricNameOf(labels: Labels): string {
  return labels[METRIC_NAME] ?? '';
}
