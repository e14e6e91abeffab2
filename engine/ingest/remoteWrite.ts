/**
 * Prometheus remote write 1.0: a snappy-compressed `prometheus.WriteRequest` protobuf. Each
 * TimeSeries becomes one MetricSeries with its labels sorted and its float samples in time
 * order; exemplars and native histograms are skipped (counted in the result), and metadata
 * entries become MetricMetadata.
 *
 * Validation follows Prometheus 3: label names may be any UTF-8 but not empty and not
 * repeated, names and values must be valid UTF-8, `__name__` must be present and non-empty,
 * and a label with an empty value is dropped (Prometheus treats it as absent). Staleness
 * markers (the NaN with bits 0x7ff0000000000002) are recognized from the raw 64 bits and
 * flagged in `stale`. `rejected` counts samples.
 *
 * The sample arrays of all series of one result are views into three shared buffers (see
 * buildRecords): copy a series' arrays before transferring their buffer to another thread.
 */
import { withContext } from './errors.js';
import { setLabel } from './labelObject.js';
import { checkSeriesLabels, describeLabels, Rejections, resolveLimits, TimeBounds } from './limits.js';
import type { Problem } from './limits.js';
import { ProtoReader, WIRE_FIXED64, WIRE_LENGTH_DELIMITED, WIRE_VARINT, fieldTag } from './protobuf.js';
import { snappyDecompress } from './snappy.js';
import { DEFAULT_MAX_DECOMPRESSED_BYTES } from './types.js';
import type { DecodeOptions, DecodeResult, DiscardReason, IngestLimits, MetricMetadata, MetricSeries, MetricType } from './types.js';
import { decodeUtf8, decodeUtf8Strict } from './utf8.js';

/** RemoteWriteResult adds what was skipped, not rejected, to the common result. */
export interface RemoteWriteResult extends DecodeResult<MetricSeries> {
  /** exemplars present in the request, which Sluice does not store */
  skippedExemplars: number;
  /** native histogram samples present in the request, which Sluice does not store */
  skippedHistograms: number;
}

const REQUEST_TIMESERIES = fieldTag(1, WIRE_LENGTH_DELIMITED);
const REQUEST_METADATA = fieldTag(3, WIRE_LENGTH_DELIMITED);
const SERIES_LABEL = fieldTag(1, WIRE_LENGTH_DELIMITED);
const SERIES_SAMPLE = fieldTag(2, WIRE_LENGTH_DELIMITED);
const SERIES_EXEMPLAR = fieldTag(3, WIRE_LENGTH_DELIMITED);
const SERIES_HISTOGRAM = fieldTag(4, WIRE_LENGTH_DELIMITED);
const LABEL_NAME = fieldTag(1, WIRE_LENGTH_DELIMITED);
const LABEL_VALUE = fieldTag(2, WIRE_LENGTH_DELIMITED);
const SAMPLE_VALUE = fieldTag(1, WIRE_FIXED64);
const SAMPLE_TIMESTAMP = fieldTag(2, WIRE_VARINT);
const META_TYPE = fieldTag(1, WIRE_VARINT);
const META_FAMILY = fieldTag(2, WIRE_LENGTH_DELIMITED);
const META_HELP = fieldTag(4, WIRE_LENGTH_DELIMITED);
const META_UNIT = fieldTag(5, WIRE_LENGTH_DELIMITED);

/** STALE_NAN_HI/LO are the two words of Prometheus' staleness marker, 0x7ff0000000000002. */
const STALE_NAN_HI = 0x7ff00000;
const STALE_NAN_LO = 0x00000002;

