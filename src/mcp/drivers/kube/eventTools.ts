import { ToolError, textResult, type ToolSpec } from '../../driver.js';
import { ALL_NAMESPACES_ARG, ANNOTATIONS, CLUSTER_OUT, NAMESPACE_ARG, clamp, scopeOf, str } from './common.js';
import { age, table } from './rows.js';
import type { KubeRuntime } from './runtime.js';

/**
 * Events: the first place to look when something is not running. The API returns events in
 * storage order and cannot sort, so the tool reads a bounded number of them, sorts newest
 * first and keeps `limit`; when the scan hit its bound the answer says so.
 */

export const DEFAULT_EVENT_LIMIT = 50;
export const MAX_EVENT_LIMIT = 500;
/** SCAN_PAGE and SCAN_PAGES bound how many events one call reads before sorting. */
const SCAN_PAGE = 500;
const SCAN_PAGES = 4;
/** MAX_MESSAGE_CHARS keeps one noisy event (a long probe output) from filling the answer. */
const MAX_MESSAGE_CHARS = 500;

/** Obj is an event read loosely: core/v1 and events.k8s.io shapes differ, and fields may be missing. */
type Obj = Record<string, any>;

interface EventRow {
  namespace: string;
  lastSeen: string;
  age: string;
  type: string;
  reason: string;
  object: string;
  message: string;
  count: number;
}

export function listEventsTool(rt: KubeRuntime): ToolSpec {
  return {
    name: 'list_events',
    title: 'List Kubernetes events',
    description:
      'List recent events of the selected cluster, newest first (like kubectl get events --sort-by=.lastTimestamp): scheduling failures, image pull errors, OOM kills, probe failures, back-offs. ' +
      'Narrow to one object with involvedObjectKind/involvedObjectName, or to warnings with type. ' +
      'Example: {"namespace": "shop", "involvedObjectKind": "Pod", "involvedObjectName": "checkout-7d9c6b5f4-qzr8m"}; {"allNamespaces": true, "type": "Warning", "limit": 20}.',
    inputSchema: {
      type: 'object',
      properties: {
        namespace: NAMESPACE_ARG,
        allNamespaces: ALL_NAMESPACES_ARG,
        involvedObjectKind: { type: 'string', minLength: 1, description: 'Kind of the object the events are about: "Pod", "Deployment", "Node" (short names such as "po" are understood).' },
        involvedObjectName: { type: 'string', minLength: 1, description: 'Name of the object the events are about.' },
        type: { type: 'string', enum: ['Normal', 'Warning'], description: 'Only events of this type; "Warning" shows what went wrong.' },
        limit: { type: 'integer', minimum: 1, default: DEFAULT_EVENT_LIMIT, description: `Most events to return; default ${DEFAULT_EVENT_LIMIT}, at most ${MAX_EVENT_LIMIT}.` },
      },
      additionalProperties: false,
    },
    outputSchema: {
      type: 'object',
      properties: {
        cluster: CLUSTER_OUT,
        scope: { type: 'string', enum: ['namespace', 'all-namespaces'] },
        namespace: { type: 'string' },
        events: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              namespace: { type: 'string' },
              lastSeen: { type: 'string', description: 'When the event last happened (RFC 3339).' },
              age: { type: 'string' },
              type: { type: 'string' },
              reason: { type: 'string' },
              object: { type: 'string', description: 'Kind/name of the object the event is about.' },
              message: { type: 'string' },
              count: { type: 'integer', description: 'How many times it happened.' },
            },
            required: ['namespace', 'lastSeen', 'age', 'type', 'reason', 'object', 'message', 'count'],
          },
        },
        count: { type: 'integer' },
        truncated: { type: 'boolean', description: 'True when more events matched than were returned, or the scan stopped before reading them all.' },
        scanned: { type: 'integer', description: 'How many events were read before sorting.' },
      },
      required: ['cluster', 'scope', 'events', 'count', 'truncated', 'scanned'],
    },
    annotations: ANNOTATIONS,
    async handler(args, ctx) {
      const { cluster, client, discovery } = await rt.open(ctx);
      const scope = scopeOf(args, cluster);
      const limit = clamp(args.limit, DEFAULT_EVENT_LIMIT, MAX_EVENT_LIMIT);
      const selectors: string[] = [];
      const kind = str(args.involvedObjectKind);
      if (kind !== undefined) selectors.push(`involvedObject.kind=${await canonicalKind(kind, discovery)}`);
      const name = str(args.involvedObjectName);
      if (name !== undefined) selectors.push(`involvedObject.name=${name}`);
      if (typeof args.type === 'string') selectors.push(`type=${args.type}`);
      const path = scope.namespace === undefined ? '/api/v1/events' : `/api/v1/namespaces/${encodeURIComponent(scope.namespace)}/events`;

      const events: Obj[] = [];
      let token: string | undefined;
      for (let page = 0; page < SCAN_PAGES; page++) {
        const list = await client.getJson<{ items?: Obj[]; metadata?: { continue?: string } }>(path, {
          query: { limit: SCAN_PAGE, continue: token, fieldSelector: selectors.length > 0 ? selectors.join(',') : undefined },
          badRequest: 'involvedObjectName must be an exact object name',
        });
        events.push(...(list.items ?? []));
        token = list.metadata?.continue || undefined;
        if (token === undefined) break;
      }
      const scanIncomplete = token !== undefined;
      const now = Date.now();
      const rows = events
        .map((e) => eventRow(e, now))
        .sort((a, b) => Date.parse(b.lastSeen || '0') - Date.parse(a.lastSeen || '0'))
        .slice(0, limit.value);
      const truncated = scanIncomplete || events.length > limit.value;

      const structured: Record<string, unknown> = { cluster: cluster.slug, scope: scope.kind, events: rows, count: rows.length, truncated, scanned: events.length };
      if (scope.namespace !== undefined) structured.namespace = scope.namespace;
      const lines = [`Events ${scope.label} on cluster "${cluster.slug}"${selectors.length > 0 ? ` (${selectors.join(', ')})` : ''}, newest first: ${rows.length}`];
      if (rows.length === 0) lines.push('No events found. Events expire after about an hour, so an older problem leaves none.');
      else {
        const all = scope.kind === 'all-namespaces';
        lines.push(
          table(
            ['LAST SEEN', ...(all ? ['NAMESPACE'] : []), 'TYPE', 'REASON', 'OBJECT', 'COUNT', 'MESSAGE'],
            rows.map((r) => [r.age, ...(all ? [r.namespace] : []), r.type, r.reason, r.object, String(r.count), r.message]),
          ),
        );
      }
      if (limit.note) lines.push(`limit ${limit.note}.`);
      if (scanIncomplete) lines.push(`Only the first ${events.length} events were read before sorting, so newer ones may be missing; narrow with a namespace, involvedObjectName or type.`);
      else if (truncated) lines.push(`${events.length - rows.length} older events not shown; raise limit (up to ${MAX_EVENT_LIMIT}) or narrow the query.`);
      return textResult(lines.join('\n'), structured);
    },
  };
}

