import type { PostgresDatabase } from '../postgres/database.js';

/**
 * PartitionLeases is one ingester's side of the lease table in PostgreSQL: which ingester owns
 * each write log partition until when, and which ingesters are alive. Expiry is computed with
 * the database's clock (clock_timestamp()), so the ingesters' clocks never have to agree.
 *
 * The rule that keeps two ingesters from owning one partition: a lease row's owner changes
 * only when an ingester takes a lease that expired (or was released), in one UPDATE that
 * locks the row. An owner renews with a conditional UPDATE on its own id, so a renewal that
 * touches no row means the lease was taken over; and the catalog change that records a cut's
 * positions locks the same rows and checks the owner in its transaction (see
 * PostgresCatalogStore.apply), so a takeover waits for such a commit and then reads the
 * positions it wrote.
 */
export interface LeaseSettings {
  /** catalog is the catalog name the cluster shares (SVC_CATALOG_NAME): leases are kept per catalog. */
  catalog: string;
  ownerId: string;
  /** baseUrl is where query replicas reach this ingester's head data. */
  baseUrl: string;
  leaseMs: number;
  partitions: number;
}

export class PartitionLeases {
  constructor(
    private readonly db: PostgresDatabase,
    readonly settings: LeaseSettings,
  ) {}

  /** init creates the lease rows of every partition (unowned) the first time a cluster starts. */
  async init(): Promise<void> {
    await this.db.pool.query(
      `INSERT INTO partition_leases (catalog, partition) SELECT $1, p FROM generate_series(0, $2 - 1) AS p
       ON CONFLICT (catalog, partition) DO NOTHING`,
      [this.settings.catalog, this.settings.partitions],
    );
  }

  /** heartbeat marks this ingester alive for one lease period and returns how many are alive now (itself included). */
  async heartbeat(): Promise<number> {
    const { catalog, ownerId, baseUrl, leaseMs } = this.settings;
    await this.db.pool.query(
      `INSERT INTO ingesters (catalog, owner_id, base_url, expires_at) VALUES ($1, $2, $3, clock_timestamp() + $4 * interval '1 millisecond')
       ON CONFLICT (catalog, owner_id) DO UPDATE SET base_url = EXCLUDED.base_url, expires_at = EXCLUDED.expires_at`,
      [catalog, ownerId, baseUrl, leaseMs],
    );
    // Rows of ingesters gone for a while are removed by whoever notices; they no longer count anyway.
    await this.db.pool.query(`DELETE FROM ingesters WHERE catalog = $1 AND expires_at < clock_timestamp() - interval '1 hour'`, [catalog]);
    const res = await this.db.pool.query<{ live: number }>('SELECT count(*)::int AS live FROM ingesters WHERE catalog = $1 AND expires_at > clock_timestamp()', [catalog]);
    return Math.max(1, res.rows[0].live);
  }

  /** renew extends this ingester's leases on `partitions` and returns those it still owns. */
  async renew(partitions: readonly number[]): Promise<number[]> {
    if (partitions.length === 0) return [];
    const { catalog, ownerId, baseUrl, leaseMs } = this.settings;
    const res = await this.db.pool.query<{ partition: number }>(
      `UPDATE partition_leases SET expires_at = clock_timestamp() + $4 * interval '1 millisecond', base_url = $3
       WHERE catalog = $1 AND owner_id = $2 AND partition = ANY($5::int[]) RETURNING partition`,
      [catalog, ownerId, baseUrl, leaseMs, [...partitions]],
    );
    return res.rows.map((r) => r.partition).sort((a, b) => a - b);
  }

  /**
   * take acquires up to `count` partitions whose leases are free or expired. Rows another
   * transaction holds (a cut recording positions, another ingester taking them) are skipped.
   */
  async take(count: number): Promise<number[]> {
    if (count <= 0) return [];
    const { catalog, ownerId, baseUrl, leaseMs } = this.settings;
    const res = await this.db.pool.query<{ partition: number }>(
      `UPDATE partition_leases SET owner_id = $2, base_url = $3, expires_at = clock_timestamp() + $4 * interval '1 millisecond'
       WHERE catalog = $1 AND partition IN (
         SELECT partition FROM partition_leases
         WHERE catalog = $1 AND partition < $6 AND (owner_id IS NULL OR expires_at <= clock_timestamp())
         ORDER BY partition LIMIT $5 FOR UPDATE SKIP LOCKED
       ) RETURNING partition`,
      // Rows of partitions beyond the configured count (SVC_WRITE_LOG_PARTITIONS was lowered) stay unowned.
      [catalog, ownerId, baseUrl, leaseMs, count, this.settings.partitions],
    );
    return res.rows.map((r) => r.partition).sort((a, b) => a - b);
  }

  /** release gives up this ingester's leases on `partitions` at once, so another can take them without waiting for expiry. */
  async release(partitions: readonly number[]): Promise<void> {
    if (partitions.length === 0) return;
    const { catalog, ownerId } = this.settings;
    await this.db.pool.query(
      `UPDATE partition_leases SET owner_id = NULL, base_url = NULL, expires_at = '-infinity'
       WHERE catalog = $1 AND owner_id = $2 AND partition = ANY($3::int[])`,
      [catalog, ownerId, [...partitions]],
    );
  }

  /** leave removes this ingester from the live ones (a graceful stop), so the others take its share at once. */
  async leave(): Promise<void> {
    await this.db.pool.query('DELETE FROM ingesters WHERE catalog = $1 AND owner_id = $2', [this.settings.catalog, this.settings.ownerId]);
  }
}
