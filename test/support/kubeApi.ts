import { readFileSync, existsSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { stringify } from 'yaml';

/**
 * A stand-in Kubernetes API server for tests: node:http on loopback, answering read requests
 * from recorded responses in test/fixtures/kube (discovery documents, a pod list, deployments,
 * a secret, events, nodes, pod logs). It behaves like a real API server where the kube tools
 * depend on it: bearer-token checks, Status bodies for errors, namespaced and all-namespace
 * lists, label and field selectors, limit/continue paging, and the log endpoint's container,
 * tailLines and previous rules. Tests can override any path to fail, hang or answer otherwise.
 */

export const KUBE_FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'kube');

/** STAND_IN_TOKEN is the bearer token the stand-in accepts unless told another. */
export const STAND_IN_TOKEN = 'sluice-test-token-5f2c9a';

export interface RecordedRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  authorization: string | undefined;
}

/** Handler answers one request instead of the fixtures; it may also never answer (a hang). */
export type Handler = (req: http.IncomingMessage, res: http.ServerResponse, url: URL) => void;

export interface KubeContextSpec {
  /** name is the kubeconfig context name; the kube driver's slug is made from it. */
  name: string;
  namespace?: string;
  /** token defaults to the one the stand-in accepts; another one makes the cluster answer 401. */
  token?: string;
  /** server defaults to the stand-in's URL. */
  server?: string;
}

export interface KubeApiStandIn {
  url: string;
  token: string;
  /** requests lists every request received, oldest first. */
  requests: RecordedRequest[];
  /** kubeconfig renders a kubeconfig whose contexts all point at the stand-in. */
  kubeconfig(contexts?: KubeContextSpec[]): string;
  /** override answers requests for a path (exact string, or a pattern on the path) with `handler`. */
  override(pathname: string | RegExp, handler: Handler): void;
  /** hang makes requests for a path never answer, like an API server that stopped responding. */
  hang(pathname: string | RegExp): void;
  /** setLog replaces the log text a container serves. */
  setLog(namespace: string, pod: string, container: string, text: string, previous?: boolean): void;
  /** reset drops overrides, custom logs and the request record. */
  reset(): void;
  close(): Promise<void>;
}

/** DEFAULT_CONTEXTS are two clusters, `prod-eu` (namespace shop) and `staging-us`, both served by the stand-in. */
export const DEFAULT_CONTEXTS: KubeContextSpec[] = [
  { name: 'prod-eu', namespace: 'shop' },
  { name: 'Staging.US', namespace: 'default' },
];

/** fixture reads one fixture file as JSON. */
export function fixture<T = any>(name: string): T {
  return JSON.parse(readFileSync(path.join(KUBE_FIXTURES, name), 'utf8')) as T;
}

/** status is a Kubernetes Status body, as the API server sends with every error. */
export function status(code: number, reason: string, message: string, details?: Record<string, unknown>): Record<string, unknown> {
  const body: Record<string, unknown> = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason };
  if (details) body.details = details;
  body.code = code;
  return body;
}

/** DISCOVERY maps discovery paths to their recorded documents. */
const DISCOVERY: Record<string, string> = {
  '/api': 'api.json',
  '/apis': 'apis.json',
  '/api/v1': 'api-v1.json',
  '/apis/apps/v1': 'apis-apps-v1.json',
  '/apis/batch/v1': 'apis-batch-v1.json',
};

/** COLLECTIONS maps `groupVersionPath/resource` to a recorded list; other known resources list empty. */
const COLLECTIONS: Record<string, string> = {
  '/api/v1/pods': 'pods.json',
  '/api/v1/events': 'events.json',
  '/api/v1/secrets': 'secrets.json',
  '/api/v1/nodes': 'nodes.json',
  '/apis/apps/v1/deployments': 'deployments.json',
};

interface ResourceInfo {
  kind: string;
  apiVersion: string;
  namespaced: boolean;
}

type Obj = Record<string, any>;

