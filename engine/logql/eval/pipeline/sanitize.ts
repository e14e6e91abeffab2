/**
 * Label-name sanitising as Loki's parsers apply it to extracted keys: surrounding whitespace
 * trimmed, a leading digit prefixed with `_`, and every character outside [A-Za-z0-9_]
 * (every code point, not every UTF-16 unit) replaced by `_`.
 */

const VALID_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

function sanitizeChars(key: string): string {
  let out = '';
  for (const ch of key) {
    const c = ch.charCodeAt(0);
    const ok = (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95;
    out += ok && ch.length === 1 ? ch : '_';
  }
  return out;
}

/** sanitizeLabelKey turns a parsed key into a label name; '' when nothing is left. */
export function sanitizeLabelKey(key: string): string {
  if (VALID_NAME.test(key)) return key;
  const trimmed = key.trim();
  if (trimmed === '') return '';
  const c = trimmed.charCodeAt(0);
  const prefix = c >= 48 && c <= 57 ? '_' : '';
  return prefix + sanitizeChars(trimmed);
}

/**
 * appendSanitizedKey joins a nested JSON key onto the label name built so far with `_`, as
 * Loki flattens `{"a":{"b":1}}` into `a_b`. Blank parts are skipped.
 */
export function appendSanitizedKey(prefix: string, part: string): string {
  if (prefix === '') return sanitizeLabelKey(part);
  const trimmed = part.trim();
  if (trimmed === '') return prefix;
  return prefix + '_' + (VALID_NAME.test(trimmed) || /^[0-9A-Za-z_]+$/.test(trimmed) ? trimmed : sanitizeChars(trimmed));
}

/** KeyCache remembers sanitised names of frequent keys (bounded like Loki's interning). */
export class KeyCache {
  private readonly map = new Map<string, string>();

  constructor(private readonly limit = 1024) {}

  get(key: string): string {
    let v = this.map.get(key);
    if (v === undefined) {
      v = sanitizeLabelKey(key);
      if (this.map.size < this.limit) this.map.set(key, v);
    }
    return v;
  }
}

/** replaceInvalidUtf8 turns U+FFFD (what undecodable bytes became) into spaces, as Loki's parsers do. */
export function replaceInvalidUtf8(value: string): string {
  return value.indexOf('\ufffd') < 0 ? value : value.replace(/\ufffd/g, ' ');
}
