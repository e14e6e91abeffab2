/**
 * OTLP/HTTP logs: decodes an ExportLogsServiceRequest, protobuf or JSON by Content-Type, into
 * log entries. The mapping to Sluice's conventions lives in otlpLogAssembler.ts; the wire
 * formats in otlpLogsProto.ts and otlpLogsJson.ts.
 */
import { bodyFormat, sniffFormat } from './contentType.js';
import { withContext } from './errors.js';
import { decodeOtlpLogsJson } from './otlpLogsJson.js';
import { decodeOtlpLogsProtobuf } from './otlpLogsProto.js';
import type { DecodeOptions, DecodeResult, LogEntry } from './types.js';

/**
 * decodeOtlpLogs decodes an OTLP logs request body (already stripped of Content-Encoding).
 * A missing Content-Type is decided by sniffing the body; anything undecodable throws
 * IngestError BAD_REQUEST.
 */
export function decodeOtlpLogs(body: Uint8Array, contentType: string | undefined, opts: DecodeOptions): DecodeResult<LogEntry> {
  const format = bodyFormat(contentType, 'OTLP logs', () => sniffFormat(body));
  if (format === 'json') return withContext('invalid OTLP/JSON logs request', () => decodeOtlpLogsJson(body, opts));
  return withContext('invalid OTLP ExportLogsServiceRequest protobuf', () => decodeOtlpLogsProtobuf(body, opts));
}
