import type { Responder } from './responder.js';
import { statusLine } from './responder.js';

/** SseEvent is one event of the query stream: `data: {"type":...,"data":...}` plus a blank line. */
export interface SseEvent {
  type: string;
  data: unknown;
  /**
   * json, when set, is `data` already serialised; used where JSON.stringify cannot express a
   * value, such as nanosecond timestamps written as exact integers beyond 2^53.
   */
  json?: string;
}

/** frame renders one event in the spec's framing: a data line and a blank line. */
export function frame(e: SseEvent): string {
  return `data: {"type":${JSON.stringify(e.type)},"data":${e.json ?? JSON.stringify(e.data)}}\n\n`;
}

export interface SseOptions {
  /** heartbeatMs is the silence after which a heartbeat event is sent (the spec says 15 s). */
  heartbeatMs: number;
  /** onClose runs once when the stream ends for any reason (done, error or disconnect). */
  onClose?: () => void;
}

/**
 * SseStream writes Server-Sent Events to a uWS response while honouring backpressure: uWS
 * keeps whatever `write` could not send and reports it by returning false, so after such a
 * write the stream reports `writable = false` and producers wait on `drained()` before making
 * more events. A slow client therefore holds at most one batch in memory and slows only its
 * own query. A timer sends a heartbeat after every `heartbeatMs` of silence.
 */
export class SseStream {
  private writableNow = true;
  private drainWaiters: Array<() => void> = [];
  private heartbeat: NodeJS.Timeout | undefined;
  private ended = false;
  /** eventsSent counts result, heartbeat and terminal events written. */
  eventsSent = 0;

  constructor(
    private readonly res: Responder,
    private readonly options: SseOptions,
  ) {
    res.onAbort(() => this.close());
  }

  /** open writes the 200 status and the spec's headers. */
  open(): void {
    if (this.res.finished || this.res.started) return;
    const raw = this.res.raw;
    raw.cork(() => {
      raw.writeStatus(statusLine(200));
      raw.writeHeader('content-type', 'text/event-stream');
      raw.writeHeader('cache-control', 'no-cache');
      raw.writeHeader('connection', 'keep-alive');
      raw.writeHeader('x-svc-query-id', this.res.queryId);
      raw.writeHeader('x-accel-buffering', 'no');
    });
    this.res.status = 200;
    this.res.started = true;
    this.armHeartbeat();
  }

  get closed(): boolean {
    return this.ended || this.res.aborted;
  }

  get writable(): boolean {
    return this.writableNow && !this.closed;
  }

  /** send frames and writes events in one corked write; returns false when the client is behind. */
  send(events: SseEvent | SseEvent[]): boolean {
    if (this.closed) return false;
    const list = Array.isArray(events) ? events : [events];
    if (list.length === 0) return this.writableNow;
    let chunk = '';
    for (const e of list) chunk += frame(e);
    this.eventsSent += list.length;
    let ok = true;
    this.res.raw.cork(() => {
      ok = this.res.raw.write(chunk);
    });
    this.armHeartbeat();
    if (!ok) this.waitWritable();
    return ok;
  }

  private waitWritable(): void {
    if (!this.writableNow) return;
    this.writableNow = false;
    this.res.raw.onWritable(() => {
      this.writableNow = true;
      for (const w of this.drainWaiters.splice(0)) w();
      return true;
    });
  }

  /** drained resolves when the client has caught up (or the stream closed). */
  drained(): Promise<void> {
    if (this.writableNow || this.closed) return Promise.resolve();
    return new Promise((resolve) => this.drainWaiters.push(resolve));
  }

  /** end sends the terminal event and finishes the response. */
  end(terminal: SseEvent): void {
    if (this.closed) return;
    const chunk = frame(terminal);
    this.eventsSent++;
    this.res.finished = true;
    this.res.raw.cork(() => this.res.raw.end(chunk));
    this.res.reportFinished(200);
    this.close();
  }

  private armHeartbeat(): void {
    clearTimeout(this.heartbeat);
    if (this.closed) return;
    this.heartbeat = setTimeout(() => this.send({ type: 'heartbeat', data: { status: 'waiting' } }), this.options.heartbeatMs);
  }

  private close(): void {
    if (this.ended) return;
    this.ended = true;
    clearTimeout(this.heartbeat);
    for (const w of this.drainWaiters.splice(0)) w();
    this.options.onClose?.();
  }
}
