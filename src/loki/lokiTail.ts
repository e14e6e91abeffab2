import { checkLogQL, logqlQueryKind, parseLogQL, type RawRow } from '../../engine/index.js';
import { ApiError, toApiError } from '../errors.js';
import type { WebSocketContext, WebSocketPeer, WebSocketRoute, WebSocketSession } from '../http/webSocketRoute.js';
import type { MetaStore } from '../meta/types.js';
import type { QueryCollector } from '../query/collect.js';
import { lokiOrg } from './lokiOrg.js';
import { lokiLimit, nowNs, nsToMsFloor, parseLokiTime, requireQuery } from './lokiParams.js';
import { streamsResult } from './lokiRender.js';

/**
 * Live tailing at /loki/api/v1/tail, over a WebSocket as Loki serves it. A session reads the
 * lines of its log query that arrived since the last line it sent, every POLL_MS, through the
 * same collector (gate, deadline, limits) as a query, and sends them as Loki's tail frames:
 * `{"streams": [...], "dropped_entries": null}`.
 *
 * Nothing is queued for a slow client: while the socket's buffer holds more than
 * SLOW_CLIENT_BYTES the session skips its reads, and the lines wait in storage; once the
 * client has caught up, reading resumes where it stopped. A client's cost is therefore bounded
 * by the socket's buffer plus one read of at most `limit` lines.
 */

/** POLL_MS is how often a session looks for new lines; a pushed line reaches the client within about this. */
const POLL_MS = 250;
/** SLOW_CLIENT_BYTES is the buffered size past which a session waits for its client before reading more. */
const SLOW_CLIENT_BYTES = 256 * 1024;
/** MAX_BACKPRESSURE_BYTES bounds what a socket may buffer at all (one read beyond SLOW_CLIENT_BYTES). */
const MAX_BACKPRESSURE_BYTES = 16 * 1024 * 1024;
/** MAX_DELAY_SECONDS is Loki's bound on `delay_for`. */
const MAX_DELAY_SECONDS = 5;

/** CLOSE_POLICY is the close code for a refused request (bad query, unknown org). */
const CLOSE_POLICY = 1008;
const CLOSE_ERROR = 1011;

export interface LokiTailDeps {
  collector: QueryCollector;
  store: MetaStore;
}

class TailSession implements WebSocketSession {
  private timer: NodeJS.Timeout | undefined;
  private readonly controller = new AbortController();
  private reading = false;
  /** lastNs is the timestamp of the newest line sent; lines at or before it are not sent again. */
  private lastNs: bigint;

  constructor(
    private readonly ctx: WebSocketContext,
    private readonly peer: WebSocketPeer,
    private readonly deps: LokiTailDeps,
  ) {
    this.lastNs = 0n;
    void this.start();
  }

  private async start(): Promise<void> {
    try {
      const org = await lokiOrg(this.ctx, this.deps.store);
      const q = requireQuery(this.ctx.query);
      const expr = parseLogQL(q);
      checkLogQL(expr, q, { rangeQuery: true });
      if (logqlQueryKind(expr) !== 'log') throw new ApiError('BAD_REQUEST', 'tail takes a log query, not a metric query');
      const limit = lokiLimit(this.ctx.query);
      const delayText = this.ctx.query.get('delay_for');
      const delaySeconds = delayText === null || delayText === '' ? 0 : Number(delayText);
      if (!Number.isInteger(delaySeconds) || delaySeconds < 0 || delaySeconds > MAX_DELAY_SECONDS) {
        throw new ApiError('BAD_REQUEST', `delay_for must be an integer of seconds from 0 to ${MAX_DELAY_SECONDS}`);
      }
      const startText = this.ctx.query.get('start');
      this.lastNs = (startText === null || startText === '' ? nowNs() - 3_600_000_000_000n : parseLokiTime(startText, 'start')) - 1n;
      const delayNs = BigInt(delaySeconds) * 1_000_000_000n;
      const tick = (): void => {
        this.timer = setTimeout(() => void this.read(org, q, expr, limit, delayNs).finally(() => !this.peer.closed && tick()), POLL_MS);
      };
      await this.read(org, q, expr, limit, delayNs);
      if (!this.peer.closed) tick();
    } catch (err) {
      this.refuse(err);
    }
  }

  /** read sends the lines that arrived after the last one sent, unless the client is behind. */
  private async read(org: string, q: string, expr: ReturnType<typeof parseLogQL>, limit: number, delayNs: bigint): Promise<void> {
    if (this.reading || this.peer.closed || this.peer.bufferedBytes() > SLOW_CLIENT_BYTES) return;
    this.reading = true;
    try {
      const endNs = nowNs() - delayNs;
      if (endNs <= this.lastNs) return;
      const window = { startMs: nsToMsFloor(this.lastNs), endMs: nsToMsFloor(endNs), stepMs: 1000, points: 1, instant: false };
      const { rows } = await this.deps.collector.logqlRows(org, q, expr, window, { limit, reverse: false, fields: undefined }, this.controller.signal);
      const fresh: RawRow[] = rows.filter((row) => row.timestampNs > this.lastNs && row.timestampNs <= endNs);
      if (fresh.length === 0) return;
      this.lastNs = fresh[fresh.length - 1].timestampNs;
      const { result } = streamsResult(fresh);
      this.peer.send(JSON.stringify({ streams: result, dropped_entries: null }));
    } catch (err) {
      if (!this.controller.signal.aborted && toApiError(err).code !== 'RATE_LIMITED') this.refuse(err);
    } finally {
      this.reading = false;
    }
  }

  /** refuse ends the session with the error's message as the close reason (trimmed to fit a close frame). */
  private refuse(err: unknown): void {
    const apiError = toApiError(err, this.ctx.queryId);
    if (apiError.status >= 500) this.ctx.log.error({ err, code: apiError.code }, 'tail session failed');
    const reason = Buffer.from(apiError.message).subarray(0, 120).toString('utf8');
    this.peer.end(apiError.status >= 500 ? CLOSE_ERROR : CLOSE_POLICY, reason);
  }

  close(): void {
    clearTimeout(this.timer);
    this.controller.abort(new Error('tail closed'));
  }
}

/** lokiTailRoute is the WebSocket route of /loki/api/v1/tail. */
export function lokiTailRoute(deps: LokiTailDeps): WebSocketRoute {
  return {
    path: '/loki/api/v1/tail',
    maxBackpressureBytes: MAX_BACKPRESSURE_BYTES,
    open: (ctx, peer) => new TailSession(ctx, peer, deps),
  };
}
