import path from 'node:path';
import { ApiError } from '../errors.js';
import type { RequestContext, RouteSpec } from '../http/router.js';
import { packageRoot } from '../packageRoot.js';
import { loadWebAssets, pickEncoding, type WebAsset } from './assets.js';
import { sessionRoutes } from './session.js';

/**
 * The web app's routes. Hashed files under /assets/ are immutable for a year; index.html is
 * revalidated on every load so a new build reaches browsers at once. The app's own pages
 * (APP_PATHS) answer with index.html so a shared link or a reload lands on the right page;
 * every other unknown path, under /api, /loki, /prometheus, /mcp or anywhere else, keeps the
 * API's JSON 404.
 */

/** APP_PATHS are the client-side pages; the app's router draws them from index.html. */
export const APP_PATHS = ['/', '/signin', '/dashboards', '/dashboards/:id', '/explore'];

/** WEB_DIR is where `npm run build` writes the app (vite's outDir in src/web/vite.config.ts). */
export const WEB_DIR = path.join(packageRoot(), 'dist', 'web');

const NOT_BUILT_PAGE =
  '<!doctype html><meta charset="utf-8"><title>Sluice</title><p>The web app is not built. Run <code>npm run build</code> and restart; the API is served meanwhile.</p>';

function serveAsset(ctx: RequestContext, asset: WebAsset): void {
  const { body, encoding } = pickEncoding(asset, ctx.headers['accept-encoding']);
  const headers: Record<string, string> = {
    'cache-control': asset.immutable ? 'public, max-age=31536000, immutable' : 'no-cache',
    vary: 'accept-encoding',
    'x-content-type-options': 'nosniff',
  };
  if (encoding) headers['content-encoding'] = encoding;
  if (asset.contentType.startsWith('text/html')) {
    headers['x-frame-options'] = 'DENY';
    headers['referrer-policy'] = 'same-origin';
  }
  ctx.res.send(200, body, asset.contentType, headers);
}

export interface WebAppRouteDeps {
  /** dir defaults to WEB_DIR; tests point it at a build of their own. */
  dir?: string;
}

/** webAppRoutes serves the built app and the sign-in session endpoints. */
export function webAppRoutes(deps: WebAppRouteDeps = {}): RouteSpec[] {
  const assets = loadWebAssets(deps.dir ?? WEB_DIR);
  const index = assets.get('/index.html');
  const page = (ctx: RequestContext): void => {
    if (index) serveAsset(ctx, index);
    else ctx.res.send(200, NOT_BUILT_PAGE, 'text/html; charset=utf-8', { 'cache-control': 'no-cache' });
  };
  const file = (ctx: RequestContext): void => {
    const asset = assets.get(ctx.path);
    if (!asset) throw new ApiError('NOT_FOUND', `no file ${ctx.path} in the web app`);
    serveAsset(ctx, asset);
  };
  const topLevelFiles = [...assets.keys()].filter((p) => p.lastIndexOf('/') === 0 && p !== '/index.html');
  return [
    ...APP_PATHS.map((p): RouteSpec => ({ method: 'GET', path: p, auth: 'none', head: true, handler: page })),
    { method: 'GET', path: '/assets/:file', auth: 'none', head: true, handler: file },
    ...topLevelFiles.map((p): RouteSpec => ({ method: 'GET', path: p, auth: 'none', head: true, handler: file })),
    ...sessionRoutes(),
  ];
}
