/**
 * OTLP/JSON decoding of the shared messages (AnyValue, KeyValue, InstrumentationScope,
 * Resource) into the same model the protobuf decoder produces, following the OTLP/JSON rules:
 * lowerCamelCase field names (proto names accepted too), int64 as decimal strings, bytes as
 * base64.
 */
import { base64ToBytes } from './bytesText.js';
import { badRequest } from './errors.js';
import { asArray, asBool, asDouble, asInt64, asObject, asString, pick } from './jsonFields.js';
import type { JsonObject } from './jsonFields.js';
import type { OtlpScope } from './otlpCommonProto.js';
import { MAX_VALUE_DEPTH, OtlpKeyValueList } from './otlpValue.js';
import type { OtlpAttribute, OtlpValue } from './otlpValue.js';

/** jsonAnyValue decodes an AnyValue object; an empty or absent one is null. */
export function jsonAnyValue(v: unknown, path: string, depth = 0): OtlpValue {
  if (depth > MAX_VALUE_DEPTH) throw badRequest(`${path}: AnyValue nested deeper than ${MAX_VALUE_DEPTH} levels`);
  const obj = asObject(v, path);
  if (obj === undefined) return null;
  let x = pick(obj, 'stringValue', 'string_value');
  if (x !== undefined) return asString(x, `${path}.stringValue`);
  x = pick(obj, 'boolValue', 'bool_value');
  if (x !== undefined) return asBool(x, `${path}.boolValue`);
  x = pick(obj, 'intValue', 'int_value');
  if (x !== undefined) return asInt64(x, `${path}.intValue`);
  x = pick(obj, 'doubleValue', 'double_value');
  if (x !== undefined) return asDouble(x, `${path}.doubleValue`);
  x = pick(obj, 'arrayValue', 'array_value');
  if (x !== undefined) {
    const list = asObject(x, `${path}.arrayValue`);
    const items = asArray(list?.values, `${path}.arrayValue.values`);
    const out: OtlpValue[] = new Array(items.length);
    for (let i = 0; i < items.length; i++) out[i] = jsonAnyValue(items[i], `${path}.arrayValue.values[${i}]`, depth + 1);
    return out;
  }
  x = pick(obj, 'kvlistValue', 'kvlist_value');
  if (x !== undefined) {
    const list = asObject(x, `${path}.kvlistValue`);
    return new OtlpKeyValueList(jsonKeyValues(list?.values, `${path}.kvlistValue.values`, depth + 1));
  }
  x = pick(obj, 'bytesValue', 'bytes_value');
  if (x !== undefined) {
    const bytes = base64ToBytes(asString(x, `${path}.bytesValue`));
    if (bytes === undefined) throw badRequest(`${path}.bytesValue: expected base64`);
    return bytes;
  }
  return null;
}

/** jsonKeyValues decodes a repeated KeyValue field (attributes). */
export function jsonKeyValues(v: unknown, path: string, depth = 0): OtlpAttribute[] {
  const items = asArray(v, path);
  const out: OtlpAttribute[] = new Array(items.length);
  for (let i = 0; i < items.length; i++) {
    const itemPath = `${path}[${i}]`;
    const kv = asObject(items[i], itemPath) ?? {};
    out[i] = { key: asString(kv.key, `${itemPath}.key`), value: jsonAnyValue(kv.value, `${itemPath}.value`, depth) };
  }
  return out;
}

/** jsonResourceAttributes decodes the `resource` field of a ResourceLogs/ResourceMetrics. */
export function jsonResourceAttributes(container: JsonObject, path: string): OtlpAttribute[] {
  const resource = asObject(container.resource, `${path}.resource`);
  return resource ? jsonKeyValues(resource.attributes, `${path}.resource.attributes`) : [];
}

/** jsonScope decodes the `scope` field of a ScopeLogs/ScopeMetrics. */
export function jsonScope(container: JsonObject, path: string): OtlpScope {
  const scope = asObject(container.scope, `${path}.scope`);
  if (!scope) return { name: '', version: '', attributes: [] };
  return {
    name: asString(scope.name, `${path}.scope.name`),
    version: asString(scope.version, `${path}.scope.version`),
    attributes: jsonKeyValues(scope.attributes, `${path}.scope.attributes`),
  };
}

/** jsonRepeated reads a repeated message field given by camel and snake names. */
export function jsonRepeated(obj: JsonObject, camel: string, snake: string, path: string): unknown[] {
  return asArray(pick(obj, camel, snake), path === '' ? camel : `${path}.${camel}`);
}
