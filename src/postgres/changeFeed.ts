import type pg from 'pg';
import type { EventSink } from '../../engine/storage/storageEvent.js';

/**
 * ChangeFeed follows one NOTIFY channel on a connection of its own, so a change committed by
 * any replica (or the CLI) reaches this process within milliseconds. A notification can only
 * be received while listening, so whenever the connection is (re)established the feed reports
 * a change too: whatever happened while it was away is then read afresh, which is what makes a
 * PostgreSQL restart or a network cut lose nothing. A heartbeat notices a connection that died
 * without closing (a partition), since no notification would ever tell.
 */
export interface ChangeFeedOptions {
  channel: string;
  /** connect returns a new, unconnected client. */
  newClient: () => pg.Client;
  /** onNotify receives each notification's payload. */
  onNotify: (payload: string) => void;
  /** onResync runs after every reconnection (not the first connection): changes may have been missed. */
  onResync: () => void;
  onEvent: EventSink;
  heartbeatMs?: number;
}

const RETRY_MIN_MS = 100;
const RETRY_MAX_MS = 2000;
const DEFAULT_HEARTBEAT_MS = 5000;

export class ChangeFeed {
  private client: pg.Client | undefined;
  private closed = false;
  private retryMs = RETRY_MIN_MS;
  private retryTimer: NodeJS.Timeout | undefined;
  private heartbeat: NodeJS.Timeout | undefined;
  private everConnected = false;
  private lost = false;

  private constructor(private readonly options: ChangeFeedOptions) {}

  /** start connects once (failing if it cannot) and keeps reconnecting after that. */
  static async start(options: ChangeFeedOptions): Promise<ChangeFeed> {
    const feed = new ChangeFeed(options);
    await feed.connect();
    return feed;
  }

  /** connected says whether the feed is listening now. */
  get connected(): boolean {
    return this.client !== undefined;
  }

  private async connect(): Promise<void> {
    const client = this.options.newClient();
    // An error on an idle connection arrives as an event; without a handler it would end the process.
    client.on('error', () => this.drop(client));
    client.on('end', () => this.drop(client));
    client.on('notification', (msg) => {
      if (msg.channel === this.options.channel) this.options.onNotify(msg.payload ?? '');
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${quoteIdent(this.options.channel)}`);
    } catch (err) {
      client.removeAllListeners('end');
      await client.end().catch(() => undefined);
      throw err;
    }
    if (this.closed) {
      await client.end().catch(() => undefined);
      return;
    }
    this.client = client;
    this.retryMs = RETRY_MIN_MS;
    this.startHeartbeat(client);
    if (this.everConnected) {
      this.options.onEvent({ level: 'info', message: 'PostgreSQL change listener reconnected' });
      this.options.onResync();
    }
    this.everConnected = true;
    this.lost = false;
  }

  private startHeartbeat(client: pg.Client): void {
    const every = this.options.heartbeatMs ?? DEFAULT_HEARTBEAT_MS;
    this.heartbeat = setInterval(() => {
      let answered = false;
      const deadline = setTimeout(() => {
        if (!answered) this.drop(client, true);
      }, every);
      deadline.unref();
      client.query('SELECT 1').then(
        () => (answered = true),
        () => this.drop(client, true),
      );
    }, every);
    this.heartbeat.unref();
  }

  /** drop forgets a failed connection and schedules a new one; `destroy` also closes its socket. */
  private drop(client: pg.Client, destroy = false): void {
    if (this.client !== client) return;
    this.client = undefined;
    clearInterval(this.heartbeat);
    if (destroy) void client.end().catch(() => undefined);
    if (this.closed) return;
    if (!this.lost) this.options.onEvent({ level: 'warn', message: 'PostgreSQL change listener lost its connection; reconnecting' });
    this.lost = true;
    this.scheduleRetry();
  }

  private scheduleRetry(): void {
    clearTimeout(this.retryTimer);
    this.retryTimer = setTimeout(() => {
      if (this.closed) return;
      this.connect().catch(() => {
        this.retryMs = Math.min(this.retryMs * 2, RETRY_MAX_MS);
        this.scheduleRetry();
      });
    }, this.retryMs);
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retryTimer);
    clearInterval(this.heartbeat);
    const client = this.client;
    this.client = undefined;
    if (client) await client.end().catch(() => undefined);
  }
}

/** quoteIdent quotes a channel name for LISTEN, which takes an identifier, not a parameter. */
export function quoteIdent(name: string): string {
  return '"' + name.replace(/"/g, '""') + '"';
}
