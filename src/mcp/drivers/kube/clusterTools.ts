import { textResult, type ToolSpec } from '../../driver.js';
import { ANNOTATIONS, CLUSTER_OUT } from './common.js';
import { clusterSlug, headerValue } from './clusters.js';
import { MAX_GROUPS } from './discovery.js';
import { table } from './rows.js';
import type { KubeRuntime } from './runtime.js';

/** Tools about the clusters themselves: which exist, and what each serves. */

/** listClustersTool works without `X-Kube-Cluster`: it is how a caller learns the slugs to send. */
export function listClustersTool(rt: KubeRuntime): ToolSpec {
  return {
    name: 'list_clusters',
    title: 'List Kubernetes clusters',
    description:
      'List the Kubernetes clusters this integration can reach: slug, API server URL, default namespace, and which one the X-Kube-Cluster request header selects. ' +
      'Every other kube tool needs that header set to one of these slugs (e.g. "X-Kube-Cluster: prod-eu"). Call it first when unsure which cluster to use. Example: {}',
    inputSchema: { type: 'object', properties: {}, additionalProperties: false },
    outputSchema: {
      type: 'object',
      properties: {
        clusters: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              slug: { type: 'string', description: 'Value to send in X-Kube-Cluster.' },
              context: { type: 'string', description: 'Kubeconfig context the slug was made from.' },
              server: { type: 'string', description: 'API server URL.' },
              namespace: { type: 'string', description: 'Namespace used when a call names none.' },
              selected: { type: 'boolean', description: 'Whether the current X-Kube-Cluster header selects this cluster.' },
            },
            required: ['slug', 'context', 'server', 'namespace', 'selected'],
          },
        },
        selected: { type: 'string', description: 'Slug the X-Kube-Cluster header selects; absent when it selects none.' },
        header: { type: 'string', description: 'The X-Kube-Cluster header as received, when present.' },
      },
      required: ['clusters'],
    },
    annotations: ANNOTATIONS,
    async handler(_args, ctx) {
      const config = rt.kubeconfig(ctx);
      const header = headerValue(ctx.headers);
      const picked = header === undefined ? undefined : (config.clusters.find((c) => c.slug === header) ?? config.clusters.find((c) => c.slug === clusterSlug(header)));
      const clusters = config.clusters.map((c) => ({ ...c, selected: c === picked }));
      let note: string;
      if (picked) note = `The X-Kube-Cluster header selects "${picked.slug}".`;
      else if (header !== undefined) note = `The X-Kube-Cluster header "${header}" matches no cluster; send one of the slugs above.`;
      else note = 'No X-Kube-Cluster header was sent: the other kube tools need it set to one of the slugs above.';
      const text =
        clusters.length === 0
          ? 'The kubeconfig defines no contexts, so no cluster is reachable; an operator must add one.'
          : `${table(
              ['SLUG', 'CONTEXT', 'SERVER', 'NAMESPACE', 'SELECTED'],
              clusters.map((c) => [c.slug, c.context, c.server, c.namespace, c.selected ? '*' : '']),
            )}\n\n${note}`;
      const structured: Record<string, unknown> = { clusters };
      if (picked) structured.selected = picked.slug;
      if (header !== undefined) structured.header = header;
      return textResult(text, structured);
    },
  };
}

export function listApiResourcesTool(rt: KubeRuntime): ToolSpec {
  return {
    name: 'list_api_resources',
    title: 'List Kubernetes API resources',
    description:
      'List the kinds the selected cluster serves (like kubectl api-resources): plural name, short names, apiVersion, whether namespaced, Kind and verbs. ' +
      'Use it to find the name to pass as kind to list_resources or get_resource, especially for custom resources. ' +
      'Example: {"group": "apps"}; {} lists every group (the first ' +
      MAX_GROUPS +
      ').',
    inputSchema: {
      type: 'object',
      properties: {
        group: { type: 'string', description: 'Only this API group, e.g. "apps", "batch", "cert-manager.io"; "core" (or "") for the core group (pods, services...). Omit for all groups.' },
      },
      additionalProperties: false,
    },
    outputSchema: {
      type: 'object',
      properties: {
        cluster: CLUSTER_OUT,
        resources: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              name: { type: 'string', description: 'Plural resource name.' },
              kind: { type: 'string' },
              group: { type: 'string', description: '"" for the core group.' },
              version: { type: 'string' },
              apiVersion: { type: 'string' },
              namespaced: { type: 'boolean' },
              shortNames: { type: 'array', items: { type: 'string' } },
              verbs: { type: 'array', items: { type: 'string' } },
            },
            required: ['name', 'kind', 'group', 'version', 'apiVersion', 'namespaced', 'shortNames', 'verbs'],
          },
        },
        unavailable: {
          type: 'array',
          description: 'API groups whose discovery failed; their kinds are missing from resources.',
          items: { type: 'object', properties: { groupVersion: { type: 'string' }, reason: { type: 'string' } }, required: ['groupVersion', 'reason'] },
        },
        truncated: { type: 'boolean', description: `True when the cluster serves more than ${MAX_GROUPS} API groups and only the first were read; pass group to see the others.` },
      },
      required: ['cluster', 'resources', 'unavailable', 'truncated'],
    },
    annotations: ANNOTATIONS,
    async handler(args, ctx) {
      const { cluster, discovery } = await rt.open(ctx);
      const group = typeof args.group === 'string' ? args.group : undefined;
      const { resources, unavailable, skippedGroups } = await discovery.all(group);
      const lines = [
        table(
          ['NAME', 'SHORTNAMES', 'APIVERSION', 'NAMESPACED', 'KIND', 'VERBS'],
          resources.map((r) => [r.name, r.shortNames.join(','), r.apiVersion, String(r.namespaced), r.kind, r.verbs.join(',')]),
        ),
      ];
      if (unavailable.length > 0) lines.push('', `Unavailable API groups (their kinds are missing): ${unavailable.map((u) => `${u.groupVersion} (${u.reason})`).join('; ')}`);
      if (skippedGroups > 0) lines.push('', `${skippedGroups} more API groups were not read; pass group to list one of them.`);
      return textResult(lines.join('\n'), {
        cluster: cluster.slug,
        resources: resources.map(({ singularName: _singular, ...r }) => r),
        unavailable,
        truncated: skippedGroups > 0,
      });
    },
  };
}
