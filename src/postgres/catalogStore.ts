import { createHash } from 'node:crypto';
import type pg from 'pg';
import { CATALOG_VERSION, type CatalogState, type SegmentMeta } from '../../engine/storage/catalog.js';
import {
  CatalogConflictError,
  CatalogError,
  PartitionsLostError,
  type SharedCatalogChange,
  type SharedCatalogStore,
} from '../../engine/storage/catalogStore.js';
import type { MetricMetadataRecord } from '../../engine/storage/walCodec.js';
import { inTransaction } from './connection.js';
import type { PostgresDatabase } from './database.js';

/**
 * PostgresCatalogStore keeps a segment catalog in PostgreSQL: one row of state (WAL checkpoint,
 * next segment id, metric metadata) and one row per segment, with org, signal and time bounds
 * as columns so other processes can select segments without reading the whole catalog. Several
 * catalogs share the tables, each under its own name.
 *
 * The storage hands over the whole state on every save; the store writes only the difference
 * against what the database holds, computed inside the transaction under a lock on the
 * catalog's row. Diffing against the database rather than against the last save means a save
 * whose outcome was unknown (the connection dropped at COMMIT) is simply right the next time.
 */
export class PostgresCatalogStore implements SharedCatalogStore {
  /**
   * `leaseOwner` is the id under which this process holds write log partitions (an ingester):
   * shared changes that record positions are fenced by it (see `apply`).
   */
  constructor(
    private readonly db: PostgresDatabase,
    readonly name: string = 'default',
    readonly leaseOwner?: string,
  ) {}

  async load(): Promise<CatalogState | undefined> {
    const client = await this.db.pool.connect();
    try {
      // One snapshot for both reads, so a save committed between them cannot be half seen.
      await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      const state = await client.query<StateRow>(
        'SELECT version, wal_checkpoint::float8 AS wal_checkpoint, next_segment_id::float8 AS next_segment_id, metric_metadata, log_identity FROM catalogs WHERE name = $1',
        [this.name],
      );
      if (state.rows.length === 0) {
        await client.query('COMMIT');
        return undefined;
      }
      const segments = await client.query<{ meta: SegmentMeta }>('SELECT meta FROM catalog_segments WHERE catalog = $1 ORDER BY position', [this.name]);
      const positions = await client.query<{ partition: number; position: number }>(
        'SELECT partition, position::float8 AS position FROM catalog_log_positions WHERE catalog = $1',
        [this.name],
      );
      await client.query('COMMIT');
      const row = state.rows[0];
      if (row.version !== CATALOG_VERSION) throw new CatalogError(`PostgreSQL catalog ${this.name}: unsupported catalog version ${row.version}`);
      const logPositions = Object.fromEntries(positions.rows.map((r) => [String(r.partition), r.position]));
      return {
        version: row.version,
        walCheckpoint: row.wal_checkpoint,
        nextSegmentId: row.next_segment_id,
        segments: segments.rows.map((r) => r.meta),
        metricMetadata: row.metric_metadata,
        ...(positions.rows.length > 0 ? { logPositions } : {}),
        ...(row.log_identity !== null ? { logIdentity: row.log_identity } : {}),
      };
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      client.release();
    }
  }

  /**
   * version is the transaction id that last wrote the catalog's row (`xmin`): every save
   * rewrites that row, so the token changes with every save and costs one indexed read.
   */
  async version(): Promise<string | undefined> {
    const result = await this.db.pool.query<{ v: string }>('SELECT xmin::text AS v FROM catalogs WHERE name = $1', [this.name]);
    return result.rows[0]?.v ?? 'none';
  }

  async save(state: CatalogState): Promise<void> {
    await inTransaction(this.db.pool, async (client) => {
      await client.query(
        `INSERT INTO catalogs (name, version, wal_checkpoint, next_segment_id, metric_metadata, log_identity) VALUES ($1, $2, $3, $4, $5, $6)
         ON CONFLICT (name) DO UPDATE SET version = EXCLUDED.version, wal_checkpoint = EXCLUDED.wal_checkpoint,
           next_segment_id = EXCLUDED.next_segment_id, metric_metadata = EXCLUDED.metric_metadata, log_identity = EXCLUDED.log_identity, updated_at = now()`,
        [this.name, state.version, state.walCheckpoint, state.nextSegmentId, JSON.stringify(state.metricMetadata), state.logIdentity ?? null],
      );
      // The upsert above holds the catalog's row lock until COMMIT: saves of one catalog run one at a time.
      await this.writeSegments(client, state.segments);
      await client.query('DELETE FROM catalog_log_positions WHERE catalog = $1', [this.name]);
      await this.writePositions(client, state.logPositions ?? {});
    });
  }

