/**
 * The part of remote write decoding that both protocol versions share: each series' labels are
 * validated (Prometheus 3 rules, the org's limits), its float samples checked against the time
 * bounds and put in time order, its exemplars checked and kept, its native histograms checked
 * and kept among its samples (a histogram sample takes a sample slot with value 0 and its
 * histogram beside it, so bounds, ordering and storage treat both kinds alike). The wire readers of 1.0
 * (remoteWrite.ts) and 2.0 (remoteWrite2.ts) only read fields and feed this, series by series:
 * `startSeries`, then `label` / `sample` / `exemplar` / `histogram` in any order, then
 * `endSeries`; `result` at the end.
 *
 * Label validation: names may be any UTF-8 but not empty and not repeated, names and values
 * must be valid UTF-8, `__name__` must be present and non-empty, and a label with an empty
 * value is dropped (Prometheus treats it as absent). `rejected` counts float samples and
 * histogram samples.
 *
 * The sample arrays of all series of one result are views into three shared buffers (see
 * buildRecords): copy a series' arrays before transferring their buffer to another thread.
 */
import { exemplarLabelRunes, MAX_EXEMPLAR_LABEL_RUNES, type Exemplar, type SeriesExemplars } from '../storage/exemplarStore.js';
import { setLabel } from './labelObject.js';
import { labelPairKey } from '../storage/labels.js';
import type { CachedSeriesLabels, SeriesLabelCache } from './seriesLabelCache.js';
import { checkSeriesLabels, describeLabels, Rejections, resolveLimits, TimeBounds } from './limits.js';
import type { Problem } from './limits.js';
import type { FloatHistogram } from '../histogram/floatHistogram.js';
import { createdZeroFits, zeroHistogramLike } from './createdZero.js';
import type { NativeHistogramSample } from './nativeHistogram.js';
import type { LastSampleLookup } from '../storage/metricHead.js';
import type { DecodeOptions, DecodeResult, DiscardReason, IngestLimits, MetricMetadata, MetricSeries } from './types.js';

/** RemoteWriteOptions are a decoder's options plus what only remote write reads. */
export interface RemoteWriteOptions extends DecodeOptions {
  /**
   * inject a zero sample at a series' created (start) timestamp when it is older than the
   * sample it belongs to, as Prometheus' `created-timestamp-zero-ingestion` feature does
   */
  createdTimestampZero?: boolean;
  /**
   * lastStoredMs answers the newest sample already stored of a series, so that a zero goes only
   * after it, as Prometheus appends one only where it keeps the series in order. Undefined for
   * a series means nobody here can know, and then no zero is added: a zero in the middle of a
   * counter would read as a reset, while a missing one only loses the first increase. Without
   * this option only the request's own samples are looked at.
   */
  lastStoredMs?: LastSampleLookup;
  /**
   * the org's cache of decoded series labels by their wire bytes (see seriesLabelCache.ts);
   * only wire readers that can point at a series' label bytes use it (1.0)
   */
  labelCache?: SeriesLabelCache;
}

/** RemoteWriteResult adds exemplars and native histograms to the common result. */
export interface RemoteWriteResult extends DecodeResult<MetricSeries> {
  metadata: MetricMetadata[];
  /** exemplars of valid series that passed validation, for the exemplar store */
  exemplars: SeriesExemplars[];
  /** exemplars the request carried, kept or not */
  exemplarsSent: number;
  /** native histogram samples kept in `records` (each also counts as one of their samples) */
  histogramSamples: number;
  /** native histogram samples the request carried */
  histogramsSent: number;
  /** zero samples added at created timestamps (part of `records`, not of what the sender sent) */
  createdZeros: number;
  /** how many of `createdZeros` are empty native histograms (also counted in `histogramSamples`) */
  createdZeroHistograms: number;
}

export class RemoteWriteAssembler {
  readonly limits: IngestLimits;
  private readonly bounds: TimeBounds;
  private readonly createdZero: boolean;
  private readonly lastStoredMs: LastSampleLookup | undefined;
  private readonly rejections = new Rejections();
  private readonly records: MetricSeries[] = [];
  readonly metadata: MetricMetadata[] = [];
  private readonly exemplars: SeriesExemplars[] = [];
  private exemplarsSent = 0;
  private histogramsSent = 0;
  private createdZeros = 0;
  private createdZeroHistograms = 0;