export async function startKubeApi(options: { token?: string } = {}): Promise<KubeApiStandIn> {
  const token = options.token ?? STAND_IN_TOKEN;
  const requests: RecordedRequest[] = [];
  let overrides: Array<{ match: string | RegExp; handler: Handler }> = [];
  let logs = new Map<string, string>();

  const resources = new Map<string, ResourceInfo>();
  for (const [docPath, file] of Object.entries(DISCOVERY)) {
    const doc = fixture(file);
    if (!Array.isArray(doc.resources)) continue;
    for (const r of doc.resources) if (!r.name.includes('/')) resources.set(`${docPath}/${r.name}`, { kind: r.kind, apiVersion: doc.groupVersion, namespaced: r.namespaced });
  }
  const stored = new Map<string, Obj[]>();
  for (const [key, file] of Object.entries(COLLECTIONS)) stored.set(key, fixture(file).items);

  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://stand-in');
    requests.push({ method: req.method ?? 'GET', path: url.pathname, query: Object.fromEntries(url.searchParams), authorization: req.headers.authorization });
    if (req.headers.authorization !== `Bearer ${token}`) return json(res, 401, status(401, 'Unauthorized', 'Unauthorized'));
    const override = overrides.find((o) => (typeof o.match === 'string' ? o.match === url.pathname : o.match.test(url.pathname)));
    if (override) return override.handler(req, res, url);
    if (req.method !== 'GET') return json(res, 405, status(405, 'MethodNotAllowed', `the server does not allow this method on the requested resource`));
    route(url, res);
  });

  function route(url: URL, res: http.ServerResponse): void {
    const p = url.pathname.replace(/\/+$/, '') || '/';
    const discovery = DISCOVERY[p];
    if (discovery) return json(res, 200, fixture(discovery));
    if (p.startsWith('/apis/metrics.k8s.io/')) {
      // Aggregated APIs whose backing service is down answer like this; clusters often have one.
      return json(res, 503, status(503, 'ServiceUnavailable', 'the server is currently unable to handle the request'));
    }
    const m = /^(\/api\/v1|\/apis\/[^/]+\/[^/]+)(?:\/namespaces\/([^/]+))?\/([^/]+)(?:\/([^/]+)(?:\/([^/]+))?)?$/.exec(p);
    if (!m) return json(res, 404, status(404, 'NotFound', 'the server could not find the requested resource'));
    const [, root, namespace, resource, name, sub] = m.map((s) => (s === undefined ? undefined : decodeURIComponent(s)));
    if (root === '/api/v1' && resource === 'namespaces' && namespace === undefined) return namespaces(url, res, name);
    const info = resources.get(`${root}/${resource}`);
    if (!info || (namespace !== undefined && !info.namespaced)) return json(res, 404, status(404, 'NotFound', 'the server could not find the requested resource'));
    const items = (stored.get(`${root}/${resource}`) ?? []).filter((item) => namespace === undefined || item.metadata?.namespace === namespace);
    if (name === undefined) return list(url, res, info, items);
    const item = items.find((i) => i.metadata?.name === name);
    if (!item) {
      const group = root!.startsWith('/apis/') ? root!.split('/')[2] : undefined;
      const what = group ? `${resource}.${group}` : resource;
      return json(res, 404, status(404, 'NotFound', `${what} "${name}" not found`, { name, ...(group ? { group } : {}), kind: resource }));
    }
    if (sub === undefined) return json(res, 200, { kind: info.kind, apiVersion: info.apiVersion, ...item });
    if (resource === 'pods' && sub === 'log') return podLog(url, res, item);
    return json(res, 404, status(404, 'NotFound', 'the server could not find the requested resource'));
  }

  function namespaces(url: URL, res: http.ServerResponse, name: string | undefined): void {
    const names = [...new Set([...stored.values()].flat().map((i) => i.metadata?.namespace).filter((n): n is string => typeof n === 'string'))].sort();
    const items = names.map((n) => ({ metadata: { name: n, uid: `ns-${n}`, resourceVersion: '1', creationTimestamp: '2026-11-01T16:19:55Z', labels: { 'kubernetes.io/metadata.name': n } }, spec: { finalizers: ['kubernetes'] }, status: { phase: 'Active' } }));
    const info = { kind: 'Namespace', apiVersion: 'v1', namespaced: false };
    if (name === undefined) return list(url, res, info, items);
    const item = items.find((i) => i.metadata.name === name);
    if (!item) return json(res, 404, status(404, 'NotFound', `namespaces "${name}" not found`, { name, kind: 'namespaces' }));
    json(res, 200, { kind: 'Namespace', apiVersion: 'v1', ...item });
  }

  function list(url: URL, res: http.ServerResponse, info: ResourceInfo, all: Obj[]): void {
    let items = all;
    try {
      const labels = url.searchParams.get('labelSelector');
      if (labels) items = items.filter(labelMatcher(labels));
      const fields = url.searchParams.get('fieldSelector');
      if (fields) items = items.filter(fieldMatcher(fields));
    } catch (err) {
      return json(res, 400, status(400, 'BadRequest', (err as Error).message));
    }
    const offset = url.searchParams.has('continue') ? Number(JSON.parse(Buffer.from(url.searchParams.get('continue')!, 'base64').toString()).offset) : 0;
    const limit = Number(url.searchParams.get('limit') ?? '0');
    const page = limit > 0 ? items.slice(offset, offset + limit) : items.slice(offset);
    const metadata: Obj = { resourceVersion: '184467' };
    const rest = items.length - offset - page.length;
    if (rest > 0) {
      metadata.continue = Buffer.from(JSON.stringify({ v: 'meta.k8s.io/v1', rv: 184467, offset: offset + page.length })).toString('base64');
      metadata.remainingItemCount = rest;
    }
    json(res, 200, { kind: `${info.kind}List`, apiVersion: info.apiVersion, metadata, items: page });
  }

  function podLog(url: URL, res: http.ServerResponse, pod: Obj): void {
    const name = pod.metadata.name as string;
    const ns = pod.metadata.namespace as string;
    const containers = (pod.spec.containers as Obj[]).map((c) => c.name as string);
    let container = url.searchParams.get('container') ?? undefined;
    if (container === undefined) {
      if (containers.length > 1) return json(res, 400, status(400, 'BadRequest', `a container name must be specified for pod ${name}, choose one of: [${containers.join(' ')}]`));
      container = containers[0];
    }
    if (!containers.includes(container!)) return json(res, 400, status(400, 'BadRequest', `container ${container} is not valid for pod ${name}`));
    const previous = url.searchParams.get('previous') === 'true';
    const state = (pod.status.containerStatuses as Obj[] | undefined)?.find((c) => c.name === container);
    if (previous && !(state?.restartCount > 0)) return json(res, 400, status(400, 'BadRequest', `previous terminated container "${container}" in pod "${name}" not found`));
    const key = logKey(ns, name, container!, previous);
    let text = logs.get(key);
    if (text === undefined) {
      const file = path.join(KUBE_FIXTURES, 'logs', `${key}.txt`);
      text = existsSync(file) ? readFileSync(file, 'utf8') : '';
    }
    const tail = url.searchParams.get('tailLines');
    if (tail !== null) {
      const lines = text.split('\n');
      if (lines.at(-1) === '') lines.pop();
      text = lines.slice(-Number(tail)).map((l) => `${l}\n`).join('');
    }
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end(text);
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url,
    token,
    requests,
    kubeconfig(contexts = DEFAULT_CONTEXTS) {
      return stringify({
        apiVersion: 'v1',
        kind: 'Config',
        clusters: contexts.map((c) => ({
          name: `cluster-${c.name}`,
          // Plain http carries credentials only with this flag set, as the Kubernetes client requires.
          cluster: { server: c.server ?? url, 'insecure-skip-tls-verify': true },
        })),
        users: contexts.map((c) => ({ name: `user-${c.name}`, user: { token: c.token ?? token } })),
        contexts: contexts.map((c) => ({
          name: c.name,
          context: { cluster: `cluster-${c.name}`, user: `user-${c.name}`, ...(c.namespace ? { namespace: c.namespace } : {}) },
        })),
        'current-context': contexts[0]?.name ?? '',
        preferences: {},
      });
    },
    override(pathname, handler) {
      overrides.push({ match: pathname, handler });
    },
    hang(pathname) {
      overrides.push({ match: pathname, handler: () => undefined });
    },
    setLog(namespace, pod, container, text, previous = false) {
      logs.set(logKey(namespace, pod, container, previous), text);
    },
    reset() {
      overrides = [];
      logs = new Map();
      requests.length = 0;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function logKey(namespace: string, pod: string, container: string, previous: boolean): string {
  return `${namespace}.${pod}.${container}${previous ? '.previous' : ''}`;
}

function json(res: http.ServerResponse, code: number, body: unknown): void {
  res.writeHead(code, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

/** labelMatcher implements label selector syntax: =, ==, !=, exists, !exists, in, notin. */
function labelMatcher(selector: string): (item: Obj) => boolean {
  const terms = selector.match(/([^,(]+(\([^)]*\))?)/g) ?? [];
  const tests = terms.map((raw) => {
    const term = raw.trim();
    let m: RegExpExecArray | null;
    if ((m = /^([\w./-]+)\s+(in|notin)\s+\(([^)]*)\)$/.exec(term))) {
      const [, key, op, values] = m;
      const set = values!.split(',').map((v) => v.trim());
      return (l: Obj) => (op === 'in' ? set.includes(l[key!]) : !set.includes(l[key!]));
    }
    if ((m = /^([\w./-]+)\s*(=|==|!=)\s*([\w./-]*)$/.exec(term))) {
      const [, key, op, value] = m;
      return (l: Obj) => (op === '!=' ? l[key!] !== value : l[key!] === value);
    }
    if ((m = /^(!?)([\w./-]+)$/.exec(term))) {
      const [, not, key] = m;
      return (l: Obj) => (not ? !(key! in l) : key! in l);
    }
    throw new Error(`unable to parse requirement: found '${term}', expected: in, notin, =, ==, !=, gt, lt`);
  });
  return (item) => tests.every((t) => t(item.metadata?.labels ?? {}));
}

/** fieldMatcher implements field selector syntax on dotted paths: =, ==, !=. */
function fieldMatcher(selector: string): (item: Obj) => boolean {
  const tests = selector.split(',').map((raw) => {
    const m = /^([\w.]+)\s*(=|==|!=)\s*(.*)$/.exec(raw.trim());
    if (!m) throw new Error(`invalid selector: '${selector}'; can't understand '${raw}'`);
    const [, field, op, value] = m;
    return (item: Obj) => {
      const actual = field!.split('.').reduce<any>((o, k) => (o == null ? undefined : o[k]), item);
      const text = actual == null ? '' : String(actual);
      return op === '!=' ? text !== value : text === value;
    };
  });
  return (item) => tests.every((t) => t(item));
}
