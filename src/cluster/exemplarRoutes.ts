import type { ExemplarStore } from '../../engine/index.js';
import type { LabelMatcher } from '../../engine/storage/matchers.js';
import { parseJsonBody } from '../http/body.js';
import type { RouteSpec } from '../http/router.js';
import { bad, overFetchLimit, parseSelectors, parseTimeBounds } from './headRequest.js';
import { checkInternalToken } from './internalToken.js';

/** EXEMPLAR_ROUTE is the internal endpoint a process that keeps exemplars serves them on. */
export const EXEMPLAR_ROUTE = '/internal/v1/exemplars';

/** MAX_EXEMPLAR_REQUEST_BYTES bounds the request body: an org, a time range and the selectors of one query. */
export const MAX_EXEMPLAR_REQUEST_BYTES = 1024 * 1024;

/** ExemplarRequest is what a query process asks a holder for: one org's exemplars of the series some selectors match, in a time range. */
export interface ExemplarRequest {
  org: string;
  /** selectors: a series is wanted when it matches every matcher of at least one. */
  selectors: LabelMatcher[][];
  /** minMs and maxMs bound the exemplars' timestamps (Unix ms, inclusive); absent, unbounded. */
  minMs?: number;
  maxMs?: number;
}

/** parseExemplarRequest checks a decoded JSON body field by field. */
export function parseExemplarRequest(value: unknown): ExemplarRequest {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw bad('body must be a JSON object');
  const body = value as Record<string, unknown>;
  for (const key of Object.keys(body)) if (!['org', 'selectors', 'minMs', 'maxMs'].includes(key)) throw bad(`unknown field "${key}"`);
  if (typeof body.org !== 'string' || body.org === '' || body.org.length > 200) throw bad('org must be a non-empty string of at most 200 characters');
  const out: ExemplarRequest = { org: body.org, selectors: parseSelectors(body.selectors) };
  Object.assign(out, parseTimeBounds(body));
  return out;
}

export interface ExemplarRouteDeps {
  exemplars: ExemplarStore;
  /** token is SVC_INTERNAL_TOKEN; unset, the endpoint refuses every request. */
  token: string | undefined;
  /** maxBytes bounds one answer (SVC_HEAD_FETCH_MAX_BYTES, as the head endpoint's). */
  maxBytes: number;
}

/**
 * exemplarRoutes is the internal endpoint an ingester (or a process of role all) serves the
 * exemplars it keeps on: they travel with their series' write-log partition to the process
 * holding it, so a query process asks every holder, as it does for heads. POST
 * /internal/v1/exemplars with a JSON ExemplarRequest, answered `{"series": [...]}` in the
 * exemplar store's shape (per series its labels and its exemplars, oldest first). Authenticated
 * by the cluster-internal token and bounded like the head endpoint.
 */
export function exemplarRoutes(deps: ExemplarRouteDeps): RouteSpec[] {
  return [
    {
      method: 'POST',
      path: EXEMPLAR_ROUTE,
      auth: 'none',
      body: 'json',
      maxBodyBytes: MAX_EXEMPLAR_REQUEST_BYTES,
      handler: ({ headers, body, res }) => {
        checkInternalToken(headers.authorization, deps.token);
        const request = parseExemplarRequest(parseJsonBody(body ?? Buffer.alloc(0)));
        const series = deps.exemplars.select(request.org, request.selectors, request.minMs ?? -Infinity, request.maxMs ?? Infinity);
        // JSON has no NaN or infinities: such values go as strings ("NaN", "Infinity", "-Infinity").
        const text = Buffer.from(JSON.stringify({ series }, (_key, v: unknown) => (typeof v === 'number' && !Number.isFinite(v) ? String(v) : v)), 'utf8');
        if (text.length > deps.maxBytes) throw overFetchLimit('the exemplars asked for', text.length, deps.maxBytes);
        res.send(200, text, 'application/json');
      },
    },
  ];
}
