import { createHash, timingSafeEqual } from 'node:crypto';
import type { Config } from '../config.js';
import { ApiError } from '../errors.js';

/**
 * internalTokenProblem refuses an ingester without SVC_INTERNAL_TOKEN: its heads are what query
 * processes read, and without the token it could serve them to no one. A process of role all
 * serves its own queries, so there the endpoint is merely off.
 */
export function internalTokenProblem(config: Config): string | undefined {
  if (config.role !== 'ingester' || config.roleEmbedded || config.internalToken !== undefined) return undefined;
  return 'sluice serve: role ingester serves its heads to query processes over POST /internal/v1/head, which needs SVC_INTERNAL_TOKEN (32+ characters, the same on every process of the installation)';
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

/**
 * checkInternalToken guards the internal endpoints (heads, exemplars): it accepts
 * `Authorization: Bearer <SVC_INTERNAL_TOKEN>`, compared in constant time.
 */
export function checkInternalToken(header: string | undefined, token: string | undefined): void {
  if (token === undefined) throw new ApiError('FORBIDDEN', 'the internal endpoints are off on this process: SVC_INTERNAL_TOKEN is not set');
  const given = /^Bearer\s+(.+)$/i.exec(header ?? '')?.[1];
  if (given === undefined || !timingSafeEqual(digest(given), digest(token))) throw new ApiError('UNAUTHORIZED', 'missing or wrong cluster-internal token');
}
