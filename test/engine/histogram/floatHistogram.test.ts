import { describe, expect, it } from 'vitest';
import {
  combine,
  compact,
  CounterResetHint,
  detectReset,
  emptyHistogram,
  fromSpans,
  HistogramError,
  histogramsEqual,
  reduceResolution,
  toSpans,
  CUSTOM_BUCKETS_SCHEMA,
  type FloatHistogram,
} from '../../../engine/histogram/floatHistogram.js';
import { histogramFraction, histogramQuantile } from '../../../engine/histogram/statistics.js';
import { storedHints } from '../../../engine/histogram/storedHints.js';
import { expandHistogramItem, parseHistogram } from '../../../engine/conformance/promql/histogramNotation.js';

/** h builds an exponential histogram from positive bucket counts starting at index `offset`. */
function h(schema: number, offset: number, buckets: number[], extra: Partial<FloatHistogram> = {}): FloatHistogram {
  const { index, counts } = fromSpans([{ offset, length: buckets.length }], buckets);
  const count = buckets.reduce((a, b) => a + b, 0);
  return { ...emptyHistogram(), schema, posIndex: index, posCount: counts, count, sum: count, ...extra };
}

describe('native histogram value', () => {
  it('expands delta-encoded spans and encodes them back', () => {
    const spans = [
      { offset: -2, length: 2 },
      { offset: 3, length: 1 },
    ];
    const { index, counts } = fromSpans(spans, [1, 2, -1], true);
    expect(Array.from(index)).toEqual([-2, -1, 3]);
    expect(Array.from(counts)).toEqual([1, 3, 2]);
    expect(toSpans(index)).toEqual(spans);
  });

  it('reduces the schema by merging buckets pairwise', () => {
    // Schema 1 buckets 1..4 map to schema 0 buckets 1, 1, 2, 2.
    const reduced = reduceResolution(h(1, 1, [1, 2, 3, 4]), 0);
    expect(reduced.schema).toBe(0);
    expect(Array.from(reduced.posIndex)).toEqual([1, 2]);
    expect(Array.from(reduced.posCount)).toEqual([3, 7]);
  });

  it('adds histograms of different schemas at the coarser one', () => {
    const { histogram } = combine(h(1, 1, [1, 2, 3, 4]), h(0, 1, [10, 20]), 1);
    expect(histogram.schema).toBe(0);
    expect(Array.from(histogram.posCount)).toEqual([13, 27]);
    expect(histogram.count).toBe(40);
  });

  it('widens the zero bucket to the larger threshold, absorbing the buckets within it', () => {
    // Bucket 0 of schema 0 is (0.5, 1]; a zero threshold of 1 swallows it.
    const narrow = h(0, 0, [5, 7]);
    const wide = { ...h(0, 1, [1]), zeroThreshold: 1, zeroCount: 2 };
    const { histogram } = combine(narrow, wide, 1);
    expect(histogram.zeroThreshold).toBe(1);
    expect(histogram.zeroCount).toBe(7);
    expect(Array.from(compact(histogram).posCount)).toEqual([8]);
  });

  it('refuses to mix exponential and custom buckets', () => {
    const custom = { ...h(CUSTOM_BUCKETS_SCHEMA, 0, [1, 1]), customValues: Float64Array.from([1]) };
    expect(() => combine(h(0, 0, [1]), custom, 1)).toThrow(HistogramError);
  });

  it('reconciles differing custom bounds to the ones both have', () => {
    const a = { ...h(CUSTOM_BUCKETS_SCHEMA, 0, [1, 2, 3]), customValues: Float64Array.from([1, 2]) };
    const b = { ...h(CUSTOM_BUCKETS_SCHEMA, 0, [4, 5]), customValues: Float64Array.from([2]) };
    const r = combine(a, b, 1);
    expect(r.boundsReconciled).toBe(true);
    expect(Array.from(r.histogram.customValues!)).toEqual([2]);
    expect(Array.from(r.histogram.posCount)).toEqual([7, 8]);
  });

  it('detects counter resets per bucket, not only by count', () => {
    const before = h(0, 0, [5, 5]);
    expect(detectReset(h(0, 0, [6, 6]), before)).toBe(false);
    expect(detectReset(h(0, 0, [2, 20]), before)).toBe(true);
    // A gauge histogram is compared as one of unknown hint (Prometheus 3's DetectReset).
    expect(detectReset(h(0, 0, [6, 6], { counterResetHint: CounterResetHint.Gauge }), h(0, 0, [9, 9]))).toBe(true);
    expect(detectReset(h(0, 0, [9, 9], { counterResetHint: CounterResetHint.Gauge }), h(0, 0, [6, 6]))).toBe(false);
  });

  it('gives stored samples the hints a TSDB read returns (a chunk cut by a reset starts unknown)', () => {
    const hints = storedHints([h(0, 0, [1]), h(0, 0, [2]), h(0, 0, [1]), h(0, 0, [2]), undefined, h(0, 0, [3])]).map((x) => x?.counterResetHint);
    expect(hints).toEqual([CounterResetHint.Unknown, CounterResetHint.NotCounterReset, CounterResetHint.Unknown, CounterResetHint.NotCounterReset, undefined, CounterResetHint.Unknown]);
    // An explicit reset also starts a chunk; a gauge stays a gauge and the counter after it starts a chunk.
    const gauge = { counterResetHint: CounterResetHint.Gauge };
    const explicit = storedHints([h(0, 0, [1]), h(0, 0, [2], { counterResetHint: CounterResetHint.CounterReset }), h(0, 0, [3], gauge), h(0, 0, [4])]);
    expect(explicit.map((x) => x?.counterResetHint)).toEqual([CounterResetHint.Unknown, CounterResetHint.Unknown, CounterResetHint.Gauge, CounterResetHint.Unknown]);
  });

  it('compares data exactly, ignoring empty buckets', () => {
    const a = h(0, 0, [1, 0, 2]);
    const b = compact(a);
    expect(b.posIndex.length).toBe(2);
    expect(histogramsEqual(a, b)).toBe(true);
    expect(histogramsEqual(a, h(0, 0, [1, 0, 3]))).toBe(false);
  });
});

