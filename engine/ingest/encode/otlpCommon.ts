/**
 * Encoders for the OTLP messages logs and metrics share: AnyValue, KeyValue, Resource and
 * InstrumentationScope, with the field numbers of the public OTLP schema.
 */
import type { AnyValueInput, InstrumentationScopeInput, KeyValueInput, ResourceInput } from './otlpModel.js';
import type { ProtoWriter } from './protoWriter.js';

/** writeAnyValue writes the fields of an AnyValue message. */
export function writeAnyValue(w: ProtoWriter, v: AnyValueInput): void {
  if (v.stringValue !== undefined) w.tag(1, 2).string(v.stringValue);
  else if (v.boolValue !== undefined) w.tag(2, 0).bool(v.boolValue);
  else if (v.intValue !== undefined) w.tag(3, 0).int64(v.intValue);
  else if (v.doubleValue !== undefined) w.tag(4, 1).double(v.doubleValue);
  else if (v.arrayValue !== undefined) {
    const values = v.arrayValue.values;
    w.message(5, () => {
      for (const item of values) w.message(1, () => writeAnyValue(w, item));
    });
  } else if (v.kvlistValue !== undefined) {
    const values = v.kvlistValue.values;
    w.message(6, () => {
      for (const kv of values) w.message(1, () => writeKeyValue(w, kv));
    });
  } else if (v.bytesValue !== undefined) w.tag(7, 2).bytes(v.bytesValue);
}

/** writeKeyValue writes the fields of a KeyValue message. */
export function writeKeyValue(w: ProtoWriter, kv: KeyValueInput): void {
  w.stringField(1, kv.key);
  const value = kv.value;
  if (value !== undefined) w.message(2, () => writeAnyValue(w, value));
}

/** writeAttributes writes a repeated KeyValue field. */
export function writeAttributes(w: ProtoWriter, field: number, attributes: KeyValueInput[] | undefined): void {
  if (attributes === undefined) return;
  for (const kv of attributes) w.message(field, () => writeKeyValue(w, kv));
}

/** writeResource writes a Resource message as field `field`, when given. */
export function writeResource(w: ProtoWriter, field: number, resource: ResourceInput | undefined): void {
  if (resource === undefined) return;
  w.message(field, () => {
    writeAttributes(w, 1, resource.attributes);
    w.uint32Field(2, resource.droppedAttributesCount);
  });
}

/** writeScope writes an InstrumentationScope message as field `field`, when given. */
export function writeScope(w: ProtoWriter, field: number, scope: InstrumentationScopeInput | undefined): void {
  if (scope === undefined) return;
  w.message(field, () => {
    w.stringField(1, scope.name);
    w.stringField(2, scope.version);
    writeAttributes(w, 3, scope.attributes);
    w.uint32Field(4, scope.droppedAttributesCount);
  });
}
