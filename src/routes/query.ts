import type { RouteSpec } from '../http/router.js';
import { batchQuery } from '../query/batchQuery.js';
import { logsQuery, type LogsQueryDeps } from '../query/logsQuery.js';
import { metricsQuery } from '../query/metricsQuery.js';

/** queryRoutes are the two streaming query endpoints of the spec, and the batch that runs several in one stream. */
export function queryRoutes(deps: LogsQueryDeps): RouteSpec[] {
  const handlers = {
    metrics: (ctx: Parameters<typeof metricsQuery>[0]) => metricsQuery(ctx, deps),
    logs: (ctx: Parameters<typeof logsQuery>[0]) => logsQuery(ctx, deps),
  };
  return [
    { method: 'POST', path: '/api/v1/metrics/query', auth: 'key', body: 'json', handler: handlers.metrics },
    { method: 'POST', path: '/api/v1/logs/query', auth: 'key', body: 'json', handler: handlers.logs },
    {
      method: 'POST',
      path: '/api/v1/query/batch',
      auth: 'key',
      body: 'json',
      handler: (ctx) => batchQuery(ctx, handlers, { heartbeatMs: deps.heartbeatMs, stallTimeoutMs: deps.stallTimeoutMs }),
    },
  ];
}
