/**
 * Turning a log line into the token sequence the template miner clusters on.
 *
 * Lines are split on ASCII whitespace, and values that are obviously variable (numbers,
 * durations, sizes, hex and long mixed ids, UUIDs, IP addresses, dates and clock times) are
 * replaced by the wildcard before clustering. Masking first is what lets two lines that differ
 * only in such values land in the same prefix-tree leaf and compare as equal there; without it
 * the first numeric token of a line would scatter otherwise identical lines.
 *
 * Only tokens containing a decimal digit are ever rewritten, so most words cost a single scan.
 * A `key=value` token keeps its key and has only its value masked (`status=500` becomes
 * `status=<*>`), which keeps logfmt templates readable. JSON objects are rendered to that same
 * `key=value` form (see renderJsonObject) so one tokenizer serves all three line styles.
 */

/** WILDCARD marks a variable position in a template. */
export const WILDCARD = '<*>';

/** KEY_WILDCARD_SUFFIX ends a token whose key is fixed and whose value varies (`key=<*>`). */
export const KEY_WILDCARD_SUFFIX = '=<*>';

/**
 * Variable shapes that need real pattern matching, each tried only when a cheap look at the
 * token says it could apply (see otherShape): the hand-written checks in isVariable cover most
 * tokens at a fraction of a regex run's cost.
 */
const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
/** ISO 8601 date with optional time and zone. */
const ISO_DATE = /^\d{4}-\d{2}-\d{2}(?:[T_]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?)?(?:Z|[+-]\d{2}:?\d{2})?$/;
/** Clock time, IPv4 with a port, IPv6 (which also covers colon-separated clock-like values). */
const COLON_SHAPES = /^(?:\d{1,2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?Z?|(?:\d{1,3}\.){3}\d{1,3}:\d{1,5}|[0-9a-fA-F]{0,4}(?::[0-9a-fA-F]{0,4}){2,7})$/;
/** Compound duration such as 1h2m3.5s (a single unit is handled by isNumberWithUnit). */
const COMPOUND_DURATION = /^(?:\d+(?:\.\d+)?(?:ns|us|µs|μs|ms|s|m|h|d)){2,}$/;
const VERSION = /^[vV]\d+(?:\.\d+)+$/;
const HEX_0X = /^0[xX][0-9a-fA-F]+$/;

/** otherShape tests `s` (which has a digit) against the regex shapes that could fit it. */
function otherShape(s: string): boolean {
  const c0 = s.charCodeAt(0);
  if (c0 === 118 || c0 === 86) return s.includes('.') && VERSION.test(s);
  if (c0 === 48 && (s.charCodeAt(1) === 120 || s.charCodeAt(1) === 88)) return HEX_0X.test(s);
  if (s.length >= 10 && s.charCodeAt(4) === 45 && isDigitCode(c0)) return ISO_DATE.test(s);
  if (s.includes(':')) return COLON_SHAPES.test(s);
  if (s.length === 36) return UUID.test(s);
  return isDigitCode(c0) && COMPOUND_DURATION.test(s);
}

/** Letters that occur in otherShape's shapes; a token with any other non-hex letter fits none. */
const SHAPE_LETTERS = new Set('TZnsumhxXvVµμ');

/** Units a number may carry and still be one value: durations, byte sizes, percent. */
const UNITS = new Set(['ns', 'us', 'µs', 'μs', 'ms', 's', 'm', 'h', 'd', '%', 'b', 'B', 'bytes']);
for (const p of 'kKMGTPE') for (const i of ['', 'i']) for (const b of 'bB') UNITS.add(p + i + b);

function isDigitCode(c: number): boolean {
  return c >= 48 && c <= 57;
}

/** digitsEnd returns the index after the run of digits starting at `i`. */
function digitsEnd(s: string, i: number): number {
  while (i < s.length && isDigitCode(s.charCodeAt(i))) i++;
  return i;
}

/**
 * isNumberWithUnit accepts `[-+]?` digits with `.`/`,` groups (so dotted versions and IPv4
 * addresses too), an optional exponent, and an optional unit from UNITS: `-7`, `1,234.5`,
 * `1e-3`, `95%`, `12ms`, `3.5MiB`, `10.0.0.1`.
 */
function isNumberWithUnit(s: string): boolean {
  let i = 0;
  const first = s.charCodeAt(0);
  if (first === 43 || first === 45) i++;
  const intEnd = digitsEnd(s, i);
  if (intEnd === i) return false;
  i = intEnd;
  while (i < s.length && (s.charCodeAt(i) === 46 || s.charCodeAt(i) === 44)) {
    const end = digitsEnd(s, i + 1);
    if (end === i + 1) break;
    i = end;
  }
  if (i < s.length && (s.charCodeAt(i) === 101 || s.charCodeAt(i) === 69)) {
    let j = i + 1;
    if (j < s.length && (s.charCodeAt(j) === 43 || s.charCodeAt(j) === 45)) j++;
    const end = digitsEnd(s, j);
    if (end > j) i = end;
  }
  return i === s.length || UNITS.has(s.slice(i));
}

/**
 * isVariable reports whether a whole value is obviously variable: a number (with a unit), a
 * hex id of six or more characters, a long mixed id (sixteen or more of `[A-Za-z0-9_-]` with
 * at least two digits, `=` padding allowed: pod hashes, base64, UUIDs), or one of the shapes
 * otherShape knows (timestamps, clock times, IP addresses with ports, versions, 0x hex).
 */
export function isVariable(s: string): boolean {
  const n = s.length;
  let digits = 0;
  let hex = 0;
  let id = 0;
  let foreignLetter = false;
  let end = n;
  while (end > 0 && n - end < 2 && s.charCodeAt(end - 1) === 61) end--;
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    const letter = (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
    if (isDigitCode(c)) digits++;
    else if ((c >= 97 && c <= 102) || (c >= 65 && c <= 70)) hex++;
    else if (letter && !SHAPE_LETTERS.has(s[i])) foreignLetter = true;
    if (i < end && (letter || isDigitCode(c) || c === 95 || c === 45)) id++;
  }
  if (digits === 0) return false;
  if (digits === n) return true;
  if (digits + hex === n && n >= 6) return true;
  if (id === end && end >= 16 && digits >= 2) return true;
  if (isNumberWithUnit(s)) return true;
  return !foreignLetter && otherShape(s);
}

/** Runs of wildcards separated only by these are one value (`<*>:<*>` → `<*>`). */
const ADJACENT_WILDCARDS = /<\*>(?:[.:_-]+<\*>)+/g;

/** hasDigit reports whether `s` contains an ASCII decimal digit. */
export function hasDigit(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 48 && c <= 57) return true;
  }
  return false;
}

