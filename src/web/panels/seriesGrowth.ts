/**
 * SeriesChanges turns a chart drawing one list of series into one drawing another in place:
 * first remove `removed` (indexes into the drawn list, highest first, so each index still holds
 * when it is used), then insert `inserted` (indexes into the next list, ascending, so each
 * series lands at its final place).
 */
export interface SeriesChanges {
  removed: number[];
  inserted: number[];
}

/**
 * seriesChanges says how a chart drawing the series `drawn` comes to draw `next` without being
 * rebuilt, or undefined when the series that stay are in another order, which only a rebuild
 * shows. Series are compared by their keys (label, color, how they are drawn): a streaming
 * query that finds new series, appended or (stacked variants, drawn last-first) prepended,
 * only adds them, and a query started again (new time range, new variable value) swaps the
 * series of the chart it already has.
 */
export function seriesChanges(drawn: readonly string[], next: readonly string[]): SeriesChanges | undefined {
  const wanted = new Map<string, number>();
  for (const k of next) wanted.set(k, (wanted.get(k) ?? 0) + 1);
  const removed: number[] = [];
  const kept: string[] = [];
  drawn.forEach((k, i) => {
    const left = wanted.get(k) ?? 0;
    if (left > 0) {
      wanted.set(k, left - 1);
      kept.push(k);
    } else removed.push(i);
  });
  const inserted: number[] = [];
  let matched = 0;
  for (let j = 0; j < next.length; j++) {
    if (matched < kept.length && next[j] === kept[matched]) matched++;
    else inserted.push(j);
  }
  return matched === kept.length ? { removed: removed.reverse(), inserted } : undefined;
}
