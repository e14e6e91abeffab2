/** Encoder of OTLP logs requests, for the telemetry generator, tests and benchmarks. */
import { writeAnyValue, writeAttributes, writeResource, writeScope } from './otlpCommon.js';
import type { ExportLogsServiceRequestInput, LogRecordInput } from './otlpModel.js';
import { ProtoWriter } from './protoWriter.js';

/**
 * encodeExportLogsServiceRequest writes an OTLP ExportLogsServiceRequest in protobuf, the body
 * an OTLP/HTTP exporter sends with Content-Type application/x-protobuf.
 */
export function encodeExportLogsServiceRequest(req: ExportLogsServiceRequestInput): Uint8Array {
  const w = new ProtoWriter(4096);
  for (const rl of req.resourceLogs) {
    w.message(1, () => {
      writeResource(w, 1, rl.resource);
      for (const sl of rl.scopeLogs ?? []) {
        w.message(2, () => {
          writeScope(w, 1, sl.scope);
          for (const rec of sl.logRecords ?? []) w.message(2, () => writeLogRecord(w, rec));
          w.stringField(3, sl.schemaUrl);
        });
      }
      w.stringField(3, rl.schemaUrl);
    });
  }
  return w.finish();
}

function writeLogRecord(w: ProtoWriter, rec: LogRecordInput): void {
  w.fixed64Field(1, rec.timeUnixNano);
  w.int32Field(2, rec.severityNumber);
  w.stringField(3, rec.severityText);
  const body = rec.body;
  if (body !== undefined) w.message(5, () => writeAnyValue(w, body));
  writeAttributes(w, 6, rec.attributes);
  w.uint32Field(7, rec.droppedAttributesCount);
  w.fixed32Field(8, rec.flags);
  w.bytesField(9, rec.traceId);
  w.bytesField(10, rec.spanId);
  w.fixed64Field(11, rec.observedTimeUnixNano);
  w.stringField(12, rec.eventName);
}
