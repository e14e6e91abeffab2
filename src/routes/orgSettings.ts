import type { Config } from '../config.js';
import { ApiError } from '../errors.js';
import { parseJsonBody } from '../http/body.js';
import type { RequestContext, RouteSpec } from '../http/router.js';
import { resolveSettings } from '../meta/effectiveSettings.js';
import { ORG_SETTINGS, settingProblem, settingRow, type OrgSettingsChange } from '../meta/orgSettings.js';
import type { MetaStore, Org } from '../meta/types.js';

/**
 * The admin API of org settings, for the operator who runs the installation: only the system
 * key (SVC_MCP_API_KEY) reaches it, as org keys must not raise their own limits. GET answers
 * every value in force with its source; PATCH changes the named settings (null returns one to
 * its default); PUT replaces the org's own values with the body's (settings it leaves out
 * return to their defaults). The metadata store notifies the running server, which applies a
 * change from the next request on.
 */

export interface OrgSettingsRouteDeps {
  store: MetaStore;
  /** config gives the service defaults a setting falls back on. */
  config: Config;
}

const PATH = '/api/admin/orgs/:orgId/settings';

export function orgSettingsRoutes(deps: OrgSettingsRouteDeps): RouteSpec[] {
  const answer = (ctx: RequestContext, org: Org): void => {
    ctx.res.json(200, { orgId: org.id, name: org.name, settings: resolveSettings(org, deps.config) });
  };
  const write = async (ctx: RequestContext, replace: boolean): Promise<void> => {
    const change = readChange(ctx);
    const org = await requireOrg(ctx, deps.store);
    if (replace) for (const row of ORG_SETTINGS) if (!(row.name in change)) change[row.name] = null;
    const updated = await deps.store.updateOrgSettings(org.id, change);
    if (updated === undefined) throw new ApiError('NOT_FOUND', `org ${org.id} does not exist`);
    answer(ctx, updated);
  };
  return [
    { method: 'GET', path: PATH, auth: 'key', handler: async (ctx) => answer(ctx, await requireOrg(ctx, deps.store)) },
    { method: 'PATCH', path: PATH, auth: 'key', body: 'json', handler: (ctx) => write(ctx, false) },
    { method: 'PUT', path: PATH, auth: 'key', body: 'json', handler: (ctx) => write(ctx, true) },
  ];
}

/** requireSystemKey admits the system key only: an org key must not raise its own org's limits. */
function requireSystemKey(ctx: RequestContext): void {
  if (ctx.principal?.kind !== 'system') {
    throw new ApiError('FORBIDDEN', 'org settings are reached with the system key (SVC_MCP_API_KEY); an org API key cannot reach them');
  }
}

/** requireOrg admits the system key only, then finds the org of the path. */
async function requireOrg(ctx: RequestContext, store: MetaStore): Promise<Org> {
  requireSystemKey(ctx);
  const org = await store.getOrg(ctx.params.orgId.toLowerCase());
  if (org === undefined) throw new ApiError('NOT_FOUND', `org ${ctx.params.orgId} does not exist`);
  return org;
}

/**
 * readChange reads a body of settings by name. Every problem is reported at once, with the
 * setting it concerns, so an operator fixes a request in one go. Null unsets a setting (in a PUT,
 * leaving it out does the same).
 */
function readChange(ctx: RequestContext): OrgSettingsChange {
  requireSystemKey(ctx);
  const body = parseJsonBody(ctx.body!);
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw new ApiError('BAD_REQUEST', 'the body must be a JSON object of settings by name');
  const change: OrgSettingsChange = {};
  const problems: string[] = [];
  for (const [name, value] of Object.entries(body as Record<string, unknown>)) {
    const row = settingRow(name);
    if (row === undefined) {
      problems.push(`unknown setting ${JSON.stringify(name)}`);
      continue;
    }
    if (value === null) {
      change[row.name as keyof OrgSettingsChange] = null;
      continue;
    }
    // A switch may be written as JSON true/false; it is stored, and answered, as 1 or 0.
    const given = row.unit === 'switch' && typeof value === 'boolean' ? Number(value) : value;
    const problem = settingProblem(row, given);
    if (problem !== undefined) problems.push(problem);
    else change[row.name as keyof OrgSettingsChange] = given as number;
  }
  if (problems.length > 0) {
    throw new ApiError('VALIDATION_FAILED', problems.join('; '), { details: { problems, settings: ORG_SETTINGS.map((r) => r.name) } });
  }
  return change;
}