  /**
   * reserveSegmentIds takes `count` ids from the catalog's counter in one statement, so every
   * process writing to the catalog names its segment files differently.
   */
  async reserveSegmentIds(count: number): Promise<number> {
    return inTransaction(this.db.pool, async (client) => {
      await this.ensureRow(client);
      const res = await client.query<{ first: number }>(
        'UPDATE catalogs SET next_segment_id = next_segment_id + $2, updated_at = now() WHERE name = $1 RETURNING (next_segment_id - $2)::float8 AS first',
        [this.name, count],
      );
      return res.rows[0].first;
    });
  }

  /**
   * apply commits one shared change in a transaction that first locks the catalog's row, so
   * changes of one catalog apply one at a time. Positions are fenced: the lease rows of their
   * partitions are locked (FOR SHARE) and must name this process, so a takeover, which must
   * update those rows, waits for this commit and then reads the positions it wrote.
   */
  async apply(change: SharedCatalogChange): Promise<void> {
    await inTransaction(this.db.pool, async (client) => {
      await this.ensureRow(client);
      const row = await client.query<{ metric_metadata: CatalogState['metricMetadata'] }>('SELECT metric_metadata FROM catalogs WHERE name = $1 FOR UPDATE', [this.name]);
      const partitions = Object.keys(change.logPositions ?? {}).map(Number);
      if (partitions.length > 0 && this.leaseOwner !== undefined) {
        const held = await client.query<{ partition: number }>(
          'SELECT partition FROM partition_leases WHERE catalog = $1 AND partition = ANY($2::int[]) AND owner_id = $3 FOR SHARE',
          [this.name, partitions, this.leaseOwner],
        );
        const heldSet = new Set(held.rows.map((r) => r.partition));
        const lost = partitions.filter((p) => !heldSet.has(p));
        if (lost.length > 0) throw new PartitionsLostError(lost);
      }
      const remove = change.remove ?? [];
      if (remove.length > 0) {
        const gone = await client.query('DELETE FROM catalog_segments WHERE catalog = $1 AND id = ANY($2::bigint[]) RETURNING id', [this.name, remove]);
        if (gone.rowCount !== new Set(remove).size) throw new CatalogConflictError(`PostgreSQL catalog ${this.name}: ${remove.length - (gone.rowCount ?? 0)} of the segments to replace are gone`);
      }
      const add = change.add ?? [];
      if (add.length > 0) {
        const top = await client.query<{ top: number }>('SELECT coalesce(max(position), -1)::float8 AS top FROM catalog_segments WHERE catalog = $1', [this.name]);
        let next = top.rows[0].top + 1;
        const rows = add.map((s) => segmentRow(s, JSON.stringify(s), next++));
        await this.insertRows(client, rows);
      }
      if (partitions.length > 0) await this.writePositions(client, change.logPositions ?? {});
      // The catalog's row is rewritten by every change, metadata or not: query processes reload
      // the catalog when the row's xmin moves (version()).
      const merged =
        change.metricMetadata !== undefined && Object.keys(change.metricMetadata).length > 0 ? mergeMetadata(row.rows[0].metric_metadata, change.metricMetadata) : row.rows[0].metric_metadata;
      await client.query('UPDATE catalogs SET metric_metadata = $2, updated_at = now() WHERE name = $1', [this.name, JSON.stringify(merged)]);
    });
  }

  async logPositions(partitions: readonly number[]): Promise<Record<string, number>> {
    const res = await this.db.pool.query<{ partition: number; position: number }>(
      'SELECT partition, position::float8 AS position FROM catalog_log_positions WHERE catalog = $1 AND partition = ANY($2::int[])',
      [this.name, [...partitions]],
    );
    const out: Record<string, number> = Object.fromEntries(partitions.map((p) => [String(p), 0]));
    for (const r of res.rows) out[String(r.partition)] = r.position;
    return out;
  }

  async adoptLogIdentity(identity: string): Promise<boolean> {
    return inTransaction(this.db.pool, async (client) => {
      await this.ensureRow(client);
      const row = await client.query<{ log_identity: string | null }>('SELECT log_identity FROM catalogs WHERE name = $1 FOR UPDATE', [this.name]);
      const current = row.rows[0].log_identity;
      if (current === identity) return false;
      let cleared = false;
      if (current !== null) {
        const gone = await client.query('DELETE FROM catalog_log_positions WHERE catalog = $1', [this.name]);
        cleared = (gone.rowCount ?? 0) > 0;
      }
      await client.query('UPDATE catalogs SET log_identity = $2, updated_at = now() WHERE name = $1', [this.name, identity]);
      return cleared;
    });
  }

  /** ensureRow creates the catalog's state row when no process has written it yet. */
  private async ensureRow(client: pg.PoolClient): Promise<void> {
    await client.query(
      `INSERT INTO catalogs (name, version, wal_checkpoint, next_segment_id, metric_metadata) VALUES ($1, $2, 0, 1, '{}')
       ON CONFLICT (name) DO NOTHING`,
      [this.name, CATALOG_VERSION],
    );
  }

