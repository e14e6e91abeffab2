import type { PostgresDatabase } from '../postgres/database.js';
import type { PartitionOwner, PartitionOwners } from './partitionOwners.js';

/**
 * PostgresPartitionOwners reads the ingesters' partition leases (table partition_leases, see
 * partitionLeases.ts) for a query replica. Only unexpired leases count, judged by the
 * database's clock, the one the ingesters' leases are written with: a partition whose owner
 * died is simply absent until another ingester takes it over.
 */
export class PostgresPartitionOwners implements PartitionOwners {
  /**
   * `catalog` is the catalog name (SVC_CATALOG_NAME) the ingesters hold their leases under.
   * `closeDatabase` says whether close ends `db` too (when it was opened for this reader alone).
   */
  constructor(
    private readonly db: PostgresDatabase,
    private readonly catalog: string,
    private readonly closeDatabase = false,
  ) {}

  async owners(): Promise<PartitionOwner[]> {
    const res = await this.db.pool.query<{ partition: number; owner_id: string; base_url: string; expires_ms: number }>(
      `SELECT partition, owner_id, base_url, (extract(epoch FROM expires_at) * 1000)::float8 AS expires_ms
       FROM partition_leases
       WHERE catalog = $1 AND owner_id IS NOT NULL AND expires_at > clock_timestamp()
       ORDER BY partition`,
      [this.catalog],
    );
    return res.rows.map((r) => ({ partition: r.partition, ownerId: r.owner_id, baseUrl: (r.base_url ?? '').replace(/\/+$/, ''), leaseExpiresAtMs: Math.floor(r.expires_ms) }));
  }

  async close(): Promise<void> {
    if (this.closeDatabase) await this.db.close();
  }
}
