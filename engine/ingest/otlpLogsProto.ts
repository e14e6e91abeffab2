/**
 * Protobuf decoding of an OTLP ExportLogsServiceRequest (opentelemetry.proto.collector.logs.v1)
 * straight into log entries: one pass per LogRecord, attributes written into the record's tag
 * set as they are read. Resource and scope are located first in each container, since a
 * producer may legally write them after the records that depend on them.
 */
import { addFlattenedTag } from './otlpValue.js';
import type { OtlpAttribute, OtlpValue } from './otlpValue.js';
import { bytesToHexRange, isAllZeroRange } from './bytesText.js';
import { EMPTY_SCOPE, readAnyValue, readResourceAttributes, readScope } from './otlpCommonProto.js';
import { OtlpLogAssembler } from './otlpLogAssembler.js';
import {
  ProtoReader,
  WIRE_FIXED32,
  WIRE_FIXED64,
  WIRE_LENGTH_DELIMITED,
  WIRE_VARINT,
  fieldTag,
  scanMessage,
} from './protobuf.js';
import type { DecodeOptions, DecodeResult, LogEntry } from './types.js';

const REQUEST_RESOURCE_LOGS = fieldTag(1, WIRE_LENGTH_DELIMITED);

const RESOURCE_LOGS_RESOURCE = 1;
const RESOURCE_LOGS_SCOPE_LOGS = 2;
const SCOPE_LOGS_SCOPE = 1;
const SCOPE_LOGS_RECORDS = 2;

const RECORD_TIME = fieldTag(1, WIRE_FIXED64);
const RECORD_SEVERITY_NUMBER = fieldTag(2, WIRE_VARINT);
const RECORD_SEVERITY_TEXT = fieldTag(3, WIRE_LENGTH_DELIMITED);
const RECORD_BODY = fieldTag(5, WIRE_LENGTH_DELIMITED);
const RECORD_ATTRIBUTES = fieldTag(6, WIRE_LENGTH_DELIMITED);
const RECORD_FLAGS = fieldTag(8, WIRE_FIXED32);
const RECORD_TRACE_ID = fieldTag(9, WIRE_LENGTH_DELIMITED);
const RECORD_SPAN_ID = fieldTag(10, WIRE_LENGTH_DELIMITED);
const RECORD_OBSERVED_TIME = fieldTag(11, WIRE_FIXED64);
const RECORD_EVENT_NAME = fieldTag(12, WIRE_LENGTH_DELIMITED);
const KV_KEY = fieldTag(1, WIRE_LENGTH_DELIMITED);
const KV_VALUE = fieldTag(2, WIRE_LENGTH_DELIMITED);

/** decodeOtlpLogsProtobuf decodes a protobuf ExportLogsServiceRequest body. */
export function decodeOtlpLogsProtobuf(body: Uint8Array, opts: DecodeOptions): DecodeResult<LogEntry> {
  const r = new ProtoReader(body);
  const out = new OtlpLogAssembler(opts);
  let ri = 0;
  while (r.pos < r.limit) {
    const tag = r.tag();
    if (tag === REQUEST_RESOURCE_LOGS) readResourceLogs(r, r.messageEnd(), out, ri++);
    else r.skip(tag);
  }
  return out.result();
}

function readResourceLogs(r: ProtoReader, end: number, out: OtlpLogAssembler, ri: number): void {
  const spans = scanMessage(r, end, [RESOURCE_LOGS_RESOURCE, RESOURCE_LOGS_SCOPE_LOGS]);
  const resource = spans.get(RESOURCE_LOGS_RESOURCE)!;
  let attributes: OtlpAttribute[] = [];
  for (const span of resource) {
    r.pos = span.start;
    attributes = readResourceAttributes(r, span.end);
  }
  out.setResource(attributes);
  const scopeLogs = spans.get(RESOURCE_LOGS_SCOPE_LOGS)!;
  for (let si = 0; si < scopeLogs.length; si++) {
    r.pos = scopeLogs[si].start;
    readScopeLogs(r, scopeLogs[si].end, out, ri, si);
  }
  r.pos = end;
}

function readScopeLogs(r: ProtoReader, end: number, out: OtlpLogAssembler, ri: number, si: number): void {
  const spans = scanMessage(r, end, [SCOPE_LOGS_SCOPE, SCOPE_LOGS_RECORDS]);
  let scope = EMPTY_SCOPE;
  for (const span of spans.get(SCOPE_LOGS_SCOPE)!) {
    r.pos = span.start;
    scope = readScope(r, span.end);
  }
  out.setScope(scope);
  const records = spans.get(SCOPE_LOGS_RECORDS)!;
  for (let li = 0; li < records.length; li++) {
    r.pos = records[li].start;
    readLogRecord(r, records[li].end, out, ri, si, li);
  }
  r.pos = end;
}

function readLogRecord(r: ProtoReader, end: number, out: OtlpLogAssembler, ri: number, si: number, li: number): void {
  const rec = out.scratchFields();
  const tags = out.newTags();
  let observedLo = 0;
  let observedHi = 0;
  while (r.pos < end) {
    const tag = r.tag();
    switch (tag) {
      case RECORD_TIME:
        rec.timeNs = r.fixed64BigInt();
        break;
      case RECORD_OBSERVED_TIME:
        r.fixed64();
        observedLo = r.lo;
        observedHi = r.hi;
        break;
      case RECORD_SEVERITY_NUMBER:
        rec.severityNumber = r.int32();
        break;
      case RECORD_SEVERITY_TEXT:
        rec.severityText = r.string();
        break;
      case RECORD_BODY:
        rec.body = readAnyValue(r, r.messageEnd());
        break;
      case RECORD_ATTRIBUTES:
        readAttributeInto(r, r.messageEnd(), tags);
        break;
      case RECORD_FLAGS:
        r.fixed32();
        break;
      case RECORD_TRACE_ID:
        rec.traceId = readHexId(r);
        break;
      case RECORD_SPAN_ID:
        rec.spanId = readHexId(r);
        break;
      case RECORD_EVENT_NAME:
        rec.eventName = r.string();
        break;
      default:
        r.skip(tag);
    }
  }
  r.checkEnd(end);
  // The observed time only matters when the event time is missing, so only then is it made a BigInt.
  if (rec.timeNs === 0n && (observedLo !== 0 || observedHi !== 0)) {
    rec.observedNs = (BigInt(observedHi) << 32n) | BigInt(observedLo);
  }
  out.addRecord(tags, rec, ri, si, li);
}

/** readAttributeInto decodes a KeyValue straight into tags, without an intermediate object. */
function readAttributeInto(r: ProtoReader, end: number, tags: Record<string, string>): void {
  let key = '';
  let value: OtlpValue = null;
  while (r.pos < end) {
    const tag = r.tag();
    if (tag === KV_KEY) key = r.string();
    else if (tag === KV_VALUE) value = readAnyValue(r, r.messageEnd());
    else r.skip(tag);
  }
  r.checkEnd(end);
  addFlattenedTag(tags, key, value);
}

/** readHexId reads a bytes id as lowercase hex, '' when empty or all zero (OTLP's "unset"). */
function readHexId(r: ProtoReader): string {
  const end = r.messageEnd();
  const start = r.pos;
  r.pos = end;
  return isAllZeroRange(r.buf, start, end) ? '' : bytesToHexRange(r.buf, start, end);
}
