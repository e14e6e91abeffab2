import { ToolError } from '../../driver.js';
import { KubeApiError, type KubeClient } from './client.js';

/**
 * API discovery: which kinds a cluster serves, under which group/version and plural, with
 * which short names. Tools take the kind as an agent writes it (`Deployment`, `deployments`,
 * `deploy`, `certificates.cert-manager.io`) and discovery turns it into a URL path, the way
 * kubectl does. Clusters with many CRDs serve a hundred API groups or more, so discovery walks
 * a bounded number of groups, a few at a time, and remembers answers for a few minutes.
 */

/** ApiResource is one listable kind of a cluster (subresources such as pods/log are left out). */
export interface ApiResource {
  kind: string;
  /** name is the plural resource name used in URLs: `deployments`. */
  name: string;
  singularName: string;
  /** group is "" for the core API. */
  group: string;
  version: string;
  /** apiVersion is `v1` for core, `group/version` otherwise. */
  apiVersion: string;
  namespaced: boolean;
  shortNames: string[];
  verbs: string[];
}

/** UnavailableGroup is an API group whose discovery failed (an aggregated API that is down, RBAC...). */
export interface UnavailableGroup {
  groupVersion: string;
  reason: string;
}

/** MAX_GROUPS bounds how many API groups a full discovery reads. */
export const MAX_GROUPS = 100;
/** CONCURRENCY is how many group versions are fetched at once. */
const CONCURRENCY = 8;
/** CACHE_TTL_MS is how long discovery answers are reused; CRDs change rarely. */
const CACHE_TTL_MS = 5 * 60_000;
const CACHE_MAX_ENTRIES = 2_000;

interface RawResourceList {
  groupVersion?: string;
  resources?: Array<{ name?: string; singularName?: string; namespaced?: boolean; kind?: string; verbs?: string[]; shortNames?: string[] }>;
}

interface RawGroupList {
  groups?: Array<{ name?: string; versions?: Array<{ groupVersion?: string; version?: string }>; preferredVersion?: { groupVersion?: string; version?: string } }>;
}

/** GroupRef is one API group with the version discovery reads (the preferred one) and all it serves. */
interface GroupRef {
  name: string;
  preferred: string;
  versions: string[];
}

/**
 * DiscoveryCache remembers discovery documents per cluster. It belongs to one driver instance;
 * keys carry the org and cluster, so orgs never share entries.
 */
export class DiscoveryCache {
  private readonly entries = new Map<string, { at: number; value: unknown }>();

  get<T>(key: string): T | undefined {
    const hit = this.entries.get(key);
    if (!hit) return undefined;
    if (Date.now() - hit.at > CACHE_TTL_MS) {
      this.entries.delete(key);
      return undefined;
    }
    return hit.value as T;
  }

  set(key: string, value: unknown): void {
    this.entries.delete(key);
    this.entries.set(key, { at: Date.now(), value });
    // Maps iterate in insertion order, so the first key is the oldest entry.
    while (this.entries.size > CACHE_MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value as string);
  }
}

/** KindQuery is a kind as written by a caller, split into its parts. */
interface KindQuery {
  text: string;
  name: string;
  group?: string;
  version?: string;
}

export class Discovery {
  constructor(
    private readonly client: KubeClient,
    private readonly cache: DiscoveryCache,
    private readonly cacheKey: string,
  ) {}

  /** core lists the core API's resources (`/api`, then each version it names, in practice v1). */
  async core(): Promise<ApiResource[]> {
    const versions = await this.cached('/api', () => this.client.getJson<{ versions?: string[] }>('/api'));
    const out: ApiResource[] = [];
    for (const version of versions.versions ?? ['v1']) out.push(...(await this.groupVersion('', version, true)));
    return out;
  }

  /** all lists every kind of the core API and of up to MAX_GROUPS groups (or only `group`). */
  async all(group?: string): Promise<{ resources: ApiResource[]; unavailable: UnavailableGroup[]; skippedGroups: number }> {
    const wantCore = group === undefined || group === '' || group === 'core';
    const resources: ApiResource[] = wantCore ? await this.core() : [];
    const unavailable: UnavailableGroup[] = [];
    let groups = wantCore && group !== undefined ? [] : await this.groups();
    if (group !== undefined && !wantCore) {
      groups = groups.filter((g) => g.name === group);
      if (groups.length === 0) throw new ToolError(`cluster "${this.client.cluster.slug}" serves no API group "${group}"; call list_api_resources without a group to see them all`);
    }
    const skippedGroups = Math.max(0, groups.length - MAX_GROUPS);
    const lists = await mapLimit(groups.slice(0, MAX_GROUPS), CONCURRENCY, (g) => this.tryGroup(g, g.preferred, unavailable));
    for (const list of lists) resources.push(...list);
    return { resources, unavailable, skippedGroups };
  }

