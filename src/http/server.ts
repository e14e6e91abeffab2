import { setMaxListeners } from 'node:events';
import type { HttpRequest, HttpResponse, TemplatedApp, us_listen_socket, us_socket, us_socket_context_t, WebSocket } from 'uWebSockets.js';
import type { Logger } from 'pino';
import type { KeyIndex, Principal } from '../auth/keyIndex.js';
import { extractCredentials } from '../auth/credentials.js';
import type { FailedAuthLimiter } from '../auth/failedAuth.js';
import type { RateLimiter } from '../auth/rateLimit.js';
import { ApiError, toApiError } from '../errors.js';
import { redactUrlQuery } from '../log.js';
import type { ServiceMetrics } from '../metrics.js';
import { StartupError } from '../startupError.js';
import { BodyTooLarge, isJsonContentType, readBody } from './body.js';
import { negotiateEncoding } from './compression.js';
import { resolveQueryId } from './queryId.js';
import { Responder, statusLine } from './responder.js';
import type { RequestContext, Router } from './router.js';
import { uwsBuild, type UwsModule } from './uws.js';
import type { WebSocketContext, WebSocketPeer, WebSocketRoute, WebSocketSession } from './webSocketRoute.js';

/** UNMATCHED_ROUTE is the route label of every request whose path is in no route. */
export const UNMATCHED_ROUTE = 'unmatched';

/** KNOWN_METHODS keep the method label bounded too: anything else is counted as OTHER. */
const KNOWN_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS']);

export interface HttpServerDeps {
  router: Router;
  rateLimiter: RateLimiter;
  failedAuth: FailedAuthLimiter;
  metrics: ServiceMetrics;
  log: Logger;
  maxBodyBytes: number;
  /** compression answers in the encoding the client's Accept-Encoding asks for (br or gzip). */
  compression?: boolean;
}

/**
 * HttpServer is the uWebSockets.js front. One catch-all uWS route feeds every request through
 * the same pipeline: query id -> route match -> authentication -> rate limit -> body -> handler,
 * with every failure rendered as the spec's JSON error. Everything a handler throws, sync or
 * async, is caught here, so no request can take the process down.
 *
 * The port is bound before the stores open (so a busy port fails start-up before anything is
 * created or printed); until `open` hands over the key index, every request gets 503.
 */
/** SocketData is what the server keeps on each WebSocket: the upgrade's context and the route's session. */
interface SocketData {
  ctx: WebSocketContext;
  session: WebSocketSession | undefined;
  closed: boolean;
}

export class HttpServer {
  private readonly uws: UwsModule;
  private readonly app: TemplatedApp;
  private listenSocket: us_listen_socket | undefined;
  private inFlight = 0;
  private idleWaiters: Array<() => void> = [];
  private draining = false;
  private keyIndex: KeyIndex | undefined;
  /** shutdown aborts when the server stops waiting for streams: they end with `done` status error. */
  private readonly shutdown = new AbortController();
  /** sockets are the open WebSocket sessions, closed when the server stops accepting. */
  private readonly sockets = new Set<WebSocket<SocketData>>();

  constructor(private readonly deps: HttpServerDeps) {
    this.uws = uwsBuild().module;
    this.app = this.uws.App();
    this.app.any('/*', (res, req) => this.dispatch(res, req));
    // Every open query stream listens on this one signal (and removes its listener when it
    // ends), so dozens of listeners are normal load, not a leak: lift Node's warning at 10.
    setMaxListeners(0, this.shutdown.signal);
  }

  /**
   * listen binds the port exclusively: a second server on a busy port fails here, naming it,
   * instead of sharing the port and receiving half of the other server's requests.
   */
  listen(host: string, port: number): Promise<number> {
    return new Promise((resolve, reject) => {
      // uWS.js takes (host, port, options, cb) although its typings list options only without a host.
      const listen = this.app.listen as unknown as (h: string, p: number, o: number, cb: (s: us_listen_socket | false) => void) => void;
      listen.call(this.app, host, port, this.uws.LIBUS_LISTEN_EXCLUSIVE_PORT, (socket) => {
        if (!socket) {
          reject(new StartupError(`cannot listen on ${host}:${port}: port ${port} is in use by another process (or the address is not available here); stop it or set SVC_PORT`));
          return;
        }
        this.listenSocket = socket;
        resolve(this.uws.us_socket_local_port(socket as unknown as us_socket));
      });
    });
  }

