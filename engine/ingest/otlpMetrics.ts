/**
 * OTLP/HTTP metrics: decodes an ExportMetricsServiceRequest (protobuf or JSON) and converts it
 * to Prometheus series the way Prometheus' own OTLP receiver does:
 *
 * - names and units per promNaming.ts (`_total` for monotonic sums, unit suffixes, `_ratio`);
 * - labels are the data point attributes (names sanitized; attributes that sanitize to the
 *   same name have their values joined with `;` in the order of the original keys), plus
 *   `job` (`service.namespace/service.name`, or `service.name`) and `instance`
 *   (`service.instance.id`) from the resource, which win over attributes of the same name;
 * - gauges and non-monotonic sums become gauges; monotonic sums counters; explicit histograms
 *   `_bucket{le}` cumulative counts with a final `+Inf`, `_sum` (when present) and `_count`;
 *   exponential histograms native histograms (otlpNativeHistogram.ts), or with
 *   `exponentialHistograms: 'classic'` the same as explicit ones after conversion to classic
 *   buckets (expHistogram.ts);
 *   summaries `{quantile}` series plus `_sum` and `_count`;
 * - a point flagged "no recorded value" becomes staleness markers for all its series;
 * - delta sums and histograms go through a DeltaAccumulator when one is given, and are
 *   rejected otherwise (as Prometheus does); sums with unspecified temporality are rejected;
 * - each resource with attributes beyond the service name, namespace and instance id gets a
 *   `target_info` gauge series (value 1) holding them, with `job` and `instance`, at the
 *   latest time among the resource's points;
 * - `le` and `quantile` values are formatted like Go's FormatFloat(v, 'f', -1).
 *
 * Scope name and version are not added as labels (Prometheus' default). Exemplars are ignored.
 * `rejected` counts OTLP data points, the unit of ExportMetricsPartialSuccess.
 */
import { bodyFormat, sniffFormat } from './contentType.js';
import type { DeltaAccumulator } from './deltaAccumulator.js';
import { withContext } from './errors.js';
import { exponentialToClassic } from './expHistogram.js';
import { exponentialToNative } from './otlpNativeHistogram.js';
import type { FloatHistogram } from '../histogram/floatHistogram.js';
import type { LastSampleLookup } from '../storage/metricHead.js';
import type { ClassicBucket } from './expHistogram.js';
import { formatGoFloat } from '../common/goFloat.js';
import { checkSeriesLabels, describeLabels, Rejections, resolveLimits, TimeBounds } from './limits.js';
import type { Problem } from './limits.js';
import {
  FLAG_NO_RECORDED_VALUE,
  TEMPORALITY_CUMULATIVE,
  TEMPORALITY_DELTA,
  pointCount,
} from './otlpMetricsModel.js';
import type {
  ExponentialHistogramPoint,
  HistogramPoint,
  NumberPoint,
  OtlpMetric,
  OtlpResourceMetrics,
  PointBase,
  SummaryPoint,
} from './otlpMetricsModel.js';
import { decodeOtlpMetricsJson } from './otlpMetricsJson.js';
import { decodeOtlpMetricsProtobuf } from './otlpMetricsProto.js';
import { valueToString } from './otlpValue.js';
import type { OtlpAttribute } from './otlpValue.js';
import { prometheusLabelName, prometheusMetricName, prometheusUnit } from './promNaming.js';
import type { OtlpMetricKind } from './promNaming.js';
import { labelPairsKey, pairsToObject, SeriesCollector, withLabel } from './seriesCollector.js';
import type { LabelPairs } from './seriesCollector.js';
import type { DecodeOptions, DecodeResult, IngestLimits, MetricMetadata, MetricSeries, MetricType } from './types.js';

/** OtlpMetricsDecodeOptions add the delta-temporality state to the common options. */
export interface OtlpMetricsDecodeOptions extends DecodeOptions {
  /** running totals for delta temporality, one per org; without it delta points are rejected */
  deltaAccumulator?: DeltaAccumulator;
  /** store exponential histograms as native histograms (default) or classic `_bucket` series */
  exponentialHistograms?: 'native' | 'classic';
  /**
   * add a zero at the start time of cumulative counters, histograms and summary counts, as
   * Prometheus' created-timestamp-zero-ingestion does for OTLP (SVC_CREATED_TIMESTAMP_ZERO_INGESTION)
   */
  createdTimestampZero?: boolean;
  /** the series' newest stored sample, after which alone a zero goes (see RemoteWriteOptions) */
  lastStoredMs?: LastSampleLookup;
}

