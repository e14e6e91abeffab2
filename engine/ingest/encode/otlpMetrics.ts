/** Encoder of OTLP metrics requests, for the telemetry generator, tests and benchmarks. */
import { writeAttributes, writeResource, writeScope } from './otlpCommon.js';
import type {
  BucketsInput,
  ExponentialHistogramDataPointInput,
  ExportMetricsServiceRequestInput,
  HistogramDataPointInput,
  MetricInput,
  NumberDataPointInput,
  SummaryDataPointInput,
} from './otlpModel.js';
import { ProtoWriter } from './protoWriter.js';

/**
 * encodeExportMetricsServiceRequest writes an OTLP ExportMetricsServiceRequest in protobuf,
 * the body an OTLP/HTTP exporter sends with Content-Type application/x-protobuf. Repeated
 * numeric fields are packed, as proto3 encoders do by default.
 */
export function encodeExportMetricsServiceRequest(req: ExportMetricsServiceRequestInput): Uint8Array {
  const w = new ProtoWriter(4096);
  for (const rm of req.resourceMetrics) {
    w.message(1, () => {
      writeResource(w, 1, rm.resource);
      for (const sm of rm.scopeMetrics ?? []) {
        w.message(2, () => {
          writeScope(w, 1, sm.scope);
          for (const metric of sm.metrics ?? []) w.message(2, () => writeMetric(w, metric));
          w.stringField(3, sm.schemaUrl);
        });
      }
      w.stringField(3, rm.schemaUrl);
    });
  }
  return w.finish();
}

function writeMetric(w: ProtoWriter, m: MetricInput): void {
  w.stringField(1, m.name);
  w.stringField(2, m.description);
  w.stringField(3, m.unit);
  if (m.gauge) {
    const points = m.gauge.dataPoints;
    w.message(5, () => {
      for (const p of points) w.message(1, () => writeNumberPoint(w, p));
    });
  } else if (m.sum) {
    const sum = m.sum;
    w.message(7, () => {
      for (const p of sum.dataPoints) w.message(1, () => writeNumberPoint(w, p));
      w.int32Field(2, sum.aggregationTemporality);
      w.boolField(3, sum.isMonotonic);
    });
  } else if (m.histogram) {
    const hist = m.histogram;
    w.message(9, () => {
      for (const p of hist.dataPoints) w.message(1, () => writeHistogramPoint(w, p));
      w.int32Field(2, hist.aggregationTemporality);
    });
  } else if (m.exponentialHistogram) {
    const exp = m.exponentialHistogram;
    w.message(10, () => {
      for (const p of exp.dataPoints) w.message(1, () => writeExponentialPoint(w, p));
      w.int32Field(2, exp.aggregationTemporality);
    });
  } else if (m.summary) {
    const summary = m.summary;
    w.message(11, () => {
      for (const p of summary.dataPoints) w.message(1, () => writeSummaryPoint(w, p));
    });
  }
}

function writeNumberPoint(w: ProtoWriter, p: NumberDataPointInput): void {
  w.fixed64Field(2, p.startTimeUnixNano);
  w.fixed64Field(3, p.timeUnixNano);
  if (p.asDouble !== undefined) w.tag(4, 1).double(p.asDouble);
  else if (p.asInt !== undefined) w.tag(6, 1).fixed64(p.asInt);
  writeAttributes(w, 7, p.attributes);
  w.uint32Field(8, p.flags);
}

function writeHistogramPoint(w: ProtoWriter, p: HistogramDataPointInput): void {
  w.fixed64Field(2, p.startTimeUnixNano);
  w.fixed64Field(3, p.timeUnixNano);
  w.fixed64Field(4, p.count);
  w.optionalDoubleField(5, p.sum);
  w.packedFixed64Field(6, p.bucketCounts);
  w.packedDoubleField(7, p.explicitBounds);
  writeAttributes(w, 9, p.attributes);
  w.uint32Field(10, p.flags);
  w.optionalDoubleField(11, p.min);
  w.optionalDoubleField(12, p.max);
}

function writeBuckets(w: ProtoWriter, field: number, b: BucketsInput | undefined): void {
  if (b === undefined) return;
  w.message(field, () => {
    w.sint32Field(1, b.offset);
    w.packedUint64Field(2, b.bucketCounts);
  });
}

function writeExponentialPoint(w: ProtoWriter, p: ExponentialHistogramDataPointInput): void {
  writeAttributes(w, 1, p.attributes);
  w.fixed64Field(2, p.startTimeUnixNano);
  w.fixed64Field(3, p.timeUnixNano);
  w.fixed64Field(4, p.count);
  w.optionalDoubleField(5, p.sum);
  w.sint32Field(6, p.scale);
  w.fixed64Field(7, p.zeroCount);
  writeBuckets(w, 8, p.positive);
  writeBuckets(w, 9, p.negative);
  w.uint32Field(10, p.flags);
  w.optionalDoubleField(12, p.min);
  w.optionalDoubleField(13, p.max);
  w.doubleField(14, p.zeroThreshold);
}

function writeSummaryPoint(w: ProtoWriter, p: SummaryDataPointInput): void {
  w.fixed64Field(2, p.startTimeUnixNano);
  w.fixed64Field(3, p.timeUnixNano);
  w.fixed64Field(4, p.count);
  w.doubleField(5, p.sum);
  for (const q of p.quantileValues ?? []) {
    w.message(6, () => {
      w.doubleField(1, q.quantile);
      w.doubleField(2, q.value);
    });
  }
  writeAttributes(w, 7, p.attributes);
  w.uint32Field(8, p.flags);
}
