/**
 * `| json`: without arguments every scalar field of the line's JSON object becomes a label,
 * nested objects flattened with `_` (`{"a":{"b":1}}` gives `a_b="1"`), arrays and nulls
 * skipped; with arguments (`| json who="user.id", tag="tags[0]"`) only the named paths are
 * read, a missing path giving an empty label. A line that is not JSON gets
 * `__error__="JSONParserErr"` and keeps its labels so far.
 *
 * When the query says which labels it reads (LabelsBuilder.wanted, Loki's required-labels
 * hint), the parser sets only those and stops reading the line once it has them all, as
 * Loki's does: the rest of the line is then not checked for being valid JSON. Told so, it
 * also reads lines stored as ASCII bytes without their string being made (processAscii): the
 * common line, a flat object of plain keys without escapes, is read there, and any other is
 * handed back to the text reader, which gives it its labels or its error.
 */
import type { JsonExtraction } from '../../ast.js';
import type { JsonPathSegment } from '../../jsonPath.js';
import type { LabelsBuilder } from '../labelsBuilder.js';
import { DUPLICATE_SUFFIX } from '../labelsBuilder.js';
import { unescapeJsonString } from '../../../common/jsonString.js';
import {
  JsonScanError,
  MALFORMED_JSON,
  MALFORMED_OBJECT,
  forEachMember,
  scanValue,
  scannedKind,
  skipWhitespace,
  stringEnd,
  stringValue,
  wasEscaped,
  type JsonKind,
} from './jsonScan.js';
import { KeyCache, appendSanitizedKey, replaceInvalidUtf8 } from './sanitize.js';
import { ASCII_KEPT, ASCII_NEEDS_TEXT, NO_LABELS_READ, type AsciiOutcome, type AsciiParser, type Stage, type ValueGate } from './stage.js';
import { AsciiReading, beginAsciiLine, readsAsciiWhenTold } from './wantedKeys.js';

/** JSON_PARSER_ERROR is the `__error__` value of a JSON failure. */
export const JSON_PARSER_ERROR = 'JSONParserErr';

/** FOUND_ALL is walkObject's answer once every wanted label is set: the line needs no more reading. */
const FOUND_ALL = -1;

function scalarValue(line: string, start: number, end: number, kind: JsonKind): string {
  if (kind === 'string') return replaceInvalidUtf8(stringValue(line, start, end));
  return line.slice(start, end);
}

/** JsonParser extracts every field. */
export class JsonParser implements AsciiParser {
  /** A parser adds labels; it reads none. */
  readonly requiredLabelNames = NO_LABELS_READ;
  readonly readsTimestamp = false;
  readonly rewritesLine = false;
  readonly isParser = true;
  readonly readsLine = true;

  private readonly keys = new KeyCache();
  /** found counts the wanted labels the current line has set. */
  private found = 0;
  private readonly ascii = new AsciiReading(this.keys);

  readonly readsAscii = readsAsciiWhenTold;

