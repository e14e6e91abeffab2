import { ApiError } from '../errors.js';
import type { RequestContext } from '../http/router.js';
import type { MetaStore } from '../meta/types.js';

/**
 * scopeOrg decides which org a Prometheus-API request reads. Grafana and the multi-tenant
 * Prometheus back ends name the tenant in `X-Scope-OrgID`: the system key, which belongs to no
 * org, must name one that exists; an org key always reads its own org and ignores the header
 * unless it names that org, so a header can never widen what a key reaches.
 */
export async function scopeOrg(ctx: RequestContext, store: MetaStore): Promise<string> {
  const principal = ctx.principal;
  const named = ctx.headers['x-scope-orgid']?.trim();
  if (principal?.kind === 'org') return principal.orgId;
  if (named === undefined || named === '') {
    throw new ApiError('FORBIDDEN', 'the system key has no org: name the org to read in the X-Scope-OrgID header');
  }
  if (!(await store.getOrg(named))) throw new ApiError('FORBIDDEN', `Forbidden: org ${named} does not exist in this installation`);
  return named;
}
