import { COUNTER_NAME, HISTOGRAM_NAME, SCRAPE_INTERVAL_S, type Dataset } from './dataset.js';
import type { QueryRequest } from './queryClients.js';

/**
 * The dashboard-style query suite. Each expression runs as a range query over every window of
 * the scale, at the step a 1000-pixel-wide panel asks for, and as an instant query at the end
 * of the data.
 */
export interface QueryDefinition {
  name: string;
  expr: string;
}

export const QUERY_DEFINITIONS: readonly QueryDefinition[] = [
  { name: 'sum by rate', expr: `sum by (code) (rate(${COUNTER_NAME}[5m]))` },
  { name: 'rate of every counter series', expr: `rate(${COUNTER_NAME}[5m])` },
  { name: 'histogram_quantile', expr: `histogram_quantile(0.99, sum by (le, route) (rate(${HISTOGRAM_NAME}[5m])))` },
  { name: 'topk', expr: `topk(5, sum by (instance) (rate(${COUNTER_NAME}[5m])))` },
  { name: 'avg_over_time', expr: `avg by (route) (avg_over_time(${COUNTER_NAME}[10m]))` },
  { name: 'max_over_time', expr: `max by (route) (max_over_time(${COUNTER_NAME}[10m]))` },
  { name: 'binary operation', expr: `sum by (route) (rate(${COUNTER_NAME}{code=~"5.."}[5m])) / sum by (route) (rate(${COUNTER_NAME}[5m]))` },
  { name: 'regex selector', expr: `sum(rate(${COUNTER_NAME}{route=~"/r[0-2]",instance=~"i-00.[13579]"}[5m]))` },
  // 29m59s, not 30m: the subquery's left edge then never falls on its 1-minute grid, where
  // Prometheus 2's closed range takes one more inner point than Prometheus 3's (and Sluice's).
  { name: 'subquery', expr: `max_over_time(sum(rate(${COUNTER_NAME}[5m]))[29m59s:1m])` },
  // Built on aggregations over all series (no label to place series by): Sluice's shards
  // evaluate the sums and its query front the rest (docs/architecture.md, "finished at the merge").
  { name: 'SLO ratio', expr: `sum(rate(${COUNTER_NAME}{code=~"5.."}[5m])) / sum(rate(${COUNTER_NAME}[5m]))` },
  { name: 'histogram_quantile by le', expr: `histogram_quantile(0.99, sum by (le) (rate(${HISTOGRAM_NAME}[5m])))` },
];

export interface QueryCase {
  /** e.g. `topk · range 6h` */
  id: string;
  definition: QueryDefinition;
  window: string;
  request: QueryRequest;
}

/** Steps a dashboard would pick, never finer than the scrape interval (as Grafana's min interval). */
const NICE_STEPS_S = [15, 30, 60, 120, 300, 600, 900, 1800, 3600];

/** panelStepSeconds is the step a 1000-pixel panel asks for over a window. */
export function panelStepSeconds(windowS: number): number {
  const wanted = Math.max(SCRAPE_INTERVAL_S, windowS / 1000);
  return NICE_STEPS_S.find((s) => s >= wanted) ?? NICE_STEPS_S[NICE_STEPS_S.length - 1];
}

export function queryCases(dataset: Dataset, definitions: readonly QueryDefinition[] = QUERY_DEFINITIONS): QueryCase[] {
  const cases: QueryCase[] = [];
  for (const definition of definitions) {
    for (const hours of dataset.scale.windowsHours) {
      const stepS = panelStepSeconds(hours * 3600);
      // Both ends on a multiple of the step, so no system shifts the grid (VictoriaMetrics aligns to it).
      const endMs = Math.floor(dataset.endMs / (stepS * 1000)) * stepS * 1000;
      const window = `range ${hours}h`;
      cases.push({ id: `${definition.name} · ${window}`, definition, window, request: { expr: definition.expr, kind: 'range', startMs: endMs - hours * 3_600_000, endMs, stepS } });
    }
    // On the 15 s grid, as the range queries: never on a sample's timestamp (see datasetEndMs).
    const instantMs = Math.floor(dataset.endMs / 15_000) * 15_000;
    cases.push({ id: `${definition.name} · instant`, definition, window: 'instant', request: { expr: definition.expr, kind: 'instant', startMs: instantMs, endMs: instantMs, stepS: 0 } });
  }
  return cases;
}
