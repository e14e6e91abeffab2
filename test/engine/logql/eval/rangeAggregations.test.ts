import { describe, expect, it } from 'vitest';
import { EngineError } from '../../../../engine/errors.js';
import { instant, makeHead, matrixOf, range, vectorOf } from './helpers.js';

const A = { app: 'a' };

describe('range aggregations over lines', () => {
  const head = makeHead([
    { tags: A, line: 'keep', atSec: 0, everySec: 10, count: 13 },
    { tags: A, line: 'noise', atSec: 5, everySec: 10, count: 13 },
    { tags: { app: 'b' }, line: 'ééé', atSec: 10, everySec: 10, count: 6 },
  ]);

  it('counts lines in (t - range, t]', () => {
    expect(vectorOf(instant(head, 'count_over_time({app="a"} |= "keep" [30s])', 60))).toEqual([['{"app":"a"}', 3]]);
    expect(matrixOf(range(head, 'count_over_time({app="a"} |= "keep" [30s])', 0, 40, 20))).toEqual({
      '{"app":"a"}': [
        [0, 1],
        [20, 3],
        [40, 3],
      ],
    });
  });

  it('computes rate, bytes and bytes_rate (bytes in UTF-8)', () => {
    expect(vectorOf(instant(head, 'rate({app="a"} |= "keep" [30s])', 60))).toEqual([['{"app":"a"}', 0.1]]);
    expect(vectorOf(instant(head, 'bytes_over_time({app="b"} [30s])', 60))).toEqual([['{"app":"b"}', 18]]);
    expect(vectorOf(instant(head, 'bytes_rate({app="b"} [30s])', 60))).toEqual([['{"app":"b"}', 0.6]]);
  });

  it('shifts the window with offset and leaves gaps for empty windows', () => {
    expect(vectorOf(instant(head, 'count_over_time({app="a"} |= "keep" [20s] offset 60s)', 120))).toEqual([['{"app":"a"}', 2]]);
    expect(matrixOf(range(head, 'count_over_time({app="b"} [10s])', 50, 90, 20))).toEqual({
      '{"app":"b"}': [
        [50, 1],
        [70, 0],
      ].filter((p) => p[1] > 0) as Array<[number, number]>,
    });
  });

  it('reports absent windows with the selector equality labels', () => {
    expect(matrixOf(range(head, 'absent_over_time({app="b", x!="y"} [10s])', 50, 90, 20))).toEqual({
      '{"app":"b"}': [
        [70, 1],
        [90, 1],
      ],
    });
    expect(vectorOf(instant(head, 'absent_over_time({app="a"} [10s])', 60))).toEqual([]);
  });

  it('merges streams whose labels a stage makes equal', () => {
    const h = makeHead([
      { tags: { app: 'a', code: '500' }, line: 'x', atSec: 10, everySec: 10, count: 3 },
      { tags: { app: 'a', code: '200' }, line: 'x', atSec: 15, everySec: 10, count: 3 },
    ]);
    expect(vectorOf(instant(h, 'count_over_time({app="a"} | drop code [1m])', 60))).toEqual([['{"app":"a"}', 6]]);
  });
});

