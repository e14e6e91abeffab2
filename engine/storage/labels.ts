/**
 * Labels identify a series: a plain object whose keys are kept in sorted order, so two equal
 * label sets serialise to the same key and print the same way everywhere.
 */
export type Labels = Readonly<Record<string, string>>;

export const METRIC_NAME = '__name__';

/** sortLabels returns a copy with keys in code-unit order and empty values removed (Prometheus treats an empty value as absent). */
export function sortLabels(labels: Record<string, string>): Labels {
  const out: Record<string, string> = {};
  for (const name of Object.keys(labels).sort()) {
    const value = labels[name];
    if (value !== '') out[name] = value;
  }
  return out;
}

/**
 * sortKeepingEmpty returns a copy with keys in code-unit order and empty values kept: a log
 * line's own tags (Loki's structured metadata) keep `name=""` as a value of its own, unlike
 * the labels of a series or a stream.
 */
export function sortKeepingEmpty(labels: Readonly<Record<string, string>>): Labels {
  const out: Record<string, string> = {};
  for (const name of Object.keys(labels).sort()) {
    const value = labels[name];
    // Plain assignment of `__proto__` would set the prototype instead of adding a tag.
    if (name === '__proto__') Object.defineProperty(out, name, { value, enumerable: true, writable: true, configurable: true });
    else out[name] = value;
  }
  return out;
}

/** labelsKey is an unambiguous string identity for a sorted label set (\xff never appears in valid UTF-8 text). */
export function labelsKey(labels: Labels): string {
  let key = '';
  for (const name in labels) key += name + '\xff' + labels[name] + '\xfe';
  return key;
}

/** formatLabels renders `name{a="b", c="d"}` the way Prometheus prints a series. */
export function formatLabels(labels: Labels): string {
  const name = labels[METRIC_NAME];
  const parts: string[] = [];
  for (const key in labels) {
    if (key === METRIC_NAME) continue;
    parts.push(`${key}=${JSON.stringify(labels[key])}`);
  }
  if (name !== undefined && parts.length === 0) return name;
  return `${name ?? ''}{${parts.join(', ')}}`;
}
