import { printPromQL, type Storage } from '../../engine/index.js';
import type { ExemplarReader } from '../exemplars/exemplarReader.js';
import type { HttpMethod, RequestContext, RouteSpec } from '../http/router.js';
import type { MetaStore } from '../meta/types.js';
import type { ServiceMetrics } from '../metrics.js';
import { queryExemplars } from './exemplars.js';
import { instantQuery, parseQueryParam, rangeQuery, type PromQueryDeps } from './instantQuery.js';
import { partialListingWarnings } from '../catalog/partialListing.js';
import { listLabelNames, listLabelValues, listMetadata, listSeries } from './metadata.js';
import { PromParams } from './params.js';
import { errorBody, toPromError, type PromError } from './promError.js';
import { scopeOrg } from './scopeOrg.js';
import { buildInfo, runtimeInfo } from './status.js';

/**
 * The Prometheus-compatible read API under /prometheus/api/v1/, the prefix Mimir and
 * VictoriaMetrics use, so a Grafana data source (or promtool) pointed at
 * http://host:8080/prometheus works unchanged. Authentication is the service's own (Grafana's
 * Basic auth carries the key as password); every answer, errors included, is Prometheus' JSON.
 */

export interface PromRoutesDeps extends PromQueryDeps {
  storage: Storage;
  store: MetaStore;
  metrics: ServiceMetrics;
  exemplars: ExemplarReader;
}

const PREFIX = '/prometheus/api/v1';

/** FORM_BODY_BYTES bounds a form-encoded request: a query and its parameters, not data. */
const FORM_BODY_BYTES = 1024 * 1024;

/** PromHandler answers a body: JSON text, or its bytes (a matrix holding the workers' rendering). */
type PromHandler = (ctx: RequestContext, org: string, params: PromParams) => string | Buffer | Promise<string | Buffer>;

/** answer runs one Prometheus handler and writes its body, or Prometheus' error envelope. */
async function answer(ctx: RequestContext, deps: PromRoutesDeps, handler: PromHandler, endpoint?: string): Promise<void> {
  let body: string | Buffer;
  try {
    const org = await scopeOrg(ctx, deps.store);
    const params = PromParams.fromRequest(ctx.query, ctx.body, ctx.headers['content-type']);
    body = await handler(ctx, org, params);
  } catch (err) {
    const promError: PromError = toPromError(err, 'check');
    if (promError.type === 'internal') ctx.log.error({ err }, 'prometheus API request failed');
    if (endpoint) deps.metrics.queries.inc({ endpoint, outcome: promError.type === 'timeout' ? 'deadline' : promError.type === 'canceled' ? 'client_closed' : 'error' });
    ctx.res.send(promError.status, errorBody(promError), 'application/json', promError.headers);
    return;
  }
  if (endpoint) deps.metrics.queries.inc({ endpoint, outcome: 'ok' });
  ctx.res.send(200, body, 'application/json');
}

/** routesFor registers a handler under `path` for each method; POST reads a form-encoded body. */
function routesFor(deps: PromRoutesDeps, path: string, methods: HttpMethod[], handler: PromHandler, endpoint?: string): RouteSpec[] {
  return methods.map((method) => ({
    method,
    path: PREFIX + path,
    auth: 'key',
    ...(method === 'POST' ? { body: 'raw' as const, maxBodyBytes: FORM_BODY_BYTES } : {}),
    handler: (ctx: RequestContext) => answer(ctx, deps, handler, endpoint),
  }));
}

function success(data: unknown): string {
  return JSON.stringify({ status: 'success', data });
}

const BOTH: HttpMethod[] = ['GET', 'POST'];

/** listingWarnings brings the org's listings up to date and answers the warnings of holders that could not be read. */
async function listingWarnings(storage: Storage, org: string): Promise<string[]> {
  return partialListingWarnings(await storage.refreshListings(org));
}

/** prometheusRoutes lists every route of the Prometheus-compatible API. */
export function prometheusRoutes(deps: PromRoutesDeps): RouteSpec[] {
  const { storage } = deps;
  return [
    ...routesFor(deps, '/query', BOTH, (ctx, org, params) => instantQuery(ctx, deps, storage, org, params), 'prometheus_query'),
    ...routesFor(deps, '/query_range', BOTH, (ctx, org, params) => rangeQuery(ctx, deps, org, params), 'prometheus_query_range'),
    // Listings read synchronously: on a query process the org's heads are fetched first, and
    // holders that could not be read become a warning, as for a query.
    ...routesFor(deps, '/series', BOTH, async (_ctx, org, params) => listSeries(storage, org, params, await listingWarnings(storage, org))),
    ...routesFor(deps, '/labels', BOTH, async (_ctx, org, params) => listLabelNames(storage, org, params, await listingWarnings(storage, org))),
    ...routesFor(deps, '/label/:name/values', ['GET'], async (ctx, org, params) => listLabelValues(storage, org, ctx.params.name, params, await listingWarnings(storage, org))),
    ...routesFor(deps, '/metadata', ['GET'], async (_ctx, org, params) => listMetadata(storage, org, params, await listingWarnings(storage, org))),
    ...routesFor(deps, '/query_exemplars', BOTH, (_ctx, org, params) => queryExemplars(deps.exemplars, org, params)),
    ...routesFor(deps, '/format_query', BOTH, (_ctx, _org, params) => success(printPromQL(parseQueryParam(params).expr))),
    ...routesFor(deps, '/status/buildinfo', ['GET'], () => success(buildInfo())),
    ...routesFor(deps, '/status/config', ['GET'], () => success({ yaml: '' })),
    ...routesFor(deps, '/status/flags', ['GET'], () => success({})),
    ...routesFor(deps, '/status/runtimeinfo', ['GET'], () => success(runtimeInfo())),
  ];
}
