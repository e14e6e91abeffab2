/**
 * Native histogram samples as remote write carries them (the `Histogram` message is the same in
 * 1.0's `prometheus.Histogram` and 2.0's `io.prometheus.write.v2.Histogram`; 2.0 adds the start
 * timestamp, field 17). Each is decoded into the engine's value, `FloatHistogram`
 * (engine/histogram), which storage keeps and queries evaluate: there is one histogram type
 * from the wire to the answer.
 *
 * Integer histograms travel as deltas between neighbouring buckets; they are turned into
 * absolute counts here, so integer and float histograms have one shape and `isFloat` says
 * which the sender meant. A histogram whose sum is Prometheus' staleness NaN is a staleness
 * marker (`stale`), stored as the float marker every series kind shares.
 */
import { CounterResetHint, fromSpans, type FloatHistogram } from '../histogram/floatHistogram.js';
import { STALE_NAN_HI, STALE_NAN_LO } from './remoteWriteAssembler.js';
import { ProtoReader, WIRE_FIXED64, WIRE_LENGTH_DELIMITED, WIRE_VARINT, fieldTag, readDouble, readRepeated, readSint64 } from './protobuf.js';

/** BucketSpan is a run of `length` consecutive buckets starting `offset` after the previous run's end. */
export interface BucketSpan {
  offset: number;
  length: number;
}

/** NativeHistogramSample is one native histogram sample as received: when, what kind, and the value. */
export interface NativeHistogramSample {
  timestampMs: number;
  /** 0 when the sender gave none (the wire's "not set") */
  startTimestampMs: number;
  /** integer histograms were sent with `count_int` and bucket deltas; float ones with `count_float` and counts */
  isFloat: boolean;
  /** the sum was Prometheus' staleness NaN: the sample marks the series stale */
  stale: boolean;
  histogram: FloatHistogram;
}

/** WireHistogram is the message's fields as read, counts absolute, before they become a FloatHistogram. */
interface WireHistogram {
  timestampMs: number;
  /** 0 when the sender gave none (the wire's "not set") */
  startTimestampMs: number;
  /** integer histograms were sent with `count_int` and bucket deltas; float ones with `count_float` and counts */
  isFloat: boolean;
  count: number;
  sum: number;
  /** -4..8 for exponential buckets, -53 for custom buckets (NHCB) */
  schema: number;
  zeroThreshold: number;
  zeroCount: number;
  negativeSpans: BucketSpan[];
  negativeCounts: Float64Array;
  positiveSpans: BucketSpan[];
  positiveCounts: Float64Array;
  resetHint: number;
  /** the upper bounds of custom buckets (schema -53); empty otherwise */
  customValues: Float64Array;
}


const COUNT_INT = fieldTag(1, WIRE_VARINT);
const COUNT_FLOAT = fieldTag(2, WIRE_FIXED64);
const SUM = fieldTag(3, WIRE_FIXED64);
const SCHEMA = fieldTag(4, WIRE_VARINT);
const ZERO_THRESHOLD = fieldTag(5, WIRE_FIXED64);
const ZERO_COUNT_INT = fieldTag(6, WIRE_VARINT);
const ZERO_COUNT_FLOAT = fieldTag(7, WIRE_FIXED64);
const NEGATIVE_SPANS = fieldTag(8, WIRE_LENGTH_DELIMITED);
const POSITIVE_SPANS = fieldTag(11, WIRE_LENGTH_DELIMITED);
const RESET_HINT = fieldTag(14, WIRE_VARINT);
const TIMESTAMP = fieldTag(15, WIRE_VARINT);
const START_TIMESTAMP = fieldTag(17, WIRE_VARINT);
const SPAN_OFFSET = fieldTag(1, WIRE_VARINT);
const SPAN_LENGTH = fieldTag(2, WIRE_VARINT);

/** Packed repeated fields, which may also arrive unpacked: matched by field number. */
const FIELD_NEGATIVE_DELTAS = 9;
const FIELD_NEGATIVE_COUNTS = 10;
const FIELD_POSITIVE_DELTAS = 12;
const FIELD_POSITIVE_COUNTS = 13;
const FIELD_CUSTOM_VALUES = 16;

