import { describe, expect, it } from 'vitest';
import { EngineError } from '../../../../engine/errors.js';
import { byLabels, headWith, key, range, regular, vectorOf } from './helpers.js';

const head = headWith([
  { labels: { __name__: 'http', job: 'api', instance: '0', group: 'prod' }, samples: regular(60e3, [1, 2, 3]) },
  { labels: { __name__: 'http', job: 'api', instance: '1', group: 'prod' }, samples: regular(60e3, [10, 20, 30]) },
  { labels: { __name__: 'http', job: 'api', instance: '2', group: 'canary' }, samples: regular(60e3, [100, 200, 300]) },
  { labels: { __name__: 'http', job: 'web', instance: '0', group: 'prod' }, samples: regular(60e3, [5, 5, 5]) },
  { labels: { __name__: 'http', job: 'web', instance: '1', group: 'canary' }, samples: regular(60e3, [7, NaN, 7]) },
]);

describe('folding aggregations', () => {
  it('sum, avg, count, min, max by and without labels', () => {
    expect(byLabels(vectorOf(head, 'sum by (job) (http)', 0))).toEqual({ [key({ job: 'api' })]: 111, [key({ job: 'web' })]: 12 });
    expect(byLabels(vectorOf(head, 'avg without (instance, group) (http)', 0))).toEqual({ [key({ job: 'api' })]: 37, [key({ job: 'web' })]: 6 });
    expect(byLabels(vectorOf(head, 'count(http)', 0))).toEqual({ [key({})]: 5 });
    expect(byLabels(vectorOf(head, 'min by (group) (http)', 0))).toEqual({ [key({ group: 'prod' })]: 1, [key({ group: 'canary' })]: 7 });
    expect(byLabels(vectorOf(head, 'max by (group) (http)', 0))).toEqual({ [key({ group: 'prod' })]: 10, [key({ group: 'canary' })]: 100 });
    expect(byLabels(vectorOf(head, 'group by (job) (http)', 0))).toEqual({ [key({ job: 'api' })]: 1, [key({ job: 'web' })]: 1 });
  });

  it('ignores NaN in min and max unless every value is NaN', () => {
    expect(vectorOf(head, 'max by (job) (http{job="web"})', 60e3)[0].value).toBe(5);
    expect(vectorOf(head, 'min(http{instance="1", job="web"})', 60e3)[0].value).toBeNaN();
    expect(vectorOf(head, 'sum(http{job="web"})', 60e3)[0].value).toBeNaN();
  });

  it('stddev, stdvar and quantile', () => {
    const stdvar = vectorOf(head, 'stdvar(http{job="api"})', 0)[0].value;
    const mean = 37;
    expect(stdvar).toBeCloseTo(((1 - mean) ** 2 + (10 - mean) ** 2 + (100 - mean) ** 2) / 3, 9);
    expect(vectorOf(head, 'stddev(http{job="api"})', 0)[0].value).toBeCloseTo(Math.sqrt(stdvar), 9);
    expect(vectorOf(head, 'quantile(0.5, http{job="api"})', 0)[0].value).toBe(10);
    expect(vectorOf(head, 'quantile(0.75, http{job="api"})', 0)[0].value).toBe(55);
  });

  it('warns about a quantile outside [0, 1]', () => {
    const r = range(head, 'quantile(2, http)', 0, 60e3, 60e3);
    expect(r.series[0].values[0]).toBe(Infinity);
    expect(r.annotations.map((a) => a.message)).toEqual(['PromQL warning: quantile value should be between 0 and 1, got 2']);
  });

  it('sums with compensation', () => {
    const h = headWith([
      { labels: { __name__: 'x', i: '1' }, samples: [[0, 1]] },
      { labels: { __name__: 'x', i: '2' }, samples: [[0, 1e100]] },
      { labels: { __name__: 'x', i: '3' }, samples: [[0, 1]] },
      { labels: { __name__: 'x', i: '4' }, samples: [[0, -1e100]] },
    ]);
    expect(vectorOf(h, 'sum(x)', 0)[0].value).toBe(2);
    expect(vectorOf(h, 'avg(x)', 0)[0].value).toBe(0.5);
  });

  it('count_values writes each value into a label', () => {
    expect(byLabels(vectorOf(head, 'count_values by (job) ("v", http{instance="0"})', 0))).toEqual({
      [key({ job: 'api', v: '1' })]: 1,
      [key({ job: 'web', v: '5' })]: 1,
    });
  });

  it('aggregates each step separately in range queries', () => {
    const r = range(head, 'sum by (job) (http)', 0, 120e3, 60e3);
    const api = r.series.find((s) => s.labels.job === 'api')!;
    expect(Array.from(api.values)).toEqual([111, 222, 333]);
    const web = r.series.find((s) => s.labels.job === 'web')!;
    expect(Array.from(web.values)).toEqual([12, NaN, 12]);
  });
});