  // The series being read: label scratch space reused across series, and what it carries.
  private names: string[] = [];
  private values: string[] = [];
  private labelCount = 0;
  private invalidLabel: string | undefined;
  private readonly labelCache: SeriesLabelCache | undefined;
  /** the cached labels of the series, while no other label of it has been read */
  private cachedLabels: CachedSeriesLabels | undefined;
  /**
   * where the series' label bytes lie in `labelBytes` and how many labels they hold, to
   * remember what they decode to; end 0 when unknown
   */
  private labelBytes: Uint8Array | undefined;
  private labelBytesStart = 0;
  private labelBytesEnd = 0;
  private labelBytesCount = 0;
  private sampleCount = 0;
  private anyStale = false;
  /** [sample index, created timestamp] pairs of the series' samples that carry one */
  private createdAt: number[] = [];
  private seriesExemplars: Exemplar[] = [];
  private anyHistograms = false;
  private histogramProblem: string | undefined;
  private histogramProblems = 0;

  // Samples of the whole request, series after series; `used` counts the committed ones.
  private times = new Float64Array(4096);
  private samples = new Float64Array(4096);
  private staleFlags = new Uint8Array(4096);
  /** histogram slots beside the sample buffers: set where a sample is a native histogram */
  private hists: (FloatHistogram | undefined)[] = [];
  private histogramSamples = 0;
  private used = 0;
  private readonly pending: PendingSeries[] = [];

  constructor(opts: RemoteWriteOptions) {
    this.limits = resolveLimits(opts.limits);
    this.bounds = new TimeBounds(opts.nowMs, this.limits);
    this.createdZero = opts.createdTimestampZero === true;
    this.lastStoredMs = opts.lastStoredMs;
    this.labelCache = opts.labelCache;
    this.labelCache?.useLimits(this.limits);
  }

  startSeries(): void {
    this.labelCount = 0;
    this.invalidLabel = undefined;
    this.cachedLabels = undefined;
    this.labelBytesEnd = 0;
    this.sampleCount = 0;
    this.anyStale = false;
    if (this.createdAt.length > 0) this.createdAt = [];
    if (this.seriesExemplars.length > 0) this.seriesExemplars = [];
    this.anyHistograms = false;
    this.histogramProblem = undefined;
    this.histogramProblems = 0;
  }

  /**
   * labelsFrom offers the wire bytes buf[start, end) of the `count` labels that open the series
   * (its Label fields in a row, before any other field) and answers true when the cache knows
   * them: the reader then skips them instead of passing each to `label`. Otherwise the reader
   * goes on to pass them, and if they turn out to be all the series' labels and valid, what
   * they decode to is remembered with these bytes.
   */
  labelsFrom(buf: Uint8Array, start: number, end: number, count: number): boolean {
    const cache = this.labelCache;
    if (cache === undefined || this.labelCount > 0 || this.cachedLabels !== undefined) return false;
    const hit = cache.lookup(buf, start, end);
    if (hit !== undefined) {
      this.cachedLabels = hit;
      return true;
    }
    this.labelBytes = buf;
    this.labelBytesStart = start;
    this.labelBytesEnd = end;
    this.labelBytesCount = count;
    return false;
  }

  /** label adds one label; `valid` is false when its name or value was not valid UTF-8 (or not resolvable). */
  label(name: string, value: string, valid: boolean): void {
    if (this.cachedLabels !== undefined) this.expandCachedLabels();
    if (!valid) this.invalidLabel ??= 'label name or value is not valid UTF-8';
    this.names[this.labelCount] = name;
    this.values[this.labelCount] = value;
    this.labelCount++;
  }

  /** expandCachedLabels puts the labels of a cache hit back in scratch space, for a series with more labels after them. */
  private expandCachedLabels(): void {
    const { names, values } = this.cachedLabels!;
    this.cachedLabels = undefined;
    for (let i = 0; i < names.length; i++) {
      this.names[i] = names[i];
      this.values[i] = values[i];
    }
    this.labelCount = names.length;
  }

  /** invalidLabels marks the series invalid for a reason the wire reader found (a bad symbol reference). */
  invalidLabels(message: string): void {
    this.invalidLabel ??= message;
  }

  /** sample adds one float sample; `stale` marks Prometheus' staleness NaN. */
  sample(timestampMs: number, value: number, stale: boolean): void {
    const at = this.used + this.sampleCount;
    if (at === this.times.length) this.grow();
    this.times[at] = timestampMs;
    this.samples[at] = value;
    this.staleFlags[at] = stale ? 1 : 0;
    if (at < this.hists.length) this.hists[at] = undefined;
    if (stale) this.anyStale = true;
    this.sampleCount++;
  }