/** RESET_HINTS maps the wire's enum (UNKNOWN, YES, NO, GAUGE) to the engine's hint. */
const RESET_HINTS: readonly CounterResetHint[] = [CounterResetHint.Unknown, CounterResetHint.CounterReset, CounterResetHint.NotCounterReset, CounterResetHint.Gauge];

/**
 * MAX_SPAN_BUCKETS bounds the buckets the spans of one side may claim: a span's length is a
 * uint32, and a hostile sender must not make validation walk billions of buckets.
 */
const MAX_SPAN_BUCKETS = 1 << 20;

/**
 * decodeNativeHistogram reads one `Histogram` message that ends at `end`. Wire errors throw
 * (the body is malformed); a histogram that decodes but is inconsistent (bucket counts that do
 * not match the spans) comes back with `problem` set, so only that sample is refused.
 */
export function decodeNativeHistogram(r: ProtoReader, end: number): { sample: NativeHistogramSample; problem?: string } {
  let stale = false;
  const h: WireHistogram = {
    timestampMs: 0,
    startTimestampMs: 0,
    isFloat: false,
    count: 0,
    sum: 0,
    schema: 0,
    zeroThreshold: 0,
    zeroCount: 0,
    negativeSpans: [],
    negativeCounts: EMPTY,
    positiveSpans: [],
    positiveCounts: EMPTY,
    resetHint: 0,
    customValues: EMPTY,
  };
  let negativeDeltas: number[] = [];
  let positiveDeltas: number[] = [];
  let negativeCounts: number[] = [];
  let positiveCounts: number[] = [];
  let customValues: number[] = [];
  while (r.pos < end) {
    const tag = r.tag();
    switch (tag) {
      case COUNT_INT:
        h.count = r.uint64Number();
        break;
      case COUNT_FLOAT:
        h.count = r.double();
        h.isFloat = true;
        break;
      case SUM:
        r.fixed64();
        h.sum = r.view.getFloat64(r.pos - 8, true);
        stale = r.hi === STALE_NAN_HI && r.lo === STALE_NAN_LO;
        break;
      case SCHEMA:
        h.schema = r.sint32();
        break;
      case ZERO_THRESHOLD:
        h.zeroThreshold = r.double();
        break;
      case ZERO_COUNT_INT:
        h.zeroCount = r.uint64Number();
        break;
      case ZERO_COUNT_FLOAT:
        h.zeroCount = r.double();
        h.isFloat = true;
        break;
      case NEGATIVE_SPANS:
        h.negativeSpans.push(readSpan(r, r.messageEnd()));
        break;
      case POSITIVE_SPANS:
        h.positiveSpans.push(readSpan(r, r.messageEnd()));
        break;
      case RESET_HINT:
        h.resetHint = r.int32();
        break;
      case TIMESTAMP:
        h.timestampMs = r.int64Number();
        break;
      case START_TIMESTAMP:
        h.startTimestampMs = r.int64Number();
        break;
      default:
        switch (tag >>> 3) {
          case FIELD_NEGATIVE_DELTAS:
            readRepeated(r, tag, WIRE_VARINT, readSint64, negativeDeltas);
            break;
          case FIELD_POSITIVE_DELTAS:
            readRepeated(r, tag, WIRE_VARINT, readSint64, positiveDeltas);
            break;
          case FIELD_NEGATIVE_COUNTS:
            readRepeated(r, tag, WIRE_FIXED64, readDouble, negativeCounts);
            break;
          case FIELD_POSITIVE_COUNTS:
            readRepeated(r, tag, WIRE_FIXED64, readDouble, positiveCounts);
            break;
          case FIELD_CUSTOM_VALUES:
            readRepeated(r, tag, WIRE_FIXED64, readDouble, customValues);
            break;
          default:
            r.skip(tag);
        }
    }
  }
  r.checkEnd(end);
  if (negativeCounts.length > 0 || positiveCounts.length > 0) h.isFloat = true;
  h.negativeCounts = h.isFloat ? Float64Array.from(negativeCounts) : accumulate(negativeDeltas);
  h.positiveCounts = h.isFloat ? Float64Array.from(positiveCounts) : accumulate(positiveDeltas);
  h.customValues = Float64Array.from(customValues);
  negativeDeltas = positiveDeltas = negativeCounts = positiveCounts = customValues = [];
  const problem = checkHistogram(h);
  const sample: NativeHistogramSample = { timestampMs: h.timestampMs, startTimestampMs: h.startTimestampMs, isFloat: h.isFloat, stale, histogram: toFloatHistogram(h) };
  return problem === undefined ? { sample } : { sample, problem };
}