describe('native histogram estimates', () => {
  it('interpolates custom buckets linearly, like the classic histogram_quantile', () => {
    // Bounds 1, 2, 4: ten observations in (0,1], ten in (1,2], twenty in (2,4].
    const nhcb = { ...h(CUSTOM_BUCKETS_SCHEMA, 0, [10, 10, 20]), customValues: Float64Array.from([1, 2, 4]) };
    expect(histogramQuantile(0.5, nhcb).value).toBeCloseTo(2, 12);
    expect(histogramQuantile(0.75, nhcb).value).toBeCloseTo(3, 12);
    expect(histogramFraction(0, 2, nhcb).value).toBeCloseTo(0.5, 12);
  });

  it('interpolates exponential buckets in log space', () => {
    // One bucket (1, 2] at schema 0 holding everything: the median is sqrt(2).
    expect(histogramQuantile(0.5, h(0, 1, [4])).value).toBeCloseTo(Math.SQRT2, 12);
    expect(histogramQuantile(1.5, h(0, 1, [4])).value).toBe(Infinity);
    expect(Number.isNaN(histogramQuantile(0.5, emptyHistogram()).value)).toBe(true);
  });
});

describe('test notation', () => {
  it('reads every key and remembers whether the hint was written', () => {
    const { histogram, hintSet } = parseHistogram('{{schema:1 sum:5 count:4 z_bucket:1 z_bucket_w:0.01 buckets:[1 2] offset:-1 n_buckets:[1] counter_reset_hint:gauge}}');
    expect(histogram.schema).toBe(1);
    expect(histogram.zeroThreshold).toBe(0.01);
    expect(Array.from(histogram.posIndex)).toEqual([-1, 0]);
    expect(Array.from(histogram.negCount)).toEqual([1]);
    expect(histogram.counterResetHint).toBe(CounterResetHint.Gauge);
    expect(hintSet).toBe(true);
    expect(parseHistogram('{{count:1}}').hintSet).toBe(false);
  });

  it('expands repeated and stepped items', () => {
    expect(expandHistogramItem('{{count:1 buckets:[1]}}x2')).toHaveLength(3);
    const stepped = expandHistogramItem('{{count:1 buckets:[1]}}+{{count:2 buckets:[2]}}x2').map((x) => x.histogram.count);
    expect(stepped).toEqual([1, 3, 5]);
  });

  it('rejects unknown keys and duplicates', () => {
    expect(() => parseHistogram('{{count:1 bogus:2}}')).toThrow(/unknown histogram key/);
    expect(() => parseHistogram('{{count:1 count:2}}')).toThrow(/duplicate key/);
  });
});

