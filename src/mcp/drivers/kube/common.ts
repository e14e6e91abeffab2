import type { ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import type { ClusterEntry } from './clusters.js';
import type { ApiResource } from './discovery.js';

/** Pieces every kube tool shares: annotations, argument schemas, namespace scoping. */

/** ANNOTATIONS: every kube tool only reads, and it reads a system outside the gateway. */
export const ANNOTATIONS: ToolAnnotations = { readOnlyHint: true, openWorldHint: true };

export const KIND_ARG = {
  type: 'string',
  minLength: 1,
  description:
    'What to look at: a Kind ("Deployment"), its plural ("deployments"), a short name ("deploy", "po", "svc") or <plural>.<group> for custom resources ("certificates.cert-manager.io").',
};

export const NAMESPACE_ARG = {
  type: 'string',
  minLength: 1,
  description: 'Namespace to look in; defaults to the cluster context\'s namespace (list_clusters shows it). Ignored for cluster-scoped kinds such as nodes. "*" means all namespaces.',
};

export const ALL_NAMESPACES_ARG = { type: 'boolean', default: false, description: 'Look in every namespace (like kubectl -A); overrides namespace.' };

/** CLUSTER_OUT is the cluster slug every answer carries, so an agent can tell answers of several clusters apart. */
export const CLUSTER_OUT = { type: 'string', description: 'Slug of the cluster that answered.' };

/** Scope is where a request looks: one namespace, every namespace, or the cluster (cluster-scoped kinds). */
export interface Scope {
  kind: 'namespace' | 'all-namespaces' | 'cluster';
  /** namespace is set for the `namespace` scope only. */
  namespace?: string;
  /** label describes the scope in answer text: `in namespace "shop"`. */
  label: string;
}

/** scopeOf reads the namespace arguments for a kind (undefined resource means a namespaced one). */
export function scopeOf(args: Record<string, unknown>, cluster: ClusterEntry, resource?: ApiResource): Scope {
  if (resource && !resource.namespaced) return { kind: 'cluster', label: 'cluster-wide' };
  if (args.allNamespaces === true || args.namespace === '*') return { kind: 'all-namespaces', label: 'in all namespaces' };
  const namespace = typeof args.namespace === 'string' ? args.namespace : cluster.namespace;
  return { kind: 'namespace', namespace, label: `in namespace "${namespace}"` };
}

/** clamp applies a hard cap to a count argument and says when it did. */
export function clamp(value: unknown, fallback: number, cap: number): { value: number; note?: string } {
  const wanted = typeof value === 'number' ? value : fallback;
  if (wanted <= cap) return { value: wanted };
  return { value: cap, note: `${wanted} was lowered to the maximum of ${cap}` };
}

/** str reads an optional string argument, treating "" as absent. */
export function str(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}
