/**
 * Native histograms through the evaluator, checked against independent float computations
 * over the same distributions: the classic `_bucket` series of the same observations, and
 * per-field float series.
 */
import { describe, expect, it } from 'vitest';
import { parseAndCheckPromQL } from '../../../../engine/promql/index.js';
import { evaluateInstant, evaluateRange, formatAnnotation } from '../../../../engine/promql/eval/index.js';
import { MetricHead } from '../../../../engine/storage/metricHead.js';
import { HistogramQuerier } from '../../../../engine/histogram/histogramQuerier.js';
import { CUSTOM_BUCKETS_SCHEMA, emptyHistogram, fromSpans, type FloatHistogram } from '../../../../engine/histogram/floatHistogram.js';
import { storedHints } from '../../../../engine/histogram/storedHints.js';

const BOUNDS = [0.1, 0.5, 1, 5];
const STEP_MS = 15_000;
const POINTS = 41;

/** cumulative are the cumulative bucket counts (le=BOUNDS..., +Inf) of observation batch i. */
function cumulative(i: number): number[] {
  // Every bucket only grows, so neither view sees a counter reset.
  const perBucket = [3 * i, 5 * i + 1, 2 * i, i, Math.floor(i / 3)];
  let run = 0;
  return perBucket.map((c) => (run += c));
}

function nhcbAt(i: number): FloatHistogram {
  const cum = cumulative(i);
  const counts = cum.map((c, k) => c - (k === 0 ? 0 : cum[k - 1]));
  const { index, counts: values } = fromSpans([{ offset: 0, length: counts.length }], counts);
  return { ...emptyHistogram(), schema: CUSTOM_BUCKETS_SCHEMA, customValues: Float64Array.from(BOUNDS), posIndex: index, posCount: values, count: cum[cum.length - 1], sum: 2 * i };
}

/** load stores the same observations as a native NHCB series `lat` and classic `lat_bucket`/`lat_count`/`lat_sum` series. */
function load(): HistogramQuerier {
  const head = new MetricHead();
  const ts = Float64Array.from({ length: POINTS }, (_, i) => i * STEP_MS);
  const les = [...BOUNDS.map(String), '+Inf'];
  les.forEach((le, k) => {
    head.append({ labels: { __name__: 'lat_bucket', le }, timestampsMs: ts, values: Float64Array.from({ length: POINTS }, (_, i) => cumulative(i)[k]), stale: new Uint8Array(POINTS) });
  });
  head.append({ labels: { __name__: 'lat_count' }, timestampsMs: ts, values: Float64Array.from({ length: POINTS }, (_, i) => cumulative(i)[4]), stale: new Uint8Array(POINTS) });
  head.append({ labels: { __name__: 'lat_sum' }, timestampsMs: ts, values: Float64Array.from({ length: POINTS }, (_, i) => 2 * i), stale: new Uint8Array(POINTS) });
  head.append({ labels: { __name__: 'plain' }, timestampsMs: ts, values: new Float64Array(POINTS).fill(1), stale: new Uint8Array(POINTS) });
  const querier = new HistogramQuerier(head);
  const histograms = storedHints(Array.from({ length: POINTS }, (_, i) => nhcbAt(i)));
  querier.add({ labels: { __name__: 'lat' }, timestampsMs: ts, values: new Float64Array(POINTS), histograms });
  return querier;
}

function instant(querier: HistogramQuerier, query: string, ms: number) {
  return evaluateInstant(parseAndCheckPromQL(query), querier, ms);
}

function scalarOf(querier: HistogramQuerier, query: string, ms: number): number[] {
  const r = instant(querier, query, ms);
  if (r.value.type !== 'vector') throw new Error(`expected a vector from ${query}`);
  return r.value.samples.map((s) => s.value);
}

describe('native histograms in the evaluator', () => {
  const querier = load();
  const at = 10 * 60_000;

  it('histogram_quantile of a custom-bucket histogram equals the classic one over the same buckets', () => {
    for (const q of [0.05, 0.25, 0.5, 0.9, 0.99]) {
      const native = scalarOf(querier, `histogram_quantile(${q}, lat)`, at);
      const classic = scalarOf(querier, `histogram_quantile(${q}, lat_bucket)`, at);
      expect(native).toHaveLength(1);
      expect(native[0]).toBeCloseTo(classic[0], 9);
    }
  });

  it('rate over histograms matches the float rates of the count and sum series', () => {
    const range = (q: string) => evaluateRange(parseAndCheckPromQL(q), querier, 5 * 60_000, at, 60_000).series;
    const count = range('histogram_count(rate(lat[5m]))');
    const floats = range('rate(lat_count[5m])');
    expect(count).toHaveLength(1);
    expect(Array.from(count[0].values).map((v) => +v.toFixed(9))).toEqual(Array.from(floats[0].values).map((v) => +v.toFixed(9)));
    const quantile = scalarOf(querier, 'histogram_quantile(0.9, rate(lat[5m]))', at)[0];
    const classicQuantile = scalarOf(querier, 'histogram_quantile(0.9, rate(lat_bucket[5m]))', at)[0];
    expect(quantile).toBeCloseTo(classicQuantile, 9);
  });

  it('returns histogram samples from selectors and sums', () => {
    const r = instant(querier, 'sum(lat) + lat', at);
    expect(r.value.type).toBe('vector');
    const sample = r.value.type === 'vector' ? r.value.samples[0] : undefined;
    expect(sample?.histogram?.count).toBe(2 * nhcbAt(40).count);
  });

  it('refuses to add a float to a histogram, with the info Prometheus gives', () => {
    const r = instant(querier, 'lat + on() plain', at);
    expect(r.value.type === 'vector' && r.value.samples.length).toBe(0);
    expect(r.annotations.map((a) => formatAnnotation(a, 'lat + on() plain'))).toEqual([
      'PromQL info: incompatible sample types encountered for binary operator "+": histogram + float (1:1)',
    ]);
  });

  it('leaves histograms out of float-only functions', () => {
    expect(scalarOf(querier, 'abs(lat)', at)).toEqual([]);
    expect(scalarOf(querier, 'count(lat)', at)).toEqual([1]);
  });
});