/** toFloatHistogram turns the wire's spans and absolute counts into the engine's sparse form. */
function toFloatHistogram(h: WireHistogram): FloatHistogram {
  const pos = fromSpans(h.positiveSpans, h.positiveCounts);
  const neg = fromSpans(h.negativeSpans, h.negativeCounts);
  return {
    schema: h.schema,
    zeroThreshold: h.zeroThreshold,
    zeroCount: h.zeroCount,
    count: h.count,
    sum: h.sum,
    posIndex: pos.index,
    posCount: pos.counts,
    negIndex: neg.index,
    negCount: neg.counts,
    customValues: h.schema === -53 ? h.customValues : null,
    counterResetHint: RESET_HINTS[h.resetHint] ?? CounterResetHint.Unknown,
  };
}

const EMPTY = new Float64Array(0);

function readSpan(r: ProtoReader, end: number): BucketSpan {
  const span: BucketSpan = { offset: 0, length: 0 };
  while (r.pos < end) {
    const tag = r.tag();
    if (tag === SPAN_OFFSET) span.offset = r.sint32();
    else if (tag === SPAN_LENGTH) span.length = r.uint32();
    else r.skip(tag);
  }
  r.checkEnd(end);
  return span;
}

/** accumulate turns bucket deltas into absolute counts. */
function accumulate(deltas: readonly number[]): Float64Array {
  const out = new Float64Array(deltas.length);
  let running = 0;
  for (let i = 0; i < deltas.length; i++) out[i] = running += deltas[i];
  return out;
}

/** spanBuckets is the number of buckets the spans claim, or -1 when beyond MAX_SPAN_BUCKETS. */
function spanBuckets(spans: readonly BucketSpan[]): number {
  let n = 0;
  for (const s of spans) {
    n += s.length;
    if (n > MAX_SPAN_BUCKETS) return -1;
  }
  return n;
}

/**
 * checkHistogram finds what Prometheus' validation refuses: an unknown schema, bucket counts
 * that do not fill the spans, negative counts, custom bounds that do not increase, and a zero
 * bucket or negative buckets on a custom-bucket histogram.
 */
function checkHistogram(h: WireHistogram): string | undefined {
  const custom = h.schema === -53;
  if (!custom && (h.schema < -4 || h.schema > 8)) return `histogram schema ${h.schema} is not -53 or within -4..8`;
  for (const [side, spans, counts] of [
    ['negative', h.negativeSpans, h.negativeCounts],
    ['positive', h.positiveSpans, h.positiveCounts],
  ] as const) {
    const n = spanBuckets(spans);
    if (n < 0) return `histogram ${side} spans claim more than ${MAX_SPAN_BUCKETS} buckets`;
    if (n !== counts.length) return `histogram ${side} spans claim ${n} buckets but ${counts.length} counts were sent`;
    for (let i = 0; i < counts.length; i++) {
      if (!(counts[i] >= 0)) return `histogram ${side} bucket ${i} has count ${counts[i]}`;
    }
  }
  if (!(h.zeroCount >= 0)) return `histogram zero bucket has count ${h.zeroCount}`;
  if (!h.isFloat && !(h.count >= 0)) return `histogram count ${h.count} is negative`;
  if (custom) {
    if (h.negativeSpans.length > 0 || h.zeroCount !== 0) return 'custom-bucket histogram has negative or zero buckets';
    for (let i = 1; i < h.customValues.length; i++) {
      if (!(h.customValues[i] > h.customValues[i - 1])) return 'custom-bucket histogram bounds do not increase';
    }
  } else if (h.customValues.length > 0) {
    return 'exponential histogram carries custom bucket bounds';
  }
  return undefined;
}
