import type { EventSink } from '../../engine/storage/storageEvent.js';
import type { PostgresDatabase } from '../postgres/database.js';

/**
 * IngestReplicas counts the ingest processes of one installation that are alive, so that an
 * org's ingestion rate is a limit on the installation rather than on each process: every
 * ingest process's bucket refills at rate / live ingest processes (Mimir's global ingestion
 * rate strategy, which divides by the healthy distributors). Each process marks itself alive
 * in `ingest_processes` every third of `leaseMs` with an expiry by the database's clock, and
 * counts the unexpired rows. A process that dies stops counting after its expiry; one that
 * cannot reach PostgreSQL keeps its last count (a restart of the database does not hand every
 * process the whole rate at once).
 */
export interface IngestReplicasSettings {
  catalog: string;
  ownerId: string;
  leaseMs: number;
}

export class IngestReplicas {
  private live = 1;
  private timer: NodeJS.Timeout | undefined;
  private beating: Promise<void> | undefined;

  constructor(
    private readonly db: PostgresDatabase,
    private readonly settings: IngestReplicasSettings,
    private readonly onEvent: EventSink,
    /** onCount reports the count after each heartbeat (a gauge). */
    private readonly onCount: (count: number) => void = () => {},
  ) {}

  /** count is how many ingest processes were alive at the last heartbeat, this one included (at least 1). */
  count(): number {
    return this.live;
  }

  async start(): Promise<void> {
    await this.beat();
    this.timer = setInterval(() => void this.beat(), Math.max(100, Math.floor(this.settings.leaseMs / 3)));
    this.timer.unref();
  }

  private beat(): Promise<void> {
    this.beating ??= this.heartbeat()
      .catch((err: unknown) =>
        this.onEvent({ level: 'warn', message: 'counting the live ingest processes failed; keeping the last count', fields: { live: this.live, error: err instanceof Error ? err.message : String(err) } }),
      )
      .finally(() => (this.beating = undefined));
    return this.beating;
  }

  private async heartbeat(): Promise<void> {
    const { catalog, ownerId, leaseMs } = this.settings;
    await this.db.pool.query(
      `INSERT INTO ingest_processes (catalog, owner_id, expires_at) VALUES ($1, $2, clock_timestamp() + $3 * interval '1 millisecond')
       ON CONFLICT (catalog, owner_id) DO UPDATE SET expires_at = EXCLUDED.expires_at`,
      [catalog, ownerId, leaseMs],
    );
    await this.db.pool.query(`DELETE FROM ingest_processes WHERE catalog = $1 AND expires_at < clock_timestamp() - interval '1 hour'`, [catalog]);
    const res = await this.db.pool.query<{ live: number }>('SELECT count(*)::int AS live FROM ingest_processes WHERE catalog = $1 AND expires_at > clock_timestamp()', [catalog]);
    this.live = Math.max(1, res.rows[0].live);
    this.onCount(this.live);
  }

  /** stop ends the heartbeat and removes this process's row, so the others take its share at their next count. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.beating;
    await this.db.pool.query('DELETE FROM ingest_processes WHERE catalog = $1 AND owner_id = $2', [this.settings.catalog, this.settings.ownerId]).catch(() => undefined);
  }
}
