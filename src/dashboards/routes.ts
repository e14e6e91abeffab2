import { randomUUID } from 'node:crypto';
import { requireOrgAccess } from '../auth/orgAccess.js';
import { ApiError } from '../errors.js';
import { parseJsonBody } from '../http/body.js';
import type { RequestContext, RouteSpec } from '../http/router.js';
import { MetaConflictError, MetaNotFoundError, MetaVersionConflictError, type DashboardRecord, type MetaStore } from '../meta/types.js';
import { interlinkTargets, loadDashboardDirectory, type DashboardDirectory } from './interlinks.js';
import type { DashboardIssue, DashboardValidation } from './issues.js';
import { etagOf, parseIfMatch } from './preconditions.js';
import { defaultName, readListQuery, readMode, readName, requireDashboardId } from './requests.js';
import { loadDashboardSchema, type LoadedSchema } from './schema.js';
import { DEFAULT_CATEGORY } from './types.js';
import { createDashboardValidator, type DashboardValidator } from './validate.js';

/**
 * The dashboard endpoints. Everything lives under `/api/orgs/:orgId/dashboards`, and a key
 * reaches only its own org (the system key reaches every org). Writes validate the spec first
 * (schema, then lint), store it with a version, and answer with the version as ETag; a replace
 * or delete carrying a stale If-Match gets 412 with the current version. A body that is not
 * JSON is reported before anything else about the request, so a client learns first that it
 * sent the wrong thing. docs/dashboards.md describes the requests and answers for users.
 */

export interface DashboardRouteDeps {
  store: MetaStore;
  /** schema defaults to `schemas/dashboard.schema.json` under the package root. */
  schema?: LoadedSchema;
  /** maxBodyBytes is the largest spec create, replace and validate read (SVC_DASHBOARD_MAX_BODY_BYTES). */
  maxBodyBytes: number;
}

const BASE = '/api/orgs/:orgId/dashboards';

/** dashboardRoutes builds the routes; the schema file is read here, once, at start-up. */
export function dashboardRoutes(deps: DashboardRouteDeps): RouteSpec[] {
  const schema = deps.schema ?? loadDashboardSchema();
  const validator = createDashboardValidator(schema.schema);
  const handlers = new DashboardHandlers(deps.store, validator);
  const specBody = { auth: 'key', body: 'json', maxBodyBytes: deps.maxBodyBytes } as const;
  return [
    {
      method: 'GET',
      path: '/api/v1/schemas/dashboard.json',
      auth: 'none',
      handler: ({ res }) => res.send(200, schema.bytes, 'application/json'),
    },
    // Registered before `${BASE}/:id` so that `validate` is never taken for a dashboard id.
    { method: 'POST', path: `${BASE}/validate`, ...specBody, handler: (ctx) => handlers.validate(ctx) },
    { method: 'GET', path: BASE, auth: 'key', handler: (ctx) => handlers.list(ctx) },
    { method: 'POST', path: BASE, ...specBody, handler: (ctx) => handlers.create(ctx) },
    { method: 'PUT', path: BASE, ...specBody, handler: (ctx) => handlers.replace(ctx, idFromQuery) },
    { method: 'GET', path: `${BASE}/:id`, auth: 'key', handler: (ctx) => handlers.get(ctx) },
    { method: 'PUT', path: `${BASE}/:id`, ...specBody, handler: (ctx) => handlers.replace(ctx, (c) => c.params.id) },
    { method: 'DELETE', path: `${BASE}/:id`, auth: 'key', handler: (ctx) => handlers.remove(ctx) },
  ];
}

/** idFromQuery serves the spec's `PUT /api/orgs/{orgId}/dashboards` form, which names the dashboard with `?id=`. */
function idFromQuery(ctx: RequestContext): string {
  const id = ctx.query.get('id');
  if (id === null || id === '') {
    throw new ApiError('BAD_REQUEST', 'name the dashboard to replace: PUT /api/orgs/{orgId}/dashboards/{id}, or add ?id={id}');
  }
  return id;
}

