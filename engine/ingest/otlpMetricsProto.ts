/**
 * Protobuf decoding of an OTLP ExportMetricsServiceRequest
 * (opentelemetry.proto.collector.metrics.v1) into the metrics model. Repeated numeric fields
 * are accepted packed and unpacked, as protobuf requires of a parser.
 */
import { readKeyValue, readResourceAttributes, readScope, EMPTY_SCOPE } from './otlpCommonProto.js';
import type { OtlpScope } from './otlpCommonProto.js';
import { emptyBuckets } from './otlpMetricsModel.js';
import type {
  ExponentialBuckets,
  ExponentialHistogramPoint,
  HistogramPoint,
  MetricData,
  NumberPoint,
  OtlpMetric,
  OtlpResourceMetrics,
  OtlpScopeMetrics,
  QuantileValue,
  SummaryPoint,
} from './otlpMetricsModel.js';
import {
  ProtoReader,
  WIRE_FIXED64,
  WIRE_LENGTH_DELIMITED,
  WIRE_VARINT,
  fieldTag,
  nanosWordsToMillis,
} from './protobuf.js';

const LEN = WIRE_LENGTH_DELIMITED;

const POINT_START_TIME = fieldTag(2, WIRE_FIXED64);
const POINT_TIME = fieldTag(3, WIRE_FIXED64);
const POINT_COUNT = fieldTag(4, WIRE_FIXED64);
const POINT_SUM = fieldTag(5, WIRE_FIXED64);

const HIST_BUCKET_COUNTS = fieldTag(6, WIRE_FIXED64);
const HIST_BUCKET_COUNTS_PACKED = fieldTag(6, LEN);
const HIST_BOUNDS = fieldTag(7, WIRE_FIXED64);
const HIST_BOUNDS_PACKED = fieldTag(7, LEN);
const HIST_ATTRIBUTES = fieldTag(9, LEN);
const HIST_FLAGS = fieldTag(10, WIRE_VARINT);

const EXP_ATTRIBUTES = fieldTag(1, LEN);
const EXP_SCALE = fieldTag(6, WIRE_VARINT);
const EXP_ZERO_COUNT = fieldTag(7, WIRE_FIXED64);
const EXP_POSITIVE = fieldTag(8, LEN);
const EXP_NEGATIVE = fieldTag(9, LEN);
const EXP_FLAGS = fieldTag(10, WIRE_VARINT);
const EXP_ZERO_THRESHOLD = fieldTag(14, WIRE_FIXED64);
const BUCKETS_COUNTS = fieldTag(2, WIRE_VARINT);
const BUCKETS_COUNTS_PACKED = fieldTag(2, LEN);

const SUMMARY_QUANTILES = fieldTag(6, LEN);
const SUMMARY_ATTRIBUTES = fieldTag(7, LEN);
const SUMMARY_FLAGS = fieldTag(8, WIRE_VARINT);

/** decodeOtlpMetricsProtobuf decodes a protobuf ExportMetricsServiceRequest body. */
export function decodeOtlpMetricsProtobuf(body: Uint8Array): OtlpResourceMetrics[] {
  const r = new ProtoReader(body);
  const out: OtlpResourceMetrics[] = [];
  while (r.pos < r.limit) {
    const tag = r.tag();
    if (tag === fieldTag(1, LEN)) out.push(readResourceMetrics(r, r.messageEnd()));
    else r.skip(tag);
  }
  return out;
}

function readResourceMetrics(r: ProtoReader, end: number): OtlpResourceMetrics {
  const res: OtlpResourceMetrics = { attributes: [], scopes: [] };
  while (r.pos < end) {
    const tag = r.tag();
    if (tag === fieldTag(1, LEN)) res.attributes = readResourceAttributes(r, r.messageEnd());
    else if (tag === fieldTag(2, LEN)) res.scopes.push(readScopeMetrics(r, r.messageEnd()));
    else r.skip(tag);
  }
  r.checkEnd(end);
  return res;
}

function readScopeMetrics(r: ProtoReader, end: number): OtlpScopeMetrics {
  let scope: OtlpScope = EMPTY_SCOPE;
  const metrics: OtlpMetric[] = [];
  while (r.pos < end) {
    const tag = r.tag();
    if (tag === fieldTag(1, LEN)) scope = readScope(r, r.messageEnd());
    else if (tag === fieldTag(2, LEN)) metrics.push(readMetric(r, r.messageEnd()));
    else r.skip(tag);
  }
  r.checkEnd(end);
  return { scope, metrics };
}

