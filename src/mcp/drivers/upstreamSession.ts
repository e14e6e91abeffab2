import { setMaxListeners } from 'node:events';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { RequestOptions } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, McpError, type JSONRPCMessage, type RequestId } from '@modelcontextprotocol/sdk/types.js';
import { packageRoot } from '../../packageRoot.js';
import type { CallContext } from '../driver.js';
import {
  UpstreamFailure,
  cancelledFailure,
  causeText,
  describeFailure,
  droppedFailure,
  redact,
  secretsOf,
  shownUrl,
  timeoutFailure,
  type UpstreamTarget,
} from './upstreamErrors.js';

/**
 * One short-lived MCP client connection to an integration's upstream server. The gateway is
 * stateless, so every gateway request opens its own connection (one initialize round trip),
 * does its one piece of work and closes it: no pool to go stale, no MCP session to lose when
 * a replica restarts. What this module adds over the bare SDK client is the bound: one deadline
 * over the whole interaction (connect included), the caller's abort, and early detection of
 * an upstream that drops the connection mid-answer, each ending in a closed client and a
 * message that names the integration.
 */

/** RequestBound is what each SDK request gets: the shared abort signal and the time left. */
export type RequestBound = () => RequestOptions;

/**
 * SETTLE_MS is how long after a response stream ends the answer may still be in the SDK's
 * parsing pipeline; past it, a request with no answer is known lost. It only delays the error
 * text of a crashed upstream, never a good answer.
 */
const SETTLE_MS = 50;

/**
 * NO_RESUME disables the transport's stream resumption: resuming needs an event store on the
 * upstream and would spend the deadline on back-off, while a dropped answer reported at once
 * lets the model retry the call.
 */
const NO_RESUME = { maxRetries: 0, initialReconnectionDelay: 1000, maxReconnectionDelay: 1000, reconnectionDelayGrowFactor: 1 };

let clientVersion: string | undefined;
/** version is Sluice's own version, sent as the client's identity in initialize. */
function version(): string {
  if (clientVersion === undefined) {
    try {
      clientVersion = String((JSON.parse(readFileSync(path.join(packageRoot(), 'package.json'), 'utf8')) as { version?: unknown }).version ?? '0.0.0');
    } catch {
      clientVersion = '0.0.0';
    }
  }
  return clientVersion;
}

/**
 * resolveTarget reads the stored record: the URL to connect to (userinfo moved into a Basic
 * Authorization header, since fetch refuses URLs carrying credentials), the headers to inject,
 * and the secrets to keep out of every message.
 */
export function resolveTarget(integration: string, ctx: CallContext): { target: UpstreamTarget; headers: Record<string, string> } {
  const record = ctx.integration;
  const hint = `sluice integrations set ${ctx.orgId} ${integration} --url …`;
  const raw = record?.url?.trim();
  const stored = record?.headers ?? {};
  if (!raw) throw new UpstreamFailure(`integration "${integration}" has no upstream URL; set it with '${hint}'`);
  let url: URL | undefined;
  try {
    url = new URL(raw);
  } catch {
    url = undefined;
  }
  const secrets = secretsOf(raw, stored, url);
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    throw new UpstreamFailure(`integration "${integration}" has an upstream URL that is not an http(s) URL; set it with '${hint}'`);
  }
  const headers = { ...stored };
  if (url.username || url.password) {
    const hasAuth = Object.keys(headers).some((name) => name.toLowerCase() === 'authorization');
    if (!hasAuth) {
      const user = decodeURIComponent(url.username);
      const pass = decodeURIComponent(url.password);
      const basic = Buffer.from(`${user}:${pass}`).toString('base64');
      headers.authorization = `Basic ${basic}`;
      secrets.push(basic);
    }
  }
  const connectTo = new URL(url.href);
  connectTo.username = '';
  connectTo.password = '';
  connectTo.hash = '';
  return { target: { integration, orgId: ctx.orgId, url: connectTo, shown: shownUrl(url), secrets }, headers };
}

/**
 * withUpstream connects to the integration's upstream, runs `work` and always closes the client.
 * It settles within `timeoutMs` (or as soon as `ctx.signal` aborts) whatever the upstream does;
 * every failure is an UpstreamFailure with a redacted message. `doing` names the work for
 * error texts ("tools/list").
 */
