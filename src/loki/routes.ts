import type { Storage } from '../../engine/index.js';
import { ApiError, toApiError } from '../errors.js';
import type { HttpMethod, RequestContext, RouteSpec } from '../http/router.js';
import type { MetaStore } from '../meta/types.js';
import { buildInfo, indexStats, labelNames, labelValues, optionalSelector, seriesOf } from './lokiCatalog.js';
import { lokiOrg } from './lokiOrg.js';
import { lokiParams, lokiRange } from './lokiParams.js';
import { detectedFields, detectedFieldValues } from './lokiDetectedFields.js';
import { detectedLabels } from './lokiDetectedLabels.js';
import { formatQuery } from './lokiFormat.js';
import { patterns } from './lokiPatterns.js';
import { instantQuery, queryRange, type LokiQueryDeps } from './lokiQuery.js';
import { volume, volumeRange } from './lokiVolume.js';

/**
 * The Loki read API under /loki/api/v1/, beside the push endpoint, so that a Grafana Loki data
 * source, logcli or a script written for Loki reads Sluice unchanged. Errors carry Loki's
 * status codes and the service's one JSON error body: Grafana's Loki data source shows its
 * `message` (it reads a JSON body's `message` before falling back to the raw text), and
 * logcli prints the body as it came.
 */

export interface LokiRouteDeps extends LokiQueryDeps {
  storage: Storage;
  store: MetaStore;
}

type LokiHandler = (ctx: RequestContext, org: string) => unknown;

/** answer runs a handler for the request's org and writes its JSON, or the error's JSON body. */
async function answer(ctx: RequestContext, store: MetaStore, handler: LokiHandler): Promise<void> {
  try {
    const org = await lokiOrg(ctx, store);
    const body = await handler(ctx, org);
    if (!ctx.res.aborted) ctx.res.json(200, body);
  } catch (err) {
    const apiError = toApiError(err, ctx.queryId);
    if (apiError.status >= 500 && apiError.code !== 'DEADLINE_EXCEEDED') ctx.log.error({ err, code: apiError.code }, 'loki api request failed');
    if (ctx.res.aborted) ctx.res.errorCode ??= apiError.code;
    else ctx.res.error(apiError);
  }
}

/** both registers a Loki endpoint for GET and for a form-encoded POST, as Loki serves them. */
function both(path: string, store: MetaStore, handler: LokiHandler): RouteSpec[] {
  return (['GET', 'POST'] as HttpMethod[]).map((method) => ({
    method,
    path,
    auth: 'key' as const,
    ...(method === 'POST' ? { body: 'raw' as const, maxBodyBytes: 1024 * 1024 } : {}),
    handler: (ctx: RequestContext) => answer(ctx, store, handler),
  }));
}

/**
 * refreshListings brings the org's listings up to date (a query process fetches the heads the
 * ingesters hold). A listing that could not read every holder fails with 503, as a Loki query
 * does (partialIsUnavailable): Loki's listing answers have no place to say they are partial.
 */
async function refreshListings(storage: Storage, org: string): Promise<void> {
  const unavailable = await storage.refreshListings(org);
  if (unavailable.length > 0) {
    throw new ApiError('SERVICE_UNAVAILABLE', `${unavailable.length} holder(s) of recent data could not be read; the listing would be partial, retry`);
  }
}

/** success wraps listing data the way every Loki listing answers. */
function success(data: unknown): { status: 'success'; data: unknown } {
  return { status: 'success', data };
}

export function lokiRoutes(deps: LokiRouteDeps): RouteSpec[] {
  const { storage, store } = deps;
  return [
    ...both('/loki/api/v1/query', store, (ctx, org) => instantQuery(ctx, org, deps)),
    ...both('/loki/api/v1/query_range', store, (ctx, org) => queryRange(ctx, org, deps)),
    ...both('/loki/api/v1/labels', store, async (ctx, org) => {
      const params = lokiParams(ctx);
      const [selector, range] = [optionalSelector(params.get('query')), lokiRange(params)];
      await refreshListings(storage, org);
      return success(labelNames(storage, org, selector, range));
    }),
    ...both('/loki/api/v1/label/:name/values', store, async (ctx, org) => {
      const params = lokiParams(ctx);
      const [selector, range] = [optionalSelector(params.get('query')), lokiRange(params)];
      await refreshListings(storage, org);
      return success(labelValues(storage, org, ctx.params.name, selector, range));
    }),
    ...both('/loki/api/v1/series', store, async (ctx, org) => {
      const params = lokiParams(ctx);
      const selectors = params.getAll('match[]').concat(params.getAll('match')).map((text) => optionalSelector(text));
      const range = lokiRange(params);
      await refreshListings(storage, org);
      return success(seriesOf(storage, org, selectors, range));
    }),
    ...both('/loki/api/v1/index/stats', store, async (ctx, org) => {
      const params = lokiParams(ctx);
      const [selector, range] = [optionalSelector(params.get('query')), lokiRange(params)];
      await refreshListings(storage, org);
      return indexStats(storage, org, selector, range);
    }),
    ...both('/loki/api/v1/index/volume', store, (ctx, org) => volume(ctx, org, deps)),
    ...both('/loki/api/v1/index/volume_range', store, (ctx, org) => volumeRange(ctx, org, deps)),
    ...both('/loki/api/v1/detected_labels', store, async (ctx, org) => {
      const params = lokiParams(ctx);
      const [selector, range] = [optionalSelector(params.get('query')), lokiRange(params)];
      await refreshListings(storage, org);
      return detectedLabels(storage, org, selector, range);
    }),
    ...both('/loki/api/v1/detected_fields', store, (ctx, org) => detectedFields(ctx, org, deps)),
    ...both('/loki/api/v1/detected_field/:name/values', store, (ctx, org) => detectedFieldValues(ctx, org, deps)),
    ...both('/loki/api/v1/patterns', store, (ctx, org) => patterns(ctx, org, deps)),
    ...both('/loki/api/v1/format_query', store, (ctx) => success(formatQuery(lokiParams(ctx)))),
    // Build info names no org's data, so any valid key may read it without X-Scope-OrgID.
    { method: 'GET', path: '/loki/api/v1/status/buildinfo', auth: 'key', handler: (ctx) => ctx.res.json(200, buildInfo()) },
  ];
}