describe('rendering for output', () => {
  it('lists populated buckets with their boundary rules, lowest first', async () => {
    const { renderHistogram } = await import('../../../engine/histogram/render.js');
    const { histogram } = parseHistogram('{{schema:0 count:6 sum:3 z_bucket:1 z_bucket_w:0.5 buckets:[2 0 3] n_buckets:[0]}}');
    expect(renderHistogram(histogram)).toEqual({
      count: 6,
      sum: 3,
      buckets: [
        [3, -0.5, 0.5, 1],
        [0, 0.5, 1, 2],
        [0, 2, 4, 3],
      ],
    });
  });
});

describe('compensated sums', () => {
  it('keeps a small sum next to values that cancel out', async () => {
    const { CompensatedSum } = await import('../../../engine/histogram/compensatedSum.js');
    const acc = new CompensatedSum();
    for (const sum of [3.1, 1e100, -1e100, 1.3]) acc.add(h(0, 0, [1], { sum }));
    expect(acc.result()!.sum).toBeCloseTo(4.4, 12);
    expect(acc.result()!.count).toBe(4);
  });
});

describe('in-place arithmetic', () => {
  it('adds histograms of one layout into arrays the sum owns, never into its inputs', async () => {
    const { CompensatedSum } = await import('../../../engine/histogram/compensatedSum.js');
    const inputs = [h(0, 0, [1, 2, 3]), h(0, 0, [4, 5, 6]), h(0, 1, [7, 8]), h(0, 0, [1, 1, 1])];
    const before = inputs.map((x) => Array.from(x.posCount));
    const acc = new CompensatedSum();
    for (const x of inputs.slice(0, 2)) acc.add(x);
    const first = acc.result()!;
    expect(Array.from(first.posCount)).toEqual([5, 7, 9]);
    // A result handed out stays as it was when the sum goes on.
    for (const x of inputs.slice(2)) acc.add(x);
    expect(Array.from(first.posCount)).toEqual([5, 7, 9]);
    const total = acc.result()!;
    expect(Array.from(total.posIndex)).toEqual([0, 1, 2]);
    expect(Array.from(total.posCount)).toEqual([6, 15, 18]);
    expect(total.count).toBe(39);
    expect(inputs.map((x) => Array.from(x.posCount))).toEqual(before);
  });

  it('finds quantiles from either end without a bucket list, as the list-based walk does', () => {
    // Negative buckets, a zero bucket and positive ones, walked forward (q < 0.5) and backward.
    const mixed = { ...h(1, -2, [3, 0, 5, 2]), zeroCount: 4, zeroThreshold: 0.25, negIndex: Int32Array.of(-1, 2), negCount: Float64Array.of(2, 6) };
    mixed.count = 3 + 5 + 2 + 4 + 2 + 6;
    for (const q of [0, 0.1, 0.25, 0.4, 0.5, 0.6, 0.9, 0.99, 1]) {
      const v = histogramQuantile(q, mixed).value;
      // The fraction below the estimate is q (the quantile inverts the cumulative fraction).
      expect(histogramFraction(-Infinity, v, mixed).value).toBeCloseTo(q, 9);
    }
    // With a NaN sum, more observations than the buckets hold means NaN observations skewed the estimate.
    expect(histogramQuantile(0.5, { ...mixed, sum: NaN, count: mixed.count + 3 }).note).toBe('skewed');
  });
});

describe('compensated means', () => {
  it('divide the sum at the end while it stays finite', async () => {
    const { CompensatedMean } = await import('../../../engine/histogram/compensatedMean.js');
    const mean = new CompensatedMean();
    for (const sum of [3, 1e100, -1e100, 5]) mean.add(h(0, 0, [2, 4], { sum }));
    const m = mean.result()!;
    expect(m.sum).toBeCloseTo(2, 12);
    expect(Array.from(m.posCount)).toEqual([2, 4]);
  });

  it('switch to an incremental mean where the sum would overflow, staying finite', async () => {
    const { CompensatedMean } = await import('../../../engine/histogram/compensatedMean.js');
    const mean = new CompensatedMean();
    const big = 1.7976931348623157e308;
    const counts = [big, 1e308, 1e-6, 1e-6];
    for (const c of counts) mean.add(h(0, 0, [c], { count: c, sum: 1 }));
    const m = mean.result()!;
    const expected = big / 4 + 1e308 / 4;
    expect(Number.isFinite(m.count)).toBe(true);
    expect(m.count / expected).toBeCloseTo(1, 12);
    expect(m.posCount[0] / expected).toBeCloseTo(1, 12);
    expect(m.sum).toBeCloseTo(1, 12);
  });
});
