/**
 * A small JSON scanner over a line held as a JavaScript string, shaped for what the `json`
 * and `unpack` parsers need: walk an object's members without building objects, skip
 * values, and decode strings only when a label is actually produced. Malformed input throws
 * JsonScanError with the messages Loki's jsonparser uses, which end up in
 * `__error_details__`.
 */
import { unescapeJsonString } from '../../../common/jsonString.js';

/** JsonScanError is a malformed document. */
export class JsonScanError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'JsonScanError';
  }
}

/** The malformed-document messages, worded as Loki's jsonparser reports them. */
export const MALFORMED_OBJECT = "Value looks like object, but can't find closing '}' symbol";
export const MALFORMED_ARRAY = "Value is array, but can't find closing ']' symbol";
export const MALFORMED_STRING = "Value is string, but can't find closing '\"' symbol";
export const MALFORMED_VALUE = "Value looks like Number/Boolean/None, but can't find its end: ',' or '}' symbol";
export const MALFORMED_JSON = 'Malformed JSON error';
export const UNKNOWN_VALUE = 'Unknown value type';

/** JsonKind is the type of a scanned value. */
export type JsonKind = 'string' | 'number' | 'object' | 'array' | 'boolean' | 'null';

/** skipWhitespace returns the first index at or after `i` that is not JSON whitespace. */
export function skipWhitespace(s: string, i: number): number {
  const n = s.length;
  while (i < n) {
    const c = s.charCodeAt(i);
    if (c !== 32 && c !== 10 && c !== 13 && c !== 9) break;
    i++;
  }
  return i;
}

/** lastStringEscaped is set by stringEnd: whether the string just scanned holds a backslash. */
let lastStringEscaped = false;

/**
 * stringEnd returns the index of the closing quote of the string whose contents start at `i`
 * (just after the opening quote).
 */
export function stringEnd(s: string, i: number): number {
  const n = s.length;
  lastStringEscaped = false;
  while (i < n) {
    const c = s.charCodeAt(i);
    if (c === 34) return i;
    if (c === 92) {
      lastStringEscaped = true;
      i += 2;
      continue;
    }
    i++;
  }
  throw new JsonScanError(MALFORMED_STRING);
}

/** wasEscaped tells whether the last string scanned by stringEnd contained escapes. */
export function wasEscaped(): boolean {
  return lastStringEscaped;
}

function isDelimiter(c: number): boolean {
  return c === 44 || c === 125 || c === 93 || c === 32 || c === 10 || c === 13 || c === 9;
}

/** tokenEnd returns the end of a bare token (number or literal) starting at `i`. */
function tokenEnd(s: string, i: number): number {
  const n = s.length;
  while (i < n && !isDelimiter(s.charCodeAt(i))) i++;
  return i;
}

/** lastKind is the kind of the value skipValue scanned last. */
let lastKind: JsonKind = 'null';

/** scannedKind returns the kind of the value scanValue just scanned. */
export function scannedKind(): JsonKind {
  return lastKind;
}

/**
 * scanValue skips the value starting at `i` (which must not be whitespace) and returns its
 * end; scannedKind() then tells its type.
 */
export function scanValue(s: string, i: number): number {
  const c = s.charCodeAt(i);
  switch (c) {
    case 34: {
      const end = stringEnd(s, i + 1);
      lastKind = 'string';
      return end + 1;
    }
    case 123: {
      const end = skipObject(s, i);
      lastKind = 'object';
      return end;
    }
    case 91: {
      const end = skipArray(s, i);
      lastKind = 'array';
      return end;
    }
    case 116:
    case 102:
    case 110: {
      const end = tokenEnd(s, i);
      const word = s.slice(i, end);
      if (word === 'true' || word === 'false') lastKind = 'boolean';
      else if (word === 'null') lastKind = 'null';
      else throw new JsonScanError(MALFORMED_VALUE);
      return end;
    }
    default: {
      if ((c >= 48 && c <= 57) || c === 45) {
        const end = tokenEnd(s, i);
        if (end === s.length && end === i) throw new JsonScanError(MALFORMED_VALUE);
        lastKind = 'number';
        return end;
      }
      throw new JsonScanError(UNKNOWN_VALUE);
    }
  }
}

