import { ApiError } from '../errors.js';
import type { HttpMethod, RouteSpec, Router } from '../http/router.js';
import { INGEST_PATHS } from '../routes/ingest.js';
import { APP_PATHS } from '../webApp/routes.js';
import { componentsOf, rolesServing, type Component, type Role } from './roles.js';

/**
 * elsewhereRoutes answers, on a process whose role leaves a component out, the routes that
 * component would have served: a JSON 404 naming the roles that serve the route, instead of a
 * bare "no route", so a misrouted client or a wrong Service in front of a pod says what is wrong.
 *
 * The routes come from the OpenAPI document, which lists every API route (a test keeps it
 * complete), and the web app's pages. The write endpoints are the ingest routes; everything
 * else belongs to the query routes, except what `router` has already (the health routes, which
 * every role serves). Routes of the components the role runs are left alone: some are not on
 * the router at all (the Loki tail is a WebSocket route of the server).
 */
export function elsewhereRoutes(role: Role, router: Router, openApi: Buffer): RouteSpec[] {
  const running = componentsOf(role);
  const registered = new Set(router.routes().map((r) => `${r.method} ${r.path}`));
  const ingestPaths = new Set<string>(Object.values(INGEST_PATHS));
  const out: RouteSpec[] = [];
  for (const { method, path } of documentedRoutes(openApi)) {
    const component: Component = ingestPaths.has(path) ? 'ingestApi' : path.startsWith('/internal/') ? 'heads' : 'queryApi';
    if (running.has(component) || registered.has(`${method} ${path}`)) continue;
    out.push({ method, path, auth: 'none', handler: wrongRole(role, component) });
  }
  return out;
}

const METHODS: readonly HttpMethod[] = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH'];

/** documentedRoutes lists the document's operations in router patterns, plus the web app's pages. */
function documentedRoutes(openApi: Buffer): Array<{ method: HttpMethod; path: string }> {
  const doc = JSON.parse(openApi.toString('utf8')) as { paths: Record<string, Record<string, unknown>> };
  const routes: Array<{ method: HttpMethod; path: string }> = [];
  for (const [template, operations] of Object.entries(doc.paths)) {
    const path = template.replace(/\{([^}]+)\}/g, ':$1');
    for (const method of METHODS) if (method.toLowerCase() in operations) routes.push({ method, path });
  }
  for (const path of [...APP_PATHS, '/assets/:file']) routes.push({ method: 'GET', path });
  return routes;
}

function wrongRole(role: Role, component: Component): RouteSpec['handler'] {
  const servedBy = rolesServing(component);
  const named = servedBy.filter((r) => r !== 'all');
  return (ctx) => {
    throw new ApiError('NOT_FOUND', `${ctx.method} ${ctx.path} is served by the ${named.join(' or ')} role (or all); this process runs the ${role} role`, {
      details: { role, servedBy },
    });
  };
}