const SERVICE_NAME = 'service.name';
const SERVICE_NAMESPACE = 'service.namespace';
const SERVICE_INSTANCE_ID = 'service.instance.id';

/** OTLP's valid range of exponential histogram scales. */
const MIN_SCALE = -10;
const MAX_SCALE = 20;

/**
 * decodeOtlpMetrics decodes an OTLP metrics request body (already stripped of
 * Content-Encoding) into Prometheus series and metadata.
 */
export function decodeOtlpMetrics(
  body: Uint8Array,
  contentType: string | undefined,
  opts: OtlpMetricsDecodeOptions,
): DecodeResult<MetricSeries> {
  const format = bodyFormat(contentType, 'OTLP metrics', () => sniffFormat(body));
  const resources =
    format === 'json'
      ? withContext('invalid OTLP/JSON metrics request', () => decodeOtlpMetricsJson(body))
      : withContext('invalid OTLP ExportMetricsServiceRequest protobuf', () => decodeOtlpMetricsProtobuf(body));
  return convertOtlpMetrics(resources, opts);
}

/** convertOtlpMetrics converts decoded OTLP metrics to Prometheus series and metadata. */
export function convertOtlpMetrics(
  resources: OtlpResourceMetrics[],
  opts: OtlpMetricsDecodeOptions,
): DecodeResult<MetricSeries> {
  const converter = new MetricsConverter(opts);
  for (const resource of resources) converter.addResource(resource);
  return converter.result();
}

/** ResourceContext is what the points of one resource share. */
interface ResourceContext {
  /** job and instance, sorted */
  identity: LabelPairs;
  latestTimeMs: number;
}

class MetricsConverter {
  private readonly limits: IngestLimits;
  private readonly bounds: TimeBounds;
  private readonly accumulator: DeltaAccumulator | undefined;
  private readonly nativeExponential: boolean;
  private readonly createdZero: boolean;
  private readonly lastStoredMs: LastSampleLookup | undefined;
  private readonly collector = new SeriesCollector();
  private readonly rejections = new Rejections();
  private readonly metadata = new Map<string, MetricMetadata>();

  constructor(opts: OtlpMetricsDecodeOptions) {
    this.limits = resolveLimits(opts.limits);
    this.bounds = new TimeBounds(opts.nowMs, this.limits);
    this.accumulator = opts.deltaAccumulator;
    this.nativeExponential = opts.exponentialHistograms !== 'classic';
    this.createdZero = opts.createdTimestampZero === true;
    this.lastStoredMs = opts.lastStoredMs;
  }

  addResource(resource: OtlpResourceMetrics): void {
    const ctx: ResourceContext = { identity: resourceIdentity(resource.attributes), latestTimeMs: 0 };
    for (const scope of resource.scopes) {
      for (const metric of scope.metrics) this.addMetric(metric, ctx);
    }
    this.addTargetInfo(resource.attributes, ctx);
  }

  result(): DecodeResult<MetricSeries> {
    const zeros = this.createdZero ? { lastStoredMs: this.lastStoredMs, accepts: (t: number) => this.bounds.checkMs(t) === undefined, added: 0, histograms: 0 } : undefined;
    return {
      records: this.collector.finish(zeros),
      metadata: [...this.metadata.values()],
      rejected: this.rejections.count,
      discarded: this.rejections.byReason,
      errors: this.rejections.errors(),
    };
  }