/** categoryOf is where a listing shows the dashboard: its category, or Custom when it has none. */
function categoryOf(spec: Record<string, unknown>): string {
  const category = spec.category;
  return typeof category === 'string' && category.trim() !== '' ? category.trim() : DEFAULT_CATEGORY;
}

function asSpec(value: unknown): Record<string, unknown> {
  return value as Record<string, unknown>;
}

function describeFirst(issue: DashboardIssue): string {
  return `${issue.path}: ${issue.message}`;
}

/** rejectInvalid turns a failed validation into a 400 carrying the listed findings and the count of the rest. */
function rejectInvalid(result: DashboardValidation): void {
  if (result.valid) return;
  const n = result.errors.length + (result.truncated?.errors ?? 0);
  const details: Record<string, unknown> = { errors: result.errors, warnings: result.warnings };
  if (result.truncated) details.truncated = result.truncated;
  throw new ApiError('VALIDATION_FAILED', `the dashboard spec has ${n} error${n === 1 ? '' : 's'}; the first is ${describeFirst(result.errors[0])}`, {
    details,
  });
}

/** withWarnings is the answer to a successful write: the stored record, its warnings, and how many more were found. */
function withWarnings(record: DashboardRecord, result: DashboardValidation): Record<string, unknown> {
  const body: Record<string, unknown> = { ...record, warnings: result.warnings };
  if (result.truncated) body.truncated = result.truncated;
  return body;
}

function preconditionFailed(id: string, currentVersion: number): ApiError {
  return new ApiError(
    'PRECONDITION_FAILED',
    `dashboard ${id} has changed: it is at version ${currentVersion}, which your If-Match does not name; fetch it again, reapply your change and retry with If-Match: ${etagOf(currentVersion)}`,
    { headers: { etag: etagOf(currentVersion) }, details: { currentVersion } },
  );
}

function notFound(orgId: string, id: string): ApiError {
  return new ApiError('NOT_FOUND', `org ${orgId} has no dashboard ${JSON.stringify(id)}`);
}

/** DashboardHandlers holds the handlers and what they share: the store and the compiled validator. */
class DashboardHandlers {
  constructor(
    private readonly store: MetaStore,
    private readonly validator: DashboardValidator,
  ) {}

  /** orgOf checks that the caller may act on the path's org: its own key's org, or any existing org with the system key. */
  private orgOf(ctx: RequestContext): Promise<string> {
    return requireOrgAccess(ctx.principal, ctx.params.orgId, this.store, 'dashboards');
  }

  /**
   * expectedVersion reads If-Match into the version the write must find. Several tags are
   * resolved against the current version here; the store's check then makes the write atomic.
   */
  private async expectedVersion(ctx: RequestContext, orgId: string, id: string): Promise<number | undefined> {
    const header = ctx.headers['if-match'];
    if (header === undefined) return undefined;
    const ifMatch = parseIfMatch(header);
    if (ifMatch.any) return undefined;
    if (ifMatch.versions.length === 1) return ifMatch.versions[0];
    const current = await this.store.getDashboard(orgId, id);
    if (!current) throw notFound(orgId, id);
    if (ifMatch.versions.includes(current.version)) return current.version;
    throw preconditionFailed(id, current.version);
  }

  /** directoryFor looks up the spec's interlink targets in the org; `selfId` is the dashboard being written. */
  private directoryFor(spec: unknown, orgId: string, selfId?: string): Promise<DashboardDirectory> {
    return loadDashboardDirectory(this.store, orgId, interlinkTargets(spec), selfId);
  }

  async validate(ctx: RequestContext): Promise<void> {
    const spec = parseJsonBody(ctx.body!);
    const orgId = await this.orgOf(ctx);
    const mode = readMode(ctx.query);
    const dashboards = await this.directoryFor(spec, orgId, ctx.query.get('id') ?? undefined);
    ctx.res.json(200, this.validator.validate(spec, { mode, dashboards }));
  }