  private async writePositions(client: pg.PoolClient, positions: Readonly<Record<string, number>>): Promise<void> {
    const entries = Object.entries(positions);
    if (entries.length === 0) return;
    await client.query(
      `INSERT INTO catalog_log_positions (catalog, partition, position)
       SELECT $1, x.partition, x.position FROM json_to_recordset($2::json) AS x(partition int, position bigint)
       ON CONFLICT (catalog, partition) DO UPDATE SET position = EXCLUDED.position`,
      [this.name, JSON.stringify(entries.map(([partition, position]) => ({ partition: Number(partition), position })))],
    );
  }

  private async insertRows(client: pg.PoolClient, rows: readonly SegmentRow[]): Promise<void> {
    for (let at = 0; at < rows.length; at += BATCH_ROWS) {
      await client.query(
        `INSERT INTO catalog_segments (catalog, id, position, org, signal, min_ms, max_ms, meta)
         SELECT $1, x.id, x.position, x.org, x.signal, x.min_ms, x.max_ms, x.meta
         FROM json_to_recordset($2::json) AS x(id bigint, position bigint, org text, signal text, min_ms bigint, max_ms bigint, meta json)
         ON CONFLICT (catalog, id) DO UPDATE SET position = EXCLUDED.position, org = EXCLUDED.org, signal = EXCLUDED.signal,
           min_ms = EXCLUDED.min_ms, max_ms = EXCLUDED.max_ms, meta = EXCLUDED.meta`,
        [this.name, '[' + rows.slice(at, at + BATCH_ROWS).map((r) => r.json).join(',') + ']'],
      );
    }
  }

  private async writeSegments(client: pg.PoolClient, segments: readonly SegmentMeta[]): Promise<void> {
    const stored = await client.query<{ id: number; position: number; digest: string }>(
      'SELECT id::float8 AS id, position::float8 AS position, md5(meta::text) AS digest FROM catalog_segments WHERE catalog = $1',
      [this.name],
    );
    const old = new Map(stored.rows.map((r) => [r.id, r]));
    const wanted = new Set(segments.map((s) => s.id));
    const gone = stored.rows.filter((r) => !wanted.has(r.id)).map((r) => r.id);
    // Kept segments must stay in their stored order and new ones follow them, which is how the
    // storage changes its list; any other order is written out position by position.
    let lastPosition = -1;
    let ordered = true;
    let seenNew = false;
    for (const s of segments) {
      const row = old.get(s.id);
      if (row === undefined) {
        seenNew = true;
        continue;
      }
      if (seenNew || row.position <= lastPosition) ordered = false;
      lastPosition = row.position;
    }
    let next = stored.rows.reduce((max, r) => Math.max(max, r.position), -1) + 1;
    const upserts: SegmentRow[] = [];
    for (const [index, s] of segments.entries()) {
      const text = JSON.stringify(s);
      const row = old.get(s.id);
      if (!ordered) upserts.push(segmentRow(s, text, index));
      else if (row === undefined) upserts.push(segmentRow(s, text, next++));
      else if (row.digest !== md5(text)) upserts.push(segmentRow(s, text, row.position));
    }
    if (gone.length > 0) await client.query('DELETE FROM catalog_segments WHERE catalog = $1 AND id = ANY($2::bigint[])', [this.name, gone]);
    await this.insertRows(client, upserts);
  }
}

/** mergeMetadata adds `change`'s records to `stored`, by org and metric name (a newer record replaces an older one). */
function mergeMetadata(
  stored: CatalogState['metricMetadata'],
  change: Readonly<Record<string, readonly MetricMetadataRecord[]>>,
): CatalogState['metricMetadata'] {
  const out: CatalogState['metricMetadata'] = { ...stored };
  for (const [org, records] of Object.entries(change)) {
    const byName = new Map((out[org] ?? []).map((m) => [m.name, m]));
    for (const m of records) byName.set(m.name, m);
    out[org] = [...byName.values()];
  }
  return out;
}

/** BATCH_ROWS bounds one statement's parameter text when a whole catalog is written at once. */
const BATCH_ROWS = 2000;

interface StateRow {
  version: number;
  wal_checkpoint: number;
  next_segment_id: number;
  metric_metadata: CatalogState['metricMetadata'];
  log_identity: string | null;
}

interface SegmentRow {
  json: string;
}

/**
 * segmentRow renders one row for json_to_recordset. The segment's own JSON text is embedded
 * as the `meta` value unchanged, so the stored json column holds exactly that text and its
 * md5 matches the one computed here on the next save.
 */
function segmentRow(s: SegmentMeta, text: string, position: number): SegmentRow {
  const head = JSON.stringify({ id: s.id, position, org: s.org, signal: s.signal, min_ms: Math.floor(s.minMs), max_ms: Math.ceil(s.maxMs) });
  return { json: head.slice(0, -1) + ',"meta":' + text + '}' };
}

function md5(text: string): string {
  return createHash('md5').update(text).digest('hex');
}
