import type { DashboardSpec } from '../../dashboards/types.js';
import type { DashboardIssue, DashboardValidation } from '../../dashboards/issues.js';
import { call } from './api.js';

export type { DashboardIssue, DashboardValidation };

/** DashboardRecord is a stored dashboard as the dashboards API answers it. */
export interface DashboardRecord {
  id: string;
  name: string;
  category: string;
  version: number;
  spec: DashboardSpec;
  createdAt?: string;
  updatedAt?: string;
}

const base = (org: string): string => `/api/orgs/${encodeURIComponent(org)}/dashboards`;

export const dashboards = {
  list: (org: string) => call<{ items: DashboardRecord[]; total: number }>(`${base(org)}?limit=1000`),
  get: (org: string, id: string) => call<DashboardRecord>(`${base(org)}/${encodeURIComponent(id)}`),
  create: (org: string, spec: unknown, name: string, id?: string) => {
    const params = new URLSearchParams({ name });
    if (id) params.set('id', id);
    return call<DashboardRecord>(`${base(org)}?${params}`, { method: 'POST', body: spec });
  },
  replace: (org: string, id: string, spec: unknown) => call<DashboardRecord>(`${base(org)}/${encodeURIComponent(id)}`, { method: 'PUT', body: spec }),
  remove: (org: string, id: string) => call<void>(`${base(org)}/${encodeURIComponent(id)}`, { method: 'DELETE' }),
  validate: (org: string, spec: unknown) => call<DashboardValidation>(`${base(org)}/validate?mode=create`, { method: 'POST', body: spec }),
};

/** withoutLibraryRef drops the gallery link, which the spec says an imported spec must not carry. */
export function withoutLibraryRef(spec: unknown): unknown {
  if (spec === null || typeof spec !== 'object' || Array.isArray(spec)) return spec;
  const { libraryRef: _dropped, ...rest } = spec as Record<string, unknown>;
  return rest;
}

/** KNOWN_CATEGORIES are where the Dashboards page lists dashboards; anything else is Custom. */
export const CUSTOM_CATEGORY = 'Custom';

export function emptySpec(): DashboardSpec {
  return { schemaVersion: 2, duration: '1h', panels: {}, sections: [{ title: 'Panels', cells: [] }] } as DashboardSpec;
}