  private addMetric(metric: OtlpMetric, ctx: ResourceContext): void {
    const data = metric.data;
    if (data.kind === 'none') return;
    let kind: OtlpMetricKind;
    let type: MetricType;
    switch (data.kind) {
      case 'gauge':
        kind = 'gauge';
        type = 'gauge';
        break;
      case 'sum':
        kind = data.monotonic ? 'monotonicCounter' : 'nonMonotonicCounter';
        type = data.monotonic ? 'counter' : 'gauge';
        break;
      case 'histogram':
      case 'exponentialHistogram':
        kind = 'histogram';
        type = 'histogram';
        break;
      case 'summary':
        kind = 'summary';
        type = 'summary';
        break;
    }
    const name = prometheusMetricName(metric.name, metric.unit, kind);
    if (name === '') {
      const why = `metric ${JSON.stringify(metric.name)}: name has no valid Prometheus characters`;
      this.rejections.reject(pointCount(data), 'invalid_labels', why);
      return;
    }
    if (data.kind !== 'gauge' && data.kind !== 'summary') {
      const t = data.temporality;
      const accepted = t === TEMPORALITY_CUMULATIVE || (t === TEMPORALITY_DELTA && this.accumulator !== undefined);
      if (!accepted) {
        const why =
          t === TEMPORALITY_DELTA
            ? 'delta temporality is not accepted here (no delta accumulator)'
            : `aggregation temporality ${t} is not cumulative or delta`;
        this.rejections.reject(data.points.length, 'invalid_point', `metric ${name}: ${why}`);
        return;
      }
    }
    if (!this.metadata.has(name)) {
      this.metadata.set(name, { name, type, unit: prometheusUnit(metric.unit), help: metric.description });
    }
    const delta = data.kind !== 'gauge' && data.kind !== 'summary' && data.temporality === TEMPORALITY_DELTA;
    switch (data.kind) {
      case 'gauge':
      case 'sum':
        for (const p of data.points) this.addNumberPoint(name, p, ctx, delta, data.kind === 'sum' && data.monotonic);
        break;
      case 'histogram':
        for (const p of data.points) this.addHistogramPoint(name, p, ctx, delta);
        break;
      case 'exponentialHistogram':
        for (const p of data.points) this.addExponentialPoint(name, p, ctx, delta);
        break;
      case 'summary':
        for (const p of data.points) this.addSummaryPoint(name, p, ctx);
        break;
    }
  }

  /**
   * pointLabels builds and validates the labels of a point (without __name__); undefined
   * means the point was rejected. `extra` is the le/quantile label the series will add.
   */
  private pointLabels(name: string, p: PointBase, ctx: ResourceContext, extra: string | undefined): LabelPairs | undefined {
    const built = attributesToLabels(p.attributes);
    let problem: Problem | undefined;
    let pairs: LabelPairs = [];
    if (typeof built === 'string') {
      problem = { reason: 'invalid_labels', message: built };
    } else {
      pairs = built;
      for (const [n, v] of ctx.identity) pairs = withLabel(pairs, n, v);
      const check = pairsToObject(pairs);
      check.__name__ = name;
      if (extra !== undefined) check[extra] = '+Inf';
      problem = checkSeriesLabels(check, this.limits);
    }
    if (problem === undefined) {
      if (p.timeError !== undefined) problem = { reason: 'invalid_timestamp', message: p.timeError };
      else if (p.timeMs === 0) problem = { reason: 'invalid_timestamp', message: 'timeUnixNano is missing' };
      else problem = this.bounds.checkMs(p.timeMs);
    }
    if (problem !== undefined) {
      this.rejections.reject(1, problem.reason, `metric ${name}${describeLabels(pairsToObject(pairs))}: ${problem.message}`);
      return undefined;
    }
    if (p.timeMs > ctx.latestTimeMs) ctx.latestTimeMs = p.timeMs;
    return pairs;
  }

  /** emit adds one sample to the series `name` + base labels (+ extraName=extraValue if set). */
  private emit(
    name: string,
    base: LabelPairs,
    baseKey: string,
    extraName: string,
    extraValue: string,
    timeMs: number,
    value: number,
    stale: boolean,
    histogram?: FloatHistogram,
    createdMs = 0,
  ): void {
    const key = `${name}\x00${extraName}\x00${extraValue}\x00${baseKey}`;
    this.collector.add(
      key,
      () => {
        let pairs = withLabel(base, '__name__', name);
        if (extraName !== '') pairs = withLabel(pairs, extraName, extraValue);
        return pairs;
      },
      timeMs,
      value,
      stale,
      histogram,
    );
    if (createdMs !== 0 && this.createdZero) this.collector.created(key, createdMs);
  }

  /**
   * createdOf is the start time a cumulative point's zero goes at, or 0 for none: delta points
   * (their start is the previous point, not a counter's start) and points without a value.
   */
  private createdOf(p: PointBase, delta: boolean, stale: boolean): number {
    return delta || stale ? 0 : p.startTimeMs;
  }

  /** rejectPoint drops a point whose labels and time were fine but whose data cannot be used. */
  private rejectPoint(name: string, base: LabelPairs, why: string): void {
    this.rejections.reject(1, 'invalid_point', `metric ${name}${describeLabels(pairsToObject(base))}: ${why}`);
  }

