/** Json is a value a dashboard spec is made of, as JSON.parse gives it. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

/**
 * manyPanelsSpec is a valid spec with `count` timeseries panels in one section, each with its
 * own query using the dashboard's variable. `tiled` lays them out four to a row without
 * overlap; `stacked` puts every cell on the same spot, so every pair of cells overlaps.
 */
export function manyPanelsSpec(count: number, layout: 'tiled' | 'stacked'): JsonObject {
  const panels: JsonObject = {};
  const cells: Json[] = [];
  for (let n = 0; n < count; n++) {
    const id = `p${n}`;
    panels[id] = { id, kind: 'timeseries', title: `Panel ${n}`, queries: [{ query: `sum(rate(http_requests_total{job="$job",shard="${n}"}[5m]))` }] };
    cells.push(layout === 'tiled' ? { i: id, x: (n % 4) * 6, y: Math.floor(n / 4) * 4, w: 6, h: 4 } : { i: id, x: 0, y: 0, w: 24, h: 6 });
  }
  return {
    duration: '1h',
    variables: [{ name: 'job', kind: 'query', source: { signal: 'metrics', metric: 'up', label: 'job' } }],
    panels,
    sections: [{ title: 'Main', cells }],
  };
}