  /**
   * processAscii is process() over the ASCII line bytes[start, end), for a builder with wanted
   * labels: it reads a flat object's members, keys without escapes, scalar values without
   * escapes, until every wanted label is found or the object ends, and only then sets them
   * (ASCII_KEPT), unless `gate` drops the line on the values found (ASCII_DROPPED, nothing set).
   * Anything else (a nested object or array before the last wanted label, an escape,
   * malformed JSON) answers ASCII_NEEDS_TEXT with nothing set, for process().
   */
  processAscii(bytes: Uint8Array, start: number, end: number, labels: LabelsBuilder, gate?: ValueGate): AsciiOutcome {
    const found = this.ascii.found;
    const wanted = beginAsciiLine(labels, found);
    if (typeof wanted === 'boolean') return wanted ? ASCII_KEPT : ASCII_NEEDS_TEXT;
    // Whitespace is checked in place before skipping it: compact lines have none, and the
    // calls were a good part of a line's time.
    let i = start;
    if (i < end && bytes[i] !== 123) i = skipAsciiWhitespace(bytes, i, end);
    if (i >= end || bytes[i] !== 123) return ASCII_NEEDS_TEXT;
    i++;
    if (i < end && bytes[i] !== 34) i = skipAsciiWhitespace(bytes, i, end);
    if (i < end && bytes[i] === 125) return found.setAll(bytes, labels, gate);
    while (i < end) {
      if (bytes[i] !== 34) return ASCII_NEEDS_TEXT;
      const keyStart = i + 1;
      let keyEnd = keyStart;
      while (keyEnd < end && bytes[keyEnd] !== 34 && bytes[keyEnd] !== 92) keyEnd++;
      if (keyEnd >= end || bytes[keyEnd] !== 34) return ASCII_NEEDS_TEXT;
      i = keyEnd + 1;
      if (i < end && bytes[i] !== 58) i = skipAsciiWhitespace(bytes, i, end);
      if (i >= end || bytes[i] !== 58) return ASCII_NEEDS_TEXT;
      i++;
      if (i < end && bytes[i] <= 32) i = skipAsciiWhitespace(bytes, i, end);
      if (i >= end) return ASCII_NEEDS_TEXT;
      const c = bytes[i];
      let valueStart = i;
      let valueEnd: number;
      let scalar = true;
      if (c === 34) {
        valueStart = i + 1;
        valueEnd = valueStart;
        while (valueEnd < end && bytes[valueEnd] !== 34 && bytes[valueEnd] !== 92) valueEnd++;
        if (valueEnd >= end || bytes[valueEnd] !== 34) return ASCII_NEEDS_TEXT;
        i = valueEnd + 1;
      } else if ((c >= 48 && c <= 57) || c === 45) {
        i = valueEnd = asciiTokenEnd(bytes, i, end);
      } else if (c === 116 || c === 102 || c === 110) {
        i = valueEnd = asciiTokenEnd(bytes, i, end);
        const literal = asciiLiteral(bytes, valueStart, valueEnd);
        if (literal === NOT_A_LITERAL) return ASCII_NEEDS_TEXT;
        scalar = literal !== NULL_LITERAL;
      } else {
        // An object or array (read with its flattened names by process()), or not a value.
        return ASCII_NEEDS_TEXT;
      }
      if (scalar) {
        const name = this.ascii.names.inBytes(bytes, keyStart, keyEnd, labels, wanted);
        if (name !== undefined && !found.has(name)) {
          found.add(name, valueStart, valueEnd);
          if (found.count === wanted.size) return found.setAll(bytes, labels, gate);
        }
      }
      if (i < end && bytes[i] !== 44 && bytes[i] !== 125) i = skipAsciiWhitespace(bytes, i, end);
      if (i >= end) return ASCII_NEEDS_TEXT;
      if (bytes[i] === 125) return found.setAll(bytes, labels, gate);
      if (bytes[i] !== 44) return ASCII_NEEDS_TEXT;
      i++;
      if (i < end && bytes[i] !== 34) i = skipAsciiWhitespace(bytes, i, end);
    }
    return ASCII_NEEDS_TEXT;
  }

  process(_timestampNs: bigint, line: string, labels: LabelsBuilder): string | null {
    if (labels.noLabels) return line;
    this.found = 0;
    try {
      const start = skipWhitespace(line, 0);
      if (start >= line.length || line.charCodeAt(start) !== 123) {
        throw new JsonScanError("Value looks like object, but can't find closing '}' symbol");
      }
      this.walkObject(line, start, '', labels);
    } catch (err) {
      if (!(err instanceof JsonScanError)) throw err;
      labels.setParserError(JSON_PARSER_ERROR, err.message);
    }
    return line;
  }