/** METRIC_TYPES maps prometheus.MetricMetadata.MetricType numbers to names. */
const METRIC_TYPES: readonly MetricType[] = [
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
export function decodeRemoteWrite(body: Uint8Array, opts: DecodeOptions): RemoteWriteResult {
  const maxBytes = opts.maxDecompressedBytes ?? DEFAULT_MAX_DECOMPRESSED_BYTES;
  const raw = withContext('invalid remote write body', () => snappyDecompress(body, maxBytes));
  return decodeWriteRequest(raw, opts);
}

/** decodeWriteRequest decodes an uncompressed `prometheus.WriteRequest` protobuf. */
export function decodeWriteRequest(raw: Uint8Array, opts: DecodeOptions): RemoteWriteResult {
  return withContext('invalid remote write WriteRequest protobuf', () => new WriteRequestDecoder(raw, opts).decode());
}

class WriteRequestDecoder {
  private readonly r: ProtoReader;
  private readonly limits: IngestLimits;
  private readonly bounds: TimeBounds;
  private readonly records: MetricSeries[] = [];
  private readonly metadata: MetricMetadata[] = [];
  private readonly rejections = new Rejections();
  private skippedExemplars = 0;
  private skippedHistograms = 0;

  // Label scratch space reused across series.
  private names: string[] = [];
  private values: string[] = [];
  private invalidUtf8 = false;
  // Samples of the whole request, series after series; `used` counts the committed ones.
  private times = new Float64Array(4096);
  private samples = new Float64Array(4096);
  private staleFlags = new Uint8Array(4096);
  private used = 0;
  private readonly pending: PendingSeries[] = [];

  constructor(raw: Uint8Array, opts: DecodeOptions) {
    this.r = new ProtoReader(raw);
    this.limits = resolveLimits(opts.limits);
    this.bounds = new TimeBounds(opts.nowMs, this.limits);
  }

  decode(): RemoteWriteResult {
    const r = this.r;
    while (r.pos < r.limit) {
      const tag = r.tag();
      if (tag === REQUEST_TIMESERIES) this.readSeries(r.messageEnd());
      else if (tag === REQUEST_METADATA) this.readMetadata(r.messageEnd());
      else r.skip(tag);
    }
    this.buildRecords();
    return {
      records: this.records,
      metadata: this.metadata,
      rejected: this.rejections.count,
      discarded: this.rejections.byReason,
      errors: this.rejections.errors(),
      skippedExemplars: this.skippedExemplars,
      skippedHistograms: this.skippedHistograms,
    };
  }

  private readSeries(end: number): void {
    const r = this.r;
    let labelCount = 0;
    let sampleCount = 0;
    let anyStale = false;
    this.invalidUtf8 = false;
    while (r.pos < end) {
      const tag = r.tag();
      switch (tag) {
        case SERIES_LABEL:
          this.readLabel(r.messageEnd(), labelCount++);
          break;
        case SERIES_SAMPLE: {
          const sampleEnd = r.messageEnd();
          const at = this.used + sampleCount;
          if (at === this.times.length) this.grow();
          let value = 0;
          let stale = 0;
          let timestamp = 0;
          while (r.pos < sampleEnd) {
            const t = r.tag();
            if (t === SAMPLE_VALUE) {
              const valueAt = r.pos;
              r.fixed64();
              value = r.view.getFloat64(valueAt, true);
              stale = r.hi === STALE_NAN_HI && r.lo === STALE_NAN_LO ? 1 : 0;
            } else if (t === SAMPLE_TIMESTAMP) {
              timestamp = r.int64Number();
            } else {
              r.skip(t);
            }
          }
          r.checkEnd(sampleEnd);
          this.times[at] = timestamp;
          this.samples[at] = value;
          this.staleFlags[at] = stale;
          if (stale === 1) anyStale = true;
          sampleCount++;
          break;
        }
        case SERIES_EXEMPLAR:
          this.skippedExemplars++;
          r.skip(tag);
          break;
        case SERIES_HISTOGRAM:
          this.skippedHistograms++;
          r.skip(tag);
          break;
        default:
          r.skip(tag);
      }
    }
    r.checkEnd(end);
    if (sampleCount === 0) return;
    const built = this.buildLabels(labelCount);
    if ('problem' in built) {
      const { reason, message } = built.problem;
      this.rejections.reject(sampleCount, reason, `series ${this.describeRaw(labelCount)}: ${message}`);
      return;
    }
    this.finishSeries(built.labels, sampleCount, anyStale);
  }

  private readLabel(end: number, index: number): void {
    const r = this.r;
    let name = '';
    let value = '';
    while (r.pos < end) {
      const tag = r.tag();
      if (tag === LABEL_NAME || tag === LABEL_VALUE) {
        const strEnd = r.messageEnd();
        const start = r.pos;
        r.pos = strEnd;
        let text = decodeUtf8Strict(r.buf, start, strEnd);
        if (text === undefined) {
          this.invalidUtf8 = true;
          text = decodeUtf8(r.buf, start, strEnd);
        }
        if (tag === LABEL_NAME) name = text;
        else value = text;
      } else {
        r.skip(tag);
      }
    }
    r.checkEnd(end);
    this.names[index] = name;
    this.values[index] = value;
  }

  private grow(): void {
    const n = this.times.length * 2;
    const times = new Float64Array(n);
    times.set(this.times);
    const samples = new Float64Array(n);
    samples.set(this.samples);
    const stale = new Uint8Array(n);
    stale.set(this.staleFlags);
    this.times = times;
    this.samples = samples;
    this.staleFlags = stale;
  }

  /** buildLabels validates the scratch labels and returns the sorted label object or why not. */
  private buildLabels(count: number): { labels: Record<string, string> } | { problem: Problem } {
    if (this.invalidUtf8) return invalidLabels('label name or value is not valid UTF-8');
    const order: number[] = [];
    for (let i = 0; i < count; i++) {
      if (this.names[i] === '') return invalidLabels('empty label name');
      if (this.values[i] !== '') order.push(i);
    }
    const names = this.names;
    let sorted = true;
    for (let k = 1; k < order.length; k++) {
      if (names[order[k]] <= names[order[k - 1]]) {
        sorted = false;
        break;
      }
    }
    if (!sorted) order.sort((a, b) => (names[a] < names[b] ? -1 : names[a] > names[b] ? 1 : 0));
    const labels: Record<string, string> = {};
    let hasName = false;
    for (let k = 0; k < order.length; k++) {
      const name = names[order[k]];
      if (k > 0 && name === names[order[k - 1]]) return invalidLabels(`duplicate label name ${JSON.stringify(name)}`);
      setLabel(labels, name, this.values[order[k]]);
      if (name === '__name__') hasName = true;
    }
    for (let i = 0; i < count; i++) {
      // A duplicate whose other copy had an empty value is still a duplicate.
      if (this.values[i] === '' && Object.hasOwn(labels, names[i])) return invalidLabels(`duplicate label name ${JSON.stringify(names[i])}`);
    }
    if (!hasName) return invalidLabels('missing metric name (__name__ label)');
    const problem = checkSeriesLabels(labels, this.limits);
    return problem === undefined ? { labels } : { problem };
  }

  private describeRaw(count: number): string {
    const labels: Record<string, string> = {};
    for (let i = 0; i < count; i++) setLabel(labels, this.names[i], this.values[i]);
    return describeLabels(labels);
  }

  /**
   * finishSeries drops the samples of a valid series whose timestamps are out of bounds (each
   * on its own: the series' other samples are kept), puts the rest in time order and commits
   * them. Each reason met is reported once per series, with its first sample's problem.
   */
  private finishSeries(labels: Record<string, string>, count: number, anyStale: boolean): void {
    const times = this.times;
    const samples = this.samples;
    const staleFlags = this.staleFlags;
    const base = this.used;
    let kept = 0;
    let ordered = true;
    let dropped: Map<DiscardReason, { count: number; first: Problem }> | undefined;
    for (let i = 0; i < count; i++) {
      const t = times[base + i];
      const problem = this.bounds.checkMs(t);
      if (problem !== undefined) {
        dropped ??= new Map();
        const seen = dropped.get(problem.reason);
        if (seen === undefined) dropped.set(problem.reason, { count: 1, first: problem });
        else seen.count++;
        continue;
      }
      const to = base + kept;
      if (kept !== i) {
        times[to] = t;
        samples[to] = samples[base + i];
        staleFlags[to] = staleFlags[base + i];
      }
      if (kept > 0 && t < times[to - 1]) ordered = false;
      kept++;
    }
    if (dropped !== undefined) {
      for (const [reason, { count: n, first }] of dropped) {
        const which = n === 1 ? '1 sample rejected' : `${n} samples rejected, the first because`;
        this.rejections.reject(n, reason, `series ${describeLabels(labels)}: ${which}: ${first.message}`);
      }
    }
    if (kept === 0) return;
    if (!ordered) sortRange(times, samples, staleFlags, base, kept);
    this.pending.push({ labels, offset: base, count: kept, anyStale });
    this.used = base + kept;
  }

  /**
   * buildRecords turns the committed series into records. All series of a request share three
   * buffers (times, values, stale flags) and get views of their part: two allocations per
   * request instead of two per series, which matters when series carry a handful of samples.
   */
  private buildRecords(): void {
    const n = this.used;
    const times = new Float64Array(n);
    times.set(this.times.subarray(0, n));
    const values = new Float64Array(n);
    values.set(this.samples.subarray(0, n));
    let stale: Uint8Array | undefined;
    for (const p of this.pending) {
      const series: MetricSeries = {
        labels: p.labels,
        timestampsMs: new Float64Array(times.buffer, p.offset * 8, p.count),
        values: new Float64Array(values.buffer, p.offset * 8, p.count),
      };
      if (p.anyStale) {
        stale ??= this.staleFlags.slice(0, n);
        series.stale = new Uint8Array(stale.buffer, p.offset, p.count);
      }
      this.records.push(series);
    }
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
    this.metadata.push({ name, type: METRIC_TYPES[type] ?? 'unknown', unit, help });
  }
}

function invalidLabels(message: string): { problem: Problem } {
  return { problem: { reason: 'invalid_labels', message } };
}

/** PendingSeries is a validated series whose samples sit at [offset, offset + count). */
interface PendingSeries {
  labels: Record<string, string>;
  offset: number;
  count: number;
  anyStale: boolean;
}

/** sortRange puts [base, base + n) of the sample arrays in time order (stable). */
function sortRange(times: Float64Array, values: Float64Array, stale: Uint8Array, base: number, n: number): void {
  const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => times[base + a] - times[base + b] || a - b);
  const t = times.slice(base, base + n);
  const v = values.slice(base, base + n);
  const s = stale.slice(base, base + n);
  for (let i = 0; i < n; i++) {
    times[base + i] = t[order[i]];
    values[base + i] = v[order[i]];
    stale[base + i] = s[order[i]];
  }
}
