/**
 * Go's template expansion for replacements (regexp.Expand), used by PromQL label_replace and
 * LogQL's regexReplaceAll: `$1` and `${1}` insert group 1, `$name` / `${name}` a named group,
 * `$$` a literal `$`. A name is the longest run of letters, digits and `_`, so `$1x` means the
 * group named `1x` (which does not exist, so it expands to nothing) — write `${1}x` instead.
 * A reference to a missing group expands to the empty string; a malformed `$` stays literal.
 */

/** NON_ASCII_NAME_CHAR matches the letters and digits beyond ASCII that Go allows in names. */
const NON_ASCII_NAME_CHAR = /^[\p{L}\p{Nd}]$/u;

/** isNameChar mirrors Go's test: a Unicode letter or digit, or `_`. */
function isNameChar(ch: string): boolean {
  const c = ch.charCodeAt(0);
  if (c < 0x80) {
    return c === 0x5f || (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);
  }
  return NON_ASCII_NAME_CHAR.test(ch);
}

/** Reference is a parsed `$…` reference: a group number (>= 0) or a name. */
interface Reference {
  num: number;
  name: string;
  end: number;
}

/** parseReference parses the text after a `$` at `at`; undefined when malformed. */
function parseReference(template: string, at: number): Reference | undefined {
  let i = at;
  const brace = template.charCodeAt(i) === 0x7b; /* { */
  if (brace) i++;
  const nameStart = i;
  while (i < template.length) {
    const cp = template.codePointAt(i) as number;
    const ch = String.fromCodePoint(cp);
    if (!isNameChar(ch)) break;
    i += ch.length;
  }
  if (i === nameStart) return undefined;
  const name = template.slice(nameStart, i);
  if (brace) {
    if (template.charCodeAt(i) !== 0x7d /* } */) return undefined;
    i++;
  }
  let num = 0;
  for (let k = 0; k < name.length; k++) {
    const c = name.charCodeAt(k);
    if (c < 0x30 || c > 0x39 || num >= 1e8) {
      num = -1;
      break;
    }
    num = num * 10 + (c - 0x30);
  }
  // Leading zeros are not a number ("$01" names a group called "01").
  if (name.length > 1 && name.charCodeAt(0) === 0x30) num = -1;
  return { num, name, end: i };
}

/**
 * expandTemplate appends `template` to `out`, substituting group references from the match
 * described by `slots` (start/end offsets into `s` per group, -1 when unset).
 */
export function expandTemplate(
  template: string,
  s: string,
  slots: ArrayLike<number>,
  groupNames: readonly (string | undefined)[],
): string {
  let out = '';
  let i = 0;
  for (;;) {
    const dollar = template.indexOf('$', i);
    if (dollar < 0) break;
    out += template.slice(i, dollar);
    i = dollar + 1;
    if (template.charCodeAt(i) === 0x24 /* $ */) {
      out += '$';
      i++;
      continue;
    }
    const ref = parseReference(template, i);
    if (ref === undefined) {
      out += '$';
      continue;
    }
    i = ref.end;
    if (ref.num >= 0) {
      if (2 * ref.num + 1 < slots.length && slots[2 * ref.num] >= 0) {
        out += s.slice(slots[2 * ref.num], slots[2 * ref.num + 1]);
      }
    } else {
      for (let g = 0; g < groupNames.length; g++) {
        if (groupNames[g] === ref.name && 2 * g + 1 < slots.length && slots[2 * g] >= 0) {
          out += s.slice(slots[2 * g], slots[2 * g + 1]);
          break;
        }
      }
    }
  }
  return out + template.slice(i);
}

/**
 * templateSlotsNeeded returns how many capture slots a template can reference (2 when it uses
 * no groups), so a replacement loop tracks no more groups than it must.
 */
export function templateSlotsNeeded(template: string, groupNames: readonly (string | undefined)[]): number {
  let needed = 2;
  const total = 2 * groupNames.length;
  for (let i = template.indexOf('$'); i >= 0; i = template.indexOf('$', i + 1)) {
    if (template.charCodeAt(i + 1) === 0x24) {
      i++;
      continue;
    }
    const ref = parseReference(template, i + 1);
    if (ref === undefined) continue;
    if (ref.num >= 0) needed = Math.max(needed, Math.min(total, 2 * ref.num + 2));
    else return total;
  }
  return needed;
}
