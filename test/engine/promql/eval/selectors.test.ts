import { describe, expect, it } from 'vitest';
import { EngineError } from '../../../../engine/errors.js';
import { formatAnnotation, TOO_MANY_SAMPLES } from '../../../../engine/promql/eval/index.js';
import { byLabels, headWith, instant, key, range, regular, STALE, vectorOf } from './helpers.js';

const head = headWith([
  { labels: { __name__: 'm', s: 'a' }, samples: regular(60e3, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10]) },
  { labels: { __name__: 'gone', s: 'b' }, samples: [[0, 1], [60e3, 2], [120e3, STALE], [600e3, 3]] },
]);

describe('instant vector selectors', () => {
  it('look back up to five minutes, exclusive of the edge', () => {
    // The last sample is at 600s: visible until it is exactly the lookback delta old.
    expect(vectorOf(head, 'm', 899_999)[0].value).toBe(10);
    expect(vectorOf(head, 'm', 900e3)).toHaveLength(0);
    expect(vectorOf(head, 'm', 659_999, { lookbackDeltaMs: 60e3 })[0].value).toBe(10);
    expect(vectorOf(head, 'm', 660e3, { lookbackDeltaMs: 60e3 })).toHaveLength(0);
  });

  it('stop at a staleness marker', () => {
    expect(vectorOf(head, 'gone', 90e3)[0].value).toBe(2);
    expect(vectorOf(head, 'gone', 120e3)).toHaveLength(0);
    expect(vectorOf(head, 'gone', 300e3)).toHaveLength(0);
    expect(vectorOf(head, 'gone', 600e3)[0].value).toBe(3);
  });

  it('apply offsets, negative ones too', () => {
    expect(vectorOf(head, 'm offset 2m', 300e3)[0].value).toBe(3);
    expect(vectorOf(head, 'm offset -2m', 300e3)[0].value).toBe(7);
  });

  it('pin to @ times, start() and end()', () => {
    expect(vectorOf(head, 'm @ 120', 600e3)[0].value).toBe(2);
    expect(vectorOf(head, 'm @ 120 offset 1m', 600e3)[0].value).toBe(1);
    const r = range(head, 'm @ start() + m @ end()', 60e3, 180e3, 60e3);
    expect(Array.from(r.series[0].values)).toEqual([4, 4, 4]);
  });

  it('match regular expressions against whole values, dot matching newlines', () => {
    const h = headWith([
      { labels: { __name__: 'r', v: 'a\nb' }, samples: [[0, 1]] },
      { labels: { __name__: 'r', v: 'xab' }, samples: [[0, 2]] },
    ]);
    expect(vectorOf(h, 'r{v=~"a.b"}', 0).map((s) => s.value)).toEqual([1]);
    expect(vectorOf(h, 'r{v!~"a.b"}', 0).map((s) => s.value)).toEqual([2]);
  });

  it('timestamp() returns the sample time, not the evaluation time', () => {
    expect(vectorOf(head, 'timestamp(m)', 90e3)[0].value).toBe(60);
    expect(vectorOf(head, 'timestamp(-m)', 90e3)[0].value).toBe(90);
  });
});

describe('range selectors and subqueries', () => {
  it('windows are open on the left and closed on the right', () => {
    const result = instant(head, 'm[2m]', 180e3);
    expect(result.value.type).toBe('matrix');
    if (result.value.type !== 'matrix') return;
    expect(Array.from(result.value.series[0].timestampsMs)).toEqual([120e3, 180e3]);
    expect(vectorOf(head, 'count_over_time(m[2m])', 180e3)[0].value).toBe(2);
    expect(vectorOf(head, 'count_over_time(gone[5m])', 300e3)[0].value).toBe(1);
  });

  it('subqueries step from multiples of the step and default to one minute', () => {
    const result = instant(head, 'm[3m:90s]', 300e3);
    if (result.value.type !== 'matrix') throw new Error('expected a matrix');
    expect(Array.from(result.value.series[0].timestampsMs)).toEqual([180e3, 270e3]);
    const defaultStep = instant(head, 'm[3m:]', 300e3);
    if (defaultStep.value.type !== 'matrix') throw new Error('expected a matrix');
    expect(Array.from(defaultStep.value.series[0].timestampsMs)).toEqual([180e3, 240e3, 300e3]);
    expect(vectorOf(head, 'max_over_time((m * 2)[5m:1m])', 600e3)[0].value).toBe(20);
  });

  it('absent() derives labels from equality matchers', () => {
    expect(byLabels(vectorOf(head, 'absent(nope{a="1", b=~"x", c="2", c="3"})', 0))).toEqual({ [key({ a: '1' })]: 1 });
    expect(vectorOf(head, 'absent(m)', 0)).toHaveLength(0);
    expect(byLabels(vectorOf(head, 'absent_over_time(nope{job="x"}[1m])', 0))).toEqual({ [key({ job: 'x' })]: 1 });
  });
});

describe('limits and annotations', () => {
  it('fails a query over its sample budget', () => {
    expect(() => range(head, 'm', 0, 600e3, 1e3, { maxSamples: 100 })).toThrow(new EngineError('RESOURCE_EXHAUSTED', TOO_MANY_SAMPLES));
    expect(range(head, 'm', 0, 600e3, 60e3, { maxSamples: 100 }).series).toHaveLength(1);
  });

  it('stops when aborted', () => {
    const timedOut = new AbortController();
    timedOut.abort(new DOMException('late', 'TimeoutError'));
    expect(() => instant(head, 'm', 0, { signal: timedOut.signal })).toThrow(new EngineError('DEADLINE_EXCEEDED', 'query timed out in expression evaluation'));
    const cancelled = new AbortController();
    cancelled.abort();
    expect(() => instant(head, 'm', 0, { signal: cancelled.signal })).toThrow(/abort/i);
  });

  it('renders annotations with their position in the query', () => {
    const query = 'sum(sort(m))';
    const r = range(head, query, 0, 60e3, 60e3);
    expect(r.annotations.map((a) => formatAnnotation(a, query))).toEqual([
      'PromQL warning: sort is ineffective for range queries since results are always ordered by labels (1:5)',
    ]);
  });

  it('rejects range vectors as range query results', () => {
    expect(() => range(head, 'm[5m]', 0, 60e3, 60e3)).toThrow('invalid expression type "range vector" for range query, must be Scalar or instant Vector');
  });
});
