import { parse } from 'yaml';
import { ToolError } from '../../driver.js';

/**
 * Clusters of a kubeconfig as the kube driver names them. Each kubeconfig context is one
 * cluster the caller may pick with the `X-Kube-Cluster` header, by its slug. This module only
 * reads the YAML (no Kubernetes client), so the cluster list and the header check stay cheap
 * and synchronous: the table driver's guard runs them before every call.
 */

/** CLUSTER_HEADER is the request header (lowercased, as CallContext.headers holds it) that picks a cluster. */
export const CLUSTER_HEADER = 'x-kube-cluster';

/** ClusterEntry is one kubeconfig context, addressable by slug. */
export interface ClusterEntry {
  slug: string;
  /** context is the kubeconfig context name the slug was made from. */
  context: string;
  /** server is the API server URL of the context's cluster; empty when the cluster entry is missing. */
  server: string;
  /** namespace is where namespaced calls go when the caller names none: the context's, else "default". */
  namespace: string;
}

/** Kubeconfig is a parsed kubeconfig: its source text (for the Kubernetes client) and its clusters. */
export interface Kubeconfig {
  text: string;
  clusters: ClusterEntry[];
}

/**
 * clusterSlug turns a context name into the header value that selects it. Context names are
 * often ARNs or `user@cluster` strings, which do not survive headers and URLs well, so the slug
 * keeps only lowercase letters, digits and dashes.
 */
export function clusterSlug(contextName: string): string {
  return contextName.toLowerCase().replace(/[^a-z0-9-]/g, '-');
}

/** User fields that make the gateway run a program or read a file of its own host. */
const HOST_USER_FIELDS = ['exec', 'auth-provider', 'token-file', 'tokenFile', 'client-certificate', 'client-key'];
/** Cluster fields that make the gateway read a file of its own host. */
const HOST_CLUSTER_FIELDS = ['certificate-authority'];

/**
 * parseKubeconfig reads a kubeconfig document. `trusted` is false for kubeconfigs stored in an
 * org's integration record: those may carry only inline credentials, because an exec plugin or
 * a file path in them would run a command or read a file on the gateway host on behalf of
 * whoever wrote the record. The operator's own default kubeconfig is trusted and may use both.
 */
export function parseKubeconfig(text: string, trusted: boolean): Kubeconfig {
  let doc: unknown;
  try {
    doc = parse(text);
  } catch (err) {
    throw new ToolError(`the kube integration's kubeconfig is not valid YAML (${(err as Error).message}); an operator must store a valid kubeconfig`);
  }
  if (!isRecord(doc)) throw new ToolError('the kube integration\'s kubeconfig is not a YAML mapping; an operator must store a valid kubeconfig');
  const clusters = namedEntries(doc.clusters, 'cluster');
  const users = namedEntries(doc.users, 'user');
  const contexts = namedEntries(doc.contexts, 'context');
  if (!trusted) {
    for (const [name, user] of users) {
      const field = HOST_USER_FIELDS.find((f) => user[f] !== undefined && user[f] !== null);
      if (field) {
        throw new ToolError(
          `the kube integration's kubeconfig user "${name}" uses "${field}", which would run or read something on the gateway host; ` +
            'a stored kubeconfig may carry only inline credentials (token, client-certificate-data and client-key-data, or username and password). ' +
            'An operator must store a kubeconfig with a service-account token instead',
        );
      }
    }
    for (const [name, cluster] of clusters) {
      const field = HOST_CLUSTER_FIELDS.find((f) => cluster[f] !== undefined && cluster[f] !== null);
      if (field) {
        throw new ToolError(
          `the kube integration's kubeconfig cluster "${name}" uses "${field}" (a file path on the gateway host); use certificate-authority-data instead`,
        );
      }
    }
  }
  const taken = new Set<string>();
  const entries: ClusterEntry[] = [];
  for (const [name, context] of contexts) {
    // Two context names can fold to one slug ("a.b", "a_b"); later ones get a numeric suffix
    // so every context stays reachable, in kubeconfig order.
    const base = clusterSlug(name);
    let slug = base;
    for (let n = 2; taken.has(slug); n++) slug = `${base}-${n}`;
    taken.add(slug);
    const clusterName = typeof context.cluster === 'string' ? context.cluster : '';
    const server = clusters.get(clusterName)?.server;
    const namespace = typeof context.namespace === 'string' && context.namespace !== '' ? context.namespace : 'default';
    entries.push({ slug, context: name, server: typeof server === 'string' ? server : '', namespace });
  }
  return { text, clusters: entries };
}

/**
 * selectCluster picks the cluster the request's `X-Kube-Cluster` header names. The header is
 * matched after slugging, so a caller that sends the context name itself is understood too.
 */
export function selectCluster(config: Kubeconfig, headers: Record<string, string>): ClusterEntry {
  const wanted = headerValue(headers);
  const slugs = config.clusters.map((c) => c.slug);
  if (wanted === undefined) {
    throw new ToolError(
      `missing cluster credentials: this tool needs a cluster; send the header X-Kube-Cluster with one of the cluster slugs: ${slugList(slugs)} (list_clusters describes them)`,
    );
  }
  const found = config.clusters.find((c) => c.slug === wanted) ?? config.clusters.find((c) => c.slug === clusterSlug(wanted));
  if (!found) throw new ToolError(`unknown cluster "${wanted}" in the X-Kube-Cluster header; valid cluster slugs: ${slugList(slugs)}`);
  return found;
}

/** headerValue is the trimmed `X-Kube-Cluster` header, undefined when absent or blank. */
export function headerValue(headers: Record<string, string>): string | undefined {
  const raw = headers[CLUSTER_HEADER]?.trim();
  return raw ? raw : undefined;
}

function slugList(slugs: string[]): string {
  return slugs.length > 0 ? slugs.join(', ') : '(none: the kubeconfig defines no contexts)';
}

/** namedEntries reads a kubeconfig list (`- name: x\n  cluster: {...}`) into name → body. */
function namedEntries(list: unknown, field: string): Map<string, Record<string, unknown>> {
  const out = new Map<string, Record<string, unknown>>();
  if (!Array.isArray(list)) return out;
  for (const item of list) {
    if (!isRecord(item) || typeof item.name !== 'string' || item.name === '') continue;
    out.set(item.name, isRecord(item[field]) ? item[field] : {});
  }
  return out;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