function isSpace(c: number): boolean {
  return c === 32 || (c >= 9 && c <= 13);
}

/** isSegmentChar is true for characters that stay inside one segment of a compound value. */
function isSegmentChar(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 46 || c === 95 || c === 45;
}

/** keyLength returns the length of a logfmt key at the start of `token`, or 0 if there is none. */
export function keyLength(token: string): number {
  const eq = token.indexOf('=');
  if (eq <= 0) return 0;
  const first = token.charCodeAt(0);
  if (!((first >= 65 && first <= 90) || (first >= 97 && first <= 122) || first === 95)) return 0;
  for (let i = 1; i < eq; i++) {
    const c = token.charCodeAt(i);
    if (!isSegmentChar(c) && c !== 47) return 0;
  }
  return eq;
}

/**
 * maskPieces masks the dot, dash or underscore separated pieces of a segment that did not
 * match as a whole, so `u-42` becomes `u-<*>` while `v1` stays.
 */
function maskPieces(segment: string): string {
  let out = '';
  let start = 0;
  for (let i = 0; i <= segment.length; i++) {
    const c = i < segment.length ? segment.charCodeAt(i) : -1;
    if (c !== 46 && c !== 95 && c !== 45 && c !== -1) continue;
    const piece = segment.slice(start, i);
    out += piece !== '' && isVariable(piece) ? WILDCARD : piece;
    if (c !== -1) out += segment[i];
    start = i + 1;
  }
  return out;
}

