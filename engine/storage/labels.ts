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

/** labelsKey is an unambiguous string identity for a sorted label set. */
export function labelsKey(labels: Labels): string {
  let key = '';
  for (const name in labels) key += labelPairKey(name, labels[name]);
  return key;
}

/** KEY_CONTROL matches the characters label keys use as separators and escape. */
const KEY_CONTROL = /[\u0000-\u0002]/;

/**
 * labelPairKey renders one label for a label-set key: name, U+0001, value, U+0000. Names and
 * values that hold any of U+0000..U+0002 (no real label does, but any string may arrive) have
 * them escaped behind U+0002, so concatenated pairs never read as another label set.
 */
export function labelPairKey(name: string, value: string): string {
  return escapeKeyPart(name) + '\u0001' + escapeKeyPart(value) + '\u0000';
}

function escapeKeyPart(text: string): string {
  return KEY_CONTROL.test(text) ? text.replace(/[\u0000-\u0002]/g, (c) => '\u0002' + String.fromCharCode(0x30 + c.charCodeAt(0))) : text;
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
