import { describe, expect, it } from 'vitest';
import { seriesChanges } from '../../src/web/panels/seriesGrowth.js';

/**
 * How a time chart takes a new list of series in place: series added anywhere (at the end, at
 * the start as stacked variants draw them, or between) are inserted at their places, series
 * gone are removed; series that stay but change order ask for a rebuild.
 */

/** applied replays the changes on `drawn` as the chart does: removals, then insertions. */
function applied(drawn: string[], next: string[]): string[] | undefined {
  const changes = seriesChanges(drawn, next);
  if (!changes) return undefined;
  const shown = [...drawn];
  for (const i of changes.removed) shown.splice(i, 1);
  for (const j of changes.inserted) shown.splice(j, 0, next[j]);
  return shown;
}

describe('series changes of a streaming chart', () => {
  it('inserts series that were added anywhere, in ascending order', () => {
    expect(seriesChanges([], ['a', 'b'])).toEqual({ removed: [], inserted: [0, 1] });
    expect(seriesChanges(['a', 'b'], ['a', 'b', 'c'])).toEqual({ removed: [], inserted: [2] });
    expect(seriesChanges(['a', 'b'], ['c', 'a', 'b'])).toEqual({ removed: [], inserted: [0] });
    expect(seriesChanges(['a', 'c'], ['a', 'b', 'c', 'd'])).toEqual({ removed: [], inserted: [1, 3] });
    expect(seriesChanges(['a', 'b'], ['a', 'b'])).toEqual({ removed: [], inserted: [] });
  });

  it('removes series that are gone, highest index first', () => {
    expect(seriesChanges(['a', 'b', 'c'], ['b'])).toEqual({ removed: [2, 0], inserted: [] });
    expect(seriesChanges(['a', 'b'], [])).toEqual({ removed: [1, 0], inserted: [] });
    expect(seriesChanges(['a', 'b'], ['a', 'B'])).toEqual({ removed: [1], inserted: [1] });
    expect(seriesChanges(['x', 'x'], ['x'])).toEqual({ removed: [1], inserted: [] });
  });

  it('replaying the changes gives the new list', () => {
    const cases: Array<[string[], string[]]> = [
      [['x', 'y', 'x'], ['w', 'x', 'y', 'z', 'x', 'v']],
      [['a', 'b', 'c', 'd'], ['e', 'b', 'f', 'd', 'g']],
      [['a', 'b'], ['c', 'd']],
      [['a', 'a', 'b'], ['a', 'b', 'b']],
    ];
    for (const [drawn, next] of cases) expect(applied(drawn, next)).toEqual(next);
  });

  it('asks for a rebuild when series that stay change order', () => {
    expect(seriesChanges(['a', 'b'], ['b', 'a'])).toBeUndefined();
    expect(seriesChanges(['a', 'b', 'c'], ['c', 'x', 'a'])).toBeUndefined();
  });
});