function readMetric(r: ProtoReader, end: number): OtlpMetric {
  const metric: OtlpMetric = { name: '', description: '', unit: '', data: { kind: 'none' } };
  while (r.pos < end) {
    const tag = r.tag();
    switch (tag) {
      case fieldTag(1, LEN):
        metric.name = r.string();
        break;
      case fieldTag(2, LEN):
        metric.description = r.string();
        break;
      case fieldTag(3, LEN):
        metric.unit = r.string();
        break;
      case fieldTag(5, LEN):
        metric.data = readNumberContainer(r, r.messageEnd(), 'gauge');
        break;
      case fieldTag(7, LEN):
        metric.data = readNumberContainer(r, r.messageEnd(), 'sum');
        break;
      case fieldTag(9, LEN):
        metric.data = readHistogram(r, r.messageEnd());
        break;
      case fieldTag(10, LEN):
        metric.data = readExponentialHistogram(r, r.messageEnd());
        break;
      case fieldTag(11, LEN):
        metric.data = readSummary(r, r.messageEnd());
        break;
      default:
        r.skip(tag);
    }
  }
  r.checkEnd(end);
  return metric;
}

function readNumberContainer(r: ProtoReader, end: number, kind: 'gauge' | 'sum'): MetricData {
  const points: NumberPoint[] = [];
  let temporality = 0;
  let monotonic = false;
  while (r.pos < end) {
    const tag = r.tag();
    if (tag === fieldTag(1, LEN)) points.push(readNumberPoint(r, r.messageEnd()));
    else if (tag === fieldTag(2, WIRE_VARINT)) temporality = r.int32();
    else if (tag === fieldTag(3, WIRE_VARINT)) monotonic = r.bool();
    else r.skip(tag);
  }
  r.checkEnd(end);
  return kind === 'gauge' ? { kind, points } : { kind, points, temporality, monotonic };
}

/** readTime reads a fixed64 nanosecond timestamp as milliseconds. */
function readTime(r: ProtoReader): number {
  r.fixed64();
  return nanosWordsToMillis(r.lo, r.hi);
}

function readNumberPoint(r: ProtoReader, end: number): NumberPoint {
  const p: NumberPoint = { attributes: [], startTimeMs: 0, timeMs: 0, flags: 0, value: 0 };
  while (r.pos < end) {
    const tag = r.tag();
    switch (tag) {
      case fieldTag(7, LEN):
        p.attributes.push(readKeyValue(r, r.messageEnd()));
        break;
      case fieldTag(2, WIRE_FIXED64):
        p.startTimeMs = readTime(r);
        break;
      case fieldTag(3, WIRE_FIXED64):
        p.timeMs = readTime(r);
        break;
      case fieldTag(4, WIRE_FIXED64):
        p.value = r.double();
        break;
      case fieldTag(6, WIRE_FIXED64):
        p.value = r.sfixed64Number();
        break;
      case fieldTag(8, WIRE_VARINT):
        p.flags = r.uint32();
        break;
      default:
        r.skip(tag);
    }
  }
  r.checkEnd(end);
  return p;
}

/**
 * readPointsAndTemporality reads the shape Histogram and ExponentialHistogram share: repeated
 * data points (field 1) and the aggregation temporality (field 2).
 */
function readPointsAndTemporality<P>(r: ProtoReader, end: number, readPoint: (r: ProtoReader, end: number) => P): { points: P[]; temporality: number } {
  const points: P[] = [];
  let temporality = 0;
  while (r.pos < end) {
    const tag = r.tag();
    if (tag === fieldTag(1, LEN)) points.push(readPoint(r, r.messageEnd()));
    else if (tag === fieldTag(2, WIRE_VARINT)) temporality = r.int32();
    else r.skip(tag);
  }
  r.checkEnd(end);
  return { points, temporality };
}

function readHistogram(r: ProtoReader, end: number): MetricData {
  return { kind: 'histogram', ...readPointsAndTemporality(r, end, readHistogramPoint) };
}

function readHistogramPoint(r: ProtoReader, end: number): HistogramPoint {
  const p: HistogramPoint = {
    attributes: [],
    startTimeMs: 0,
    timeMs: 0,
    flags: 0,
    count: 0,
    sum: undefined,
    bucketCounts: [],
    explicitBounds: [],
  };
  while (r.pos < end) {
    const tag = r.tag();
    switch (tag) {
      case HIST_ATTRIBUTES:
        p.attributes.push(readKeyValue(r, r.messageEnd()));
        break;
      case POINT_START_TIME:
        p.startTimeMs = readTime(r);
        break;
      case POINT_TIME:
        p.timeMs = readTime(r);
        break;
      case POINT_COUNT:
        p.count = r.fixed64Number();
        break;
      case POINT_SUM:
        p.sum = r.double();
        break;
      case HIST_BUCKET_COUNTS_PACKED:
      case HIST_BUCKET_COUNTS:
        readRepeatedFixed64(r, tag, p.bucketCounts);
        break;
      case HIST_BOUNDS_PACKED:
      case HIST_BOUNDS:
        readRepeatedDouble(r, tag, p.explicitBounds);
        break;
      case HIST_FLAGS:
        p.flags = r.uint32();
        break;
      default:
        r.skip(tag);
    }
  }
  r.checkEnd(end);
  return p;
}

function readExponentialHistogram(r: ProtoReader, end: number): MetricData {
  return { kind: 'exponentialHistogram', ...readPointsAndTemporality(r, end, readExponentialPoint) };
}

