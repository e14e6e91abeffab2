import { createHash } from 'node:crypto';
import type pg from 'pg';
import { CATALOG_VERSION, type CatalogState, type SegmentMeta } from '../../engine/storage/catalog.js';
import { CatalogError, type CatalogStore } from '../../engine/storage/catalogStore.js';
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
export class PostgresCatalogStore implements CatalogStore {
  constructor(
    private readonly db: PostgresDatabase,
    readonly name: string = 'default',
  ) {}

  async load(): Promise<CatalogState | undefined> {
    const client = await this.db.pool.connect();
    try {
      // One snapshot for both reads, so a save committed between them cannot be half seen.
      await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      const state = await client.query<StateRow>(
        'SELECT version, wal_checkpoint::float8 AS wal_checkpoint, next_segment_id::float8 AS next_segment_id, metric_metadata FROM catalogs WHERE name = $1',
        [this.name],
      );
      if (state.rows.length === 0) {
        await client.query('COMMIT');
        return undefined;
      }
      const segments = await client.query<{ meta: SegmentMeta }>('SELECT meta FROM catalog_segments WHERE catalog = $1 ORDER BY position', [this.name]);
      await client.query('COMMIT');
      const row = state.rows[0];
      if (row.version !== CATALOG_VERSION) throw new CatalogError(`PostgreSQL catalog ${this.name}: unsupported catalog version ${row.version}`);
      return {
        version: row.version,
        walCheckpoint: row.wal_checkpoint,
        nextSegmentId: row.next_segment_id,
        segments: segments.rows.map((r) => r.meta),
        metricMetadata: row.metric_metadata,
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
        `INSERT INTO catalogs (name, version, wal_checkpoint, next_segment_id, metric_metadata) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (name) DO UPDATE SET version = EXCLUDED.version, wal_checkpoint = EXCLUDED.wal_checkpoint,
           next_segment_id = EXCLUDED.next_segment_id, metric_metadata = EXCLUDED.metric_metadata, updated_at = now()`,
        [this.name, state.version, state.walCheckpoint, state.nextSegmentId, JSON.stringify(state.metricMetadata)],
      );
      // The upsert above holds the catalog's row lock until COMMIT: saves of one catalog run one at a time.
      await this.writeSegments(client, state.segments);
    });
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
    for (let at = 0; at < upserts.length; at += BATCH_ROWS) {
      await client.query(
        `INSERT INTO catalog_segments (catalog, id, position, org, signal, min_ms, max_ms, meta)
         SELECT $1, x.id, x.position, x.org, x.signal, x.min_ms, x.max_ms, x.meta
         FROM json_to_recordset($2::json) AS x(id bigint, position bigint, org text, signal text, min_ms bigint, max_ms bigint, meta json)
         ON CONFLICT (catalog, id) DO UPDATE SET position = EXCLUDED.position, org = EXCLUDED.org, signal = EXCLUDED.signal,
           min_ms = EXCLUDED.min_ms, max_ms = EXCLUDED.max_ms, meta = EXCLUDED.meta`,
        [this.name, '[' + upserts.slice(at, at + BATCH_ROWS).map((r) => r.json).join(',') + ']'],
      );
    }
  }
}

/** BATCH_ROWS bounds one statement's parameter text when a whole catalog is written at once. */
const BATCH_ROWS = 2000;

interface StateRow {
  version: number;
  wal_checkpoint: number;
  next_segment_id: number;
  metric_metadata: CatalogState['metricMetadata'];
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
