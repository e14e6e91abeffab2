/**
 * seriesInsertions says how a chart drawing the series `drawn` becomes one drawing `next`
 * without being rebuilt: the indexes in `next` of the series to insert, in ascending order, or
 * undefined when `drawn` is not `next` with some series left out (a series removed, changed or
 * moved), which only a rebuild can show. Series are compared by their keys (label, color, how
 * they are drawn), so a streaming query that finds new series, appended or (stacked variants,
 * drawn last-first) prepended, only adds them.
 */
export function seriesInsertions(drawn: readonly string[], next: readonly string[]): number[] | undefined {
  const inserted: number[] = [];
  let matched = 0;
  for (let j = 0; j < next.length; j++) {
    if (matched < drawn.length && next[j] === drawn[matched]) matched++;
    else inserted.push(j);
  }
  return matched === drawn.length ? inserted : undefined;
}
