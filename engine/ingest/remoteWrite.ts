/**
 * Prometheus remote write 1.0: a snappy-compressed `prometheus.WriteRequest` protobuf. Each
 * TimeSeries becomes one MetricSeries with its labels sorted and its float samples in time
 * order; its exemplars are kept for the exemplar store, its native histograms decoded (and
 * counted as rejected until storage has a histogram sample kind), and metadata entries become
 * MetricMetadata. Validation and the result are remoteWriteAssembler.ts', shared with 2.0.
 *
 * Staleness markers are flagged in `stale` (see remoteWriteWire.ts).
 */
import { withContext } from './errors.js';
import { setLabel } from './labelObject.js';
import { decodeNativeHistogram } from './nativeHistogram.js';
import { ProtoReader, WIRE_FIXED64, WIRE_LENGTH_DELIMITED, WIRE_VARINT, fieldTag } from './protobuf.js';
import { RemoteWriteAssembler, type RemoteWriteOptions, type RemoteWriteResult } from './remoteWriteAssembler.js';
import { decodeSnappyBody, readSample } from './remoteWriteWire.js';
import type { MetricType } from './types.js';
import { decodeUtf8, decodeUtf8Strict } from './utf8.js';

export type { RemoteWriteOptions, RemoteWriteResult } from './remoteWriteAssembler.js';

const REQUEST_TIMESERIES = fieldTag(1, WIRE_LENGTH_DELIMITED);
const REQUEST_METADATA = fieldTag(3, WIRE_LENGTH_DELIMITED);
const SERIES_LABEL = fieldTag(1, WIRE_LENGTH_DELIMITED);
const SERIES_SAMPLE = fieldTag(2, WIRE_LENGTH_DELIMITED);
const SERIES_EXEMPLAR = fieldTag(3, WIRE_LENGTH_DELIMITED);
const SERIES_HISTOGRAM = fieldTag(4, WIRE_LENGTH_DELIMITED);
const LABEL_NAME = fieldTag(1, WIRE_LENGTH_DELIMITED);
const LABEL_VALUE = fieldTag(2, WIRE_LENGTH_DELIMITED);
const EXEMPLAR_LABEL = fieldTag(1, WIRE_LENGTH_DELIMITED);
const EXEMPLAR_VALUE = fieldTag(2, WIRE_FIXED64);
const EXEMPLAR_TIMESTAMP = fieldTag(3, WIRE_VARINT);
const META_TYPE = fieldTag(1, WIRE_VARINT);
const META_FAMILY = fieldTag(2, WIRE_LENGTH_DELIMITED);
const META_HELP = fieldTag(4, WIRE_LENGTH_DELIMITED);
const META_UNIT = fieldTag(5, WIRE_LENGTH_DELIMITED);

/** METRIC_TYPES maps the MetricType numbers of both protocol versions (they agree) to names. */
export const METRIC_TYPES: readonly MetricType[] = [
  'unknown',
  'counter',
  'gauge',
  'histogram',
  'gaugehistogram',
  'summary',
  'info',
  'stateset',
];

/** decodeRemoteWrite decodes a snappy-compressed remote write 1.0 request body. */
export function decodeRemoteWrite(body: Uint8Array, opts: RemoteWriteOptions): RemoteWriteResult {
  return decodeSnappyBody(body, opts, decodeWriteRequest);
}

/** decodeWriteRequest decodes an uncompressed `prometheus.WriteRequest` protobuf. */
export function decodeWriteRequest(raw: Uint8Array, opts: RemoteWriteOptions): RemoteWriteResult {
  return withContext('invalid remote write WriteRequest protobuf', () => new WriteRequestDecoder(raw, opts).decode());
}

class WriteRequestDecoder {
  private readonly r: ProtoReader;
  private readonly out: RemoteWriteAssembler;
  // The last label read by readLabel.
  private labelName = '';
  private labelValue = '';
  // How many Label fields labelFieldsEnd found.
  private openingLabels = 0;

  constructor(raw: Uint8Array, opts: RemoteWriteOptions) {
    this.r = new ProtoReader(raw);
    this.out = new RemoteWriteAssembler(opts);
  }

  decode(): RemoteWriteResult {
    const r = this.r;
    while (r.pos < r.limit) {
      const tag = r.tag();
      if (tag === REQUEST_TIMESERIES) this.readSeries(r.messageEnd());
      else if (tag === REQUEST_METADATA) this.readMetadata(r.messageEnd());
      else r.skip(tag);
    }
    return this.out.result();
  }