/** skipObject returns the index just after the object starting at `i` (at its `{`). */
export function skipObject(s: string, i: number): number {
  const n = s.length;
  i = skipWhitespace(s, i + 1);
  if (i < n && s.charCodeAt(i) === 125) return i + 1;
  while (i < n) {
    if (s.charCodeAt(i) !== 34) throw new JsonScanError(MALFORMED_JSON);
    i = stringEnd(s, i + 1) + 1;
    i = skipWhitespace(s, i);
    if (s.charCodeAt(i) !== 58) throw new JsonScanError(MALFORMED_JSON);
    i = skipWhitespace(s, i + 1);
    if (i >= n) throw new JsonScanError(MALFORMED_OBJECT);
    i = skipWhitespace(s, scanValue(s, i));
    const c = s.charCodeAt(i);
    if (c === 125) return i + 1;
    if (c !== 44) throw new JsonScanError(MALFORMED_OBJECT);
    i = skipWhitespace(s, i + 1);
  }
  throw new JsonScanError(MALFORMED_OBJECT);
}

/** skipArray returns the index just after the array starting at `i` (at its `[`). */
export function skipArray(s: string, i: number): number {
  const n = s.length;
  i = skipWhitespace(s, i + 1);
  if (i < n && s.charCodeAt(i) === 93) return i + 1;
  while (i < n) {
    i = skipWhitespace(s, scanValue(s, i));
    const c = s.charCodeAt(i);
    if (c === 93) return i + 1;
    if (c !== 44) throw new JsonScanError(MALFORMED_ARRAY);
    i = skipWhitespace(s, i + 1);
  }
  throw new JsonScanError(MALFORMED_ARRAY);
}

/** MemberVisitor receives an object member: its decoded key and where its value lies. */
export type MemberVisitor = (key: string, valueStart: number, valueEnd: number, kind: JsonKind) => void;

/**
 * forEachMember visits the members of the object at `i` (at its `{`), in document order,
 * and returns the index after the object. Keys are decoded; values are only located.
 */
export function forEachMember(s: string, i: number, visit: MemberVisitor): number {
  const n = s.length;
  if (s.charCodeAt(i) !== 123) throw new JsonScanError(MALFORMED_OBJECT);
  i = skipWhitespace(s, i + 1);
  if (i < n && s.charCodeAt(i) === 125) return i + 1;
  while (i < n) {
    if (s.charCodeAt(i) !== 34) throw new JsonScanError(MALFORMED_JSON);
    const keyEnd = stringEnd(s, i + 1);
    const key = lastStringEscaped ? (unescapeJsonString(s, i + 1, keyEnd) ?? s.slice(i + 1, keyEnd)) : s.slice(i + 1, keyEnd);
    i = skipWhitespace(s, keyEnd + 1);
    if (s.charCodeAt(i) !== 58) throw new JsonScanError(MALFORMED_JSON);
    i = skipWhitespace(s, i + 1);
    if (i >= n) throw new JsonScanError(MALFORMED_OBJECT);
    const valueStart = i;
    const valueEnd = scanValue(s, i);
    visit(key, valueStart, valueEnd, lastKind);
    i = skipWhitespace(s, valueEnd);
    const c = s.charCodeAt(i);
    if (c === 125) return i + 1;
    if (c !== 44) throw new JsonScanError(MALFORMED_OBJECT);
    i = skipWhitespace(s, i + 1);
  }
  throw new JsonScanError(MALFORMED_OBJECT);
}

/** stringValue decodes the JSON string value at [start, end) (quotes included), '' when invalid. */
export function stringValue(s: string, start: number, end: number): string {
  const inner = s.slice(start + 1, end - 1);
  if (inner.indexOf('\\') < 0) return inner;
  return unescapeJsonString(s, start + 1, end - 1) ?? '';
}