describe('range aggregations over unwrapped values', () => {
  const head = makeHead([
    { tags: { app: 'a', pod: '1' }, line: 'v=2', atSec: 20 },
    { tags: { app: 'a', pod: '1' }, line: 'v=4', atSec: 30 },
    { tags: { app: 'a', pod: '2' }, line: 'v=10', atSec: 40 },
    { tags: { app: 'a', pod: '2' }, line: 'v=20', atSec: 50 },
    { tags: { app: 't', pod: '1' }, line: 'took=1.5s size=1KiB', atSec: 20 },
    { tags: { app: 't', pod: '1' }, line: 'took=500ms size=2KB', atSec: 30 },
    { tags: { app: 't', pod: '2' }, line: 'took=1m size=1MiB', atSec: 40 },
    { tags: { app: 't', pod: '2' }, line: 'took=2m size=3B', atSec: 50 },
    { tags: { app: 'a', pod: '1' }, line: 'noise', atSec: 25 },
  ]);
  const q = (fn: string, extra = ''): string => `${fn}({app="a"} | logfmt | unwrap v${extra} [1m])`;

  it.each([
    ['sum_over_time', [6, 30]],
    ['avg_over_time', [3, 15]],
    ['min_over_time', [2, 10]],
    ['max_over_time', [4, 20]],
    ['first_over_time', [2, 10]],
    ['last_over_time', [4, 20]],
    ['stdvar_over_time', [1, 25]],
    ['stddev_over_time', [1, 5]],
    ['rate', [0.1, 0.5]],
  ])('%s keeps a series per stream, without the unwrapped label', (fn, values) => {
    const out = vectorOf(instant(head, q(fn), 60));
    expect(out).toEqual([
      ['{"app":"a","pod":"1"}', values[0]],
      ['{"app":"a","pod":"2"}', values[1]],
    ]);
  });

  it.each([
    ['sum_over_time({app="a"} | logfmt | unwrap v [1m])', [6, 30]],
    ['avg_over_time({app="a"} | logfmt | unwrap v [1m])', [3, 15]],
    ['stdvar_over_time({app="a"} | logfmt | unwrap v [1m])', [1, 25]],
    ['quantile_over_time(0.5, {app="a"} | logfmt | unwrap v [1m])', [3, 15]],
    ['quantile_over_time(0.25, {app="a"} | logfmt | unwrap v [1m])', [2.5, 12.5]],
    ['sum_over_time({app="t"} | logfmt | drop size | unwrap duration(took) [1m])', [2, 180]],
    ['sum_over_time({app="t"} | logfmt | drop size | unwrap duration_seconds(took) [1m])', [2, 180]],
    ['sum_over_time({app="t"} | logfmt | drop took | unwrap bytes(size) [1m])', [3024, 1048579]],
  ])('%s', (query, values) => {
    expect(vectorOf(instant(head, query, 60)).map(([, v]) => v)).toEqual(values);
  });

  it('groups samples of several streams with by and without', () => {
    expect(vectorOf(instant(head, q('avg_over_time') + ' by (app)', 60))).toEqual([['{"app":"a"}', 9]]);
    expect(vectorOf(instant(head, 'quantile_over_time(0.5, {app="a"} | logfmt | unwrap v [1m]) without (pod)', 60))).toEqual([['{"app":"a"}', 7]]);
    expect(vectorOf(instant(head, q('max_over_time') + ' by ()', 60))).toEqual([['{}', 20]]);
  });

  it('applies filters after unwrap', () => {
    expect(vectorOf(instant(head, 'sum_over_time({app="a"} | logfmt | unwrap v | pod="2" [1m])', 60))).toEqual([['{"app":"a","pod":"2"}', 30]]);
  });

  it('fails on values that do not convert, unless the error is filtered', () => {
    const bad = makeHead([
      { tags: A, line: 'v=1', atSec: 10 },
      { tags: A, line: 'v=oops', atSec: 20 },
    ]);
    let error: unknown;
    try {
      instant(bad, 'sum_over_time({app="a"} | logfmt | unwrap v [1m])', 60);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(EngineError);
    expect((error as EngineError).message).toContain("pipeline error: 'SampleExtractionErr' for series: '{__error__=\"SampleExtractionErr\", __error_details__=\"strconv.ParseFloat: parsing \\\"oops\\\": invalid syntax\", app=\"a\", v=\"oops\"}'");
    expect(vectorOf(instant(bad, 'sum_over_time({app="a"} | logfmt | unwrap v | __error__="" [1m])', 60))).toEqual([['{"app":"a"}', 1]]);
  });

  it('computes rate_counter with resets and extrapolation', () => {
    const counter = makeHead([
      { tags: A, line: 'c=30', atSec: 30 },
      { tags: A, line: 'c=60', atSec: 60 },
      { tags: A, line: 'c=90', atSec: 90 },
      { tags: A, line: 'c=30', atSec: 120 },
      { tags: A, line: 'c=60', atSec: 150 },
    ]);
    expect(vectorOf(instant(counter, 'rate_counter({app="a"} | logfmt | unwrap c [2m])', 150))).toEqual([['{"app":"a"}', 1]]);
    expect(vectorOf(instant(counter, 'rate_counter({app="a"} | logfmt | unwrap c [10s])', 90))).toEqual([['{"app":"a"}', 0]]);
  });

  it('treats NaN and infinities as Loki does', () => {
    const special = makeHead([
      { tags: { app: 'a', c: 'nan' }, line: 'v=NaN', atSec: 20 },
      { tags: { app: 'a', c: 'nan' }, line: 'v=7', atSec: 30 },
      { tags: { app: 'a', c: 'inf' }, line: 'v=+Inf', atSec: 20 },
      { tags: { app: 'a', c: 'inf' }, line: 'v=-Inf', atSec: 30 },
    ]);
    const at = (fn: string): number[] => vectorOf(instant(special, `${fn}({app="a"} | logfmt | unwrap v [1m])`, 60)).map(([, v]) => v);
    expect(at('sum_over_time')).toEqual([NaN, NaN]);
    expect(at('max_over_time')).toEqual([Infinity, 7]);
    expect(at('min_over_time')).toEqual([-Infinity, 7]);
    expect(at('first_over_time')).toEqual([Infinity, NaN]);
  });
});