function readExponentialPoint(r: ProtoReader, end: number): ExponentialHistogramPoint {
  const p: ExponentialHistogramPoint = {
    attributes: [],
    startTimeMs: 0,
    timeMs: 0,
    flags: 0,
    count: 0,
    sum: undefined,
    scale: 0,
    zeroCount: 0,
    zeroThreshold: 0,
    positive: emptyBuckets(),
    negative: emptyBuckets(),
  };
  while (r.pos < end) {
    const tag = r.tag();
    switch (tag) {
      case EXP_ATTRIBUTES:
        p.attributes.push(readKeyValue(r, r.messageEnd()));
        break;
      case POINT_START_TIME:
        p.startTimeMs = readTime(r);
        break;
      case POINT_TIME:
        p.timeMs = readTime(r);
        break;
      case POINT_COUNT:
        p.count = r.fixed64Number();
        break;
      case POINT_SUM:
        p.sum = r.double();
        break;
      case EXP_SCALE:
        p.scale = r.sint32();
        break;
      case EXP_ZERO_COUNT:
        p.zeroCount = r.fixed64Number();
        break;
      case EXP_POSITIVE:
        p.positive = readBuckets(r, r.messageEnd());
        break;
      case EXP_NEGATIVE:
        p.negative = readBuckets(r, r.messageEnd());
        break;
      case EXP_FLAGS:
        p.flags = r.uint32();
        break;
      case EXP_ZERO_THRESHOLD:
        p.zeroThreshold = r.double();
        break;
      default:
        r.skip(tag);
    }
  }
  r.checkEnd(end);
  return p;
}

function readBuckets(r: ProtoReader, end: number): ExponentialBuckets {
  const b = emptyBuckets();
  while (r.pos < end) {
    const tag = r.tag();
    if (tag === fieldTag(1, WIRE_VARINT)) b.offset = r.sint32();
    else if (tag === BUCKETS_COUNTS_PACKED || tag === BUCKETS_COUNTS) readRepeatedUint64(r, tag, b.counts);
    else r.skip(tag);
  }
  r.checkEnd(end);
  return b;
}

function readSummary(r: ProtoReader, end: number): MetricData {
  const points: SummaryPoint[] = [];
  while (r.pos < end) {
    const tag = r.tag();
    if (tag === fieldTag(1, LEN)) points.push(readSummaryPoint(r, r.messageEnd()));
    else r.skip(tag);
  }
  r.checkEnd(end);
  return { kind: 'summary', points };
}

function readSummaryPoint(r: ProtoReader, end: number): SummaryPoint {
  const p: SummaryPoint = { attributes: [], startTimeMs: 0, timeMs: 0, flags: 0, count: 0, sum: 0, quantiles: [] };
  while (r.pos < end) {
    const tag = r.tag();
    switch (tag) {
      case SUMMARY_ATTRIBUTES:
        p.attributes.push(readKeyValue(r, r.messageEnd()));
        break;
      case POINT_START_TIME:
        p.startTimeMs = readTime(r);
        break;
      case POINT_TIME:
        p.timeMs = readTime(r);
        break;
      case POINT_COUNT:
        p.count = r.fixed64Number();
        break;
      case POINT_SUM:
        p.sum = r.double();
        break;
      case SUMMARY_QUANTILES:
        p.quantiles.push(readQuantile(r, r.messageEnd()));
        break;
      case SUMMARY_FLAGS:
        p.flags = r.uint32();
        break;
      default:
        r.skip(tag);
    }
  }
  r.checkEnd(end);
  return p;
}

function readQuantile(r: ProtoReader, end: number): QuantileValue {
  const q: QuantileValue = { quantile: 0, value: 0 };
  while (r.pos < end) {
    const tag = r.tag();
    if (tag === fieldTag(1, WIRE_FIXED64)) q.quantile = r.double();
    else if (tag === fieldTag(2, WIRE_FIXED64)) q.value = r.double();
    else r.skip(tag);
  }
  r.checkEnd(end);
  return q;
}

function readRepeatedFixed64(r: ProtoReader, tag: number, into: number[]): void {
  const end = r.packedEnd(tag);
  if (end < 0) {
    into.push(r.fixed64Number());
    return;
  }
  while (r.pos < end) into.push(r.fixed64Number());
  r.checkEnd(end);
}

function readRepeatedDouble(r: ProtoReader, tag: number, into: number[]): void {
  const end = r.packedEnd(tag);
  if (end < 0) {
    into.push(r.double());
    return;
  }
  while (r.pos < end) into.push(r.double());
  r.checkEnd(end);
}

function readRepeatedUint64(r: ProtoReader, tag: number, into: number[]): void {
  const end = r.packedEnd(tag);
  if (end < 0) {
    into.push(r.uint64Number());
    return;
  }
  while (r.pos < end) into.push(r.uint64Number());
  r.checkEnd(end);
}
