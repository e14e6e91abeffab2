import { describe, expect, it } from 'vitest';
import { EngineError } from '../../../../engine/errors.js';
import { instant, makeHead, matrixOf, range, vectorOf } from './helpers.js';

// Per [1m] window ending at 60s: foo/a 6 lines, foo/b 12, bar/a 15, bar/b 30.
const head = makeHead([
  { tags: { app: 'foo', pod: 'a' }, line: 'x', atSec: 10, everySec: 10, count: 18 },
  { tags: { app: 'foo', pod: 'b' }, line: 'x', atSec: 5, everySec: 5, count: 36 },
  { tags: { app: 'bar', pod: 'a' }, line: 'x', atSec: 4, everySec: 4, count: 45 },
  { tags: { app: 'bar', pod: 'b' }, line: 'x', atSec: 2, everySec: 2, count: 90 },
]);
const C = 'count_over_time({app=~"foo|bar"} [1m])';

function failure(fn: () => unknown): EngineError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(EngineError);
    return err as EngineError;
  }
  throw new Error('expected a failure');
}

describe('vector aggregations', () => {
  it.each([
    [`sum(${C})`, [['{}', 63]]],
    [`sum by (app) (${C})`, [['{"app":"bar"}', 45], ['{"app":"foo"}', 18]]],
    [`sum without (pod) (${C})`, [['{"app":"bar"}', 45], ['{"app":"foo"}', 18]]],
    [`avg(${C})`, [['{}', 15.75]]],
    [`min by (app) (${C})`, [['{"app":"bar"}', 15], ['{"app":"foo"}', 6]]],
    [`max(${C})`, [['{}', 30]]],
    [`count(${C})`, [['{}', 4]]],
    [`stdvar by (app) (${C})`, [['{"app":"bar"}', 56.25], ['{"app":"foo"}', 9]]],
    [`stddev by (app) (${C})`, [['{"app":"bar"}', 7.5], ['{"app":"foo"}', 3]]],
    [`topk(2, ${C})`, [['{"app":"bar","pod":"a"}', 15], ['{"app":"bar","pod":"b"}', 30]]],
    [`topk(1, ${C}) by (app)`, [['{"app":"bar","pod":"b"}', 30], ['{"app":"foo","pod":"b"}', 12]]],
    [`bottomk(1, ${C})`, [['{"app":"foo","pod":"a"}', 6]]],
    [`approx_topk(1, ${C})`, [['{"app":"bar","pod":"b"}', 30]]],
  ])('%s', (query, expected) => {
    expect(vectorOf(instant(head, query, 60))).toEqual(expected);
  });

  it('keeps value order for sort and sort_desc', () => {
    expect(vectorOf(instant(head, `sort(${C})`, 60)).map(([, v]) => v)).toEqual([6, 12, 15, 30]);
    expect(vectorOf(instant(head, `sort_desc(${C}) * 2`, 60)).map(([, v]) => v)).toEqual([60, 30, 24, 12]);
  });

  it('selects per step in range queries', () => {
    expect(matrixOf(range(head, `topk(1, ${C})`, 20, 60, 20))).toEqual({
      '{"app":"bar","pod":"b"}': [
        [20, 10],
        [40, 20],
        [60, 30],
      ],
    });
  });

  it('refuses approx_topk in range queries', () => {
    expect(failure(() => range(head, `approx_topk(1, ${C})`, 0, 60, 30)).message).toContain('only supported on instant queries');
  });
});

