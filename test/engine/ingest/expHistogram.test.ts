import { describe, expect, it } from 'vitest';
import { DeltaAccumulator } from '../../../engine/ingest/deltaAccumulator.js';
import { exponentialLowerBound, exponentialToClassic } from '../../../engine/ingest/expHistogram.js';
import type { ExponentialHistogramPoint } from '../../../engine/ingest/otlpMetricsModel.js';

function point(partial: Partial<ExponentialHistogramPoint>): ExponentialHistogramPoint {
  return {
    attributes: [],
    startTimeMs: 0,
    timeMs: 1000,
    flags: 0,
    count: 0,
    sum: undefined,
    scale: 0,
    zeroCount: 0,
    zeroThreshold: 0,
    positive: { offset: 0, counts: [] },
    negative: { offset: 0, counts: [] },
    ...partial,
  };
}

describe('exponentialToClassic', () => {
  it('puts negative buckets first, then the zero bucket, then positive buckets', () => {
    const buckets = exponentialToClassic(
      point({ scale: 0, zeroCount: 2, positive: { offset: -1, counts: [1, 0, 3] }, negative: { offset: 0, counts: [4, 5] } }),
    );
    // negative index 1 covers [-4, -2) -> le -2; index 0 covers [-2, -1) -> le -1
    expect(buckets).toEqual([
      { upperBound: -2, cumulative: 5 },
      { upperBound: -1, cumulative: 9 },
      { upperBound: 0, cumulative: 11 },
      { upperBound: 1, cumulative: 12 },
      { upperBound: 2, cumulative: 12 },
      { upperBound: 4, cumulative: 15 },
    ]);
  });

  it('uses base 2^(2^-scale) bounds at positive and negative scales', () => {
    const fine = exponentialToClassic(point({ scale: 2, positive: { offset: 3, counts: [1, 1] } }));
    expect(fine.map((b) => b.upperBound)).toEqual([0, 2 ** (4 / 4), 2 ** (5 / 4)]);
    const coarse = exponentialToClassic(point({ scale: -2, positive: { offset: 0, counts: [1, 1] } }));
    expect(coarse.map((b) => b.upperBound)).toEqual([0, 16, 256]);
    expect(exponentialLowerBound(1, 1)).toBe(Math.SQRT2);
    expect(exponentialLowerBound(20, 2 ** 20)).toBe(2);
  });

  it('uses the zero threshold as the zero bucket bound', () => {
    const buckets = exponentialToClassic(point({ zeroThreshold: 1e-9, zeroCount: 3, positive: { offset: 0, counts: [1] } }));
    expect(buckets).toEqual([
      { upperBound: 1e-9, cumulative: 3 },
      { upperBound: 2, cumulative: 4 },
    ]);
  });

  it('carries counts of bounds that overflow into the next bound', () => {
    const buckets = exponentialToClassic(
      point({ scale: 0, zeroCount: 1, positive: { offset: 1100, counts: [5] }, negative: { offset: 1100, counts: [2] } }),
    );
    expect(buckets).toEqual([{ upperBound: 0, cumulative: 3 }]);
  });
});

describe('DeltaAccumulator', () => {
  it('sums delta values per series and rejects non-increasing times', () => {
    const acc = new DeltaAccumulator();
    expect(acc.addSum('a', 1000, 2)).toEqual({ ok: true, value: 2 });
    expect(acc.addSum('b', 1000, 10)).toEqual({ ok: true, value: 10 });
    expect(acc.addSum('a', 2000, 3)).toEqual({ ok: true, value: 5 });
    const late = acc.addSum('a', 2000, 3);
    expect(late.ok).toBe(false);
    expect(acc.addSum('a', 3000, 0.5)).toEqual({ ok: true, value: 5.5 });
  });

  it('restarts a histogram whose bounds change', () => {
    const acc = new DeltaAccumulator();
    acc.addHistogram('h', 1000, [1, 2], [1, 1, 1], 3, 6);
    expect(acc.addHistogram('h', 2000, [1, 2], [1, 0, 0], 1, 0.5)).toEqual({
      ok: true,
      value: { bucketCounts: [2, 1, 1], count: 4, sum: 6.5 },
    });
    expect(acc.addHistogram('h', 3000, [5], [2, 2], 4, 9)).toEqual({
      ok: true,
      value: { bucketCounts: [2, 2], count: 4, sum: 9 },
    });
  });

  it('downscales accumulated exponential buckets to stay within the bucket bound', () => {
    const acc = new DeltaAccumulator();
    acc.addExponential('e', point({ timeMs: 1, scale: 3, count: 1, positive: { offset: 0, counts: [1] } }));
    const wide = acc.addExponential('e', point({ timeMs: 2, scale: 3, count: 1, positive: { offset: 1000, counts: [1] } }));
    expect(wide.ok).toBe(true);
    if (!wide.ok) return;
    expect(wide.value.scale).toBeLessThan(3);
    expect(wide.value.positive.counts.length).toBeLessThanOrEqual(320);
    expect(wide.value.positive.counts.reduce((a, c) => a + c, 0)).toBe(2);
    expect(wide.value.count).toBe(2);
  });
});
