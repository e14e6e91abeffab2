/**
 * OTLP/HTTP responses with partial success: when some records were rejected, an OTLP receiver
 * answers 200 with `partial_success` set (the count and a message), in the request's format.
 * The logs and metrics responses share one protobuf shape; only the JSON field name of the
 * count differs.
 */
import { ProtoWriter } from './protoWriter.js';

/** OtlpSignal is the kind of telemetry an OTLP response answers for. */
export type OtlpSignal = 'logs' | 'metrics';

/**
 * encodeExportResponse writes ExportLogsServiceResponse / ExportMetricsServiceResponse in
 * protobuf; with nothing rejected and no message it is the empty message.
 */
export function encodeExportResponse(rejected: number, errorMessage: string): Uint8Array {
  const w = new ProtoWriter(64 + errorMessage.length * 3);
  if (rejected !== 0 || errorMessage !== '') {
    w.message(1, () => {
      w.int64Field(1, rejected);
      w.stringField(2, errorMessage);
    });
  }
  return w.finish();
}

/** exportResponseJson builds the OTLP/JSON response object for `signal`. */
export function exportResponseJson(signal: OtlpSignal, rejected: number, errorMessage: string): Record<string, unknown> {
  if (rejected === 0 && errorMessage === '') return {};
  const countField = signal === 'logs' ? 'rejectedLogRecords' : 'rejectedDataPoints';
  return { partialSuccess: { [countField]: String(rejected), errorMessage } };
}
