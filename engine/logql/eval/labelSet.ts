/**
 * Small helpers over sorted label sets: a compact identity key, Prometheus-style printing
 * (with Go quoting, as Loki's error messages show series), and comparison for result order.
 */
import { quoteGoString } from '../../common/quote.js';
import type { Labels } from '../../storage/labels.js';

/**
 * labelSetKey is the identity of a sorted label set. NUL and SOH separate names and values;
 * label names never contain them, so two different sets only collide if a value embeds the
 * exact separator sequence followed by another label, which no real label value does.
 */
export function labelSetKey(names: readonly string[], values: readonly string[]): string {
  let key = '';
  for (let i = 0; i < names.length; i++) key += names[i] + '\u0000' + values[i] + '\u0001';
  return key;
}

/** labelsKeyOf computes labelSetKey for a sorted label object. */
export function labelsKeyOf(labels: Labels): string {
  let key = '';
  for (const name in labels) key += name + '\u0000' + labels[name] + '\u0001';
  return key;
}

const hasOwn = Object.prototype.hasOwnProperty;

/**
 * labelValue reads one label of a set, or undefined. Label sets are plain objects, so a name
 * such as `constructor` must not reach the object's prototype.
 */
export function labelValue(labels: Labels, name: string): string | undefined {
  return hasOwn.call(labels, name) ? labels[name] : undefined;
}

/**
 * setLabel stores a label on a plain object. Plain assignment of `__proto__` would change the
 * object's prototype instead of adding a label, so that one name is defined explicitly.
 */
export function setLabel(labels: Record<string, string>, name: string, value: string): void {
  if (name === '__proto__') Object.defineProperty(labels, name, { value, enumerable: true, writable: true, configurable: true });
  else labels[name] = value;
}

/** formatLabelSet renders `{a="b", c="d"}` with Go quoting, as Prometheus' labels.String does. */
export function formatLabelSet(labels: Labels): string {
  const parts: string[] = [];
  for (const name in labels) parts.push(`${name}=${quoteGoString(labels[name])}`);
  return `{${parts.join(', ')}}`;
}

/** compareLabelSets orders two sorted label sets as Prometheus' labels.Compare does. */
export function compareLabelSets(a: Labels, b: Labels): number {
  const an = Object.keys(a);
  const bn = Object.keys(b);
  const n = Math.min(an.length, bn.length);
  for (let i = 0; i < n; i++) {
    if (an[i] !== bn[i]) return an[i] < bn[i] ? -1 : 1;
    const av = a[an[i]];
    const bv = b[bn[i]];
    if (av !== bv) return av < bv ? -1 : 1;
  }
  return an.length - bn.length;
}

/** sortedLabels builds a label object with keys in code unit order; empty values are kept. */
export function sortedLabels(labels: Readonly<Record<string, string>>): Labels {
  const out: Record<string, string> = {};
  for (const name of Object.keys(labels).sort()) setLabel(out, name, labels[name]);
  return out;
}
