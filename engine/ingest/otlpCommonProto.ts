/**
 * Protobuf decoding of the messages OTLP logs and metrics share (opentelemetry.proto.common.v1
 * and resource.v1): AnyValue, KeyValue, InstrumentationScope and Resource. Field numbers are
 * those of the public OTLP schema.
 */
import { badRequest } from './errors.js';
import { OtlpKeyValueList, MAX_VALUE_DEPTH } from './otlpValue.js';
import type { OtlpAttribute, OtlpValue } from './otlpValue.js';
import { WIRE_FIXED64, WIRE_LENGTH_DELIMITED, WIRE_VARINT, fieldTag } from './protobuf.js';
import type { ProtoReader } from './protobuf.js';

const ANY_STRING = fieldTag(1, WIRE_LENGTH_DELIMITED);
const ANY_BOOL = fieldTag(2, WIRE_VARINT);
const ANY_INT = fieldTag(3, WIRE_VARINT);
const ANY_DOUBLE = fieldTag(4, WIRE_FIXED64);
const ANY_ARRAY = fieldTag(5, WIRE_LENGTH_DELIMITED);
const ANY_KVLIST = fieldTag(6, WIRE_LENGTH_DELIMITED);
const ANY_BYTES = fieldTag(7, WIRE_LENGTH_DELIMITED);

const KV_KEY = fieldTag(1, WIRE_LENGTH_DELIMITED);
const KV_VALUE = fieldTag(2, WIRE_LENGTH_DELIMITED);

const LIST_VALUES = fieldTag(1, WIRE_LENGTH_DELIMITED);

const SCOPE_NAME = fieldTag(1, WIRE_LENGTH_DELIMITED);
const SCOPE_VERSION = fieldTag(2, WIRE_LENGTH_DELIMITED);
const SCOPE_ATTRIBUTES = fieldTag(3, WIRE_LENGTH_DELIMITED);

const RESOURCE_ATTRIBUTES = fieldTag(1, WIRE_LENGTH_DELIMITED);

/** readAnyValue decodes an AnyValue message ending at `end`; an empty one is null. */
export function readAnyValue(r: ProtoReader, end: number, depth = 0): OtlpValue {
  if (depth > MAX_VALUE_DEPTH) throw badRequest(`AnyValue nested deeper than ${MAX_VALUE_DEPTH} levels`);
  let value: OtlpValue = null;
  while (r.pos < end) {
    const tag = r.tag();
    switch (tag) {
      case ANY_STRING:
        value = r.string();
        break;
      case ANY_BOOL:
        value = r.bool();
        break;
      case ANY_INT:
        value = r.int64Value();
        break;
      case ANY_DOUBLE:
        value = r.double();
        break;
      case ANY_ARRAY:
        value = readArrayValue(r, r.messageEnd(), depth + 1);
        break;
      case ANY_KVLIST:
        value = new OtlpKeyValueList(readKeyValueList(r, r.messageEnd(), depth + 1));
        break;
      case ANY_BYTES:
        value = r.bytes().slice();
        break;
      default:
        r.skip(tag);
    }
  }
  r.checkEnd(end);
  return value;
}

function readArrayValue(r: ProtoReader, end: number, depth: number): OtlpValue[] {
  const values: OtlpValue[] = [];
  while (r.pos < end) {
    const tag = r.tag();
    if (tag === LIST_VALUES) values.push(readAnyValue(r, r.messageEnd(), depth));
    else r.skip(tag);
  }
  r.checkEnd(end);
  return values;
}

function readKeyValueList(r: ProtoReader, end: number, depth: number): OtlpAttribute[] {
  const entries: OtlpAttribute[] = [];
  while (r.pos < end) {
    const tag = r.tag();
    if (tag === LIST_VALUES) entries.push(readKeyValue(r, r.messageEnd(), depth));
    else r.skip(tag);
  }
  r.checkEnd(end);
  return entries;
}

/** readKeyValue decodes one KeyValue message ending at `end`. */
export function readKeyValue(r: ProtoReader, end: number, depth = 0): OtlpAttribute {
  let key = '';
  let value: OtlpValue = null;
  while (r.pos < end) {
    const tag = r.tag();
    if (tag === KV_KEY) key = r.string();
    else if (tag === KV_VALUE) value = readAnyValue(r, r.messageEnd(), depth);
    else r.skip(tag);
  }
  r.checkEnd(end);
  return { key, value };
}

/** readResourceAttributes decodes a Resource message and returns its attributes. */
export function readResourceAttributes(r: ProtoReader, end: number): OtlpAttribute[] {
  const attributes: OtlpAttribute[] = [];
  while (r.pos < end) {
    const tag = r.tag();
    if (tag === RESOURCE_ATTRIBUTES) attributes.push(readKeyValue(r, r.messageEnd()));
    else r.skip(tag);
  }
  r.checkEnd(end);
  return attributes;
}

/** OtlpScope is a decoded InstrumentationScope. */
export interface OtlpScope {
  name: string;
  version: string;
  attributes: OtlpAttribute[];
}

/** EMPTY_SCOPE stands for an absent InstrumentationScope. */
export const EMPTY_SCOPE: Readonly<OtlpScope> = Object.freeze({ name: '', version: '', attributes: [] });

/** readScope decodes an InstrumentationScope message. */
export function readScope(r: ProtoReader, end: number): OtlpScope {
  const scope: OtlpScope = { name: '', version: '', attributes: [] };
  while (r.pos < end) {
    const tag = r.tag();
    if (tag === SCOPE_NAME) scope.name = r.string();
    else if (tag === SCOPE_VERSION) scope.version = r.string();
    else if (tag === SCOPE_ATTRIBUTES) scope.attributes.push(readKeyValue(r, r.messageEnd()));
    else r.skip(tag);
  }
  r.checkEnd(end);
  return scope;
}
