import { requireOrgAccess } from '../auth/orgAccess.js';
import { ApiError } from '../errors.js';
import type { Principal } from '../auth/keyIndex.js';
import type { MetaStore } from '../meta/types.js';

/**
 * lokiOrg picks the org a Loki API request reads. An org key reads its own org whatever
 * `X-Scope-OrgID` says (Grafana data sources often carry a fixed tenant header). The system
 * key sees every org, so it must name one with `X-Scope-OrgID`, and the org must exist.
 */
export async function lokiOrg(ctx: { principal: Principal | undefined; headers: Record<string, string> }, store: MetaStore): Promise<string> {
  const principal = ctx.principal;
  if (principal?.kind === 'org') return principal.orgId;
  const scoped = ctx.headers['x-scope-orgid']?.trim();
  if (scoped === undefined || scoped === '') {
    throw new ApiError('BAD_REQUEST', 'the system key reads no org by itself: name one with the X-Scope-OrgID header');
  }
  return requireOrgAccess(principal, scoped, store, 'logs');
}
