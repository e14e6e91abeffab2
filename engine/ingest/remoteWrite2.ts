/**
 * Prometheus remote write 2.0: a snappy-compressed `io.prometheus.write.v2.Request`. Strings
 * travel once, in the request's symbols table, and series, exemplars and metadata refer to them
 * by index. Each TimeSeries carries its labels (pairs of references), float samples (with an
 * optional start, i.e. created, timestamp each), native histograms, exemplars and its own
 * metadata (type, help, unit). Validation and the result are remoteWriteAssembler.ts', shared
 * with 1.0, so a 1.0 and a 2.0 sender writing the same data store the same.
 *
 * The symbols may come anywhere in the message, so a first pass reads them and a second the
 * series. A reference outside the table makes its series invalid (its samples are rejected
 * as `invalid_labels`), its exemplar or its metadata dropped; it never reads outside the table.
 */
import { withContext } from './errors.js';
import { setLabel } from './labelObject.js';
import { decodeNativeHistogram } from './nativeHistogram.js';
import { ProtoReader, WIRE_FIXED64, WIRE_LENGTH_DELIMITED, WIRE_VARINT, fieldTag, readRepeated, readUint32 } from './protobuf.js';
import { METRIC_TYPES } from './remoteWrite.js';
import { RemoteWriteAssembler, type RemoteWriteOptions, type RemoteWriteResult } from './remoteWriteAssembler.js';
import { decodeSnappyBody, readSample } from './remoteWriteWire.js';
import type { MetricMetadata, MetricType } from './types.js';
import { decodeUtf8, decodeUtf8Strict } from './utf8.js';

const REQUEST_SYMBOLS = fieldTag(4, WIRE_LENGTH_DELIMITED);
const REQUEST_TIMESERIES = fieldTag(5, WIRE_LENGTH_DELIMITED);
const FIELD_LABELS_REFS = 1;
const SERIES_SAMPLE = fieldTag(2, WIRE_LENGTH_DELIMITED);
const SERIES_HISTOGRAM = fieldTag(3, WIRE_LENGTH_DELIMITED);
const SERIES_EXEMPLAR = fieldTag(4, WIRE_LENGTH_DELIMITED);
const SERIES_METADATA = fieldTag(5, WIRE_LENGTH_DELIMITED);
/** the series-level created timestamp of 2.0's release candidates, since replaced by Sample.start_timestamp */
const SERIES_CREATED_TIMESTAMP = fieldTag(6, WIRE_VARINT);
const EXEMPLAR_VALUE = fieldTag(2, WIRE_FIXED64);
const EXEMPLAR_TIMESTAMP = fieldTag(3, WIRE_VARINT);
const META_TYPE = fieldTag(1, WIRE_VARINT);
const META_HELP_REF = fieldTag(3, WIRE_VARINT);
const META_UNIT_REF = fieldTag(4, WIRE_VARINT);

/** CLASSIC_SUFFIXES are the series suffixes of a classic histogram or summary family. */
const CLASSIC_SUFFIXES = ['_bucket', '_sum', '_count'] as const;

/** decodeRemoteWrite2 decodes a snappy-compressed remote write 2.0 request body. */
export function decodeRemoteWrite2(body: Uint8Array, opts: RemoteWriteOptions): RemoteWriteResult {
  return decodeSnappyBody(body, opts, decodeRequest2);
}

/** decodeRequest2 decodes an uncompressed `io.prometheus.write.v2.Request` protobuf. */
export function decodeRequest2(raw: Uint8Array, opts: RemoteWriteOptions): RemoteWriteResult {
  return withContext('invalid remote write 2.0 Request protobuf', () => new Request2Decoder(raw, opts).decode());
}

class Request2Decoder {
  private readonly r: ProtoReader;
  private readonly out: RemoteWriteAssembler;
  private readonly symbols: string[] = [];
  /** 1 where the symbol was not valid UTF-8 */
  private invalidSymbols: Uint8Array | undefined;
  private readonly metadata = new Map<string, MetricMetadata>();
  // The label references of the series being read.
  private readonly refs: number[] = [];

  constructor(raw: Uint8Array, opts: RemoteWriteOptions) {
    this.r = new ProtoReader(raw);
    this.out = new RemoteWriteAssembler(opts);
  }

  decode(): RemoteWriteResult {
    this.readSymbols();
    const r = this.r;
    r.pos = 0;
    while (r.pos < r.limit) {
      const tag = r.tag();
      if (tag === REQUEST_TIMESERIES) this.readSeries(r.messageEnd());
      else r.skip(tag);
    }
    for (const m of this.metadata.values()) this.out.metadata.push(m);
    return this.out.result();
  }

  private readSymbols(): void {
    const r = this.r;
    const invalid: number[] = [];
    while (r.pos < r.limit) {
      const tag = r.tag();
      if (tag !== REQUEST_SYMBOLS) {
        r.skip(tag);
        continue;
      }
      const end = r.messageEnd();
      const start = r.pos;
      r.pos = end;
      let text = decodeUtf8Strict(r.buf, start, end);
      if (text === undefined) {
        invalid.push(this.symbols.length);
        text = decodeUtf8(r.buf, start, end);
      }
      this.symbols.push(text);
    }
    if (invalid.length > 0) {
      this.invalidSymbols = new Uint8Array(this.symbols.length);
      for (const i of invalid) this.invalidSymbols[i] = 1;
    }
  }

  /** symbol resolves a reference, or undefined when it lies outside the table. */
  private symbol(ref: number): string | undefined {
    return ref < this.symbols.length ? this.symbols[ref] : undefined;
  }

