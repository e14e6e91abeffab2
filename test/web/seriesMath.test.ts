import { describe, expect, it } from 'vitest';
import { align, movingAverage, reduce, type Series } from '../../src/web/lib/series.js';

/**
 * The arithmetic behind panel options that a canvas does not show in the page: `smooth` (a
 * 5-point moving average over gaps), the reducers of stat, bar, pie and label panels, and the
 * shared time axis the charts draw on.
 */

const series = (points: Array<[number, number]>): Series => ({ label: 's', tags: {}, points: new Map(points), query: 0 });

describe('panel series arithmetic', () => {
  it('smooths over the last five points, leaving gaps as gaps and skipping them in the mean', () => {
    expect(movingAverage([30, 30, 30, 20, 20, 20, null, 10])).toEqual([30, 30, 30, 27.5, 26, 24, null, 17.5]);
    expect(movingAverage([4, 8], 1)).toEqual([4, 8]);
  });

  it('reduces a series in time order, whatever order its points arrived in', () => {
    const s = series([
      [3000, 5],
      [1000, 2],
      [2000, 11],
    ]);
    expect((['last', 'mean', 'max', 'min', 'sum'] as const).map((r) => reduce(s, r))).toEqual([5, 6, 11, 2, 18]);
    expect(reduce(series([]), 'max')).toBeUndefined();
  });

  it('aligns series on one sorted time axis in seconds, with null where a series has no point', () => {
    const a = series([
      [2000, 1],
      [1000, 2],
    ]);
    const b = series([[3000, 7]]);
    expect(align([a, b])).toEqual([
      [1, 2, 3],
      [2, 1, null],
      [null, null, 7],
    ]);
  });
});
