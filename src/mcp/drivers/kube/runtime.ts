import { createHash } from 'node:crypto';
import type { KubeConfig } from '@kubernetes/client-node';
import { ToolError, type CallContext } from '../../driver.js';
import { callBounds, loadKubeConfig, openClient, type KubeClient } from './client.js';
import { headerValue, parseKubeconfig, selectCluster, type ClusterEntry, type Kubeconfig } from './clusters.js';
import { Discovery, DiscoveryCache } from './discovery.js';

/**
 * KubeRuntime is what one kube driver instance keeps between calls: parsed kubeconfigs,
 * loaded client configurations and discovery answers, all keyed by content or by org and
 * cluster. Nothing in it belongs to one MCP client; it only saves repeating work that gives
 * the same answer (parsing, exec credential plugins, discovery).
 */

export interface KubeRuntimeOptions {
  /** defaultKubeconfig serves orgs whose integration record carries none; it is the operator's, so trusted. */
  defaultKubeconfig?: string;
  timeoutMs: number;
}

/** Connection is what one tool call uses to reach the cluster its request selected. */
export interface Connection {
  cluster: ClusterEntry;
  client: KubeClient;
  discovery: Discovery;
}

/** MAX_CONFIGS bounds the kubeconfig caches: one entry per distinct kubeconfig (org) in use. */
const MAX_CONFIGS = 64;

export class KubeRuntime {
  private readonly parsed = new Map<string, Kubeconfig>();
  private readonly loaded = new Map<string, Promise<KubeConfig>>();
  private readonly discoveryCache = new DiscoveryCache();

  constructor(readonly options: KubeRuntimeOptions) {}

  /** configured tells whether a record (or the default) provides a kubeconfig. */
  configured(kubeconfig: string | undefined): boolean {
    return Boolean(kubeconfig?.trim()) || Boolean(this.options.defaultKubeconfig?.trim());
  }

  /** kubeconfig is the parsed kubeconfig that applies to the call's org. */
  kubeconfig(ctx: CallContext): Kubeconfig {
    const own = ctx.integration?.kubeconfig;
    const trusted = !own?.trim();
    const text = trusted ? this.options.defaultKubeconfig : own;
    if (!text?.trim()) {
      throw new ToolError("no kubeconfig is configured for this org's kube integration; an operator must store one in the integration's settings");
    }
    const key = `${trusted ? 'trusted' : 'stored'}:${digest(text)}`;
    let config = this.parsed.get(key);
    if (!config) {
      config = parseKubeconfig(text, trusted);
      remember(this.parsed, key, config);
    }
    return config;
  }

  /**
   * select is the cluster the `X-Kube-Cluster` header picks. A missing header is reported as
   * missing cluster credentials even when the kubeconfig itself is unusable, so the caller
   * learns about the header first and the operator's problem second.
   */
  select(ctx: CallContext): ClusterEntry {
    let config: Kubeconfig;
    try {
      config = this.kubeconfig(ctx);
    } catch (err) {
      if (headerValue(ctx.headers) === undefined && err instanceof ToolError) {
        throw new ToolError(`missing cluster credentials: this tool needs the header X-Kube-Cluster naming a cluster, and ${err.message}`);
      }
      throw err;
    }
    return selectCluster(config, ctx.headers);
  }

  /** open connects to the selected cluster, bounded by the driver's timeout and the call's signal. */
  async open(ctx: CallContext): Promise<Connection> {
    const cluster = this.select(ctx);
    const config = this.kubeconfig(ctx);
    const key = `${digest(config.text)}:${cluster.context}`;
    let kc = this.loaded.get(key);
    if (!kc) {
      kc = loadKubeConfig(config.text, cluster);
      remember(this.loaded, key, kc);
      // A failed load is not kept: the next call reports the error afresh.
      kc.catch(() => this.loaded.delete(key));
    }
    const bounds = callBounds(ctx.signal, this.options.timeoutMs);
    const client = await openClient(await kc, cluster, bounds);
    const discovery = new Discovery(client, this.discoveryCache, `${ctx.orgId}\u0000${cluster.slug}\u0000${cluster.server}`);
    return { cluster, client, discovery };
  }
}

function digest(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

function remember<V>(map: Map<string, V>, key: string, value: V): void {
  map.set(key, value);
  while (map.size > MAX_CONFIGS) map.delete(map.keys().next().value as string);
}