  private addNumberPoint(name: string, p: NumberPoint, ctx: ResourceContext, delta: boolean, counter: boolean): void {
    const base = this.pointLabels(name, p, ctx, undefined);
    if (base === undefined) return;
    const baseKey = labelPairsKey(base);
    const stale = (p.flags & FLAG_NO_RECORDED_VALUE) !== 0;
    let value = p.value;
    if (delta && !stale) {
      const outcome = this.accumulator!.addSum(`${name}\x00${baseKey}`, p.timeMs, p.value);
      if (!outcome.ok) return this.rejectPoint(name, base, outcome.reason);
      value = outcome.value;
    }
    this.emit(name, base, baseKey, '', '', p.timeMs, value, stale, undefined, counter ? this.createdOf(p, delta, stale) : 0);
  }

  private addHistogramPoint(name: string, p: HistogramPoint, ctx: ResourceContext, delta: boolean): void {
    const base = this.pointLabels(name, p, ctx, 'le');
    if (base === undefined) return;
    if (p.bucketCounts.length !== 0 && p.bucketCounts.length !== p.explicitBounds.length + 1) {
      return this.rejectPoint(
        name,
        base,
        `histogram has ${p.bucketCounts.length} bucket counts for ${p.explicitBounds.length} bounds ` +
          `(expected ${p.explicitBounds.length + 1})`,
      );
    }
    const baseKey = labelPairsKey(base);
    const stale = (p.flags & FLAG_NO_RECORDED_VALUE) !== 0;
    let counts = p.bucketCounts;
    let count = p.count;
    let sum = p.sum;
    if (delta && !stale) {
      const key = `${name}\x00${baseKey}`;
      const outcome = this.accumulator!.addHistogram(key, p.timeMs, p.explicitBounds, counts, count, sum ?? 0);
      if (!outcome.ok) return this.rejectPoint(name, base, outcome.reason);
      counts = outcome.value.bucketCounts;
      count = outcome.value.count;
      if (sum !== undefined) sum = outcome.value.sum;
    }
    const buckets: ClassicBucket[] = [];
    if (counts.length > 0) {
      let cumulative = 0;
      for (let i = 0; i < p.explicitBounds.length; i++) {
        cumulative += counts[i];
        buckets.push({ upperBound: p.explicitBounds[i], cumulative });
      }
    }
    this.emitHistogram(name, base, baseKey, p.timeMs, buckets, count, sum, stale, this.createdOf(p, delta, stale));
  }

  private addExponentialPoint(name: string, p: ExponentialHistogramPoint, ctx: ResourceContext, delta: boolean): void {
    const base = this.pointLabels(name, p, ctx, this.nativeExponential ? undefined : 'le');
    if (base === undefined) return;
    if (p.scale < MIN_SCALE || p.scale > MAX_SCALE) {
      return this.rejectPoint(name, base, `exponential histogram scale ${p.scale} is outside [${MIN_SCALE}, ${MAX_SCALE}]`);
    }
    const baseKey = labelPairsKey(base);
    const stale = (p.flags & FLAG_NO_RECORDED_VALUE) !== 0;
    let point = p;
    if (delta && !stale) {
      const outcome = this.accumulator!.addExponential(`${name}\x00${baseKey}`, p);
      if (!outcome.ok) return this.rejectPoint(name, base, outcome.reason);
      point = outcome.value;
    }
    if (this.nativeExponential) {
      const h = exponentialToNative(point);
      if (typeof h === 'string') return this.rejectPoint(name, base, h);
      this.emit(name, base, baseKey, '', '', p.timeMs, 0, stale, h, this.createdOf(p, delta, stale));
      return;
    }
    this.emitHistogram(name, base, baseKey, p.timeMs, exponentialToClassic(point), point.count, point.sum, stale, this.createdOf(p, delta, stale));
  }

  private emitHistogram(
    name: string,
    base: LabelPairs,
    baseKey: string,
    timeMs: number,
    buckets: ClassicBucket[],
    count: number,
    sum: number | undefined,
    stale: boolean,
    createdMs: number,
  ): void {
    const bucketName = `${name}_bucket`;
    let last = 0;
    for (const b of buckets) {
      this.emit(bucketName, base, baseKey, 'le', formatGoFloat(b.upperBound), timeMs, b.cumulative, stale, undefined, createdMs);
      last = b.cumulative;
    }
    this.emit(bucketName, base, baseKey, 'le', '+Inf', timeMs, Math.max(count, last), stale, undefined, createdMs);
    if (sum !== undefined) this.emit(`${name}_sum`, base, baseKey, '', '', timeMs, sum, stale, undefined, createdMs);
    this.emit(`${name}_count`, base, baseKey, '', '', timeMs, count, stale, undefined, createdMs);
  }

