import type { RouteSpec } from '../http/router.js';
import type { ServiceMetrics } from '../metrics.js';
import type { Component, Role } from '../roles/roles.js';

/** ProcessRole is what this process runs, reported by /readyz. */
export interface ProcessRole {
  role: Role;
  components: readonly Component[];
}

/**
 * healthRoutes are the probes and the service's own metrics, served in every role. /healthz
 * and /api/health stay unauthenticated and plain (the spec's contract) so load balancers and
 * Kubernetes probes need no secret; /readyz is the readiness probe and says which role and
 * components the process runs (no org data, so no key either; it is registered once the
 * stores are open, and a stopping server no longer accepts its connection);
 * /api/v1/ping is the authenticated check a client uses to test its key.
 */
export function healthRoutes(metrics: ServiceMetrics, metricsRequireKey: boolean, process: ProcessRole): RouteSpec[] {
  const ready = { status: 'ready', role: process.role, components: [...process.components] };
  return [
    { method: 'GET', path: '/healthz', auth: 'none', handler: ({ res }) => res.text(200, 'ok') },
    { method: 'GET', path: '/api/health', auth: 'none', handler: ({ res }) => res.text(200, 'ok') },
    { method: 'GET', path: '/readyz', auth: 'none', handler: ({ res }) => res.json(200, ready) },
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
