import type { RouteSpec } from '../http/router.js';
import { logsQuery, type LogsQueryDeps } from '../query/logsQuery.js';
import { metricsQuery } from '../query/metricsQuery.js';

/** queryRoutes are the two streaming query endpoints of the spec. */
export function queryRoutes(deps: LogsQueryDeps): RouteSpec[] {
  return [
    { method: 'POST', path: '/api/v1/metrics/query', auth: 'key', body: 'json', handler: (ctx) => metricsQuery(ctx, deps) },
    { method: 'POST', path: '/api/v1/logs/query', auth: 'key', body: 'json', handler: (ctx) => logsQuery(ctx, deps) },
  ];
}
