/**
 * OTLP/JSON decoding of an ExportMetricsServiceRequest into the metrics model, following the
 * OTLP/JSON rules (lowerCamelCase names, proto names accepted, 64-bit integers as decimal
 * strings, enums as numbers or names, doubles as numbers or "NaN"/"Infinity" strings).
 */
import {
  asArray,
  asBool,
  asDouble,
  asEnum,
  asInt32,
  asInt64,
  asObject,
  asString,
  asUint64Number,
  parseJsonBody,
  pick,
  readTimeNanos,
} from './jsonFields.js';
import type { JsonObject } from './jsonFields.js';
import { jsonKeyValues, jsonRepeated, jsonResourceAttributes, jsonScope } from './otlpCommonJson.js';
import { emptyBuckets } from './otlpMetricsModel.js';
import type {
  ExponentialBuckets,
  ExponentialHistogramPoint,
  HistogramPoint,
  MetricData,
  NumberPoint,
  OtlpMetric,
  OtlpResourceMetrics,
  PointBase,
  SummaryPoint,
} from './otlpMetricsModel.js';

const NS_PER_MS = 1_000_000n;

const TEMPORALITY_NAMES: Readonly<Record<string, number>> = Object.assign(Object.create(null) as Record<string, number>, {
  AGGREGATION_TEMPORALITY_UNSPECIFIED: 0,
  AGGREGATION_TEMPORALITY_DELTA: 1,
  AGGREGATION_TEMPORALITY_CUMULATIVE: 2,
});

/** decodeOtlpMetricsJson decodes an OTLP/JSON ExportMetricsServiceRequest body. */
export function decodeOtlpMetricsJson(body: Uint8Array): OtlpResourceMetrics[] {
  const root = parseJsonBody(body);
  const resources = jsonRepeated(root, 'resourceMetrics', 'resource_metrics', '');
  return resources.map((item, ri) => {
    const rPath = `resourceMetrics[${ri}]`;
    const rm = asObject(item, rPath) ?? {};
    const scopes = jsonRepeated(rm, 'scopeMetrics', 'scope_metrics', rPath).map((sItem, si) => {
      const sPath = `${rPath}.scopeMetrics[${si}]`;
      const sm = asObject(sItem, sPath) ?? {};
      const metrics = asArray(sm.metrics, `${sPath}.metrics`).map((mItem, mi) =>
        readMetric(asObject(mItem, `${sPath}.metrics[${mi}]`) ?? {}, `${sPath}.metrics[${mi}]`),
      );
      return { scope: jsonScope(sm, sPath), metrics };
    });
    return { attributes: jsonResourceAttributes(rm, rPath), scopes };
  });
}

function readMetric(m: JsonObject, path: string): OtlpMetric {
  return {
    name: asString(m.name, `${path}.name`),
    description: asString(m.description, `${path}.description`),
    unit: asString(m.unit, `${path}.unit`),
    data: readData(m, path),
  };
}

function readData(m: JsonObject, path: string): MetricData {
  const gauge = asObject(m.gauge, `${path}.gauge`);
  if (gauge) return { kind: 'gauge', points: points(gauge, `${path}.gauge`, readNumberPoint) };
  const sum = asObject(m.sum, `${path}.sum`);
  if (sum) {
    return {
      kind: 'sum',
      points: points(sum, `${path}.sum`, readNumberPoint),
      temporality: temporality(sum, `${path}.sum`),
      monotonic: asBool(pick(sum, 'isMonotonic', 'is_monotonic'), `${path}.sum.isMonotonic`),
    };
  }
  const histogram = asObject(m.histogram, `${path}.histogram`);
  if (histogram) {
    return {
      kind: 'histogram',
      points: points(histogram, `${path}.histogram`, readHistogramPoint),
      temporality: temporality(histogram, `${path}.histogram`),
    };
  }
  const expPath = `${path}.exponentialHistogram`;
  const exp = asObject(pick(m, 'exponentialHistogram', 'exponential_histogram'), expPath);
  if (exp) {
    return {
      kind: 'exponentialHistogram',
      points: points(exp, expPath, readExponentialPoint),
      temporality: temporality(exp, expPath),
    };
  }
  const summary = asObject(m.summary, `${path}.summary`);
  if (summary) return { kind: 'summary', points: points(summary, `${path}.summary`, readSummaryPoint) };
  return { kind: 'none' };
}

