import { ToolError, textResult, type ToolSpec } from '../../driver.js';
import { ALL_NAMESPACES_ARG, ANNOTATIONS, CLUSTER_OUT, KIND_ARG, NAMESPACE_ARG, clamp, scopeOf, str } from './common.js';
import { resourcePath, type ApiResource } from './discovery.js';
import { redactObject, toYaml } from './redact.js';
import { summarize, table, type Row } from './rows.js';
import type { KubeRuntime } from './runtime.js';

/** Tools that read objects: list one kind, get one object. */

export const DEFAULT_LIST_LIMIT = 50;
/** MAX_LIST_LIMIT caps listings: past a few hundred rows an agent should filter, not page. */
export const MAX_LIST_LIMIT = 500;
/** MAX_YAML_BYTES bounds one object's YAML (a ConfigMap can hold a megabyte). */
export const MAX_YAML_BYTES = 128 * 1024;

interface ObjectList {
  items?: Array<Record<string, unknown>>;
  metadata?: { continue?: string; remainingItemCount?: number };
}

const ROW_SCHEMA = {
  type: 'object',
  properties: {
    name: { type: 'string' },
    namespace: { type: 'string' },
    ready: { type: 'string', description: 'Ready/desired: containers for pods, replicas for workloads.' },
    status: { type: 'string', description: 'Phase, reason or condition, where the kind has one.' },
    restarts: { type: 'integer', description: 'Container restarts (pods).' },
    age: { type: 'string', description: 'Time since creation, kubectl style (5d3h).' },
    created: { type: 'string', description: 'Creation timestamp (RFC 3339).' },
  },
  required: ['name', 'age'],
};

export function listResourcesTool(rt: KubeRuntime): ToolSpec {
  return {
    name: 'list_resources',
    title: 'List Kubernetes resources',
    description:
      'List objects of one kind on the selected cluster, like kubectl get: a compact table of NAME, NAMESPACE, READY, STATUS, RESTARTS and AGE where the kind has them. ' +
      `Filter with labelSelector/fieldSelector; at most ${MAX_LIST_LIMIT} rows (default ${DEFAULT_LIST_LIMIT}), truncated tells whether more exist. ` +
      'Example: {"kind": "po", "namespace": "shop", "labelSelector": "app=checkout"}; {"kind": "deploy", "allNamespaces": true}; {"kind": "nodes"}.',
    inputSchema: {
      type: 'object',
      properties: {
        kind: KIND_ARG,
        namespace: NAMESPACE_ARG,
        allNamespaces: ALL_NAMESPACES_ARG,
        labelSelector: { type: 'string', description: 'Kubernetes label selector, e.g. "app=checkout,tier!=cache" or "env in (prod,staging)".' },
        fieldSelector: { type: 'string', description: 'Kubernetes field selector, e.g. "status.phase!=Running" (pods) or "spec.nodeName=node-1".' },
        limit: { type: 'integer', minimum: 1, default: DEFAULT_LIST_LIMIT, description: `Most rows to return; default ${DEFAULT_LIST_LIMIT}, at most ${MAX_LIST_LIMIT}.` },
      },
      required: ['kind'],
      additionalProperties: false,
    },
    outputSchema: {
      type: 'object',
      properties: {
        cluster: CLUSTER_OUT,
        kind: { type: 'string' },
        apiVersion: { type: 'string' },
        scope: { type: 'string', enum: ['namespace', 'all-namespaces', 'cluster'] },
        namespace: { type: 'string', description: 'The namespace listed, for the namespace scope.' },
        items: { type: 'array', items: ROW_SCHEMA },
        count: { type: 'integer' },
        truncated: { type: 'boolean', description: 'True when more objects match than were returned.' },
        remaining: { type: 'integer', description: 'How many more match, when the server says.' },
        hint: { type: 'string', description: 'How to narrow a truncated listing.' },
      },
      required: ['cluster', 'kind', 'apiVersion', 'scope', 'items', 'count', 'truncated'],
    },
    annotations: ANNOTATIONS,
    async handler(args, ctx) {
      const { cluster, client, discovery } = await rt.open(ctx);
      const resource = await discovery.resolve(String(args.kind));
      requireVerb(resource, 'list', cluster.slug);
      const scope = scopeOf(args, cluster, resource);
      const limit = clamp(args.limit, DEFAULT_LIST_LIMIT, MAX_LIST_LIMIT);
      const list = await client.getJson<ObjectList>(resourcePath(resource, scope.namespace), {
        query: { limit: limit.value, labelSelector: str(args.labelSelector), fieldSelector: str(args.fieldSelector) },
        badRequest: 'check the labelSelector and fieldSelector syntax; only some fields can be selected on for each kind (metadata.name, metadata.namespace, and kind-specific ones such as status.phase for pods)',
        notFound: `cluster "${cluster.slug}" has no ${resource.name} ${scope.label}; check the namespace with list_resources {"kind": "namespaces"}`,
      });
      const items = list.items ?? [];
      const now = Date.now();
      const rows = items.slice(0, limit.value).map((item) => summarize(resource.kind, item, now));
      const remaining = list.metadata?.remainingItemCount;
      // Some aggregated APIs ignore `limit`, so an over-long page counts as truncated too.
      const truncated = Boolean(list.metadata?.continue) || items.length > limit.value || (remaining ?? 0) > 0;
      const structured: Record<string, unknown> = {
        cluster: cluster.slug,
        kind: resource.kind,
        apiVersion: resource.apiVersion,
        scope: scope.kind,
        items: rows,
        count: rows.length,
        truncated,
      };
      if (scope.namespace !== undefined) structured.namespace = scope.namespace;
      const notes: string[] = [];
      if (limit.note) notes.push(`limit ${limit.note}.`);
      if (truncated) {
        const more = typeof remaining === 'number' && remaining > 0 ? `${remaining} more` : 'more';
        if (typeof remaining === 'number' && remaining > 0) structured.remaining = remaining;
        const hint = `Showing the first ${rows.length}; ${more} match. Narrow with labelSelector, fieldSelector or a namespace${limit.value < MAX_LIST_LIMIT ? `, or raise limit (up to ${MAX_LIST_LIMIT})` : ''}.`;
        structured.hint = hint;
        notes.push(hint);
      }
      const heading = `${resource.name} (${resource.apiVersion}) ${scope.label} on cluster "${cluster.slug}": ${rows.length}${truncated ? '+' : ''}`;
      const body = rows.length === 0 ? `No ${resource.name} found ${scope.label}${args.labelSelector || args.fieldSelector ? ' matching the selectors' : ''}.` : rowsTable(rows);
      return textResult([heading, body, ...notes].join('\n'), structured);
    },
  };
}