  /**
   * walkObject extracts the members of the object at `at` (its `{`) in one pass, descending
   * into nested objects with the flattened prefix, and returns the index after the object, or
   * FOUND_ALL once every wanted label is set.
   */
  private walkObject(line: string, at: number, prefix: string, labels: LabelsBuilder): number {
    const n = line.length;
    const wanted = labels.wanted;
    let i = skipWhitespace(line, at + 1);
    if (i < n && line.charCodeAt(i) === 125) return i + 1;
    while (i < n) {
      if (line.charCodeAt(i) !== 34) throw new JsonScanError(MALFORMED_JSON);
      const keyStart = i + 1;
      const keyEnd = stringEnd(line, keyStart);
      const escaped = wasEscaped();
      i = skipWhitespace(line, keyEnd + 1);
      if (line.charCodeAt(i) !== 58) throw new JsonScanError(MALFORMED_JSON);
      i = skipWhitespace(line, i + 1);
      if (i >= n) throw new JsonScanError(MALFORMED_OBJECT);
      if (line.charCodeAt(i) === 123) {
        i = this.walkObject(line, i, prefix === '' ? this.keys.get(keyText(line, keyStart, keyEnd, escaped)) : appendSanitizedKey(prefix, keyText(line, keyStart, keyEnd, escaped)), labels);
        if (i === FOUND_ALL) return FOUND_ALL;
      } else {
        const end = scanValue(line, i);
        const kind = scannedKind();
        if (kind !== 'array' && kind !== 'null') {
          let name: string | undefined;
          if (wanted !== undefined && prefix === '' && !escaped && isPlainName(line, keyStart, keyEnd)) {
            // A plain top-level key is its own label name: matched in place, no string made.
            name = this.ascii.names.plainInText(line, keyStart, keyEnd, labels, wanted);
          } else {
            name = prefix === '' ? this.keys.get(keyText(line, keyStart, keyEnd, escaped)) : appendSanitizedKey(prefix, keyText(line, keyStart, keyEnd, escaped));
            if (name !== '' && labels.baseHas(name)) name += DUPLICATE_SUFFIX;
            if (name === '' || (wanted !== undefined && !wanted.has(name))) name = undefined;
          }
          if (name !== undefined && !labels.isExtracted(name)) {
            labels.set(name, scalarValue(line, i, end, kind));
            if (wanted !== undefined && ++this.found === wanted.size) return FOUND_ALL;
          }
        }
        i = end;
      }
      i = skipWhitespace(line, i);
      const c = line.charCodeAt(i);
      if (c === 125) return i + 1;
      if (c !== 44) throw new JsonScanError(MALFORMED_OBJECT);
      i = skipWhitespace(line, i + 1);
    }
    throw new JsonScanError(MALFORMED_OBJECT);
  }
}

/** keyText is the text of the key line[start, end), unescaped when it had escapes. */
function keyText(line: string, start: number, end: number, escaped: boolean): string {
  return escaped ? (unescapeJsonString(line, start, end) ?? line.slice(start, end)) : line.slice(start, end);
}

/**
 * isPlainName tells whether line[start, end) is a valid label name as it is, so sanitising
 * leaves it unchanged.
 */
