import { extractCredentials } from '../auth/credentials.js';
import type { Principal } from '../auth/keyIndex.js';
import { ApiError } from '../errors.js';
import type { RequestContext, RouteSpec } from '../http/router.js';

/**
 * Sign-in for the web app. The browser keeps the API key in the `api_key` cookie, which the
 * API already accepts (last in the spec's order), so the app's own fetches need no header. The
 * cookie is HttpOnly, so a script injected into the page cannot read the key, and
 * SameSite=Strict, so another site cannot make the browser send it.
 *
 *   POST   /api/v1/session  key in X-Svc-API-Key -> 200 {org}; Set-Cookie api_key
 *   GET    /api/v1/session  -> 200 {org} for the key the request presents (the cookie), else 401
 *   DELETE /api/v1/session  -> 204; the cookie is cleared
 *
 * POST is an ordinary authenticated route: the server checks the key (and counts a wrong one
 * against the address' failed-authentication budget) before the handler writes the cookie.
 */

export const SESSION_PATH = '/api/v1/session';
export const SESSION_COOKIE = 'api_key';

/** SESSION_MAX_AGE_S keeps a browser signed in for 30 days; revoking the key ends it sooner. */
const SESSION_MAX_AGE_S = 30 * 86_400;

/** cookieAttributes adds Secure when the request came over HTTPS through a proxy that says so. */
function cookieAttributes(ctx: RequestContext, maxAgeSeconds: number): string {
  const secure = ctx.headers['x-forwarded-proto']?.split(',')[0]?.trim() === 'https' ? '; Secure' : '';
  return `Path=/; HttpOnly; SameSite=Strict; Max-Age=${maxAgeSeconds}${secure}`;
}

function describe(principal: Principal | undefined): Record<string, unknown> {
  if (principal?.kind === 'org') return { kind: 'org', org: principal.orgId, keyId: principal.keyId };
  return { kind: 'system' };
}

function signIn(ctx: RequestContext): void {
  const credentials = extractCredentials(ctx.headers);
  if (credentials === undefined || credentials.place === 'cookie') {
    throw new ApiError('BAD_REQUEST', 'send the API key to sign in with in the X-Svc-API-Key header');
  }
  if (ctx.principal?.kind !== 'org') {
    throw new ApiError('FORBIDDEN', 'the web app needs an org API key; the system key has no org to show');
  }
  const cookie = `${SESSION_COOKIE}=${encodeURIComponent(credentials.key)}; ${cookieAttributes(ctx, SESSION_MAX_AGE_S)}`;
  ctx.res.json(200, describe(ctx.principal), { 'set-cookie': cookie, 'cache-control': 'no-store' });
}

function signOut(ctx: RequestContext): void {
  ctx.res.send(204, '', 'text/plain', { 'set-cookie': `${SESSION_COOKIE}=; ${cookieAttributes(ctx, 0)}`, 'cache-control': 'no-store' });
}

export function sessionRoutes(): RouteSpec[] {
  return [
    { method: 'POST', path: SESSION_PATH, auth: 'key', handler: signIn },
    { method: 'GET', path: SESSION_PATH, auth: 'key', handler: (ctx) => ctx.res.json(200, describe(ctx.principal), { 'cache-control': 'no-store' }) },
    { method: 'DELETE', path: SESSION_PATH, auth: 'none', handler: signOut },
  ];
}