describe('binary operators', () => {
  const F = 'count_over_time({app="foo"} [1m])';
  const B = 'count_over_time({app="bar"} [1m])';

  it.each([
    [`${F} * 2`, [['{"app":"foo","pod":"a"}', 12], ['{"app":"foo","pod":"b"}', 24]]],
    [`100 - ${F}`, [['{"app":"foo","pod":"a"}', 94], ['{"app":"foo","pod":"b"}', 88]]],
    [`${F} / 0`, [['{"app":"foo","pod":"a"}', NaN], ['{"app":"foo","pod":"b"}', NaN]]],
    [`${F} % 5`, [['{"app":"foo","pod":"a"}', 1], ['{"app":"foo","pod":"b"}', 2]]],
    [`${F} ^ 2`, [['{"app":"foo","pod":"a"}', 36], ['{"app":"foo","pod":"b"}', 144]]],
    [`${F} > 10`, [['{"app":"foo","pod":"b"}', 12]]],
    [`10 < ${F}`, [['{"app":"foo","pod":"b"}', 12]]],
    [`${F} > bool 10`, [['{"app":"foo","pod":"a"}', 0], ['{"app":"foo","pod":"b"}', 1]]],
    [`${F} == bool 6`, [['{"app":"foo","pod":"a"}', 1], ['{"app":"foo","pod":"b"}', 0]]],
    [`${F} + on (pod) ${B}`, [['{"pod":"a"}', 21], ['{"pod":"b"}', 42]]],
    [`${F} / ignoring (app) ${B}`, [['{"pod":"a"}', 0.4], ['{"pod":"b"}', 0.4]]],
    [`${F} > on (pod) ${B}`, []],
    [`${B} > on (pod) ${F}`, [['{"pod":"a"}', 15], ['{"pod":"b"}', 30]]],
    [`${B} >= bool on (pod) ${F}`, [['{"pod":"a"}', 1], ['{"pod":"b"}', 1]]],
    [
      `${F} * on (pod) group_left (team) label_replace(sum by (pod) (${B}), "team", "t-$1", "pod", "(.*)")`,
      [['{"app":"foo","pod":"a","team":"t-a"}', 90], ['{"app":"foo","pod":"b","team":"t-b"}', 360]],
    ],
    [`${F} * on (pod) group_left (app) sum by (pod) (${B})`, [['{"pod":"a"}', 90], ['{"pod":"b"}', 360]]],
    [`sum by (pod) (${B}) - on (pod) group_right ${F}`, [['{"app":"foo","pod":"a"}', 9], ['{"app":"foo","pod":"b"}', 18]]],
    [`sum(${F}) + sum(${B})`, [['{}', 63]]],
    [`${F} and on (pod) (${B} > 20)`, [['{"app":"foo","pod":"b"}', 12]]],
    [`${F} unless on (pod) (${B} > 20)`, [['{"app":"foo","pod":"a"}', 6]]],
    [`(${F} > 10) or ${B}`, [['{"app":"bar","pod":"a"}', 15], ['{"app":"bar","pod":"b"}', 30], ['{"app":"foo","pod":"b"}', 12]]],
    [`(${F} > 10) or on (pod) ${B}`, [['{"app":"bar","pod":"a"}', 15], ['{"app":"foo","pod":"b"}', 12]]],
    [`vector(1) + vector(2)`, [['{}', 3]]],
    [`vector(5) > bool 3`, [['{}', 1]]],
  ])('%s', (query, expected) => {
    expect(vectorOf(instant(head, query, 60))).toEqual(expected);
  });

  it('evaluates literal arithmetic to a scalar, comparisons to 0 or 1', () => {
    expect(instant(head, '1 + 2 * 3', 60)).toEqual({ resultType: 'scalar', timestampMs: Date.UTC(2026, 0, 1) + 60000, value: 7 });
    expect(vectorOf(instant(head, '2 ^ 3 ^ 2', 60))).toEqual([['scalar', 512]]);
    expect(vectorOf(instant(head, '1 > 2', 60))).toEqual([['scalar', 0]]);
    expect(matrixOf(range(head, '1 + 1', 0, 20, 10))).toEqual({
      '{}': [
        [0, 2],
        [10, 2],
        [20, 2],
      ],
    });
  });

  it('rejects ambiguous matches', () => {
    expect(failure(() => instant(head, `${F} + on (app) ${B}`, 60)).message).toBe(
      'found duplicate series on the right hand-side;many-to-many matching not allowed: matching labels must be unique on one side',
    );
    expect(failure(() => instant(head, `${B} + ignoring (pod) sum by (app) (${B})`, 60)).message).toBe(
      'multiple matches for labels: many-to-one matching must be explicit (group_left/group_right)',
    );
    expect(vectorOf(instant(head, `${B} / ignoring (pod) group_left sum by (app) (${B})`, 60))).toEqual([
      ['{"app":"bar","pod":"a"}', 1 / 3],
      ['{"app":"bar","pod":"b"}', 2 / 3],
    ]);
  });
});