  /**
   * webSocket serves a WebSocket route. The upgrade is authenticated as an HTTP request to a
   * keyed route is; a refused upgrade gets the spec's JSON error with its status.
   */
  webSocket(route: WebSocketRoute): void {
    this.app.ws<SocketData>(route.path, {
      maxBackpressure: route.maxBackpressureBytes,
      idleTimeout: 120,
      sendPingsAutomatically: true,
      upgrade: (res, req, context) => this.upgrade(route, res, req, context),
      open: (ws) => {
        const data = ws.getUserData();
        this.sockets.add(ws);
        const peer: WebSocketPeer = {
          send: (text) => {
            // Writes from outside a uWS callback are corked so they are flushed now.
            if (!data.closed) ws.cork(() => ws.send(text, false));
          },
          bufferedBytes: () => (data.closed ? 0 : ws.getBufferedAmount()),
          end: (code, reason) => {
            if (!data.closed) ws.end(code, reason);
          },
          get closed() {
            return data.closed;
          },
        };
        data.session = route.open(data.ctx, peer);
      },
      drain: (ws) => ws.getUserData().session?.drained?.(),
      close: (ws) => {
        const data = ws.getUserData();
        data.closed = true;
        this.sockets.delete(ws);
        data.session?.close();
      },
    });
  }

  private upgrade(route: WebSocketRoute, res: HttpResponse, req: HttpRequest, context: us_socket_context_t): void {
    const headers: Record<string, string> = {};
    req.forEach((name, value) => {
      headers[name] = value;
    });
    const queryId = resolveQueryId(headers['x-svc-query-id']);
    const log = this.deps.log.child({ queryId });
    const query = new URLSearchParams(req.getQuery() ?? '');
    try {
      if (this.keyIndex === undefined || this.draining) {
        throw new ApiError('SERVICE_UNAVAILABLE', 'the server is not accepting connections; retry shortly', { headers: { 'retry-after': '1' } });
      }
      const principal = this.authenticate(this.keyIndex, headers, undefined, res);
      const ctx: WebSocketContext = { path: route.path, query, headers, principal, log, queryId };
      const data: SocketData = { ctx, session: undefined, closed: false };
      res.upgrade(data, headers['sec-websocket-key'] ?? '', headers['sec-websocket-protocol'] ?? '', headers['sec-websocket-extensions'] ?? '', context);
      log.info({ route: route.path, org: principal.kind === 'org' ? principal.orgId : principal.kind }, 'websocket opened');
    } catch (err) {
      const apiError = toApiError(err, queryId);
      res.cork(() => {
        res.writeStatus(statusLine(apiError.status));
        for (const [name, value] of Object.entries(apiError.headers)) res.writeHeader(name, value);
        res.writeHeader('content-type', 'application/json');
        res.end(JSON.stringify(apiError.toBody()));
      });
    }
  }

  /** open starts serving requests once the stores and routes are ready. */
  open(keyIndex: KeyIndex): void {
    this.keyIndex = keyIndex;
  }

  /**
   * endStreams asks every open query stream to end now with its terminal event (`done` status
   * error, code SERVICE_UNAVAILABLE), for a shutdown that cannot wait for them any longer.
   */
  endStreams(): void {
    this.shutdown.abort();
  }

  /** stopAccepting closes the listening socket; connections already open keep being served. */
  stopAccepting(): void {
    this.draining = true;
    for (const ws of [...this.sockets]) ws.end(1001, 'server shutting down');
    if (this.listenSocket) {
      this.uws.us_listen_socket_close(this.listenSocket);
      this.listenSocket = undefined;
    }
  }