  /**
   * created records the created (start) timestamp of one of the series' samples: by default
   * the last one read; the series-level field of early 2.0 senders gives it for the first.
   * 0 means none.
   */
  created(timestampMs: number, sampleIndex = this.sampleCount - 1): void {
    if (timestampMs !== 0) this.createdAt.push(Math.max(0, sampleIndex), timestampMs);
  }

  /** exemplar adds one exemplar of the series; `labels` undefined means its labels were unreadable. */
  exemplar(labels: Record<string, string> | undefined, value: number, timestampMs: number): void {
    this.exemplarsSent++;
    if (labels === undefined || exemplarLabelRunes(labels) > MAX_EXEMPLAR_LABEL_RUNES) return;
    if (this.bounds.checkMs(timestampMs) !== undefined) return;
    this.seriesExemplars.push({ labels, value, timestampMs });
  }

  /** histogram adds one native histogram sample, or counts it as malformed when `problem` is set. */
  histogram(h: NativeHistogramSample, problem: string | undefined): void {
    this.histogramsSent++;
    if (problem !== undefined) {
      this.histogramProblem ??= problem;
      this.histogramProblems++;
      return;
    }
    const at = this.used + this.sampleCount;
    this.sample(h.timestampMs, 0, h.stale);
    if (!h.stale) {
      this.hists[at] = h.histogram;
      this.anyHistograms = true;
    }
  }

  /** endSeries validates the series read since startSeries and commits what passes. */
  endSeries(): void {
    const histogramCount = this.histogramProblems;
    if (this.sampleCount === 0 && histogramCount === 0 && this.seriesExemplars.length === 0) return;
    const built = this.cachedLabels ?? this.buildLabels();
    if ('problem' in built) {
      const { reason, message } = built.problem;
      const n = this.sampleCount + histogramCount;
      if (n > 0) this.rejections.reject(n, reason, `series ${this.describeRaw()}: ${message}`);
      return;
    }
    const labels = built.labels;
    if (this.histogramProblems > 0) {
      this.rejections.reject(this.histogramProblems, 'invalid_point', `series ${describeLabels(labels)}: ${this.histogramProblem}`);
    }
    if (this.seriesExemplars.length > 0) {
      this.exemplars.push({ seriesLabels: labels, exemplars: this.seriesExemplars.sort((a, b) => a.timestampMs - b.timestampMs) });
      this.seriesExemplars = [];
    }
    if (this.sampleCount > 0) {
      if (this.createdZero && this.createdAt.length > 0) this.addCreatedZeros(labels);
      this.finishSeries(labels, built.key, this.sampleCount, this.anyStale, this.anyHistograms);
    }
  }

  /**
   * addCreatedZeros puts a zero sample at each created timestamp that lies after the sample
   * before its own (in the order sent, or the newest one already stored for the first) and
   * before its own, as Prometheus appends one only where it keeps the series in order. A
   * created timestamp older than what is stored (a sender repeating a counter's start) thus
   * adds nothing; a newer one (the counter restarted since) does. A created timestamp is not a sample the sender asked to
   * store, so one out of bounds is dropped silently rather than rejected. The zero of a native
   * histogram sample is an empty histogram in its layout (zeroHistogramLike), not a float, so
   * the series keeps one sample kind.
   */
  private addCreatedZeros(labels: Record<string, string>): void {
    const stored = this.lastStoredMs === undefined ? -Infinity : this.lastStoredMs(labels);
    if (stored === undefined) return;
    const base = this.used;
    let last = NaN;
    for (let k = 0; k < this.createdAt.length; k += 2) {
      const i = this.createdAt[k];
      const ct = this.createdAt[k + 1];
      const previous = i > 0 ? Math.max(this.times[base + i - 1], stored) : stored;
      if (ct === last || !createdZeroFits(ct, previous, this.times[base + i]) || this.bounds.checkMs(ct) !== undefined) continue;
      const own = this.hists[base + i];
      const at = this.used + this.sampleCount;
      this.sample(ct, 0, false);
      if (own !== undefined) {
        this.hists[at] = zeroHistogramLike(own);
        this.createdZeroHistograms++;
      }
      this.createdZeros++;
      last = ct;
    }
  }

