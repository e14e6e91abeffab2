import { ApiError } from '../errors.js';
import type { MetaStore } from '../meta/types.js';
import type { Principal } from './keyIndex.js';

/**
 * requireOrgAccess checks that the caller may act on the org named in the path: an org key
 * reaches its own org only (FORBIDDEN otherwise), the system key reaches every org that exists
 * (NOT_FOUND for one that does not). `what` names what was asked for, for the message.
 */
export async function requireOrgAccess(principal: Principal | undefined, orgId: string, store: MetaStore, what: string): Promise<string> {
  if (principal?.kind === 'org') {
    if (principal.orgId !== orgId) throw new ApiError('FORBIDDEN', `Forbidden: this API key belongs to another org; it cannot reach ${what} of org ${orgId}`);
    return orgId;
  }
  if (!(await store.getOrg(orgId))) throw new ApiError('NOT_FOUND', `org ${orgId} does not exist`);
  return orgId;
}
