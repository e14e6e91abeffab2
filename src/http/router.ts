import type { Logger } from 'pino';
import type { Principal } from '../auth/keyIndex.js';
import type { Responder } from './responder.js';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH';

/**
 * RequestContext is everything a handler may use. uWS request objects die when the handler
 * returns, so the front copies what handlers need (method, path, headers, query) up front.
 */
export interface RequestContext {
  method: string;
  path: string;
  /** query is the raw query string, without the `?`. */
  query: URLSearchParams;
  headers: Record<string, string>;
  params: Record<string, string>;
  queryId: string;
  log: Logger;
  res: Responder;
  /** principal is set on authenticated routes. */
  principal: Principal | undefined;
  /** body is the raw request body on routes that declare one. */
  body: Buffer | undefined;
  /** shutdown aborts when the server stops and can wait no longer for long responses (streams). */
  shutdown: AbortSignal;
}

export type Handler = (ctx: RequestContext) => void | Promise<void>;

export interface RouteSpec {
  method: HttpMethod;
  /** path is a pattern: `/api/orgs/:orgId/dashboards/:id`. */
  path: string;
  /** auth: 'none' for probes, 'key' for everything that touches data. */
  auth: 'none' | 'key';
  /** body: whether to read the request body, and whether it must be JSON. */
  body?: 'json' | 'raw';
  /**
   * maxBodyBytes replaces the server-wide body limit for this route: dashboard specs are checked
   * in memory as a whole, so they get a limit of their own, far below what ingest needs.
   */
  maxBodyBytes?: number;
  /** queryKey lets the `apiKey` query parameter authenticate (tool gateway routes only). */
  queryKey?: boolean;
  /**
   * head lets a GET route answer HEAD too, with the GET's status and headers and no body
   * (RFC 9110, section 9.3.2). Only routes whose handlers send whole responses opt in: a
   * stream has no length to report.
   */
  head?: boolean;
  handler: Handler;
}

export interface RouteMatch {
  route: RouteSpec;
  params: Record<string, string>;
}

export type RouteResult =
  | { kind: 'found'; match: RouteMatch }
  | { kind: 'method-not-allowed'; allowed: Array<HttpMethod | 'HEAD'>; pattern: string }
  | { kind: 'not-found' };

interface PatternEntry {
  segments: string[];
  routes: Map<string, RouteSpec>;
}

/**
 * Router matches a method and path against the route table. It is our own rather than uWS'
 * so that a known path with the wrong method answers 405 with an Allow header and an unknown
 * path answers 404, both in the spec's JSON error shape.
 */
export class Router {
  private readonly exact = new Map<string, Map<string, RouteSpec>>();
  private readonly patterns: PatternEntry[] = [];

  add(route: RouteSpec): void {
    const methods = this.methodsFor(route.path);
    if (methods.has(route.method)) throw new Error(`duplicate route ${route.method} ${route.path}`);
    methods.set(route.method, route);
  }

  private methodsFor(path: string): Map<string, RouteSpec> {
    if (!path.includes('/:')) {
      let methods = this.exact.get(path);
      if (!methods) this.exact.set(path, (methods = new Map()));
      return methods;
    }
    const segments = path.split('/');
    let entry = this.patterns.find((p) => p.segments.join('/') === path);
    if (!entry) this.patterns.push((entry = { segments, routes: new Map() }));
    return entry.routes;
  }

  match(method: string, path: string): RouteResult {
    const normalized = path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
    const exact = this.exact.get(normalized);
    if (exact) return pick(exact, method, {}, normalized);
    const parts = normalized.split('/');
    for (const entry of this.patterns) {
      const params = matchSegments(entry.segments, parts);
      if (params) return pick(entry.routes, method, params, entry.segments.join('/'));
    }
    return { kind: 'not-found' };
  }

  /** routes lists every registered route, for documentation and the metrics route label. */
  routes(): RouteSpec[] {
    return [...this.exact.values(), ...this.patterns.map((p) => p.routes)].flatMap((m) => [...m.values()]);
  }
}

/** pick chooses the route for `method` among those of one path; `pattern` names the path in metrics. */
function pick(methods: Map<string, RouteSpec>, method: string, params: Record<string, string>, pattern: string): RouteResult {
  const route = methods.get(method);
  if (route) return { kind: 'found', match: { route, params } };
  const get = methods.get('GET');
  if (method === 'HEAD' && get?.head === true) return { kind: 'found', match: { route: get, params } };
  const allowed: Array<HttpMethod | 'HEAD'> = [...methods.keys()] as HttpMethod[];
  if (get?.head === true) allowed.push('HEAD');
  return { kind: 'method-not-allowed', allowed, pattern };
}

function matchSegments(pattern: string[], parts: string[]): Record<string, string> | undefined {
  if (pattern.length !== parts.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < pattern.length; i++) {
    const seg = pattern[i];
    if (seg.startsWith(':')) {
      if (parts[i] === '') return undefined;
      try {
        params[seg.slice(1)] = decodeURIComponent(parts[i]);
      } catch {
        return undefined;
      }
    } else if (seg !== parts[i]) {
      return undefined;
    }
  }
  return params;
}