  result(): RemoteWriteResult {
    this.buildRecords();
    return {
      records: this.records,
      metadata: this.metadata,
      rejected: this.rejections.count,
      discarded: this.rejections.byReason,
      errors: this.rejections.errors(),
      exemplars: this.exemplars,
      exemplarsSent: this.exemplarsSent,
      histogramSamples: this.histogramSamples,
      histogramsSent: this.histogramsSent,
      createdZeros: this.createdZeros,
      createdZeroHistograms: this.createdZeroHistograms,
    };
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
  private buildLabels(): { labels: Readonly<Record<string, string>>; key: string } | { problem: Problem } {
    const count = this.labelCount;
    if (this.invalidLabel !== undefined) return invalidLabels(this.invalidLabel);
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
    let key = '';
    let hasName = false;
    for (let k = 0; k < order.length; k++) {
      const name = names[order[k]];
      if (k > 0 && name === names[order[k - 1]]) return invalidLabels(`duplicate label name ${JSON.stringify(name)}`);
      const value = this.values[order[k]];
      setLabel(labels, name, value);
      key += labelPairKey(name, value);
      if (name === '__name__') hasName = true;
    }
    for (let i = 0; i < count; i++) {
      // A duplicate whose other copy had an empty value is still a duplicate.
      if (this.values[i] === '' && Object.hasOwn(labels, names[i])) return invalidLabels(`duplicate label name ${JSON.stringify(names[i])}`);
    }
    if (!hasName) return invalidLabels('missing metric name (__name__ label)');
    const problem = checkSeriesLabels(labels, this.limits);
    if (problem !== undefined) return { problem };
    if (this.labelBytesEnd > 0 && count === this.labelBytesCount) {
      return this.labelCache!.remember(this.labelBytes!, this.labelBytesStart, this.labelBytesEnd, labels, key, this.names.slice(0, count), this.values.slice(0, count));
    }
    return { labels, key };
  }

  private describeRaw(): string {
    const labels: Record<string, string> = {};
    for (let i = 0; i < this.labelCount; i++) setLabel(labels, this.names[i], this.values[i]);
    return describeLabels(labels);
  }

  /**
   * finishSeries drops the samples of a valid series whose timestamps are out of bounds (each
   * on its own: the series' other samples are kept), puts the rest in time order and commits
   * them. Each reason met is reported once per series, with its first sample's problem.
   */
  private finishSeries(labels: Record<string, string>, key: string, count: number, anyStale: boolean, anyHistograms: boolean): void {
    const hists = anyHistograms ? this.hists : undefined;
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
        if (hists !== undefined) hists[to] = hists[base + i];
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
    if (!ordered) sortRange(times, samples, staleFlags, hists, base, kept);
    this.pending.push({ labels, key, offset: base, count: kept, anyStale, anyHistograms });
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
        key: p.key,
        timestampsMs: new Float64Array(times.buffer, p.offset * 8, p.count),
        values: new Float64Array(values.buffer, p.offset * 8, p.count),
      };
      if (p.anyStale) {
        stale ??= this.staleFlags.slice(0, n);
        series.stale = new Uint8Array(stale.buffer, p.offset, p.count);
      }
      if (p.anyHistograms) {
        const slots = Array.from({ length: p.count }, (_, k) => this.hists[p.offset + k]);
        for (const h of slots) if (h !== undefined) this.histogramSamples++;
        series.histograms = slots;
      }
      this.records.push(series);
    }
  }
}

function invalidLabels(message: string): { problem: Problem } {
  return { problem: { reason: 'invalid_labels', message } };
}

/** PendingSeries is a validated series whose samples sit at [offset, offset + count). */
interface PendingSeries {
  labels: Record<string, string>;
  /** the series' seriesKey, built with its sorted labels so storage need not sort and join them again */
  key: string;
  offset: number;
  count: number;
  anyStale: boolean;
  anyHistograms: boolean;
}

/** sortRange puts [base, base + n) of the sample arrays in time order (stable). */
function sortRange(times: Float64Array, values: Float64Array, stale: Uint8Array, hists: (FloatHistogram | undefined)[] | undefined, base: number, n: number): void {
  const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => times[base + a] - times[base + b] || a - b);
  const t = times.slice(base, base + n);
  const v = values.slice(base, base + n);
  const s = stale.slice(base, base + n);
  const h = hists?.slice(base, base + n);
  for (let i = 0; i < n; i++) {
    times[base + i] = t[order[i]];
    values[base + i] = v[order[i]];
    stale[base + i] = s[order[i]];
    if (hists !== undefined) hists[base + i] = h![order[i]];
  }
}

/** STALE_NAN_HI/LO are the two words of Prometheus' staleness marker, 0x7ff0000000000002. */
export const STALE_NAN_HI = 0x7ff00000;
export const STALE_NAN_LO = 0x00000002;
