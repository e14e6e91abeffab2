/**
 * protobufjs message types built from the .proto fixtures, so tests can encode payloads with an
 * implementation independent of Sluice's reader and writer, and decode what Sluice's encoders
 * write.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import protobuf from 'protobufjs';

export const FIXTURES_DIR = fileURLToPath(new URL('./fixtures/', import.meta.url));

function loadRoot(): protobuf.Root {
  const root = new protobuf.Root();
  root.resolvePath = (_origin, target) => (path.isAbsolute(target) ? target : path.join(FIXTURES_DIR, target));
  root.loadSync(
    [
      'opentelemetry/proto/collector/logs/v1/logs_service.proto',
      'opentelemetry/proto/collector/metrics/v1/metrics_service.proto',
      'prometheus/remote.proto',
      'prometheus/write/v2/types.proto',
      'loki/push.proto',
    ],
    { keepCase: false },
  );
  return root;
}

const root = loadRoot();

export const ExportLogsServiceRequest = root.lookupType('opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest');
export const ExportLogsServiceResponse = root.lookupType('opentelemetry.proto.collector.logs.v1.ExportLogsServiceResponse');
export const ExportMetricsServiceRequest = root.lookupType(
  'opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest',
);
export const ExportMetricsServiceResponse = root.lookupType(
  'opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceResponse',
);
export const WriteRequest = root.lookupType('prometheus.WriteRequest');
export const WriteRequestV2 = root.lookupType('io.prometheus.write.v2.Request');
export const PushRequest = root.lookupType('logproto.PushRequest');

/**
 * pbEncode encodes a plain object with protobufjs (64-bit fields may be decimal strings). The
 * object is verified against the schema unless `verify` is false (open enums: proto3 allows
 * numbers the enum does not name, which protobufjs' verifier refuses).
 */
export function pbEncode(type: protobuf.Type, value: Record<string, unknown>, verify = true): Uint8Array {
  const problem = verify ? type.verify(type.fromObject(value)) : null;
  if (problem) throw new Error(`fixture does not match ${type.name}: ${problem}`);
  return type.encode(type.fromObject(value)).finish();
}

/** pbDecode decodes bytes with protobufjs into a plain object (64-bit as strings, bytes base64). */
export function pbDecode(type: protobuf.Type, bytes: Uint8Array): Record<string, unknown> {
  return type.toObject(type.decode(bytes), { longs: String, enums: Number, bytes: String, defaults: false }) as Record<
    string,
    unknown
  >;
}