  private validSymbol(ref: number): boolean {
    return this.invalidSymbols === undefined || this.invalidSymbols[ref] === 0;
  }

  private readSeries(end: number): void {
    const r = this.r;
    const out = this.out;
    out.startSeries();
    this.refs.length = 0;
    let metaAt = -1;
    let seriesCreated = 0;
    while (r.pos < end) {
      const tag = r.tag();
      switch (tag) {
        case SERIES_SAMPLE:
          readSample(r, r.messageEnd(), out);
          break;
        case SERIES_HISTOGRAM: {
          const { sample, problem } = decodeNativeHistogram(r, r.messageEnd());
          out.histogram(sample, problem);
          // A histogram's start timestamp is its created timestamp, as a float sample's is.
          if (problem === undefined && sample.startTimestampMs !== 0) out.created(sample.startTimestampMs);
          break;
        }
        case SERIES_EXEMPLAR:
          this.readExemplar(r.messageEnd());
          break;
        case SERIES_METADATA:
          // Read once the labels are known: the metadata is kept under the series' family name.
          metaAt = r.pos;
          r.pos = r.messageEnd();
          break;
        case SERIES_CREATED_TIMESTAMP:
          seriesCreated = r.int64Number();
          break;
        default:
          if (tag >>> 3 === FIELD_LABELS_REFS) readRepeated(r, tag, WIRE_VARINT, readUint32, this.refs);
          else r.skip(tag);
      }
    }
    r.checkEnd(end);
    if (seriesCreated !== 0) out.created(seriesCreated, 0);
    const name = this.resolveLabels();
    out.endSeries();
    if (metaAt >= 0 && name !== undefined && name !== '') {
      const after = r.pos;
      r.pos = metaAt;
      this.readMetadata(name, r.messageEnd());
      r.pos = after;
    }
  }

  /** resolveLabels hands the series' labels to the assembler and returns its metric name (if it resolved). */
  private resolveLabels(): string | undefined {
    const out = this.out;
    const n = this.refs.length;
    if (n % 2 !== 0) {
      out.invalidLabels(`odd number (${n}) of label references`);
      return undefined;
    }
    let metricName: string | undefined;
    for (let i = 0; i < n; i += 2) {
      const nameRef = this.refs[i];
      const valueRef = this.refs[i + 1];
      const name = this.symbol(nameRef);
      const value = this.symbol(valueRef);
      if (name === undefined || value === undefined) {
        out.invalidLabels(`label reference ${name === undefined ? nameRef : valueRef} is outside the symbols table (${this.symbols.length} symbols)`);
        return undefined;
      }
      out.label(name, value, this.validSymbol(nameRef) && this.validSymbol(valueRef));
      if (name === '__name__') metricName = value;
    }
    return metricName;
  }

  /** readExemplar reads one Exemplar; unresolvable or malformed labels drop it (it is counted as sent). */
  private readExemplar(end: number): void {
    const r = this.r;
    const refs: number[] = [];
    let value = 0;
    let timestamp = 0;
    while (r.pos < end) {
      const tag = r.tag();
      if (tag === EXEMPLAR_VALUE) {
        value = r.double();
      } else if (tag === EXEMPLAR_TIMESTAMP) {
        timestamp = r.int64Number();
      } else if (tag >>> 3 === FIELD_LABELS_REFS) {
        readRepeated(r, tag, WIRE_VARINT, readUint32, refs);
      } else {
        r.skip(tag);
      }
    }
    r.checkEnd(end);
    this.out.exemplar(this.exemplarLabels(refs), value, timestamp);
  }

  private exemplarLabels(refs: readonly number[]): Record<string, string> | undefined {
    if (refs.length % 2 !== 0) return undefined;
    const labels: Record<string, string> = {};
    for (let i = 0; i < refs.length; i += 2) {
      const name = this.symbol(refs[i]);
      const value = this.symbol(refs[i + 1]);
      if (name === undefined || value === undefined || name === '' || !this.validSymbol(refs[i]) || !this.validSymbol(refs[i + 1])) return undefined;
      if (Object.hasOwn(labels, name)) return undefined;
      if (value !== '') setLabel(labels, name, value);
    }
    return labels;
  }

  /**
   * readMetadata keeps a series' metadata under its family name: the metric name, without
   * `_bucket` / `_sum` / `_count` for a classic histogram or summary, as 1.0's metadata entries
   * name families. Metadata that says nothing (unspecified type, no help, no unit) is skipped.
   */
  private readMetadata(metricName: string, end: number): void {
    const r = this.r;
    let type = 0;
    let helpRef = 0;
    let unitRef = 0;
    while (r.pos < end) {
      const tag = r.tag();
      if (tag === META_TYPE) type = r.int32();
      else if (tag === META_HELP_REF) helpRef = r.uint32();
      else if (tag === META_UNIT_REF) unitRef = r.uint32();
      else r.skip(tag);
    }
    r.checkEnd(end);
    const help = helpRef === 0 ? '' : this.symbol(helpRef);
    const unit = unitRef === 0 ? '' : this.symbol(unitRef);
    if (help === undefined || unit === undefined) return;
    const metricType: MetricType = METRIC_TYPES[type] ?? 'unknown';
    if (metricType === 'unknown' && help === '' && unit === '') return;
    const name = familyName(metricName, metricType);
    this.metadata.set(name, { name, type: metricType, unit, help });
  }
}

function familyName(metricName: string, type: MetricType): string {
  if (type !== 'histogram' && type !== 'gaugehistogram' && type !== 'summary') return metricName;
  for (const suffix of CLASSIC_SUFFIXES) if (metricName.endsWith(suffix)) return metricName.slice(0, -suffix.length);
  return metricName;
}
