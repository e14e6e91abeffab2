import type { RouteSpec } from '../http/router.js';
import type { ServiceMetrics } from '../metrics.js';

/**
 * healthRoutes are the probes and the service's own metrics. /healthz and /api/health stay
 * unauthenticated so load balancers and Kubernetes probes need no secret; /api/v1/ping is the
 * authenticated check a client uses to test its key.
 */
export function healthRoutes(metrics: ServiceMetrics, metricsRequireKey: boolean): RouteSpec[] {
  return [
    { method: 'GET', path: '/healthz', auth: 'none', handler: ({ res }) => res.text(200, 'ok') },
    { method: 'GET', path: '/api/health', auth: 'none', handler: ({ res }) => res.text(200, 'ok') },
    {
      method: 'GET',
      path: '/api/v1/ping',
      auth: 'key',
      handler: ({ res, principal }) =>
        res.json(200, {
          status: 'ok',
          org: principal?.kind === 'org' ? principal.orgId : undefined,
          system: principal?.kind === 'system' ? true : undefined,
        }),
    },
    {
      method: 'GET',
      path: '/metrics',
      auth: metricsRequireKey ? 'key' : 'none',
      handler: async ({ res }) => {
        const text = await metrics.registry.metrics();
        res.send(200, text, metrics.registry.contentType);
      },
    },
  ];
}