export function getResourceTool(rt: KubeRuntime): ToolSpec {
  return {
    name: 'get_resource',
    title: 'Get a Kubernetes resource',
    description:
      'Show one object of the selected cluster as YAML (like kubectl get -o yaml), with metadata.managedFields left out and Secret values replaced by "<redacted>". ' +
      'Use it to read a spec, status, conditions or owner references after list_resources. ' +
      'Example: {"kind": "deployment", "name": "checkout", "namespace": "shop"}; {"kind": "node", "name": "worker-1"}.',
    inputSchema: {
      type: 'object',
      properties: {
        kind: KIND_ARG,
        name: { type: 'string', minLength: 1, description: 'Object name, as list_resources shows it.' },
        namespace: { ...NAMESPACE_ARG, description: 'Namespace of the object; defaults to the cluster context\'s namespace. Ignored for cluster-scoped kinds.' },
      },
      required: ['kind', 'name'],
      additionalProperties: false,
    },
    outputSchema: {
      type: 'object',
      properties: {
        cluster: CLUSTER_OUT,
        kind: { type: 'string' },
        apiVersion: { type: 'string' },
        name: { type: 'string' },
        namespace: { type: 'string' },
        yaml: { type: 'string', description: 'The object as YAML, redacted.' },
        truncated: { type: 'boolean', description: `True when the YAML was cut at ${MAX_YAML_BYTES} bytes.` },
      },
      required: ['cluster', 'kind', 'apiVersion', 'name', 'yaml', 'truncated'],
    },
    annotations: ANNOTATIONS,
    async handler(args, ctx) {
      const { cluster, client, discovery } = await rt.open(ctx);
      const resource = await discovery.resolve(String(args.kind));
      requireVerb(resource, 'get', cluster.slug);
      const name = String(args.name);
      if (args.namespace === '*') throw new ToolError('get_resource reads one object: pass its namespace, not "*"');
      const scope = scopeOf(args, cluster, resource);
      const obj = await client.getJson<Record<string, unknown>>(resourcePath(resource, scope.namespace, name), {
        notFound:
          `${resource.kind} "${name}" not found ${scope.label} on cluster "${cluster.slug}"; ` +
          `list them with list_resources {"kind": "${resource.name}"${scope.namespace !== undefined ? `, "namespace": "${scope.namespace}"` : ''}}` +
          (scope.namespace !== undefined ? ' or look in every namespace with "allNamespaces": true' : ''),
      });
      // GET answers carry kind and apiVersion; set them anyway so redaction can rely on kind.
      obj.kind ??= resource.kind;
      obj.apiVersion ??= resource.apiVersion;
      const { text: yaml, truncated } = capText(toYaml(redactObject(obj)), MAX_YAML_BYTES);
      const structured: Record<string, unknown> = { cluster: cluster.slug, kind: resource.kind, apiVersion: resource.apiVersion, name, yaml, truncated };
      if (scope.namespace !== undefined) structured.namespace = scope.namespace;
      return textResult(yaml, structured);
    },
  };
}

function requireVerb(resource: ApiResource, verb: string, slug: string): void {
  if (resource.verbs.length > 0 && !resource.verbs.includes(verb)) {
    throw new ToolError(`${resource.name} (${resource.apiVersion}) on cluster "${slug}" does not support "${verb}" (verbs: ${resource.verbs.join(', ')})`);
  }
}

function rowsTable(rows: Row[]): string {
  return table(
    ['NAME', 'NAMESPACE', 'READY', 'STATUS', 'RESTARTS', 'AGE'],
    rows.map((r) => [r.name, r.namespace ?? '', r.ready ?? '', r.status ?? '', r.restarts === undefined ? '' : String(r.restarts), r.age]),
  );
}

/** capText keeps the first `maxBytes` of a text, ending at a whole line, and says how much was left out. */
function capText(text: string, maxBytes: number): { text: string; truncated: boolean } {
  const bytes = Buffer.byteLength(text);
  if (bytes <= maxBytes) return { text, truncated: false };
  let cut = Buffer.from(text).subarray(0, maxBytes).toString('utf8');
  const newline = cut.lastIndexOf('\n');
  if (newline > 0) cut = cut.slice(0, newline + 1);
  // A cut in the middle of a multi-byte character decodes to U+FFFD; drop it.
  cut = cut.replace(/\uFFFD$/, '');
  return { text: `${cut}# ... truncated: ${bytes - Buffer.byteLength(cut)} more bytes of YAML not shown\n`, truncated: true };
}