export async function withUpstream<T>(
  integration: string,
  ctx: CallContext,
  timeoutMs: number,
  doing: string,
  work: (client: Client, bound: RequestBound) => Promise<T>,
): Promise<T> {
  const { target, headers } = resolveTarget(integration, ctx);
  const startedAt = Date.now();
  const deadline = new AbortController();
  // The SDK adds an abort listener per request and never removes it; a paginated listing makes
  // dozens. They die with this signal, so the default leak warning at 10 is only noise here.
  setMaxListeners(100, deadline.signal);
  let failure: UpstreamFailure | undefined;
  let finished = false;
  const fail = (f: UpstreamFailure): void => {
    if (finished || deadline.signal.aborted) return;
    failure = f;
    deadline.abort(f);
  };
  // Registered before anything can abort, so the race below always hears it.
  const stopped = new Promise<never>((_, reject) => {
    deadline.signal.addEventListener('abort', () => reject(failure), { once: true });
  });
  stopped.catch(() => undefined);
  const timer = setTimeout(() => fail(timeoutFailure(target, timeoutMs)), timeoutMs);
  const onCancel = (): void => fail(cancelledFailure(target, ctx.signal.reason));
  if (ctx.signal.aborted) onCancel();
  else ctx.signal.addEventListener('abort', onCancel, { once: true });

  // Requests answered so far, to tell a stream that ended after its answer from one that ended
  // without it. The transport hook runs before the SDK's own handler (the client wraps it).
  const answered = new Set<RequestId>();
  const transport = new StreamableHTTPClientTransport(target.url, {
    requestInit: { headers },
    fetch: watchingFetch((id, cause) => {
      setTimeout(() => {
        if (!answered.has(id)) fail(droppedFailure(target, cause));
      }, SETTLE_MS);
    }),
    reconnectionOptions: NO_RESUME,
  });
  transport.onmessage = (message: JSONRPCMessage) => {
    if ('id' in message && ('result' in message || 'error' in message) && message.id !== undefined) answered.add(message.id);
  };
  const client = new Client({ name: 'sluice-gateway', version: version() }, { capabilities: {} });
  // Transport errors also reach the pending request (or the deadline); this only keeps a trace.
  client.onerror = (err) => ctx.log.debug({ integration, upstream: target.shown, err: redact(causeText(err), target.secrets) }, 'upstream transport error');

  const bound: RequestBound = () => ({ signal: deadline.signal, timeout: Math.max(1, timeoutMs - (Date.now() - startedAt)) });
  try {
    if (failure) throw failure;
    const running = (async () => {
      await client.connect(transport, bound());
      return work(client, bound);
    })();
    running.catch(() => undefined);
    return await Promise.race([running, stopped]);
  } catch (err) {
    // The SDK's per-request timer and the deadline end together; either way it is the deadline.
    const timedOut = err instanceof McpError && err.code === ErrorCode.RequestTimeout;
    const final = failure ?? (timedOut ? timeoutFailure(target, timeoutMs) : describeFailure(target, err, doing));
    ctx.log.warn({ integration, upstream: target.shown, doing, err: final.message }, 'upstream MCP call failed');
    throw final;
  } finally {
    finished = true;
    clearTimeout(timer);
    ctx.signal.removeEventListener('abort', onCancel);
    close(client, transport, failure === undefined);
  }
}

/** TERMINATE_MS bounds the goodbye to a stateful upstream; the answer never waits for it. */
const TERMINATE_MS = 2000;

/**
 * close ends the connection. A stateful upstream handed out an MCP session id, and since no
 * later request will reuse it, a healthy one is told to drop it (HTTP DELETE) in the background
 * instead of keeping it until its own expiry; an upstream that just failed is not asked.
 * Either way the client is closed, which aborts everything still in flight.
 */
function close(client: Client, transport: StreamableHTTPClientTransport, healthy: boolean): void {
  const shut = (): void => void client.close().catch(() => undefined);
  if (!healthy || transport.sessionId === undefined) return shut();
  const bound = setTimeout(shut, TERMINATE_MS);
  void transport
    .terminateSession()
    .catch(() => undefined)
    .finally(() => {
      clearTimeout(bound);
      shut();
    });
}

/**
 * watchingFetch reports when the response stream of a JSON-RPC request ends or breaks. The SDK
 * does not resume such a stream (see NO_RESUME) and does not fail the request either, so without
 * this an upstream that dies mid-call would only surface at the deadline.
 */
function watchingFetch(onEnded: (id: RequestId, cause: unknown) => void): FetchLike {
  return async (url, init) => {
    const response = await fetch(url, init);
    const id = requestIdOf(init);
    const type = response.headers.get('content-type') ?? '';
    if (id === undefined || !response.ok || !response.body || !type.toLowerCase().startsWith('text/event-stream')) return response;
    const reader = response.body.getReader();
    const watched = new ReadableStream<Uint8Array>({
      async pull(controller) {
        let chunk: Awaited<ReturnType<typeof reader.read>>;
        try {
          chunk = await reader.read();
        } catch (err) {
          controller.error(err);
          onEnded(id, err);
          return;
        }
        if (chunk.done) {
          controller.close();
          onEnded(id, undefined);
        } else {
          controller.enqueue(chunk.value);
        }
      },
      cancel(reason) {
        return reader.cancel(reason);
      },
    });
    return new Response(watched, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}

/** requestIdOf is the id of the JSON-RPC request a POST carries; notifications have none. */
function requestIdOf(init: RequestInit | undefined): RequestId | undefined {
  if (init?.method !== 'POST' || typeof init.body !== 'string') return undefined;
  try {
    const message = JSON.parse(init.body) as { id?: unknown; method?: unknown };
    if (typeof message.method === 'string' && (typeof message.id === 'string' || typeof message.id === 'number')) return message.id;
  } catch {
    // not JSON: nothing to watch
  }
  return undefined;
}