  private readSeries(end: number): void {
    const r = this.r;
    const out = this.out;
    out.startSeries();
    const labelsEnd = this.labelFieldsEnd(end);
    if (labelsEnd > r.pos && out.labelsFrom(r.buf, r.pos, labelsEnd, this.openingLabels)) r.pos = labelsEnd;
    while (r.pos < end) {
      const tag = r.tag();
      switch (tag) {
        case SERIES_LABEL: {
          const valid = this.readLabel(r.messageEnd());
          out.label(this.labelName, this.labelValue, valid);
          break;
        }
        case SERIES_SAMPLE:
          readSample(r, r.messageEnd(), out);
          break;
        case SERIES_EXEMPLAR:
          this.readExemplar(r.messageEnd());
          break;
        case SERIES_HISTOGRAM: {
          const { sample, problem } = decodeNativeHistogram(r, r.messageEnd());
          out.histogram(sample, problem);
          break;
        }
        default:
          r.skip(tag);
      }
    }
    r.checkEnd(end);
    out.endSeries();
  }

  /**
   * labelFieldsEnd is where the run of Label fields that opens a series (as senders write
   * them) ends, without decoding them, and counts them in `openingLabels`; the current
   * position when the series opens otherwise.
   */
  private labelFieldsEnd(end: number): number {
    const r = this.r;
    const start = r.pos;
    let at = start;
    let count = 0;
    while (r.pos < end && r.buf[r.pos] === SERIES_LABEL) {
      r.pos++;
      const labelEnd = r.messageEnd();
      if (labelEnd > end) break;
      r.pos = labelEnd;
      at = labelEnd;
      count++;
    }
    this.openingLabels = count;
    r.pos = start;
    return at;
  }

  /**
   * readLabel reads one Label message into labelName / labelValue and tells whether both were
   * valid UTF-8.
   */
  private readLabel(end: number): boolean {
    const r = this.r;
    let name = '';
    let value = '';
    let valid = true;
    while (r.pos < end) {
      const tag = r.tag();
      if (tag === LABEL_NAME || tag === LABEL_VALUE) {
        const strEnd = r.messageEnd();
        const start = r.pos;
        r.pos = strEnd;
        let text = decodeUtf8Strict(r.buf, start, strEnd);
        if (text === undefined) {
          valid = false;
          text = decodeUtf8(r.buf, start, strEnd);
        }
        if (tag === LABEL_NAME) name = text;
        else value = text;
      } else {
        r.skip(tag);
      }
    }
    r.checkEnd(end);
    this.labelName = name;
    this.labelValue = value;
    return valid;
  }

  /** readExemplar reads one Exemplar; its labels must be valid UTF-8 with non-empty, distinct names. */
  private readExemplar(end: number): void {
    const r = this.r;
    const labels: Record<string, string> = {};
    let usable = true;
    let value = 0;
    let timestamp = 0;
    while (r.pos < end) {
      const tag = r.tag();
      if (tag === EXEMPLAR_LABEL) {
        const valid = this.readLabel(r.messageEnd());
        const name = this.labelName;
        if (!valid || name === '' || Object.hasOwn(labels, name)) usable = false;
        else if (this.labelValue !== '') setLabel(labels, name, this.labelValue);
      } else if (tag === EXEMPLAR_VALUE) {
        value = r.double();
      } else if (tag === EXEMPLAR_TIMESTAMP) {
        timestamp = r.int64Number();
      } else {
        r.skip(tag);
      }
    }
    r.checkEnd(end);
    this.out.exemplar(usable ? labels : undefined, value, timestamp);
  }

  private readMetadata(end: number): void {
    const r = this.r;
    let type = 0;
    let name = '';
    let help = '';
    let unit = '';
    while (r.pos < end) {
      const tag = r.tag();
      if (tag === META_TYPE) type = r.int32();
      else if (tag === META_FAMILY) name = r.string();
      else if (tag === META_HELP) help = r.string();
      else if (tag === META_UNIT) unit = r.string();
      else r.skip(tag);
    }
    r.checkEnd(end);
    if (name === '') return;
    this.out.metadata.push({ name, type: METRIC_TYPES[type] ?? 'unknown', unit, help });
  }
}