function hasPieceSeparator(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 46 || c === 95 || c === 45) return true;
  }
  return false;
}

/**
 * maskSegments handles compound values such as paths and URLs: it splits on punctuation other
 * than `. _ -`, masks the variable segments, and merges adjacent wildcards.
 */
function maskSegments(core: string): string {
  let out = '';
  let i = 0;
  while (i < core.length) {
    let j = i;
    while (j < core.length && isSegmentChar(core.charCodeAt(j))) j++;
    if (j === i) {
      out += core[i++];
      continue;
    }
    const segment = core.slice(i, j);
    if (!hasDigit(segment)) out += segment;
    else if (isVariable(segment)) out += WILDCARD;
    else out += hasPieceSeparator(segment) ? maskPieces(segment) : segment;
    i = j;
  }
  const first = out.indexOf(WILDCARD);
  if (first < 0 || out.indexOf(WILDCARD, first + WILDCARD.length) < 0) return out;
  return out.replace(ADJACENT_WILDCARDS, WILDCARD);
}

/** Punctuation that may wrap a value and is kept around its mask: `(10.0.0.1),` → `(<*>),`. */
function isOpener(c: number): boolean {
  return c === 34 || c === 39 || c === 40 || c === 91 || c === 123 || c === 60;
}

function isCloser(c: number): boolean {
  return c === 34 || c === 39 || c === 41 || c === 93 || c === 125 || c === 62 || c === 44 || c === 59 || c === 58 || c === 46 || c === 33 || c === 63;
}

/** maskValue masks a value that contains a digit, keeping wrapping punctuation. */
function maskValue(value: string): string {
  let start = 0;
  let end = value.length;
  while (start < end && isOpener(value.charCodeAt(start))) start++;
  while (end > start && isCloser(value.charCodeAt(end - 1))) end--;
  if (start === end) return value;
  if (start === 0 && end === value.length) return isVariable(value) ? WILDCARD : maskSegments(value);
  const core = value.slice(start, end);
  const masked = isVariable(core) ? WILDCARD : maskSegments(core);
  return value.slice(0, start) + masked + value.slice(end);
}

/** maskToken masks one whitespace-free token; callers pass only tokens containing a digit. */
export function maskToken(token: string): string {
  const key = keyLength(token);
  if (key === 0) return maskValue(token);
  const value = token.slice(key + 1);
  if (value === '' || !hasDigit(value)) return token;
  return token.slice(0, key + 1) + maskValue(value);
}

/** maskedTokens splits `text` on whitespace and masks each token that contains a digit. */
export function maskedTokens(text: string): string[] {
  const out: string[] = [];
  let start = -1;
  let digit = false;
  for (let i = 0; i <= text.length; i++) {
    const c = i < text.length ? text.charCodeAt(i) : 32;
    if (isSpace(c)) {
      if (start >= 0) {
        const token = text.slice(start, i);
        out.push(digit ? maskToken(token) : token);
        start = -1;
        digit = false;
      }
    } else {
      if (start < 0) start = i;
      if (c >= 48 && c <= 57) digit = true;
    }
  }
  return out;
}

/** JSON lines longer than this are tokenised as text instead of parsed, to bound the work. */
const MAX_JSON_LENGTH = 1 << 16;

