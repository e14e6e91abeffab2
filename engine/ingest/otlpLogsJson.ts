/**
 * OTLP/JSON decoding of an ExportLogsServiceRequest. Field names are lowerCamelCase (the proto
 * names are accepted too), 64-bit integers decimal strings, enums numbers (or their names),
 * traceId/spanId hex strings, per the OTLP/JSON encoding rules.
 */
import { badRequest } from './errors.js';
import { asEnum, asObject, asString, parseJsonBody, pick, readTimeNanos } from './jsonFields.js';
import type { JsonObject } from './jsonFields.js';
import { jsonAnyValue, jsonKeyValues, jsonRepeated, jsonResourceAttributes, jsonScope } from './otlpCommonJson.js';
import { OtlpLogAssembler } from './otlpLogAssembler.js';
import { addFlattenedTag } from './otlpValue.js';
import type { DecodeOptions, DecodeResult, LogEntry } from './types.js';

const SEVERITY_NAMES: Readonly<Record<string, number>> = buildSeverityNames();

function buildSeverityNames(): Record<string, number> {
  const names: Record<string, number> = Object.create(null) as Record<string, number>;
  names.SEVERITY_NUMBER_UNSPECIFIED = 0;
  const bases = ['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR', 'FATAL'];
  bases.forEach((base, i) => {
    names[`SEVERITY_NUMBER_${base}`] = i * 4 + 1;
    for (let k = 2; k <= 4; k++) names[`SEVERITY_NUMBER_${base}${k}`] = i * 4 + k;
  });
  return names;
}

/** decodeOtlpLogsJson decodes an OTLP/JSON ExportLogsServiceRequest body. */
export function decodeOtlpLogsJson(body: Uint8Array, opts: DecodeOptions): DecodeResult<LogEntry> {
  const root = parseJsonBody(body);
  const out = new OtlpLogAssembler(opts);
  const resourceLogs = jsonRepeated(root, 'resourceLogs', 'resource_logs', '');
  for (let ri = 0; ri < resourceLogs.length; ri++) {
    const rPath = `resourceLogs[${ri}]`;
    const rl = asObject(resourceLogs[ri], rPath) ?? {};
    out.setResource(jsonResourceAttributes(rl, rPath));
    const scopeLogs = jsonRepeated(rl, 'scopeLogs', 'scope_logs', rPath);
    for (let si = 0; si < scopeLogs.length; si++) {
      const sPath = `${rPath}.scopeLogs[${si}]`;
      const sl = asObject(scopeLogs[si], sPath) ?? {};
      out.setScope(jsonScope(sl, sPath));
      const records = jsonRepeated(sl, 'logRecords', 'log_records', sPath);
      for (let li = 0; li < records.length; li++) {
        const lPath = `${sPath}.logRecords[${li}]`;
        readRecord(asObject(records[li], lPath) ?? {}, lPath, out, ri, si, li);
      }
    }
  }
  return out.result();
}

function readRecord(rec: JsonObject, path: string, out: OtlpLogAssembler, ri: number, si: number, li: number): void {
  const fields = out.scratchFields();
  const time = readTimeNanos(pick(rec, 'timeUnixNano', 'time_unix_nano'), 'timeUnixNano');
  const observed = readTimeNanos(pick(rec, 'observedTimeUnixNano', 'observed_time_unix_nano'), 'observedTimeUnixNano');
  if (typeof time === 'string') fields.timeError = time;
  else fields.timeNs = time;
  // The observed time only matters when the record has no time of its own.
  if (typeof observed !== 'string') fields.observedNs = observed;
  else if (fields.timeNs === 0n) fields.timeError ||= observed;
  fields.severityNumber = asEnum(pick(rec, 'severityNumber', 'severity_number'), `${path}.severityNumber`, SEVERITY_NAMES);
  fields.severityText = asString(pick(rec, 'severityText', 'severity_text'), `${path}.severityText`);
  fields.body = jsonAnyValue(rec.body, `${path}.body`);
  fields.traceId = hexId(pick(rec, 'traceId', 'trace_id'), `${path}.traceId`);
  fields.spanId = hexId(pick(rec, 'spanId', 'span_id'), `${path}.spanId`);
  fields.eventName = asString(pick(rec, 'eventName', 'event_name'), `${path}.eventName`);
  const tags = out.newTags();
  const attributes = jsonKeyValues(rec.attributes, `${path}.attributes`);
  for (let i = 0; i < attributes.length; i++) addFlattenedTag(tags, attributes[i].key, attributes[i].value);
  out.addRecord(tags, fields, ri, si, li);
}

/** hexId validates a traceId/spanId hex string in one pass; all zeros means "no id". */
function hexId(v: unknown, path: string): string {
  const text = asString(v, path);
  if (text === '') return '';
  let upper = false;
  let nonZero = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0x41 && c <= 0x46) upper = true;
    else if (!((c >= 0x30 && c <= 0x39) || (c >= 0x61 && c <= 0x66))) {
      throw badRequest(`${path}: expected a hex string, got ${JSON.stringify(text)}`);
    }
    if (c !== 0x30) nonZero = true;
  }
  if (text.length % 2 !== 0) throw badRequest(`${path}: expected a hex string of whole bytes, got ${JSON.stringify(text)}`);
  if (!nonZero) return '';
  return upper ? text.toLowerCase() : text;
}
