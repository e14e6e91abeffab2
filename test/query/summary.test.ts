import { describe, expect, it } from 'vitest';
import { bucketQuantile } from '../../src/query/summary.js';

describe('bucketQuantile', () => {
  const buckets = [
    { le: 0.1, total: 60 },
    { le: 0.5, total: 90 },
    { le: 1, total: 100 },
    { le: Infinity, total: 100 },
  ];
  it('interpolates inside the bucket holding the rank', () => {
    expect(bucketQuantile(0.5, buckets)).toBeCloseTo(0.1 * (50 / 60), 12);
    expect(bucketQuantile(0.75, buckets)).toBeCloseTo(0.1 + 0.4 * (15 / 30), 12);
    expect(bucketQuantile(0.99, buckets)).toBeCloseTo(0.5 + 0.5 * (9 / 10), 12);
  });
  it('answers the highest finite bound for ranks in the +Inf bucket', () => {
    expect(bucketQuantile(0.99, [{ le: 1, total: 50 }, { le: Infinity, total: 100 }])).toBe(1);
  });
  it('has no answer without observations or without a +Inf bucket', () => {
    expect(bucketQuantile(0.5, [{ le: 1, total: 0 }, { le: Infinity, total: 0 }])).toBeUndefined();
    expect(bucketQuantile(0.5, [{ le: 1, total: 5 }])).toBeUndefined();
  });
  it('treats decreasing totals as flat, as Prometheus does', () => {
    expect(bucketQuantile(0.5, [{ le: 1, total: 10 }, { le: 2, total: 8 }, { le: Infinity, total: 10 }])).toBeCloseTo(0.5, 12);
  });
});