/** looksLikeJsonObject is a cheap test before paying for JSON.parse. */
function looksLikeJsonObject(line: string): boolean {
  let s = 0;
  let e = line.length - 1;
  while (s <= e && isSpace(line.charCodeAt(s))) s++;
  while (e >= s && isSpace(line.charCodeAt(e))) e--;
  return e > s && line.charCodeAt(s) === 123 && line.charCodeAt(e) === 125;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

const WHITESPACE = /\s/;
const WHITESPACE_RUNS = /\s+/g;

/** renderScalar renders one JSON value in logfmt style, quoting strings with whitespace. */
function renderScalar(value: unknown): string {
  if (typeof value === 'string') {
    if (value === '') return '""';
    return WHITESPACE.test(value) ? `"${value}"` : value;
  }
  if (typeof value === 'number') return WILDCARD;
  if (Array.isArray(value)) return WILDCARD;
  return String(value);
}

/**
 * renderJsonObject renders a parsed JSON object as `key=value` pairs in document order: nested
 * objects become dotted keys (`http.status=<*>`), numbers and arrays are variables outright,
 * strings are kept so the miner can decide whether they vary (their digits are masked like any
 * other token), booleans and null are kept. The text is cut at `limit` characters, which
 * bounds the tokens a huge object can produce, as the cut does for plain lines.
 */
export function renderJsonObject(obj: Record<string, unknown>, limit: number): string {
  const parts: string[] = [];
  let size = 0;
  const visit = (node: Record<string, unknown>, prefix: string): void => {
    for (const rawKey in node) {
      if (size >= limit) return;
      const key = prefix + (WHITESPACE.test(rawKey) ? rawKey.replace(WHITESPACE_RUNS, '_') : rawKey);
      const value = node[rawKey];
      if (isPlainObject(value) && Object.keys(value).length > 0) {
        visit(value, `${key}.`);
        continue;
      }
      const part = `${key}=${isPlainObject(value) ? '{}' : renderScalar(value)}`;
      parts.push(part);
      size += part.length + 1;
    }
  };
  visit(obj, '');
  const text = parts.join(' ');
  return text.length > limit ? text.slice(0, limit) : text;
}

/** jsonText returns a JSON object line rendered as `key=value` text, or undefined. */
function jsonText(line: string, limit: number): string | undefined {
  if (line.length > MAX_JSON_LENGTH || !looksLikeJsonObject(line)) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch {
    return undefined;
  }
  return isPlainObject(parsed) ? renderJsonObject(parsed, limit) : undefined;
}

/**
 * tokenizeLine returns the masked tokens of `line`. JSON objects are rendered to `key=value`
 * text first; anything else is cut to `maxLength` characters and split as it is.
 */
export function tokenizeLine(line: string, maxLength: number): string[] {
  const text = jsonText(line, maxLength) ?? (line.length > maxLength ? line.slice(0, maxLength) : line);
  return maskedTokens(text);
}

/** Keys whose value is the human-written message of a structured line. */
const MESSAGE_KEYS = ['msg=', 'message=', 'log='];
/** Keys whose value is the severity of a structured line. */
const LEVEL_KEYS = ['level=', 'lvl=', 'severity='];

/** First characters of MESSAGE_KEYS and LEVEL_KEYS, to skip most tokens with one comparison. */
const KEY_INITIALS = new Set([...MESSAGE_KEYS, ...LEVEL_KEYS].map((k) => k.charCodeAt(0)));

function startsWithAny(token: string, prefixes: readonly string[]): boolean {
  for (const p of prefixes) if (token.startsWith(p)) return true;
  return false;
}

/** routeKey is the prefix-tree key of a token: tokens with digits share the wildcard branch. */
export function routeKey(token: string): string {
  return hasDigit(token) ? WILDCARD : token;
}

/**
 * routeKeys picks the `levels` tokens the prefix tree is keyed on. For plain lines these are
 * the first tokens, as in Drain. Structured lines usually start with a timestamp and a fixed
 * run of keys, so keying on their first tokens would put every line of a service in one leaf;
 * when a line has a message field the keys are its level token (if any) followed by the
 * message's leading words, which separates lines by what they say.
 */
export function routeKeys(tokens: readonly string[], levels: number): string[] {
  let message = -1;
  let level = -1;
  for (let i = 0; i < tokens.length && (message < 0 || level < 0); i++) {
    const t = tokens[i];
    if (!KEY_INITIALS.has(t.charCodeAt(0))) continue;
    if (message < 0 && startsWithAny(t, MESSAGE_KEYS)) message = i;
    else if (level < 0 && startsWithAny(t, LEVEL_KEYS)) level = i;
  }
  const keys: string[] = [];
  if (message < 0) {
    for (let i = 0; i < tokens.length && keys.length < levels; i++) keys.push(routeKey(tokens[i]));
    return keys;
  }
  if (level >= 0) keys.push(routeKey(tokens[level]));
  for (let i = message; i < tokens.length && keys.length < levels; i++) keys.push(routeKey(tokens[i]));
  return keys;
}
