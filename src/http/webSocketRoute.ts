import type { Logger } from 'pino';
import type { Principal } from '../auth/keyIndex.js';

/**
 * A WebSocket route: the server authenticates the upgrade request with the same key places as
 * every HTTP route, then hands the open socket to the route, which runs a session over it.
 */

/** WebSocketContext is what a session may know of the upgrade request. */
export interface WebSocketContext {
  path: string;
  query: URLSearchParams;
  headers: Record<string, string>;
  principal: Principal;
  log: Logger;
  queryId: string;
}

/** WebSocketPeer is the open socket as a session sees it; every call is a no-op once it closed. */
export interface WebSocketPeer {
  /** send writes one text frame. */
  send(text: string): void;
  /** bufferedBytes is what is written but not yet taken by the client (backpressure). */
  bufferedBytes(): number;
  /** end closes the socket with a WebSocket close code and a short reason. */
  end(code: number, reason: string): void;
  readonly closed: boolean;
}

/** WebSocketSession is one connection's work; `close` runs once when the socket closes, whoever closed it. */
export interface WebSocketSession {
  drained?(): void;
  close(): void;
}

export interface WebSocketRoute {
  path: string;
  /** maxBackpressureBytes bounds what one socket buffers for a slow client; beyond it sends are dropped. */
  maxBackpressureBytes: number;
  open(ctx: WebSocketContext, peer: WebSocketPeer): WebSocketSession;
}
