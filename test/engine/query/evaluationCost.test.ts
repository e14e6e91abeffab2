import { describe, expect, it } from 'vitest';
import { ALL_FEATURES_ON, parseAndCheckPromQL } from '../../../engine/promql/index.js';
import { FUNCTIONS } from '../../../engine/promql/functions.js';
import { costsAboutItsSamples } from '../../../engine/query/promqlPlan.js';

/**
 * Which queries' cost their samples and steps tell (costsAboutItsSamples), the condition for
 * evaluating a small one on the answering thread: most window kernels slide from step
 * to step at a constant cost per sample, so a range query reads each sample about once.
 */
const cheap = (q: string, instant = false) => costsAboutItsSamples(parseAndCheckPromQL(q, ALL_FEATURES_ON), instant);

describe('evaluation cost', () => {
  it('takes sliding window functions, aggregations and binary operations as costing their samples', () => {
    for (const q of [
      'rate(x[5m])',
      'sum by (job) (increase(x[5m]))',
      'stddev_over_time(x[10m])',
      'histogram_quantile(0.9, sum by (le) (rate(x_bucket[5m])))',
      'max_over_time(x[1h]) / on (job) group_left min_over_time(y[1h])',
      'predict_linear(x[30m], 3600) > 0',
    ]) {
      expect(cheap(q), q).toBe(true);
    }
  });

  it('refuses subqueries and functions whose work grows with their window', () => {
    for (const q of [
      'max_over_time(rate(x[5m])[1h:1m])',
      'double_exponential_smoothing(x[10m], 0.5, 0.5)',
      'sum(double_exponential_smoothing(x[10m], 0.1, 0.9)) + 1',
      'quantile_over_time(0.9, x[10m])',
      'mad_over_time(x[30m]) > 1',
    ]) {
      expect(cheap(q), q).toBe(false);
    }
  });

  it('takes an instant query as costing its samples unless it holds a subquery: each series has one window, read once', () => {
    expect(cheap('quantile_over_time(0.9, x[10m])', true)).toBe(true);
    expect(cheap('double_exponential_smoothing(x[10m], 0.5, 0.5)', true)).toBe(true);
    expect(cheap('max_over_time(rate(x[5m])[1h:1m])', true)).toBe(false);
  });

  it('marks the functions that recompute or reorder their windows, and only those', () => {
    expect([...FUNCTIONS.values()].filter((f) => f.costGrowsWithWindow).map((f) => f.name)).toEqual(['double_exponential_smoothing', 'mad_over_time', 'quantile_over_time']);
  });
});
