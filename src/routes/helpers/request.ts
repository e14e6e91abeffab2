import type { LabelMatcher } from '../../../engine/index.js';
import { ApiError } from '../../errors.js';
import { parseJsonBody } from '../../http/body.js';
import type { RequestContext, RouteSpec } from '../../http/router.js';
import { callerOrg } from '../../auth/callerOrg.js';
import { requireObject } from '../../query/request.js';
import { resolveWindow } from '../../query/timeRange.js';
import { partialListingWarnings } from '../../catalog/partialListing.js';

/**
 * The helper endpoints share one request shape, so a client can build one body and send it to
 * any of them; each endpoint reads the fields it needs and ignores the rest:
 *
 *   {"s": "now-1h", "e": "now", "match": "<selector>", "limit": 1000, "key": "job", "value": "api", "metric": "up"}
 */

/** DEFAULT_HELPER_LIMIT is the listing size when `limit` is absent or 0, as for raw log queries. */
export const DEFAULT_HELPER_LIMIT = 1000;

/** MAX_HELPER_LIMIT caps `limit`; larger values are lowered to it and `truncated` still tells the truth. */
export const MAX_HELPER_LIMIT = 100_000;

/** HelperWindow is the resolved `[s, e]` of a helper request, in milliseconds since the epoch, both ends inclusive. */
export interface HelperWindow {
  startMs: number;
  endMs: number;
}

/**
 * WINDOW_LIMITS lets `resolveWindow` resolve s and e without its step checks: listings have no
 * step, so one point per window can never exceed the budget.
 */
const WINDOW_LIMITS = { defaultMaxDataPoints: 1, maxPointsPerSeries: Number.POSITIVE_INFINITY };

/**
 * readHelperBody parses the JSON body as an object. An empty body means "all defaults", so
 * `curl -X POST .../logs/tags` works without `-d '{}'`.
 */
export function readHelperBody(ctx: RequestContext): Record<string, unknown> {
  const raw = ctx.body;
  if (raw === undefined || raw.toString('utf8').trim() === '') return {};
  return requireObject(parseJsonBody(raw));
}

/** requireOrg returns the caller's org; the system key has none, and listing needs one. */
export function requireOrg(ctx: RequestContext): string {
  return callerOrg(ctx.principal, 'listing labels needs an org API key; the system key has no org to read from');
}

/**
 * helperWindow resolves `s` and `e` with the query endpoints' formats and defaults (e = now,
 * s = e-1h); a reversed window is VALIDATION_FAILED.
 */
export function helperWindow(body: Record<string, unknown>, nowMs: number = Date.now()): HelperWindow {
  const { startMs, endMs } = resolveWindow({ s: body.s, e: body.e }, WINDOW_LIMITS, nowMs);
  return { startMs, endMs };
}

/**
 * helperLimit reads `limit`: a non-negative integer (a numeric string is accepted for query
 * strings), 0 or absent for the default, capped at MAX_HELPER_LIMIT.
 */
export function helperLimit(value: unknown): number {
  if (value === undefined || value === null || value === '') return DEFAULT_HELPER_LIMIT;
  const n = typeof value === 'string' && /^\d+$/.test(value.trim()) ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 0) {
    throw new ApiError('BAD_REQUEST', 'limit must be a non-negative integer (0 means the default of 1000)');
  }
  if (n === 0) return DEFAULT_HELPER_LIMIT;
  return Math.min(n, MAX_HELPER_LIMIT);
}

/** requireString returns a mandatory, non-empty string field, naming it in the error. */
export function requireString(body: Record<string, unknown>, field: string, purpose: string): string {
  const value = optionalString(body, field);
  if (value === undefined) throw new ApiError('BAD_REQUEST', `missing ${field}: ${purpose}`);
  return value;
}

/** optionalString returns a string field, or undefined when it is absent, null or empty. */
export function optionalString(body: Record<string, unknown>, field: string): string | undefined {
  const value = body[field];
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string') throw new ApiError('BAD_REQUEST', `${field} must be a string`);
  return value;
}

/** matchersFrom reads the optional `match` field with the signal's parser; absent means no scoping. */
export function matchersFrom(body: Record<string, unknown>, parse: (text: string) => LabelMatcher[]): LabelMatcher[] {
  const text = optionalString(body, 'match');
  if (text === undefined || text.trim() === '') return [];
  return parse(text);
}

/** HelperScope is a parsed listing request: org, window, limit, the selector's matchers, and the body for the endpoint's own fields. */
export interface HelperScope {
  org: string;
  matchers: LabelMatcher[];
  startMs: number;
  endMs: number;
  limit: number;
  body: Record<string, unknown>;
}

/** helperScope reads what every listing needs, the optional selector with the signal's parser. */
export function helperScope(ctx: RequestContext, parseSelector: (text: string) => LabelMatcher[]): HelperScope {
  const org = requireOrg(ctx);
  const body = readHelperBody(ctx);
  const { startMs, endMs } = helperWindow(body);
  const limit = helperLimit(body.limit);
  const matchers = matchersFrom(body, parseSelector);
  return { org, matchers, startMs, endMs, limit, body };
}

/**
 * withPartial marks a listing that lacks the recent data of holders it could not read
 * (`unavailable`, from the refresh): `partial: true` and the warning, beside the items found.
 * A query in that state still streams what it found and ends with status error; a listing
 * answers what it found and says it is partial the same way.
 */
export function withPartial<T extends object>(listing: T, unavailable: readonly string[]): T | (T & { partial: true; warnings: string[] }) {
  const warnings = partialListingWarnings(unavailable);
  return warnings.length === 0 ? listing : { ...listing, partial: true, warnings };
}

/**
 * listingRoute builds one POST listing route: read the scope, bring the org's data up to date
 * (`refresh`: a query process fetches the heads other processes hold, and answers those it
 * could not read), answer, render the answer as JSON, marked partial when a holder was missing.
 */
export function listingRoute(
  path: string,
  parseSelector: (text: string) => LabelMatcher[],
  answer: (scope: HelperScope) => object,
  refresh: (org: string) => Promise<readonly string[]>,
): RouteSpec {
  return {
    method: 'POST',
    path,
    auth: 'key',
    body: 'json',
    handler: async (ctx) => {
      const scope = helperScope(ctx, parseSelector);
      const unavailable = await refresh(scope.org);
      ctx.res.json(200, withPartial(answer(scope), unavailable));
    },
  };
}
