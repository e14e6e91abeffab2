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

/** namesAscending tells whether names come in code-unit order, as a sorted label set's do. */
export function namesAscending(names: readonly string[]): boolean {
  for (let i = 1; i < names.length; i++) if (names[i - 1] > names[i]) return false;
  return true;
}

/** inNameOrder is a label set with its names sorted: itself when they already are. */
export function inNameOrder(labels: Labels): Labels {
  const names = Object.keys(labels);
  return namesAscending(names) ? labels : (Object.fromEntries(names.sort().map((name) => [name, labels[name]])) as Labels);
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

/**
 * labelsFromKey reads a label-set key (labelsKey) back into its labels, in key order: logs
 * that store a series by its key need no labels object per series per write.
 */
export function labelsFromKey(key: string): Labels {
  const out: Record<string, string> = {};
  let at = 0;
  while (at < key.length) {
    const sep = key.indexOf('\u0001', at);
    const end = sep < 0 ? -1 : key.indexOf('\u0000', sep + 1);
    if (end < 0) throw new Error('malformed label-set key');
    const name = unescapeKeyPart(key.slice(at, sep));
    const value = unescapeKeyPart(key.slice(sep + 1, end));
    // Plain assignment of `__proto__` would set the prototype instead of adding a label.
    if (name === '__proto__') Object.defineProperty(out, name, { value, enumerable: true, writable: true, configurable: true });
    else out[name] = value;
    at = end + 1;
  }
  return out;
}

function unescapeKeyPart(text: string): string {
  return text.includes('\u0002') ? text.replace(/\u0002([0-2])/g, (_, c: string) => String.fromCharCode(c.charCodeAt(0) - 0x30)) : text;
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
