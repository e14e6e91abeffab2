import { ApiError } from '../errors.js';
import type { MetaStore } from '../meta/types.js';
import type { Principal } from './keyIndex.js';

/**
 * requireOrgAccess checks that the caller may act on the org named in the path: an org key
 * reaches its own org only (FORBIDDEN otherwise), the system key reaches every org that exists.
 * An org that does not exist is NOT_FOUND, or FORBIDDEN where the spec says so (the tool
 * gateway's error table words a wrong org id that way). `what` names what was asked for.
 */
export async function requireOrgAccess(
  principal: Principal | undefined,
  orgId: string,
  store: MetaStore,
  what: string,
  unknownOrg: 'NOT_FOUND' | 'FORBIDDEN' = 'NOT_FOUND',
): Promise<string> {
  if (principal?.kind === 'org') {
    if (principal.orgId !== orgId) throw new ApiError('FORBIDDEN', `Forbidden: this API key belongs to another org; it cannot reach ${what} of org ${orgId}`);
    return orgId;
  }
  if (!(await store.getOrg(orgId))) {
    throw new ApiError(unknownOrg, unknownOrg === 'FORBIDDEN' ? `Forbidden: org ${orgId} does not exist in this installation` : `org ${orgId} does not exist`);
  }
  return orgId;
}
