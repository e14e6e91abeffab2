import type { Driver } from '../../driver.js';
import { tableDriver } from '../../tableDriver.js';
import { listApiResourcesTool, listClustersTool } from './clusterTools.js';
import { listEventsTool } from './eventTools.js';
import { podLogsTool } from './logTools.js';
import { getResourceTool, listResourcesTool } from './resourceTools.js';
import { KubeRuntime } from './runtime.js';

/**
 * The kube driver: kubectl-style read-only tools over the clusters of a kubeconfig. The org's
 * integration record carries the kubeconfig (or the operator gives a default one); each
 * request picks one of its contexts with the `X-Kube-Cluster` header.
 */

export interface KubeDriverOptions {
  /**
   * defaultKubeconfig serves orgs whose kube integration record has no kubeconfig. It comes
   * from the operator, so unlike stored ones it may use exec plugins and file paths.
   */
  defaultKubeconfig?: string;
  /** timeoutMs bounds each tool call, every request it makes included; 10 s by default. */
  timeoutMs?: number;
}

export const DEFAULT_TIMEOUT_MS = 10_000;

/** UNGUARDED tools answer without a cluster: they are how a caller finds the slugs to send. */
const UNGUARDED = new Set(['list_clusters']);

export function kubeDriver(options: KubeDriverOptions = {}): Driver {
  const rt = new KubeRuntime({ defaultKubeconfig: options.defaultKubeconfig, timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS });
  return tableDriver({
    name: 'kube',
    description:
      'Read-only, kubectl-style access to Kubernetes clusters: list clusters, API resources and objects, read one object as YAML (Secret values redacted), events and pod logs. ' +
      'Send the header X-Kube-Cluster: <cluster slug> on every request; list_clusters works without it and shows the slugs.',
    enabledByDefault: false,
    configured: (record) => rt.configured(record.kubeconfig),
    tools: [listClustersTool(rt), listApiResourcesTool(rt), listResourcesTool(rt), getResourceTool(rt), listEventsTool(rt), podLogsTool(rt)],
    guard(tool, ctx) {
      if (!UNGUARDED.has(tool)) rt.select(ctx);
    },
  });
}
