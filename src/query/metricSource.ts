import type { LogQLExpr, PromQLExpr } from '../../engine/index.js';
import type { QueryResultsCache } from './cache/queryResultsCache.js';
import { logSeriesPlan, metricSeriesPlan, type LogPlanDeps, type PlanDeps } from './plans.js';
import { planSource, type SeriesSource } from './seriesSource.js';
import type { QueryWindow } from './timeRange.js';

/** ResultsCacheDeps is how a query path reaches the results cache; absent when SVC_RESULTS_CACHE is off. */
export interface ResultsCacheDeps {
  resultsCache?: QueryResultsCache;
}

/**
 * metricSeriesSource is where a checked PromQL range query's answer comes from: the results
 * cache when the service has one, else a plan evaluated afresh. The SSE endpoint, the
 * Prometheus API and the tool gateway all ask here, so they share one cache.
 */
export function metricSeriesSource(deps: PlanDeps & ResultsCacheDeps, org: string, q: string, expr: PromQLExpr, window: QueryWindow): SeriesSource {
  if (deps.resultsCache !== undefined) return deps.resultsCache.promqlSource(deps, org, q, expr, window);
  return planSource(deps.pool, metricSeriesPlan(deps, org, q, expr, window));
}

/** logSeriesSource is metricSeriesSource for a checked LogQL metric query (the logs endpoint, the Loki API, the tool gateway). */
export function logSeriesSource(deps: LogPlanDeps & ResultsCacheDeps, org: string, q: string, expr: LogQLExpr, window: QueryWindow): SeriesSource {
  if (deps.resultsCache !== undefined) return deps.resultsCache.logqlSource(deps, org, q, expr, window);
  return planSource(deps.pool, logSeriesPlan(deps, org, q, expr, window));
}
