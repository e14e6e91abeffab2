/**
 * The OTLP AnyValue model both OTLP decoders (protobuf and JSON) produce, and its text forms:
 * the OpenTelemetry string form used for labels and tags, the JSON form used for non-string
 * log bodies, and the flattening of nested maps into `a_b_c` tags that Sluice's log naming
 * convention asks for.
 */
import { bytesToBase64 } from './bytesText.js';
import { formatGoFloat } from '../common/goFloat.js';
import { setLabel } from './labelObject.js';

/**
 * OtlpValue is a decoded AnyValue: string, bool, int64 (number when it fits exactly, bigint
 * otherwise), double (number), bytes, array, key-value list, or null for an empty AnyValue.
 * Integers and doubles share `number` because their text forms agree for every int64 that a
 * double represents exactly.
 */
export type OtlpValue = string | boolean | number | bigint | Uint8Array | OtlpValue[] | OtlpKeyValueList | null;

/** OtlpAttribute is one KeyValue. */
export interface OtlpAttribute {
  key: string;
  value: OtlpValue;
}

/** OtlpKeyValueList wraps a kvlist so it is told apart from an array value. */
export class OtlpKeyValueList {
  readonly entries: OtlpAttribute[];

  constructor(entries: OtlpAttribute[]) {
    this.entries = entries;
  }
}

/** MAX_VALUE_DEPTH bounds the nesting of arrays and maps, against stack exhaustion. */
export const MAX_VALUE_DEPTH = 32;

/**
 * valueToString renders a value the way OpenTelemetry's AsString does: strings as they are,
 * numbers in Go's shortest positional form, bytes as base64, arrays and maps as JSON, and an
 * empty value as the empty string.
 */
export function valueToString(value: OtlpValue): string {
  if (typeof value === 'string') return value;
  if (value === null) return '';
  if (typeof value === 'number') return formatGoFloat(value);
  if (typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  if (value instanceof Uint8Array) return bytesToBase64(value);
  return valueToJson(value);
}

/**
 * valueToJson renders a value as JSON: maps become objects (keys in order), bytes base64
 * strings, int64 beyond 2^53 exact digits, and non-finite doubles the strings "NaN",
 * "Infinity" and "-Infinity" (JSON has no literal for them).
 */
export function valueToJson(value: OtlpValue): string {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'boolean':
    case 'bigint':
      return String(value);
    case 'number':
      return Number.isFinite(value) ? String(value) : JSON.stringify(String(value));
  }
  if (value instanceof Uint8Array) return JSON.stringify(bytesToBase64(value));
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) out += (i === 0 ? '' : ',') + valueToJson(value[i]);
    return out + ']';
  }
  let out = '{';
  const entries = value.entries;
  for (let i = 0; i < entries.length; i++) {
    out += (i === 0 ? '' : ',') + JSON.stringify(entries[i].key) + ':' + valueToJson(entries[i].value);
  }
  return out + '}';
}

const tagKeyCache = new Map<string, string>();
const TAG_KEY_CACHE_LIMIT = 10_000;

/**
 * tagKey turns an attribute key into a tag name: dots become underscores. Keys recur in every
 * record, so the results are cached.
 */
export function tagKey(key: string): string {
  const cached = tagKeyCache.get(key);
  if (cached !== undefined) return cached;
  const name = key.includes('.') ? key.replaceAll('.', '_') : key;
  if (tagKeyCache.size >= TAG_KEY_CACHE_LIMIT) tagKeyCache.clear();
  tagKeyCache.set(key, name);
  return name;
}

/**
 * addFlattenedTag stores an attribute as tags: a map becomes one tag per leaf, named by the
 * path joined with `_` (`http.request: {method: GET}` -> `http_request_method`), so nested
 * attributes stay matchable; everything else is one tag holding valueToString.
 */
export function addFlattenedTag(tags: Record<string, string>, key: string, value: OtlpValue): void {
  const name = tagKey(key);
  if (value instanceof OtlpKeyValueList) {
    const entries = value.entries;
    for (let i = 0; i < entries.length; i++) addFlattenedTag(tags, `${name}_${entries[i].key}`, entries[i].value);
    return;
  }
  setLabel(tags, name, valueToString(value));
}