  async list(ctx: RequestContext): Promise<void> {
    const orgId = await this.orgOf(ctx);
    const query = readListQuery(ctx.query);
    const page = await this.store.listDashboards(orgId, query);
    const body: Record<string, unknown> = { items: page.items, total: page.total, offset: query.offset, limit: query.limit };
    if (query.offset + page.items.length < page.total) body.nextOffset = query.offset + page.items.length;
    ctx.res.json(200, body);
  }

  async get(ctx: RequestContext): Promise<void> {
    const orgId = await this.orgOf(ctx);
    const id = ctx.params.id;
    const record = await this.store.getDashboard(orgId, id);
    if (!record) throw notFound(orgId, id);
    ctx.res.json(200, record, { etag: etagOf(record.version) });
  }

  async create(ctx: RequestContext): Promise<void> {
    const spec = parseJsonBody(ctx.body!);
    const orgId = await this.orgOf(ctx);
    const requestedId = ctx.query.get('id');
    const id = requestedId === null ? randomUUID() : requireDashboardId(requestedId);
    const name = readName(ctx.query) ?? defaultName(id, requestedId !== null);
    const result = this.validator.validate(spec, { mode: 'create', dashboards: await this.directoryFor(spec, orgId, id) });
    rejectInvalid(result);
    let record: DashboardRecord;
    try {
      record = await this.store.createDashboard({ id, orgId, name, category: categoryOf(asSpec(spec)), spec: asSpec(spec) }, new Date().toISOString());
    } catch (err) {
      if (err instanceof MetaConflictError) throw new ApiError('CONFLICT', `org ${orgId} already has a dashboard with id ${JSON.stringify(id)}`);
      if (err instanceof MetaNotFoundError) throw new ApiError('NOT_FOUND', `org ${orgId} does not exist`);
      throw err;
    }
    ctx.res.json(201, withWarnings(record, result), {
      etag: etagOf(record.version),
      location: `/api/orgs/${encodeURIComponent(orgId)}/dashboards/${encodeURIComponent(id)}`,
    });
  }

  /** replace takes the way to read the id, since the spec's path form carries it in the query. */
  async replace(ctx: RequestContext, idOf: (ctx: RequestContext) => string): Promise<void> {
    const spec = parseJsonBody(ctx.body!);
    const orgId = await this.orgOf(ctx);
    const id = idOf(ctx);
    const name = readName(ctx.query);
    const result = this.validator.validate(spec, { mode: 'replace', dashboards: await this.directoryFor(spec, orgId, id) });
    rejectInvalid(result);
    // The spec says updates drop libraryRef: the stored dashboard is no longer the gallery's.
    const { libraryRef: _dropped, ...stored } = asSpec(spec);
    const expected = await this.expectedVersion(ctx, orgId, id);
    let record: DashboardRecord | undefined;
    try {
      record = await this.store.replaceDashboard(orgId, id, { name, category: categoryOf(stored), spec: stored }, new Date().toISOString(), expected);
    } catch (err) {
      if (err instanceof MetaVersionConflictError) throw preconditionFailed(id, err.currentVersion);
      throw err;
    }
    if (!record) throw notFound(orgId, id);
    ctx.res.json(200, withWarnings(record, result), { etag: etagOf(record.version) });
  }

  async remove(ctx: RequestContext): Promise<void> {
    const orgId = await this.orgOf(ctx);
    const id = ctx.params.id;
    const expected = await this.expectedVersion(ctx, orgId, id);
    let removed: DashboardRecord | undefined;
    try {
      removed = await this.store.deleteDashboard(orgId, id, expected);
    } catch (err) {
      if (err instanceof MetaVersionConflictError) throw preconditionFailed(id, err.currentVersion);
      throw err;
    }
    if (!removed) throw notFound(orgId, id);
    ctx.res.send(204, '', 'text/plain');
  }
}
