import { ApiError } from '../errors.js';
import type { Principal } from './keyIndex.js';

/**
 * callerOrg returns the org of the caller's key, for endpoints that act on "my org" with no
 * org in the path (queries, ingestion, label listing). The system key belongs to no org, so
 * it is FORBIDDEN there; `forbiddenMessage` says which endpoint needed an org, because the
 * spec words each endpoint's refusal in its own terms.
 */
export function callerOrg(principal: Principal | undefined, forbiddenMessage: string): string {
  if (principal?.kind !== 'org') throw new ApiError('FORBIDDEN', forbiddenMessage);
  return principal.orgId;
}
