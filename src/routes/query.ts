import type { RouteSpec } from '../http/router.js';
import { metricsQuery, type QueryDeps } from '../query/metricsQuery.js';

/** queryRoutes are the two streaming query endpoints of the spec. */
export function queryRoutes(deps: QueryDeps): RouteSpec[] {
  return [{ method: 'POST', path: '/api/v1/metrics/query', auth: 'key', body: 'json', handler: (ctx) => metricsQuery(ctx, deps) }];
}
