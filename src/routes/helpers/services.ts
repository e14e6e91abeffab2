import type { Storage } from '../../../engine/index.js';
import type { RouteSpec } from '../../http/router.js';
import { listServices } from '../../catalog/services.js';
import { helperLimit, helperWindow, requireOrg, withPartial } from './request.js';

/**
 * GET /api/v1/services: the catalog's services listing (src/catalog/services.ts). It is a GET,
 * so `s`, `e` and `limit` come from the query string; there is no `match` since it would need a
 * selector per signal.
 */
export function serviceRoutes(storage: Storage): RouteSpec[] {
  return [
    {
      method: 'GET',
      path: '/api/v1/services',
      auth: 'key',
      handler: async (ctx) => {
        const org = requireOrg(ctx);
        const unavailable = await storage.refreshListings(org);
        const params = ctx.query;
        const { startMs, endMs } = helperWindow({ s: params.get('s') ?? undefined, e: params.get('e') ?? undefined });
        const limit = helperLimit(params.get('limit') ?? undefined);
        ctx.res.json(200, withPartial(listServices(storage, org, startMs, endMs, limit), unavailable));
      },
    },
  ];
}

