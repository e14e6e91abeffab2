import type { HttpRequest, HttpResponse, TemplatedApp, us_listen_socket, us_socket } from 'uWebSockets.js';
import type { Logger } from 'pino';
import type { KeyIndex, Principal } from '../auth/keyIndex.js';
import { extractCredentials } from '../auth/credentials.js';
import type { RateLimiter } from '../auth/rateLimit.js';
import { ApiError, toApiError } from '../errors.js';
import { redactUrlQuery } from '../log.js';
import type { ServiceMetrics } from '../metrics.js';
import { isJsonContentType, readBody } from './body.js';
import { resolveQueryId } from './queryId.js';
import { Responder } from './responder.js';
import type { RequestContext, Router } from './router.js';
import { uwsBuild, type UwsModule } from './uws.js';

export interface HttpServerDeps {
  router: Router;
  keyIndex: KeyIndex;
  rateLimiter: RateLimiter;
  metrics: ServiceMetrics;
  log: Logger;
  maxBodyBytes: number;
}

/**
 * HttpServer is the uWebSockets.js front. One catch-all uWS route feeds every request through
 * the same pipeline: query id -> route match -> authentication -> rate limit -> body -> handler,
 * with every failure rendered as the spec's JSON error. Everything a handler throws, sync or
 * async, is caught here, so no request can take the process down.
 */
export class HttpServer {
  private readonly uws: UwsModule;
  private readonly app: TemplatedApp;
  private listenSocket: us_listen_socket | undefined;
  private inFlight = 0;
  private idleWaiters: Array<() => void> = [];
  private draining = false;

  constructor(private readonly deps: HttpServerDeps) {
    this.uws = uwsBuild().module;
    this.app = this.uws.App();
    this.app.any('/*', (res, req) => this.dispatch(res, req));
  }

  listen(host: string, port: number): Promise<number> {
    return new Promise((resolve, reject) => {
      // Exclusive: without it a second server on the same port could share it (SO_REUSEPORT)
      // and take half the connections instead of failing here.
      // The typings only declare options for listen(port, options, cb); both builds take them after a host too.
      const listen = this.app.listen as unknown as (host: string, port: number, options: number, cb: (socket: us_listen_socket | false) => void) => TemplatedApp;
      listen.call(this.app, host, port, this.uws.LIBUS_LISTEN_EXCLUSIVE_PORT, (socket) => {
        if (!socket) {
          reject(new Error(`cannot listen on ${host}:${port} (address in use or not permitted)`));
          return;
        }
        this.listenSocket = socket;
        resolve(this.uws.us_socket_local_port(socket as unknown as us_socket));
      });
    });
  }

  /** stopAccepting closes the listening socket; connections already open keep being served. */
  stopAccepting(): void {
    this.draining = true;
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
    const path = req.getUrl();
    const rawQuery = req.getQuery() ?? '';
    const headers: Record<string, string> = {};
    req.forEach((name, value) => {
      headers[name] = name in headers ? `${headers[name]}, ${value}` : value;
    });
    const queryId = resolveQueryId(headers['x-svc-query-id']);
    const log = this.deps.log.child({ queryId });
    const match = this.deps.router.match(method, path);
    const routeLabel = match.kind === 'found' ? match.match.route.path : match.kind === 'method-not-allowed' ? path : 'unmatched';

    this.inFlight++;
    this.deps.metrics.inFlight.inc();
    let principal: Principal | undefined;
    const responder = new Responder(res, queryId, (status) => {
      const seconds = (performance.now() - started) / 1000;
      this.deps.metrics.requests.inc({ route: routeLabel, method, status: String(status) });
      this.deps.metrics.duration.observe({ route: routeLabel, method }, seconds);
      const line = {
        method,
        route: routeLabel,
        path,
        query: rawQuery === '' ? undefined : redactUrlQuery(rawQuery),
        status,
        durationMs: Math.round(seconds * 1e6) / 1e3,
        org: principal?.kind === 'org' ? principal.orgId : principal?.kind,
      };
      if (status === 499) log.warn(line, 'client closed request');
      else if (status >= 500) log.error(line, 'request failed');
      else log.info(line, 'request');
      this.requestDone();
    }, this.draining);
    res.onAborted(() => responder.markAborted());

    try {
      if (match.kind === 'not-found') throw new ApiError('NOT_FOUND', `no route for ${method} ${path}`);
      if (match.kind === 'method-not-allowed') {
        const allow = match.allowed.join(', ');
        throw new ApiError('METHOD_NOT_ALLOWED', `${path} accepts ${allow}, not ${method}`, { headers: { allow } });
      }
      const { route, params } = match.match;
      const query = new URLSearchParams(rawQuery);
      if (route.auth === 'key') {
        principal = this.authenticate(headers, route.queryKey ? query.get('apiKey') ?? undefined : undefined);
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
      const ctx: RequestContext = { method, path, query, headers, params, queryId, log, res: responder, principal, body: undefined };
      if (route.body) {
        const declared = headers['content-length'] === undefined ? undefined : Number(headers['content-length']);
        readBody(res, this.deps.maxBodyBytes, declared).then(
          (body) => {
            ctx.body = body;
            this.run(ctx, route.handler);
          },
          (err: unknown) => this.fail(responder, log, err, true),
        );
      } else {
        this.run(ctx, route.handler);
      }
    } catch (err) {
      this.fail(responder, log, err, false);
    }
  }

  private authenticate(headers: Record<string, string>, queryKey: string | undefined): Principal {
    const credentials = extractCredentials(headers, queryKey);
    if (!credentials) throw new ApiError('UNAUTHORIZED', 'Unauthorized: missing API key; send it in the X-Svc-API-Key header');
    const principal = credentials.key === '' ? undefined : this.deps.keyIndex.verify(credentials.key, credentials.keyId);
    if (!principal) throw new ApiError('UNAUTHORIZED', `invalid API key (presented in ${credentials.place})`);
    return principal;
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
    const apiError = toApiError(err);
    if (apiError.status >= 500) log.error({ err }, 'request handler failed');
    if (responder.finished) return;
    // A body we refused to read is still on the wire; closing the connection discards it.
    responder.error(apiError, bodyUnread && apiError.code === 'PAYLOAD_TOO_LARGE');
  }

  private requestDone(): void {
    this.inFlight--;
    this.deps.metrics.inFlight.dec();
    if (this.inFlight === 0) for (const waiter of this.idleWaiters.splice(0)) waiter();
  }
}
