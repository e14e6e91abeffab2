import { ApiError } from '../errors.js';
import type { DashboardListQuery } from '../meta/types.js';

/**
 * Reading the parts of a dashboard request that are not the spec: ids, names and listing
 * parameters. Each failure is a 400 that says what a valid value looks like.
 */

/** DASHBOARD_ID is the form of a caller-chosen id: safe in a URL path without escaping. */
const DASHBOARD_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/;

/** RESERVED_IDS are path segments under /dashboards that name endpoints, not dashboards. */
const RESERVED_IDS: ReadonlySet<string> = new Set(['validate']);

export const MAX_NAME_LENGTH = 200;
export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 500;

/** requireDashboardId checks a caller-chosen id. */
export function requireDashboardId(id: string): string {
  if (!DASHBOARD_ID.test(id)) {
    throw new ApiError(
      'BAD_REQUEST',
      `invalid dashboard id ${JSON.stringify(id)}: use 1-128 letters, digits, _ and -, starting with a letter or digit`,
    );
  }
  if (RESERVED_IDS.has(id)) throw new ApiError('BAD_REQUEST', `"${id}" is reserved and cannot be a dashboard id`);
  return id;
}

/** readName returns the trimmed `name` parameter, undefined when absent. */
export function readName(query: URLSearchParams): string | undefined {
  const raw = query.get('name');
  if (raw === null) return undefined;
  const name = raw.trim();
  if (name === '') throw new ApiError('BAD_REQUEST', 'the name parameter must not be empty');
  if (name.length > MAX_NAME_LENGTH) throw new ApiError('BAD_REQUEST', `the name is longer than ${MAX_NAME_LENGTH} characters`);
  return name;
}

/**
 * defaultName names a dashboard created without `name`: the spec has no field for a name, so a
 * caller-chosen id (already a readable slug such as service-overview) serves as the name, and
 * a generated one gives "Untitled dashboard" and the first eight characters of the id, enough
 * to tell several apart in a listing until someone renames them.
 */
export function defaultName(id: string, chosen: boolean): string {
  return chosen ? id : `Untitled dashboard ${id.slice(0, 8)}`;
}

function readCount(query: URLSearchParams, key: string, fallback: number, min: number, max: number): number {
  const raw = query.get(key);
  if (raw === null || raw === '') return fallback;
  if (!/^[0-9]+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw new ApiError('BAD_REQUEST', `${key} must be a whole number from ${min} to ${max}, not ${JSON.stringify(raw)}`);
  }
  return Number(raw);
}

/** readListQuery reads `name`, `category`, `limit` and `offset` of a listing. */
export function readListQuery(query: URLSearchParams): DashboardListQuery {
  const out: DashboardListQuery = {
    limit: readCount(query, 'limit', DEFAULT_PAGE_SIZE, 1, MAX_PAGE_SIZE),
    offset: readCount(query, 'offset', 0, 0, Number.MAX_SAFE_INTEGER),
  };
  const name = query.get('name')?.trim();
  if (name) out.name = name;
  const category = query.get('category')?.trim();
  if (category) out.category = category;
  return out;
}

/** readMode reads the validate endpoint's `mode`: which write the spec is checked for. */
export function readMode(query: URLSearchParams): 'create' | 'replace' {
  const mode = query.get('mode') ?? 'create';
  if (mode !== 'create' && mode !== 'replace') {
    throw new ApiError('BAD_REQUEST', `mode must be create or replace, not ${JSON.stringify(mode)}`);
  }
  return mode;
}
