import type pg from 'pg';
import type { EventSink } from '../../engine/storage/storageEvent.js';
import type { PostgresDatabase } from '../postgres/database.js';

/** COMPACTOR_LOCK_CLASS is the first key of the compactors' advisory lock ("cmpt"); the second is the catalog name's hash. */
export const COMPACTOR_LOCK_CLASS = 0x636d7074;

/** CompactionWork is one round of the leader's work: refresh the catalog, merge, apply retention, delete orphan segment files. */
export type CompactionWork = () => Promise<void>;

export interface CompactorLeaderOptions {
  catalog: string;
  /** retryMs is how often a follower tries the lock, and how often the leader checks its connection. */
  retryMs: number;
  /** intervalMs is how often the leader runs `work`. */
  intervalMs: number;
  work: CompactionWork;
  onEvent: EventSink;
  /** onLeader reports leadership changes (a gauge). */
  onLeader?: (leader: boolean) => void;
}

/**
 * CompactorLeader makes one compactor at a time do the work: the leader is the process holding
 * a PostgreSQL session advisory lock (pg_try_advisory_lock) on a connection of its own. The lock
 * lives as long as that session, so a leader that dies or loses its connection loses the lock
 * with it, and a follower's next try, every `retryMs`, takes over. The leader checks its
 * connection on the same period and steps down as soon as it fails; a merge it was running
 * then fails to commit if the new leader already replaced its inputs (the catalog refuses a
 * change whose inputs are gone), so a short overlap never duplicates data.
 */
export class CompactorLeader {
  private client: pg.Client | undefined;
  private leader = false;
  private timer: NodeJS.Timeout | undefined;
  private lastWorkMs = -Infinity;
  private busy: Promise<void> | undefined;
  private stopped = false;

  constructor(
    private readonly db: PostgresDatabase,
    private readonly options: CompactorLeaderOptions,
  ) {}

  get isLeader(): boolean {
    return this.leader;
  }

  start(): void {
    void this.step();
    this.timer = setInterval(() => void this.step(), this.options.retryMs);
  }

  /** step runs one round unless one is running: keep or try to take the lock, and work when due. */
  step(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    this.busy ??= this.round().finally(() => (this.busy = undefined));
    return this.busy;
  }

  private async round(): Promise<void> {
    try {
      if (this.leader) await this.client!.query('SELECT 1');
      else await this.tryLock();
    } catch (err) {
      this.stepDown(err);
      return;
    }
    if (!this.leader || Date.now() - this.lastWorkMs < this.options.intervalMs) return;
    this.lastWorkMs = Date.now();
    try {
      await this.options.work();
    } catch (err) {
      this.options.onEvent({ level: 'error', message: 'compaction or retention failed', fields: { error: err instanceof Error ? err.message : String(err) } });
    }
  }

  private async tryLock(): Promise<void> {
    if (this.client === undefined) {
      const client = this.db.newClient('sluice-compactor');
      // A dropped session drops the lock: stop leading at once rather than at the next check.
      client.on('error', (err) => this.stepDown(err));
      client.on('end', () => this.stepDown(new Error('connection ended')));
      this.client = client;
      await client.connect();
    }
    const res = await this.client.query<{ locked: boolean }>('SELECT pg_try_advisory_lock($1, hashtext($2)) AS locked', [COMPACTOR_LOCK_CLASS, this.options.catalog]);
    if (res.rows[0].locked && !this.leader) {
      this.leader = true;
      this.lastWorkMs = -Infinity;
      this.options.onLeader?.(true);
      this.options.onEvent({ level: 'info', message: 'compactor leadership taken', fields: { catalog: this.options.catalog } });
    }
  }

  private stepDown(err: unknown): void {
    const client = this.client;
    this.client = undefined;
    client?.removeAllListeners('end');
    void client?.end().catch(() => undefined);
    if (!this.leader) return;
    this.leader = false;
    this.options.onLeader?.(false);
    if (!this.stopped) this.options.onEvent({ level: 'warn', message: 'compactor leadership lost with its PostgreSQL connection', fields: { error: err instanceof Error ? err.message : String(err) } });
  }

  /** stop waits for a running round and ends the session, which releases the lock for the next leader. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.busy;
    const client = this.client;
    this.client = undefined;
    if (this.leader) {
      this.leader = false;
      this.options.onLeader?.(false);
    }
    client?.removeAllListeners('end');
    await client?.end().catch(() => undefined);
  }
}