function isPlainName(line: string, start: number, end: number): boolean {
  if (end <= start) return false;
  for (let i = start; i < end; i++) {
    const c = line.charCodeAt(i);
    const letter = (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;
    if (!letter && (i === start || c < 48 || c > 57)) return false;
  }
  return true;
}

/** NOT_A_LITERAL and NULL_LITERAL are asciiLiteral's answers besides a boolean. */
const NOT_A_LITERAL = 0;
const NULL_LITERAL = 1;
const BOOLEAN_LITERAL = 2;

/** asciiLiteral tells whether bytes[start, end) is `true` or `false`, `null`, or neither. */
function asciiLiteral(bytes: Uint8Array, start: number, end: number): number {
  const length = end - start;
  if (length === 4 && bytes[start] === 116 && bytes[start + 1] === 114 && bytes[start + 2] === 117 && bytes[start + 3] === 101) return BOOLEAN_LITERAL;
  if (length === 5 && bytes[start] === 102 && bytes[start + 1] === 97 && bytes[start + 2] === 108 && bytes[start + 3] === 115 && bytes[start + 4] === 101) return BOOLEAN_LITERAL;
  if (length === 4 && bytes[start] === 110 && bytes[start + 1] === 117 && bytes[start + 2] === 108 && bytes[start + 3] === 108) return NULL_LITERAL;
  return NOT_A_LITERAL;
}

/** skipAsciiWhitespace is skipWhitespace over bytes, stopping at `end`. */
function skipAsciiWhitespace(bytes: Uint8Array, i: number, end: number): number {
  while (i < end) {
    const c = bytes[i];
    if (c !== 32 && c !== 10 && c !== 13 && c !== 9) break;
    i++;
  }
  return i;
}

/** asciiTokenEnd is tokenEnd over bytes: a bare token runs to a delimiter or whitespace. */
function asciiTokenEnd(bytes: Uint8Array, i: number, end: number): number {
  while (i < end) {
    const c = bytes[i];
    if (c === 44 || c === 125 || c === 93 || c === 32 || c === 10 || c === 13 || c === 9) break;
    i++;
  }
  return i;
}

/** lookupPath finds the value at `path` in the JSON document at `start`, or undefined. */
function lookupPath(line: string, start: number, path: readonly JsonPathSegment[]): { start: number; end: number; kind: JsonKind } | undefined {
  let at = start;
  let end = scanValue(line, at);
  let kind = scannedKind();
  for (const segment of path) {
    if (typeof segment === 'string') {
      if (kind !== 'object') return undefined;
      let found: { start: number; end: number; kind: JsonKind } | undefined;
      forEachMember(line, at, (key, vs, ve, k) => {
        if (found === undefined && key === segment) found = { start: vs, end: ve, kind: k };
      });
      if (found === undefined) return undefined;
      ({ start: at, end, kind } = found);
    } else {
      if (kind !== 'array') return undefined;
      let i = skipWhitespace(line, at + 1);
      let index = 0;
      let found = false;
      while (i < end - 1) {
        const ve = scanValue(line, i);
        if (index === segment) {
          at = i;
          end = ve;
          kind = scannedKind();
          found = true;
          break;
        }
        index++;
        i = skipWhitespace(line, ve);
        if (line.charCodeAt(i) === 44) i = skipWhitespace(line, i + 1);
      }
      if (!found) return undefined;
    }
  }
  return { start: at, end, kind };
}

/** JsonExpressionParser extracts only the named paths. */
export class JsonExpressionParser implements Stage {
  /** A parser adds labels; it reads none. */
  readonly requiredLabelNames = NO_LABELS_READ;
  readonly readsTimestamp = false;
  readonly rewritesLine = false;
  readonly isParser = true;
  readonly readsLine = true;

  constructor(private readonly extractions: readonly JsonExtraction[]) {}

  process(_timestampNs: bigint, line: string, labels: LabelsBuilder): string | null {
    if (line.length === 0 || labels.noLabels) return line;
    const first = line.charCodeAt(0);
    if (first !== 34 && first !== 123 && first !== 91) {
      labels.setParserError(JSON_PARSER_ERROR);
      return line;
    }
    let matched = 0;
    try {
      for (const extraction of this.extractions) {
        const found = lookupPath(line, 0, extraction.path);
        if (found === undefined) continue;
        const name = labels.baseHas(extraction.name) ? extraction.name + DUPLICATE_SUFFIX : extraction.name;
        let value: string;
        if (found.kind === 'null') value = '';
        else if (found.kind === 'string') value = replaceInvalidUtf8(stringValue(line, found.start, found.end));
        else value = line.slice(found.start, found.end);
        labels.set(name, value);
        matched++;
      }
    } catch (err) {
      if (!(err instanceof JsonScanError)) throw err;
      labels.setParserError(JSON_PARSER_ERROR, err.message);
    }
    if (matched < this.extractions.length) {
      for (const extraction of this.extractions) {
        if (labels.get(extraction.name) === undefined) labels.set(extraction.name, '');
      }
    }
    return line;
  }
}