  /**
   * resolve finds the resource a caller means. The core API wins over groups, then groups in
   * the server's order (built-in groups come first), as kubectl resolves `events` to core v1.
   */
  async resolve(kind: string): Promise<ApiResource> {
    const query = parseKind(kind);
    const unavailable: UnavailableGroup[] = [];
    if (query.group === undefined) {
      const found = (await this.core()).find((r) => matches(r, query));
      if (found) return found;
    }
    const groups = await this.groups();
    let candidates = groups;
    if (query.group !== undefined) {
      candidates = groups.filter((g) => g.name === query.group);
      if (candidates.length === 0) {
        throw new ToolError(`cluster "${this.client.cluster.slug}" serves no API group "${query.group}" (from kind "${kind}"); list_api_resources shows the kinds it serves`);
      }
    }
    const bounded = candidates.slice(0, MAX_GROUPS);
    for (let i = 0; i < bounded.length; i += CONCURRENCY) {
      const batch = bounded.slice(i, i + CONCURRENCY);
      const lists = await Promise.all(batch.map((g) => this.tryGroup(g, query.version ?? g.preferred, unavailable)));
      for (const list of lists) {
        const found = list.find((r) => matches(r, query));
        if (found) return found;
      }
    }
    const notes: string[] = [];
    if (unavailable.length > 0) notes.push(`these API groups did not answer discovery: ${unavailable.map((u) => u.groupVersion).join(', ')}`);
    if (candidates.length > bounded.length) notes.push(`only the first ${MAX_GROUPS} API groups were searched; write the kind as <plural>.<group>, e.g. "certificates.cert-manager.io"`);
    throw new ToolError(
      `unknown kind "${kind}" on cluster "${this.client.cluster.slug}"; use a Kind ("Deployment"), its plural ("deployments"), a short name ("deploy") or <plural>.<group> for custom resources. list_api_resources shows what this cluster serves` +
        (notes.length > 0 ? ` (${notes.join('; ')})` : ''),
    );
  }

  /** groups lists the API groups of `/apis` with their preferred versions. */
  private async groups(): Promise<GroupRef[]> {
    const list = await this.cached('/apis', () => this.client.getJson<RawGroupList>('/apis'));
    const out: GroupRef[] = [];
    for (const g of list.groups ?? []) {
      if (!g.name) continue;
      const versions = (g.versions ?? []).map((v) => v.version).filter((v): v is string => typeof v === 'string');
      const preferred = g.preferredVersion?.version ?? versions[0];
      if (preferred) out.push({ name: g.name, preferred, versions });
    }
    return out;
  }

  /**
   * tryGroup reads one group version, recording it as unavailable instead of failing: a broken
   * aggregated API (metrics-server down is common) must not hide every other kind. Each group
   * gets half the call's time so one hanging group leaves time for the rest.
   */
  private async tryGroup(group: GroupRef, version: string, unavailable: UnavailableGroup[]): Promise<ApiResource[]> {
    try {
      return await this.groupVersion(group.name, version, false);
    } catch (err) {
      if (!(err instanceof KubeApiError) || this.client.bounds.signal.aborted) throw err instanceof KubeApiError ? new ToolError(err.message) : err;
      unavailable.push({ groupVersion: `${group.name}/${version}`, reason: err.message });
      return [];
    }
  }

  private async groupVersion(group: string, version: string, required: boolean): Promise<ApiResource[]> {
    const path = group === '' ? `/api/${version}` : `/apis/${group}/${version}`;
    const fetch = (): Promise<RawResourceList> =>
      required ? this.client.getJson<RawResourceList>(path) : this.client.tryJson<RawResourceList>(path, { timeoutMs: this.client.bounds.timeoutMs / 2 });
    const list = await this.cached(path, fetch);
    const apiVersion = group === '' ? version : `${group}/${version}`;
    const out: ApiResource[] = [];
    for (const r of list.resources ?? []) {
      if (!r.name || !r.kind || r.name.includes('/')) continue;
      out.push({
        kind: r.kind,
        name: r.name,
        singularName: r.singularName || r.kind.toLowerCase(),
        group,
        version,
        apiVersion,
        namespaced: r.namespaced === true,
        shortNames: r.shortNames ?? [],
        verbs: r.verbs ?? [],
      });
    }
    return out;
  }

  private async cached<T>(path: string, load: () => Promise<T>): Promise<T> {
    const key = `${this.cacheKey}\u0000${path}`;
    const hit = this.cache.get<T>(key);
    if (hit !== undefined) return hit;
    const value = await load();
    this.cache.set(key, value);
    return value;
  }
}

/** resourcePath is the URL path of a resource collection or, with `name`, of one object. */
export function resourcePath(resource: ApiResource, namespace: string | undefined, name?: string): string {
  const root = resource.group === '' ? `/api/${resource.version}` : `/apis/${resource.group}/${resource.version}`;
  const scope = resource.namespaced && namespace !== undefined ? `/namespaces/${encodeURIComponent(namespace)}` : '';
  return `${root}${scope}/${resource.name}${name !== undefined ? `/${encodeURIComponent(name)}` : ''}`;
}

const VERSION = /^v\d+((alpha|beta)\d+)?$/;

/** parseKind splits `deployments.apps` or `deployments.v1.apps` into plural, version and group. */
function parseKind(kind: string): KindQuery {
  const text = kind.trim().toLowerCase();
  const dot = text.indexOf('.');
  if (dot < 0) return { text, name: text };
  const name = text.slice(0, dot);
  const rest = text.slice(dot + 1).split('.');
  if (rest.length > 1 && VERSION.test(rest[0]!)) return { text, name, version: rest[0], group: rest.slice(1).join('.') };
  return { text, name, group: rest.join('.') };
}

function matches(r: ApiResource, q: KindQuery): boolean {
  return r.name === q.name || r.singularName === q.name || r.kind.toLowerCase() === q.name || r.shortNames.includes(q.name);
}

/** mapLimit maps with at most `limit` calls in flight, keeping the input order. */
async function mapLimit<T, R>(items: T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}