describe('selecting aggregations', () => {
  it('topk and bottomk order an instant result', () => {
    expect(vectorOf(head, 'topk(3, http)', 0).map((s) => s.value)).toEqual([100, 10, 7]);
    expect(vectorOf(head, 'bottomk(2, http)', 0).map((s) => s.value)).toEqual([1, 5]);
    // Groups come out in the order their first series arrives (series are read sorted by labels).
    expect(vectorOf(head, 'topk by (job) (1, http)', 0).map((s) => [s.labels.job, s.value])).toEqual([
      ['web', 7],
      ['api', 100],
    ]);
  });

  it('topk keeps the original labels, including the name', () => {
    expect(vectorOf(head, 'topk(1, http)', 0)[0].labels).toEqual({ __name__: 'http', group: 'canary', instance: '2', job: 'api' });
  });

  it('selects per step in range queries', () => {
    const r = range(head, 'topk(1, http{job="web"})', 0, 120e3, 60e3);
    const byInstance = Object.fromEntries(r.series.map((s) => [s.labels.instance, Array.from(s.timestampsMs)]));
    expect(byInstance).toEqual({ '0': [60e3], '1': [0, 120e3] });
  });

  it('breaks ties at the k-th place by labels in range queries, by the heap in instant ones', () => {
    const ties = headWith(['a', 'b', 'c', 'd'].map((instance) => ({ labels: { __name__: 'tie', instance }, samples: regular(60e3, instance === 'd' ? [5, 5] : [1, 1]) })));
    // The heap keeps a, b and c, then 5 replaces its root, a.
    expect(vectorOf(ties, 'topk(3, tie)', 0).map((s) => s.labels.instance)).toEqual(['d', 'b', 'c']);
    // A range query takes the larger value, then the smaller label set: the same at every step
    // whatever order the series come in, which is what lets its shards merge exactly.
    const r = range(ties, 'topk(3, tie)', 0, 60e3, 60e3);
    expect(Object.fromEntries(r.series.map((s) => [s.labels.instance, Array.from(s.timestampsMs)]))).toEqual({ a: [0, 60e3], b: [0, 60e3], d: [0, 60e3] });
    const bottom = range(ties, 'bottomk(2, tie * 0)', 0, 60e3, 60e3);
    expect(bottom.series.map((s) => s.labels.instance)).toEqual(['a', 'b']);
    // A k that changes from step to step is selected one step at a time, by the same order.
    const growing = range(ties, 'topk(time() / 60 + 2, tie)', 0, 60e3, 60e3);
    expect(Object.fromEntries(growing.series.map((s) => [s.labels.instance, Array.from(s.timestampsMs)]))).toEqual({ a: [0, 60e3], b: [60e3], d: [0, 60e3] });
  });

  it('limitk returns k series per group and limit_ratio a stable sample', () => {
    expect(vectorOf(head, 'limitk by (job) (1, http)', 0)).toHaveLength(2);
    const all = vectorOf(head, 'limit_ratio(1, http)', 0);
    expect(all).toHaveLength(5);
    const half = vectorOf(head, 'limit_ratio(0.5, http)', 0).map((s) => s.labels.instance + s.labels.job);
    const complement = vectorOf(head, 'limit_ratio(-0.5, http)', 0).map((s) => s.labels.instance + s.labels.job);
    expect(half.length + complement.length).toBe(5);
    expect(half.filter((x) => complement.includes(x))).toEqual([]);
  });

  it('rejects a NaN k', () => {
    expect(() => vectorOf(head, 'topk(NaN, http)', 0)).toThrow(new EngineError('COMPILE_ERROR', 'Parameter value is NaN'));
  });
});
