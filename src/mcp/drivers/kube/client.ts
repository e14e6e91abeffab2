import http from 'node:http';
import https from 'node:https';
import type { KubeConfig } from '@kubernetes/client-node';
import { ToolError } from '../../driver.js';
import type { ClusterEntry } from './clusters.js';
import { TailBuffer, type TextBody } from './tail.js';

/**
 * KubeClient sends read-only requests to one cluster's API server. It borrows credentials and
 * TLS settings from `@kubernetes/client-node` (tokens, client certificates, CA data, exec
 * plugins) but sends requests itself over node:http(s), because the driver needs what the
 * generated API classes do not give: one abort signal for the whole tool call, a byte limit on
 * every body, and log bodies that keep their newest bytes rather than their first.
 */

/** MAX_JSON_BYTES bounds one JSON response; lists beyond it ask the caller to narrow. */
export const MAX_JSON_BYTES = 16 * 1024 * 1024;

type ClientModule = typeof import('@kubernetes/client-node');
let clientModule: Promise<ClientModule> | undefined;

/**
 * kubeClientModule loads `@kubernetes/client-node` on first use: it takes over a second to
 * import, a cost the service should not pay at start for orgs that never use the kube driver.
 */
function kubeClientModule(): Promise<ClientModule> {
  return (clientModule ??= import('@kubernetes/client-node'));
}

/**
 * loadKubeConfig builds a KubeConfig whose current context is `entry`'s. Invalid entries of
 * other contexts are dropped rather than fatal, so one broken context does not take every
 * cluster of the kubeconfig down with it.
 */
export async function loadKubeConfig(text: string, entry: ClusterEntry): Promise<KubeConfig> {
  const { KubeConfig } = await kubeClientModule();
  const kc = new KubeConfig();
  try {
    kc.loadFromString(text, { onInvalidEntry: 'filter' });
  } catch (err) {
    throw new ToolError(`the kube integration's kubeconfig cannot be loaded (${(err as Error).message}); an operator must store a valid kubeconfig`);
  }
  if (!kc.getContextObject(entry.context)) {
    throw new ToolError(`the kubeconfig context "${entry.context}" (cluster "${entry.slug}") is incomplete: it needs a cluster with a server; an operator must fix the kubeconfig`);
  }
  kc.setCurrentContext(entry.context);
  if (!kc.getCurrentCluster()) {
    throw new ToolError(`the kubeconfig context "${entry.context}" (cluster "${entry.slug}") refers to a cluster the kubeconfig does not define; an operator must fix the kubeconfig`);
  }
  return kc;
}

/** Bounds limit one tool call: `signal` fires on either the caller leaving or the deadline. */
export interface Bounds {
  signal: AbortSignal;
  /** deadline fires when the driver's per-call timeout passes; tells a timeout from a cancellation. */
  deadline: AbortSignal;
  timeoutMs: number;
}

/** callBounds combines the caller's signal with the driver's per-call timeout. */
export function callBounds(caller: AbortSignal, timeoutMs: number): Bounds {
  const deadline = AbortSignal.timeout(timeoutMs);
  return { signal: AbortSignal.any([caller, deadline]), deadline, timeoutMs };
}

export type Query = Record<string, string | number | boolean | undefined>;

export interface RequestOptions {
  query?: Query;
  /** notFound replaces the generic 404 message with one that names what was looked up. */
  notFound?: string;
  /** badRequest is appended to a 400 answer's message: what the caller likely got wrong. */
  badRequest?: string;
  /** timeoutMs shortens this one request below the call's deadline (discovery of a slow API group). */
  timeoutMs?: number;
}

/**
 * KubeApiError is a failed request, kept apart from ToolError so a caller can treat some
 * failures as partial answers (an unavailable API group during discovery) before reporting.
 */
export class KubeApiError extends Error {
  constructor(
    message: string,
    readonly status: number | undefined,
  ) {
    super(message);
    this.name = 'KubeApiError';
  }
}