function points<P>(container: JsonObject, path: string, read: (p: JsonObject, path: string) => P): P[] {
  return jsonRepeated(container, 'dataPoints', 'data_points', path).map((item, i) => {
    const pPath = `${path}.dataPoints[${i}]`;
    return read(asObject(item, pPath) ?? {}, pPath);
  });
}

function temporality(container: JsonObject, path: string): number {
  return asEnum(
    pick(container, 'aggregationTemporality', 'aggregation_temporality'),
    `${path}.aggregationTemporality`,
    TEMPORALITY_NAMES,
  );
}

function readBase(p: JsonObject, path: string): PointBase {
  const base: PointBase = {
    attributes: jsonKeyValues(p.attributes, `${path}.attributes`),
    startTimeMs: 0,
    timeMs: 0,
    flags: asUint64Number(p.flags, `${path}.flags`),
  };
  // A malformed time rejects its point only; the conversion reports it.
  const start = readTimeNanos(pick(p, 'startTimeUnixNano', 'start_time_unix_nano'), 'startTimeUnixNano');
  const time = readTimeNanos(pick(p, 'timeUnixNano', 'time_unix_nano'), 'timeUnixNano');
  if (typeof time === 'string') base.timeError = time;
  else base.timeMs = Number(time / NS_PER_MS);
  if (typeof start === 'string') base.timeError ??= start;
  else base.startTimeMs = Number(start / NS_PER_MS);
  return base;
}

function readNumberPoint(p: JsonObject, path: string): NumberPoint {
  const base = readBase(p, path);
  const asDoubleValue = pick(p, 'asDouble', 'as_double');
  const asIntValue = pick(p, 'asInt', 'as_int');
  let value = 0;
  if (asDoubleValue !== undefined) value = asDouble(asDoubleValue, `${path}.asDouble`);
  else if (asIntValue !== undefined) value = Number(asInt64(asIntValue, `${path}.asInt`));
  return { ...base, value };
}

function optionalDouble(v: unknown, path: string): number | undefined {
  return v === undefined || v === null ? undefined : asDouble(v, path);
}

function readHistogramPoint(p: JsonObject, path: string): HistogramPoint {
  return {
    ...readBase(p, path),
    count: asUint64Number(p.count, `${path}.count`),
    sum: optionalDouble(p.sum, `${path}.sum`),
    bucketCounts: asArray(pick(p, 'bucketCounts', 'bucket_counts'), `${path}.bucketCounts`).map((c, i) =>
      asUint64Number(c, `${path}.bucketCounts[${i}]`),
    ),
    explicitBounds: asArray(pick(p, 'explicitBounds', 'explicit_bounds'), `${path}.explicitBounds`).map((b, i) =>
      asDouble(b, `${path}.explicitBounds[${i}]`),
    ),
  };
}

function readBuckets(v: unknown, path: string): ExponentialBuckets {
  const b = asObject(v, path);
  if (!b) return emptyBuckets();
  return {
    offset: asInt32(b.offset, `${path}.offset`),
    counts: asArray(pick(b, 'bucketCounts', 'bucket_counts'), `${path}.bucketCounts`).map((c, i) =>
      asUint64Number(c, `${path}.bucketCounts[${i}]`),
    ),
  };
}

function readExponentialPoint(p: JsonObject, path: string): ExponentialHistogramPoint {
  return {
    ...readBase(p, path),
    count: asUint64Number(p.count, `${path}.count`),
    sum: optionalDouble(p.sum, `${path}.sum`),
    scale: asInt32(p.scale, `${path}.scale`),
    zeroCount: asUint64Number(pick(p, 'zeroCount', 'zero_count'), `${path}.zeroCount`),
    zeroThreshold: asDouble(pick(p, 'zeroThreshold', 'zero_threshold'), `${path}.zeroThreshold`),
    positive: readBuckets(p.positive, `${path}.positive`),
    negative: readBuckets(p.negative, `${path}.negative`),
  };
}

function readSummaryPoint(p: JsonObject, path: string): SummaryPoint {
  return {
    ...readBase(p, path),
    count: asUint64Number(p.count, `${path}.count`),
    sum: asDouble(p.sum, `${path}.sum`),
    quantiles: asArray(pick(p, 'quantileValues', 'quantile_values'), `${path}.quantileValues`).map((q, i) => {
      const qPath = `${path}.quantileValues[${i}]`;
      const obj = asObject(q, qPath) ?? {};
      return { quantile: asDouble(obj.quantile, `${qPath}.quantile`), value: asDouble(obj.value, `${qPath}.value`) };
    }),
  };
}
