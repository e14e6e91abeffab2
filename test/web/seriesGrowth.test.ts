import { describe, expect, it } from 'vitest';
import { seriesInsertions } from '../../src/web/panels/seriesGrowth.js';

/**
 * How a time chart takes the series a stream finds later: series only added (at the end, at
 * the start as stacked variants draw them, or between) are inserted at their places; a series
 * gone, changed or moved asks for a rebuild.
 */
describe('series growth of a streaming chart', () => {
  it('inserts series that were added anywhere, in ascending order', () => {
    expect(seriesInsertions([], ['a', 'b'])).toEqual([0, 1]);
    expect(seriesInsertions(['a', 'b'], ['a', 'b', 'c'])).toEqual([2]);
    expect(seriesInsertions(['a', 'b'], ['c', 'a', 'b'])).toEqual([0]);
    expect(seriesInsertions(['a', 'c'], ['a', 'b', 'c', 'd'])).toEqual([1, 3]);
    expect(seriesInsertions(['a', 'b'], ['a', 'b'])).toEqual([]);
  });

  it('applying the insertions in order gives the new list', () => {
    const drawn = ['x', 'y', 'x'];
    const next = ['w', 'x', 'y', 'z', 'x', 'v'];
    const shown = [...drawn];
    for (const j of seriesInsertions(drawn, next)!) shown.splice(j, 0, next[j]);
    expect(shown).toEqual(next);
  });

  it('asks for a rebuild when a drawn series is gone, changed or moved', () => {
    expect(seriesInsertions(['a', 'b'], ['a'])).toBeUndefined();
    expect(seriesInsertions(['a', 'b'], ['a', 'B'])).toBeUndefined();
    expect(seriesInsertions(['a', 'b'], ['b', 'a', 'c'])).toBeUndefined();
    expect(seriesInsertions(['a'], [])).toBeUndefined();
  });
});