/** openClient prepares credentials for one cluster; they are reused by every request of the call. */
export async function openClient(kc: KubeConfig, entry: ClusterEntry, bounds: Bounds): Promise<KubeClient> {
  const base: https.RequestOptions = { headers: {} };
  try {
    await kc.applyToHTTPSOptions(base);
  } catch (err) {
    const message = (err as Error).message ?? String(err);
    if (/HTTP protocol is not allowed/i.test(message)) {
      throw new ToolError(
        `cluster "${entry.slug}" uses plain http (${entry.server}); credentials are sent over http only when the kubeconfig's cluster sets insecure-skip-tls-verify: true. An operator must set it or use an https server`,
      );
    }
    throw new ToolError(`cannot prepare the credentials of cluster "${entry.slug}": ${message}; an operator must fix the kubeconfig's user`);
  }
  return new KubeClient(entry, base, bounds);
}

export class KubeClient {
  constructor(
    readonly cluster: ClusterEntry,
    private readonly base: https.RequestOptions,
    readonly bounds: Bounds,
  ) {}

  /** getJson fetches a JSON document; failures become ToolError with a hint, or KubeApiError via tryJson. */
  async getJson<T>(path: string, options: RequestOptions = {}): Promise<T> {
    try {
      return await this.tryJson<T>(path, options);
    } catch (err) {
      throw err instanceof KubeApiError ? new ToolError(err.message) : err;
    }
  }

  /** tryJson is getJson that reports API failures as KubeApiError, for callers that can go on without the answer. */
  async tryJson<T>(path: string, options: RequestOptions = {}): Promise<T> {
    const { body } = await this.request(path, options, 'application/json', { maxBytes: MAX_JSON_BYTES, keepTail: false });
    try {
      return JSON.parse(body.text) as T;
    } catch {
      throw new KubeApiError(`cluster "${this.cluster.slug}" answered ${path} with something other than JSON; check that the kubeconfig's server URL (${this.cluster.server}) is the Kubernetes API`, undefined);
    }
  }

  /**
   * getTail fetches a text body and keeps its newest `maxBytes` bytes, cut at a line start,
   * so a long log shows its end, which is where the failure usually is.
   */
  async getTail(path: string, options: RequestOptions, maxBytes: number): Promise<TextBody> {
    try {
      return (await this.request(path, options, 'text/plain, */*', { maxBytes, keepTail: true })).body;
    } catch (err) {
      throw err instanceof KubeApiError ? new ToolError(err.message) : err;
    }
  }

  private async request(path: string, options: RequestOptions, accept: string, budget: { maxBytes: number; keepTail: boolean }): Promise<{ body: TextBody }> {
    const url = this.url(path, options.query);
    const own = options.timeoutMs !== undefined && options.timeoutMs < this.bounds.timeoutMs ? AbortSignal.timeout(options.timeoutMs) : undefined;
    const signal = own ? AbortSignal.any([this.bounds.signal, own]) : this.bounds.signal;
    let answer: { status: number; body: TextBody };
    try {
      answer = await send(url, { ...this.base, headers: { ...this.base.headers, accept } }, signal, budget);
    } catch (err) {
      throw this.transportError(err, path, options, own);
    }
    if (answer.status >= 200 && answer.status < 300) return answer;
    throw this.statusError(answer.status, answer.body.text, path, options);
  }

  private url(path: string, query: Query | undefined): URL {
    // The server URL may carry a path prefix (Rancher, API proxies), so paths are appended to it.
    const url = new URL(this.cluster.server.replace(/\/+$/, '') + path);
    for (const [key, value] of Object.entries(query ?? {})) if (value !== undefined && value !== '') url.searchParams.set(key, String(value));
    return url;
  }