  /** waitIdle resolves once no request is in flight, or after `timeoutMs`; true when idle. */
  waitIdle(timeoutMs: number): Promise<boolean> {
    if (this.inFlight === 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(false), timeoutMs);
      this.idleWaiters.push(() => {
        clearTimeout(timer);
        resolve(true);
      });
    });
  }

  get requestsInFlight(): number {
    return this.inFlight;
  }

  private dispatch(res: HttpResponse, req: HttpRequest): void {
    const started = performance.now();
    const method = req.getCaseSensitiveMethod().toUpperCase();
    const methodLabel = KNOWN_METHODS.has(method) ? method : 'OTHER';
    const path = req.getUrl();
    const rawQuery = req.getQuery() ?? '';
    const headers: Record<string, string> = {};
    req.forEach((name, value) => {
      headers[name] = name in headers ? `${headers[name]}, ${value}` : value;
    });
    const queryId = resolveQueryId(headers['x-svc-query-id']);
    const log = this.deps.log.child({ queryId });
    const match = this.deps.router.match(method, path);
    // The route label is always a pattern from the route table (or one fixed value), never the
    // raw path: a scan of random URLs must not add a metric series per URL.
    const routeLabel = match.kind === 'found' ? match.match.route.path : match.kind === 'method-not-allowed' ? match.pattern : UNMATCHED_ROUTE;

    this.inFlight++;
    this.deps.metrics.inFlight.inc();
    let principal: Principal | undefined;
    const responder = new Responder(res, queryId, (status) => {
      const seconds = (performance.now() - started) / 1000;
      this.deps.metrics.requests.inc({ route: routeLabel, method: methodLabel, status: String(status) });
      this.deps.metrics.duration.observe({ route: routeLabel, method: methodLabel }, seconds);
      const line = {
        method,
        route: routeLabel,
        path,
        query: rawQuery === '' ? undefined : redactUrlQuery(rawQuery),
        status,
        // Every failed request's line names its error code (the query id is on every line).
        code: responder.errorCode,
        durationMs: Math.round(seconds * 1e6) / 1e3,
        org: principal?.kind === 'org' ? principal.orgId : principal?.kind,
      };
      if (status === 499) log.warn(line, 'client closed request');
      else if (status >= 500) log.error(line, 'request failed');
      else log.info(line, 'request');
      this.requestDone();
    }, this.draining);
    res.onAborted(() => responder.markAborted());
    responder.headOnly = method === 'HEAD';
    if (this.deps.compression === true && method !== 'HEAD') responder.encoding = negotiateEncoding(headers['accept-encoding']);

    try {
      if (this.keyIndex === undefined) {
        throw new ApiError('SERVICE_UNAVAILABLE', 'the server is starting; retry shortly', { headers: { 'retry-after': '1' } });
      }
      if (match.kind === 'not-found') throw new ApiError('NOT_FOUND', `no route for ${method} ${path}`);
      if (match.kind === 'method-not-allowed') {
        const allow = match.allowed.join(', ');
        throw new ApiError('METHOD_NOT_ALLOWED', `${path} accepts ${allow}, not ${method}`, { headers: { allow } });
      }
      const { route, params } = match.match;
      const query = new URLSearchParams(rawQuery);
      if (route.auth === 'key') {
        principal = this.authenticate(this.keyIndex, headers, route.queryKey ? query.get('apiKey') ?? undefined : undefined, res);
        const decision = this.deps.rateLimiter.take(principal.kind === 'org' ? principal.keyId : 'system');
        if (!decision.allowed) {
          throw new ApiError('RATE_LIMITED', 'rate limit exceeded for this API key', {
            headers: { 'retry-after': String(decision.retryAfterSeconds) },
          });
        }
      }
      if (route.body === 'json' && !isJsonContentType(headers['content-type'])) {
        throw new ApiError('BAD_REQUEST', `unsupported content type "${headers['content-type']}"; send application/json`);
      }
      const ctx: RequestContext = {
        method,
        path,
        query,
        headers,
        params,
        queryId,
        log,
        res: responder,
        principal,
        body: undefined,
        shutdown: this.shutdown.signal,
      };
      if (route.body) {
        const declared = headers['content-length'] === undefined ? undefined : Number(headers['content-length']);
        readBody(res, route.maxBodyBytes ?? this.deps.maxBodyBytes, declared).then(
          (body) => {
            ctx.body = body;
            this.run(ctx, route.handler);
          },
          (err: unknown) => this.fail(responder, log, err, err instanceof BodyTooLarge && err.unread),
        );
      } else {
        this.run(ctx, route.handler);
      }
    } catch (err) {
      this.fail(responder, log, err, false);
    }
  }

  /**
   * authenticate finds the caller's principal. A failure counts against the client address;
   * past its budget the answer is 429 with Retry-After rather than 401. A valid key is checked
   * first and never counted, so it is served whatever its address did before.
   */
  private authenticate(keyIndex: KeyIndex, headers: Record<string, string>, queryKey: string | undefined, res: HttpResponse): Principal {
    const credentials = extractCredentials(headers, queryKey);
    const principal = credentials === undefined || credentials.key === '' ? undefined : keyIndex.verify(credentials.key, credentials.keyId);
    if (principal) return principal;
    // Read only on failure (and still inside the uWS handler, where the response may be used).
    const address = Buffer.from(res.getRemoteAddressAsText()).toString('utf8');
    const decision = this.deps.failedAuth.recordFailure(address);
    if (decision.limited) {
      throw new ApiError('RATE_LIMITED', `too many failed authentications from this address; retry in ${decision.retryAfterSeconds} s with a valid API key`, {
        headers: { 'retry-after': String(decision.retryAfterSeconds) },
      });
    }
    if (!credentials) throw new ApiError('UNAUTHORIZED', 'Unauthorized: missing API key; send it in the X-Svc-API-Key header');
    throw new ApiError('UNAUTHORIZED', `invalid API key (presented in ${credentials.place})`);
  }

  private run(ctx: RequestContext, handler: (ctx: RequestContext) => void | Promise<void>): void {
    if (ctx.res.aborted) return;
    try {
      const result = handler(ctx);
      if (result) result.catch((err: unknown) => this.fail(ctx.res, ctx.log, err, false));
    } catch (err) {
      this.fail(ctx.res, ctx.log, err, false);
    }
  }

  /** fail answers with the error's JSON body when the response has not started yet. */
  private fail(responder: Responder, log: Logger, err: unknown, bodyUnread: boolean): void {
    const apiError = toApiError(err, responder.queryId);
    // The full detail of an unexpected failure goes to the log only; the client gets the code and query id.
    if (apiError.status >= 500) log.error({ err, code: apiError.code }, 'request handler failed');
    if (responder.finished) return;
    // A body we refused to read is still on the wire; closing the connection discards it.
    responder.error(apiError, bodyUnread);
  }

  private requestDone(): void {
    this.inFlight--;
    this.deps.metrics.inFlight.dec();
    if (this.inFlight === 0) for (const waiter of this.idleWaiters.splice(0)) waiter();
  }
}
