import type { Config } from '../config.js';

/**
 * internalTokenProblem refuses an ingester without SVC_INTERNAL_TOKEN: its heads are what query
 * processes read, and without the token it could serve them to no one. A process of role all
 * serves its own queries, so there the endpoint is merely off.
 */
export function internalTokenProblem(config: Config): string | undefined {
  if (config.role !== 'ingester' || config.roleEmbedded || config.internalToken !== undefined) return undefined;
  return 'sluice serve: role ingester serves its heads to query processes over POST /internal/v1/head, which needs SVC_INTERNAL_TOKEN (32+ characters, the same on every process of the installation)';
}