  private transportError(err: unknown, path: string, options: RequestOptions, own: AbortSignal | undefined): Error {
    const { slug, server } = this.cluster;
    if (err instanceof TooLargeError) {
      return new KubeApiError(`cluster "${slug}" answered ${path} with more than ${MAX_JSON_BYTES} bytes; narrow the request (namespace, labelSelector, fieldSelector, a smaller limit)`, undefined);
    }
    if (this.bounds.deadline.aborted || own?.aborted) {
      const ms = this.bounds.deadline.aborted ? this.bounds.timeoutMs : (options.timeoutMs ?? this.bounds.timeoutMs);
      return new KubeApiError(
        `timeout: cluster "${slug}" (${server}) did not answer ${path} within ${ms / 1000}s; it may be unreachable or overloaded. Retry, or narrow the request (namespace, labelSelector, a smaller limit)`,
        undefined,
      );
    }
    if (this.bounds.signal.aborted) return new ToolError('the call was cancelled before the cluster answered');
    const code = (err as NodeJS.ErrnoException).code;
    const detail = code ?? (err as Error).message ?? String(err);
    if (code && /CERT|SELF_SIGNED|TLS|SSL/i.test(code)) {
      return new KubeApiError(`cannot verify the TLS certificate of cluster "${slug}" (${server}): ${detail}; the kubeconfig needs the cluster's certificate-authority-data`, undefined);
    }
    return new KubeApiError(`cannot reach cluster "${slug}" at ${server} (${detail}); check that the kubeconfig's server URL is reachable from the gateway`, undefined);
  }

  private statusError(status: number, text: string, path: string, options: RequestOptions): KubeApiError {
    const { slug } = this.cluster;
    const message = statusMessage(text);
    switch (status) {
      case 401:
        return new KubeApiError(
          `cluster "${slug}" rejected the kubeconfig's credentials (401 Unauthorized): the token or client certificate is wrong or expired; an operator must update the kube integration's kubeconfig`,
          status,
        );
      case 403:
        return new KubeApiError(
          `forbidden on cluster "${slug}": ${message ?? path}. The kubeconfig's user lacks the RBAC permission for this; try a namespace it can read, or ask a cluster admin to grant get/list on this resource`,
          status,
        );
      case 404:
        return new KubeApiError(options.notFound ?? `not found on cluster "${slug}": ${message ?? path}; check the kind, name and namespace with list_resources or list_api_resources`, status);
      case 400:
      case 422:
        return new KubeApiError(`cluster "${slug}" refused the request: ${message ?? `HTTP ${status}`}${options.badRequest ? `; ${options.badRequest}` : ''}`, status);
      case 410:
        return new KubeApiError(`cluster "${slug}" answered 410 Gone (${message ?? 'the list expired'}); repeat the call`, status);
      case 429:
        return new KubeApiError(`cluster "${slug}" is throttling requests (429); wait a few seconds and retry`, status);
      default:
        return new KubeApiError(
          `cluster "${slug}" answered HTTP ${status}${message ? ` (${message})` : ''} for ${path}; the API server or this API group may be unavailable, retry shortly`,
          status,
        );
    }
  }
}

/** statusMessage is the `message` of a Kubernetes Status body, or a short plain-text body. */
function statusMessage(text: string): string | undefined {
  try {
    const body = JSON.parse(text) as { message?: unknown };
    if (typeof body.message === 'string' && body.message !== '') return body.message;
  } catch {
    // Not JSON: proxies in front of the API server answer with text or HTML.
  }
  const trimmed = text.trim();
  return trimmed !== '' && trimmed.length <= 300 && !trimmed.startsWith('<') ? trimmed : undefined;
}

class TooLargeError extends Error {}

/**
 * send performs one GET and reads the body within budget. With `keepTail` it keeps the newest
 * bytes of a longer body; otherwise a longer body fails with TooLargeError.
 */
function send(url: URL, options: https.RequestOptions, signal: AbortSignal, budget: { maxBytes: number; keepTail: boolean }): Promise<{ status: number; body: TextBody }> {
  return new Promise((resolve, reject) => {
    const transport = url.protocol === 'https:' ? https : http;
    let settled = false;
    const fail = (err: unknown): void => {
      if (settled) return;
      settled = true;
      req.destroy();
      reject(err);
    };
    const req = transport.request(url, { ...options, method: 'GET', signal }, (res) => {
      const status = res.statusCode ?? 0;
      const tail = new TailBuffer(budget.maxBytes);
      res.on('data', (chunk: Buffer) => {
        tail.push(chunk);
        if (!budget.keepTail && tail.total > budget.maxBytes) fail(new TooLargeError());
      });
      res.on('end', () => {
        if (settled) return;
        settled = true;
        resolve({ status, body: tail.finish() });
      });
      res.on('error', fail);
      res.on('close', () => fail(new Error('the connection closed before the response ended')));
    });
    req.on('error', fail);
    req.end();
  });
}