describe('label_replace, vector and limits', () => {
  const L = 'count_over_time({app=~"foo|bar", pod="a"} [1m])';

  it.each([
    [`label_replace(${L}, "new", "$1", "app", "(fo)o")`, [['{"app":"bar","pod":"a"}', 15], ['{"app":"foo","new":"fo","pod":"a"}', 6]]],
    [`label_replace(${L}, "pod", "", "app", "foo")`, [['{"app":"bar","pod":"a"}', 15], ['{"app":"foo"}', 6]]],
    [`label_replace(${L}, "app", "x-$1", "app", "(.*)")`, [['{"app":"x-bar","pod":"a"}', 15], ['{"app":"x-foo","pod":"a"}', 6]]],
    [`label_replace(${L}, "region", "eu", "missing", ".*")`, [['{"app":"bar","pod":"a","region":"eu"}', 15], ['{"app":"foo","pod":"a","region":"eu"}', 6]]],
    [`label_replace(${L}, "n", "\${name}", "app", "(?P<name>b)ar")`, [['{"app":"bar","n":"b","pod":"a"}', 15], ['{"app":"foo","pod":"a"}', 6]]],
  ])('%s', (query, expected) => {
    expect(vectorOf(instant(head, query, 60))).toEqual(expected);
  });

  it('emits vector() at every step', () => {
    expect(matrixOf(range(head, 'vector(3.5)', 0, 20, 10))).toEqual({
      '{}': [
        [0, 3.5],
        [10, 3.5],
        [20, 3.5],
      ],
    });
  });

  it('fails with RESOURCE_EXHAUSTED beyond the series or sample limits', () => {
    const series = failure(() => instant(head, C, 60, { maxSeries: 3 }));
    expect(series.code).toBe('RESOURCE_EXHAUSTED');
    expect(series.message).toContain('maximum number of series (3)');
    const samples = failure(() => range(head, C, 0, 120, 1, { maxSamples: 100 }));
    expect(samples.code).toBe('RESOURCE_EXHAUSTED');
  });

  it('stops when the signal aborts', () => {
    const controller = new AbortController();
    controller.abort(new Error('client went away'));
    expect(() => instant(head, C, 60, { signal: controller.signal })).toThrow('client went away');
    const timeout = new AbortController();
    timeout.abort(new DOMException('timed out', 'TimeoutError'));
    expect(failure(() => instant(head, C, 60, { signal: timeout.signal })).code).toBe('DEADLINE_EXCEEDED');
  });

  it('fails on parser errors unless filtered, and keeps them when grouping by __error__', () => {
    const h = makeHead([
      { tags: { app: 'j' }, line: '{"ok":1}', atSec: 20 },
      { tags: { app: 'j' }, line: 'broken', atSec: 40 },
    ]);
    expect(failure(() => instant(h, 'count_over_time({app="j"} | json [1m])', 60)).message).toMatch(/^pipeline error: 'JSONParserErr' for series:/);
    expect(vectorOf(instant(h, 'count_over_time({app="j"} | json | __error__="" [1m])', 60))).toEqual([['{"app":"j","ok":"1"}', 1]]);
    expect(vectorOf(instant(h, 'sum by (__error__) (count_over_time({app="j"} | json [1m]))', 60))).toEqual([
      ['{}', 1],
      ['{"__error__":"JSONParserErr"}', 1],
    ]);
    // A line outside every window does not fail the query.
    expect(vectorOf(instant(h, 'count_over_time({app="j"} | json [15s])', 30))).toEqual([['{"app":"j","ok":"1"}', 1]]);
    // With no label read, Loki's parsers skip the line, so sum() alone never sees the error.
    expect(vectorOf(instant(h, 'sum(count_over_time({app="j"} | json [1m]))', 60))).toEqual([['{}', 2]]);
  });
});