/**
 * canonicalKind turns `po` or `deployment` into the Kind events record (`Pod`, `Deployment`),
 * since field selectors match exactly; a kind discovery does not know is used as written.
 */
async function canonicalKind(kind: string, discovery: { resolve(kind: string): Promise<{ kind: string }> }): Promise<string> {
  try {
    return (await discovery.resolve(kind)).kind;
  } catch (err) {
    if (err instanceof ToolError && err.message.startsWith('unknown kind')) return kind;
    throw err;
  }
}

function eventRow(e: Obj, now: number): EventRow {
  const involved: Obj = e.involvedObject ?? e.regarding ?? {};
  const lastSeen: string = e.lastTimestamp ?? e.series?.lastObservedTime ?? e.eventTime ?? e.firstTimestamp ?? e.metadata?.creationTimestamp ?? '';
  let message = String(e.message ?? e.note ?? '').trim().replace(/\s+/g, ' ');
  if (message.length > MAX_MESSAGE_CHARS) message = `${message.slice(0, MAX_MESSAGE_CHARS)}…`;
  return {
    namespace: String(e.metadata?.namespace ?? involved.namespace ?? ''),
    lastSeen,
    age: age(lastSeen, now),
    type: String(e.type ?? ''),
    reason: String(e.reason ?? ''),
    object: `${involved.kind ?? ''}/${involved.name ?? ''}`,
    message,
    count: typeof e.count === 'number' ? e.count : typeof e.series?.count === 'number' ? e.series.count : 1,
  };
}
