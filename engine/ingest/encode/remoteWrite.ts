/**
 * Encoders for Prometheus remote write 1.0: the `prometheus.WriteRequest` protobuf and the
 * snappy-compressed body a Prometheus server POSTs. A sample flagged `stale` is written with
 * the exact staleness-marker bits, which a JavaScript NaN cannot be relied on to carry.
 */
import { snappyCompress } from '../snappy.js';
import type { MetricType } from '../types.js';
import { ProtoWriter } from './protoWriter.js';

/** SampleInput is one float sample. */
export interface SampleInput {
  value: number;
  /** ms since the epoch */
  timestamp: number;
  /** write Prometheus' staleness marker instead of `value` */
  stale?: boolean;
}

/** TimeSeriesInput is one series with its samples. */
export interface TimeSeriesInput {
  labels: Array<{ name: string; value: string }>;
  samples: SampleInput[];
}

/** MetricMetadataInput is one metadata entry. */
export interface MetricMetadataInput {
  type: MetricType;
  metricFamilyName: string;
  help?: string;
  unit?: string;
}

/** WriteRequestInput is a remote write 1.0 request. */
export interface WriteRequestInput {
  timeseries: TimeSeriesInput[];
  metadata?: MetricMetadataInput[];
}

const TYPE_NUMBERS: Readonly<Record<MetricType, number>> = {
  unknown: 0,
  counter: 1,
  gauge: 2,
  histogram: 3,
  gaugehistogram: 4,
  summary: 5,
  info: 6,
  stateset: 7,
};

/** encodeWriteRequest writes a `prometheus.WriteRequest` protobuf (uncompressed). */
export function encodeWriteRequest(req: WriteRequestInput): Uint8Array {
  const w = new ProtoWriter(4096);
  for (const ts of req.timeseries) {
    w.message(1, () => {
      for (const label of ts.labels) {
        w.message(1, () => {
          w.stringField(1, label.name);
          w.stringField(2, label.value);
        });
      }
      for (const s of ts.samples) {
        w.message(2, () => {
          if (s.stale) w.tag(1, 1).fixed64Words(0x00000002, 0x7ff00000);
          else w.doubleField(1, s.value);
          w.int64Field(2, s.timestamp);
        });
      }
    });
  }
  for (const m of req.metadata ?? []) {
    w.message(3, () => {
      w.int32Field(1, TYPE_NUMBERS[m.type]);
      w.stringField(2, m.metricFamilyName);
      w.stringField(4, m.help);
      w.stringField(5, m.unit);
    });
  }
  return w.finish();
}

/** encodeRemoteWriteBody writes the snappy-compressed body of a remote write 1.0 request. */
export function encodeRemoteWriteBody(req: WriteRequestInput): Uint8Array {
  return snappyCompress(encodeWriteRequest(req));
}
