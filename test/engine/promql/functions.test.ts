import { describe, expect, it } from 'vitest';
import { AGGREGATIONS, FUNCTIONS, argTypeAt, lookupFunction, parseAndCheckPromQL } from '../../../engine/promql/index.js';

const STABLE = `abs absent absent_over_time acos acosh asin asinh atan atanh avg_over_time ceil changes clamp
  clamp_max clamp_min cos cosh count_over_time days_in_month day_of_month day_of_week day_of_year deg delta
  deriv exp first_over_time floor histogram_avg histogram_count histogram_fraction histogram_quantile
  histogram_sum histogram_stddev histogram_stdvar hour idelta increase irate label_replace label_join
  last_over_time ln log10 log2 max_over_time min_over_time minute month pi predict_linear present_over_time
  quantile_over_time rad rate resets round scalar sgn sin sinh sort sort_desc sqrt stddev_over_time
  stdvar_over_time sum_over_time tan tanh time timestamp vector year`.split(/\s+/);

const EXPERIMENTAL = `double_exponential_smoothing info mad_over_time sort_by_label sort_by_label_desc
  ts_of_first_over_time ts_of_max_over_time ts_of_min_over_time ts_of_last_over_time histogram_quantiles
  start_timestamp start end step range max_of min_of`.split(/\s+/);

describe('function table', () => {
  it('lists every Prometheus function with its experimental flag', () => {
    for (const name of STABLE) expect(lookupFunction(name)?.experimental, name).toBe(false);
    for (const name of EXPERIMENTAL) expect(lookupFunction(name)?.experimental, name).toBe(true);
    expect([...FUNCTIONS.keys()].sort()).toEqual([...STABLE, ...EXPERIMENTAL].sort());
  });

  it('derives argument bounds from the variadic count', () => {
    const bounds = (name: string): [number, number] => {
      const f = lookupFunction(name)!;
      return [f.minArgs, f.maxArgs];
    };
    expect(bounds('rate')).toEqual([1, 1]);
    expect(bounds('time')).toEqual([0, 0]);
    expect(bounds('hour')).toEqual([0, 1]);
    expect(bounds('round')).toEqual([1, 2]);
    expect(bounds('label_join')).toEqual([3, Infinity]);
    expect(bounds('sort_by_label')).toEqual([1, Infinity]);
    expect(bounds('histogram_quantiles')).toEqual([3, 12]);
  });

  it('types extra variadic arguments like the last declared one', () => {
    const join = lookupFunction('label_join')!;
    expect(argTypeAt(join, 0)).toBe('vector');
    expect(argTypeAt(join, 7)).toBe('string');
    expect(argTypeAt(lookupFunction('rate')!, 1)).toBeUndefined();
  });

  it('gives signatures the checker enforces', () => {
    expect(parseAndCheckPromQL('predict_linear(x[5m], 3600)').valueType).toBe('vector');
    expect(parseAndCheckPromQL('scalar(x)').valueType).toBe('scalar');
    expect(parseAndCheckPromQL('histogram_fraction(0, 0.5, x)').valueType).toBe('vector');
    expect(parseAndCheckPromQL('quantile_over_time(0.9, x[5m])').valueType).toBe('vector');
    expect(parseAndCheckPromQL('clamp(x, 0, 1)').valueType).toBe('vector');
    expect(parseAndCheckPromQL('double_exponential_smoothing(x[5m], 0.5, 0.5)').valueType).toBe('vector');
    expect(parseAndCheckPromQL('pi() * 2').valueType).toBe('scalar');
  });

  it('describes every aggregation operator and its parameter', () => {
    expect(Object.keys(AGGREGATIONS).sort()).toEqual(
      ['avg', 'bottomk', 'count', 'count_values', 'group', 'limit_ratio', 'limitk', 'max', 'min', 'quantile', 'stddev', 'stdvar', 'sum', 'topk'].sort(),
    );
    expect(AGGREGATIONS.count_values.paramType).toBe('string');
    expect(AGGREGATIONS.topk.paramType).toBe('scalar');
    expect(AGGREGATIONS.sum.paramType).toBeNull();
    expect(AGGREGATIONS.limitk.experimental).toBe(true);
    expect(AGGREGATIONS.quantile.experimental).toBe(false);
  });
});
