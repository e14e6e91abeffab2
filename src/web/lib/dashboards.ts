import type { DashboardSpec } from '../../dashboards/types.js';
import type { DashboardIssue, DashboardValidation } from '../../dashboards/issues.js';
import { call } from './api.js';
import { takeEarlyDashboard } from './early.js';

export type { DashboardIssue, DashboardValidation };

/** DashboardSummary is one entry of the dashboards listing (without its spec). */
export interface DashboardSummary {
  id: string;
  name: string;
  category: string;
  version: number;
  createdAt?: string;
  updatedAt?: string;
}

/** DashboardRecord is a stored dashboard with its spec, as reading one answers it. */
export interface DashboardRecord extends DashboardSummary {
  spec: DashboardSpec;
}

const base = (org: string): string => `/api/orgs/${encodeURIComponent(org)}/dashboards`;

export const dashboards = {
  /** list reads every page of the org's dashboards (the API serves at most 500 at a time). */
  list: async (org: string): Promise<{ items: DashboardSummary[] }> => {
    const items: DashboardSummary[] = [];
    let offset: number | undefined = 0;
    while (offset !== undefined) {
      const page: { items: DashboardSummary[]; nextOffset?: number } = await call(`${base(org)}?limit=500&offset=${offset}`);
      items.push(...page.items);
      offset = page.nextOffset;
    }
    return { items };
  },
  get: (org: string, id: string) => call<DashboardRecord>(`${base(org)}/${encodeURIComponent(id)}`),
  /** open reads a dashboard for the view, taking the answer index.html asked for early. */
  open: async (org: string, id: string) => (await takeEarlyDashboard<DashboardRecord>(id)) ?? dashboards.get(org, id),
  create: (org: string, spec: unknown, name: string, id?: string) => {
    const params = new URLSearchParams({ name });
    if (id) params.set('id', id);
    return call<DashboardRecord>(`${base(org)}?${params}`, { method: 'POST', body: spec });
  },
  /**
   * replace stores a new spec (and name) only if the dashboard is still at `version`: If-Match
   * makes a concurrent edit answer 412 instead of being overwritten.
   */
  replace: (org: string, id: string, spec: unknown, options: { version?: number; name?: string } = {}) => {
    const params = new URLSearchParams();
    if (options.name) params.set('name', options.name);
    const qs = params.toString();
    return call<DashboardRecord>(`${base(org)}/${encodeURIComponent(id)}${qs === '' ? '' : `?${qs}`}`, {
      method: 'PUT',
      body: spec,
      headers: options.version === undefined ? {} : { 'if-match': `"${options.version}"` },
    });
  },
  remove: (org: string, id: string) => call<void>(`${base(org)}/${encodeURIComponent(id)}`, { method: 'DELETE' }),
  validate: (org: string, spec: unknown) => call<DashboardValidation>(`${base(org)}/validate?mode=create`, { method: 'POST', body: spec }),
};

/** withoutLibraryRef drops the gallery link, which the spec says an imported spec must not carry. */
export function withoutLibraryRef(spec: unknown): unknown {
  if (spec === null || typeof spec !== 'object' || Array.isArray(spec)) return spec;
  const { libraryRef: _dropped, ...rest } = spec as Record<string, unknown>;
  return rest;
}

/**
 * CUSTOM_CATEGORY is where the Dashboards page lists a dashboard without a category. The spec
 * fixes no list of categories, so every category a spec names is known and gets its own heading.
 */
export const CUSTOM_CATEGORY = 'Custom';

export function emptySpec(): DashboardSpec {
  return { schemaVersion: 2, duration: '1h', panels: {}, sections: [{ title: 'Panels', cells: [] }] } as DashboardSpec;
}