  private addSummaryPoint(name: string, p: SummaryPoint, ctx: ResourceContext): void {
    const base = this.pointLabels(name, p, ctx, 'quantile');
    if (base === undefined) return;
    const baseKey = labelPairsKey(base);
    const stale = (p.flags & FLAG_NO_RECORDED_VALUE) !== 0;
    for (const q of p.quantiles) {
      this.emit(name, base, baseKey, 'quantile', formatGoFloat(q.quantile), p.timeMs, q.value, stale);
    }
    // Quantiles are no counters: only the sum and count start from a zero.
    const createdMs = this.createdOf(p, false, stale);
    this.emit(`${name}_sum`, base, baseKey, '', '', p.timeMs, p.sum, stale, undefined, createdMs);
    this.emit(`${name}_count`, base, baseKey, '', '', p.timeMs, p.count, stale, undefined, createdMs);
  }

  private addTargetInfo(attributes: OtlpAttribute[], ctx: ResourceContext): void {
    if (ctx.latestTimeMs === 0) return;
    const rest = attributes.filter(
      (a) => a.key !== SERVICE_NAME && a.key !== SERVICE_NAMESPACE && a.key !== SERVICE_INSTANCE_ID,
    );
    if (rest.length === 0) return;
    const built = attributesToLabels(rest);
    const name = 'target_info';
    if (typeof built === 'string') {
      this.rejections.reject(1, 'invalid_labels', `${name}${describeLabels(pairsToObject(ctx.identity))}: ${built}`);
      return;
    }
    let pairs = built;
    for (const [n, v] of ctx.identity) pairs = withLabel(pairs, n, v);
    const check = pairsToObject(pairs);
    check.__name__ = name;
    const problem = checkSeriesLabels(check, this.limits);
    if (problem !== undefined) {
      this.rejections.reject(1, problem.reason, `${name}${describeLabels(pairsToObject(ctx.identity))}: ${problem.message}`);
      return;
    }
    if (!this.metadata.has(name)) this.metadata.set(name, { name, type: 'gauge', unit: '', help: 'Target metadata' });
    this.emit(name, pairs, labelPairsKey(pairs), '', '', ctx.latestTimeMs, 1, false);
  }
}

/** resourceIdentity derives the sorted `instance` and `job` labels of a resource. */
function resourceIdentity(attributes: OtlpAttribute[]): LabelPairs {
  let serviceName: string | undefined;
  let serviceNamespace: string | undefined;
  let instance: string | undefined;
  for (const a of attributes) {
    if (a.key === SERVICE_NAME) serviceName = valueToString(a.value);
    else if (a.key === SERVICE_NAMESPACE) serviceNamespace = valueToString(a.value);
    else if (a.key === SERVICE_INSTANCE_ID) instance = valueToString(a.value);
  }
  const out: LabelPairs = [];
  if (instance !== undefined && instance !== '') out.push(['instance', instance]);
  if (serviceName !== undefined && serviceName !== '') {
    out.push(['job', serviceNamespace ? `${serviceNamespace}/${serviceName}` : serviceName]);
  }
  return out;
}

/**
 * attributesToLabels converts attributes to sorted label pairs, joining the values of keys that
 * sanitize to the same name with `;` in the order of the original keys, and leaving out empty
 * values. Returns an error
 * message when a key has no valid label name.
 */
function attributesToLabels(attributes: OtlpAttribute[]): LabelPairs | string {
  const entries: Array<{ name: string; key: string; value: string }> = [];
  for (const a of attributes) {
    const name = prometheusLabelName(a.key);
    if (name === '') return `attribute key ${JSON.stringify(a.key)} has no valid label name`;
    entries.push({ name, key: a.key, value: valueToString(a.value) });
  }
  entries.sort((x, y) => (x.name < y.name ? -1 : x.name > y.name ? 1 : x.key < y.key ? -1 : x.key > y.key ? 1 : 0));
  const pairs: LabelPairs = [];
  for (const e of entries) {
    const last = pairs[pairs.length - 1];
    if (last !== undefined && last[0] === e.name) last[1] = `${last[1]};${e.value}`;
    else pairs.push([e.name, e.value]);
  }
  // An empty value means "no such label" in Prometheus, so it must not tell series apart.
  return pairs.filter((pair) => pair[1] !== '');
}
