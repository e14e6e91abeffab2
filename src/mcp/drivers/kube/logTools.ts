import { ToolError, textResult, type ToolSpec } from '../../driver.js';
import { ANNOTATIONS, CLUSTER_OUT, clamp, str } from './common.js';
import type { KubeRuntime } from './runtime.js';

/**
 * Pod logs. Both the line count and the byte size are bounded: tailLines asks the kubelet for
 * the last lines, and the byte budget keeps the newest bytes when those lines are long, since
 * the end of a log is where a crash explains itself.
 */

export const DEFAULT_TAIL_LINES = 200;
export const MAX_TAIL_LINES = 2000;
/** MAX_LOG_BYTES bounds the log text one call returns. */
export const MAX_LOG_BYTES = 64 * 1024;

export function podLogsTool(rt: KubeRuntime): ToolSpec {
  return {
    name: 'pod_logs',
    title: 'Read pod logs',
    description:
      `Read the newest log lines of one container of a pod on the selected cluster (like kubectl logs --tail). At most ${MAX_TAIL_LINES} lines and ${MAX_LOG_BYTES / 1024} KiB, keeping the newest. ` +
      'Pass container when the pod has several; pass previous: true to read the crashed instance of a restarting (CrashLoopBackOff) container. ' +
      'Example: {"namespace": "shop", "pod": "checkout-7d9c6b5f4-qzr8m", "container": "app", "tailLines": 100, "previous": true}.',
    inputSchema: {
      type: 'object',
      properties: {
        pod: { type: 'string', minLength: 1, description: 'Pod name, as list_resources {"kind": "pods"} shows it.' },
        namespace: { type: 'string', minLength: 1, description: "Namespace of the pod; defaults to the cluster context's namespace." },
        container: { type: 'string', minLength: 1, description: 'Container name; needed when the pod has more than one (get_resource on the pod lists them).' },
        tailLines: { type: 'integer', minimum: 1, default: DEFAULT_TAIL_LINES, description: `How many of the newest lines; default ${DEFAULT_TAIL_LINES}, at most ${MAX_TAIL_LINES}.` },
        sinceSeconds: { type: 'integer', minimum: 1, description: 'Only lines from the last this many seconds, e.g. 600 for ten minutes.' },
        previous: { type: 'boolean', default: false, description: 'Read the previous, terminated instance of the container (after a restart or crash).' },
        timestamps: { type: 'boolean', default: false, description: 'Prefix each line with its RFC 3339 timestamp.' },
      },
      required: ['pod'],
      additionalProperties: false,
    },
    outputSchema: {
      type: 'object',
      properties: {
        cluster: CLUSTER_OUT,
        namespace: { type: 'string' },
        pod: { type: 'string' },
        container: { type: 'string', description: 'The container asked for; absent when the pod has only one.' },
        previous: { type: 'boolean' },
        logs: { type: 'string', description: 'The log text, newest lines last.' },
        lines: { type: 'integer', description: 'Lines in logs.' },
        bytes: { type: 'integer', description: 'Bytes the cluster sent, before the byte budget.' },
        truncated: { type: 'boolean', description: `True when older lines were dropped to stay within ${MAX_LOG_BYTES} bytes.` },
      },
      required: ['cluster', 'namespace', 'pod', 'previous', 'logs', 'lines', 'bytes', 'truncated'],
    },
    annotations: ANNOTATIONS,
    async handler(args, ctx) {
      const { cluster, client } = await rt.open(ctx);
      if (args.namespace === '*') throw new ToolError('pod_logs reads one pod: pass its namespace, not "*"');
      const namespace = str(args.namespace) ?? cluster.namespace;
      const pod = String(args.pod);
      const container = str(args.container);
      const previous = args.previous === true;
      const tail = clamp(args.tailLines, DEFAULT_TAIL_LINES, MAX_TAIL_LINES);
      const body = await client.getTail(
        `/api/v1/namespaces/${encodeURIComponent(namespace)}/pods/${encodeURIComponent(pod)}/log`,
        {
          query: {
            container,
            tailLines: tail.value,
            sinceSeconds: typeof args.sinceSeconds === 'number' ? args.sinceSeconds : undefined,
            previous: previous ? true : undefined,
            timestamps: args.timestamps === true ? true : undefined,
          },
          notFound: `pod "${pod}" not found in namespace "${namespace}" on cluster "${cluster.slug}"; list pods with list_resources {"kind": "pods", "namespace": "${namespace}"}`,
          badRequest: previous
            ? 'previous: true needs a container that has restarted at least once; retry without previous'
            : 'for a pod with several containers pass container (one of those named in the message)',
        },
        MAX_LOG_BYTES,
      );
      const lines = body.text === '' ? 0 : body.text.replace(/\n$/, '').split('\n').length;
      const structured: Record<string, unknown> = {
        cluster: cluster.slug,
        namespace,
        pod,
        previous,
        logs: body.text,
        lines,
        bytes: body.bytes,
        truncated: body.truncated,
      };
      if (container !== undefined) structured.container = container;
      const what = `${previous ? 'previous ' : ''}logs of pod "${pod}"${container ? ` container "${container}"` : ''} in namespace "${namespace}" on cluster "${cluster.slug}"`;
      const notes: string[] = [];
      if (tail.note) notes.push(`tailLines ${tail.note}.`);
      if (body.truncated) notes.push(`Older lines were dropped to stay within ${MAX_LOG_BYTES / 1024} KiB (the cluster sent ${body.bytes} bytes); lower tailLines or set sinceSeconds to see whole lines.`);
      const header = `# ${lines} lines of ${what}${notes.length > 0 ? `\n# ${notes.join('\n# ')}` : ''}`;
      const text = lines === 0 ? `No log lines in the ${what}${args.sinceSeconds ? ` during the last ${String(args.sinceSeconds)}s` : ''}.` : `${header}\n${body.text}`;
      return textResult(text, structured);
    },
  };
}
