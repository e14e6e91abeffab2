import type { MetricMetadataRecord } from './walCodec.js';

/** Signal is the kind of data a segment holds. */
export type Signal = 'metrics' | 'logs';

/**
 * SegmentMeta is what the catalog knows about one segment file: enough to decide whether a
 * query needs it (org, time range, metric names, indexed tag values) without opening it, and to
 * check the file when it is opened (checksum, size, format version). Plain JSON, so any
 * metadata store can keep it.
 */
export interface SegmentMeta {
  id: number;
  /**
   * seq orders the segments of one org and signal by age: a later write of the same sample
   * timestamp lives in a segment with a higher seq. A compacted segment takes the highest seq
   * of the adjacent segments it replaces, which keeps the order intact.
   */
  seq: number;
  org: string;
  signal: Signal;
  /** file is the segment's blob name. */
  file: string;
  formatVersion: number;
  crc: number;
  bytes: number;
  rows: number;
  /** minMs and maxMs bound the segment's timestamps in ms (log nanoseconds rounded outward). */
  minMs: number;
  maxMs: number;
  /** minNs and maxNs are the exact log time bounds, as decimal strings (JSON has no 64-bit integers). */
  minNs?: string;
  maxNs?: string;
  /** metricNames lists the metric names in a metric segment ('' for series without a name). */
  metricNames?: string[];
  seriesCount?: number;
  streamCount?: number;
  /** tagValues lists, per indexed tag, its values in a log segment ('' when a stream lacks it), or null when unknown. */
  tagValues?: Record<string, string[] | null>;
  createdMs: number;
  /**
   * writer names the process that wrote the segment when several share the catalog (an
   * ingester's cut, a compactor's merge); absent when one process writes it alone.
   */
  writer?: string;
  /** writers is, for a merged segment, the highest seq among its inputs per writer of those inputs. */
  writers?: Record<string, number>;
}

/**
 * CatalogState is the whole catalog as stored. `walCheckpoint` is the first write-ahead log
 * file not yet covered by segments: replay starts there, so a crash after segments were
 * registered but before the log was trimmed never loads the same data twice. Metric metadata
 * (type, unit, help) is kept here too, since it outlives the log files it arrived in.
 */
export interface CatalogState {
  version: number;
  walCheckpoint: number;
  nextSegmentId: number;
  segments: SegmentMeta[];
  metricMetadata: Record<string, MetricMetadataRecord[]>;
  /**
   * logPositions is, with a replicated write log (SVC_WRITE_LOG=jetstream), the last position
   * of each partition (by number) that the segments cover: replay reads each partition after
   * it, so a record is in the segments or in the heads, never both. Saved in the same update
   * as the segments it describes. `logIdentity` names the log these positions belong to.
   */
  logPositions?: Record<string, number>;
  logIdentity?: string;
}

export const CATALOG_VERSION = 1;

export function emptyCatalog(): CatalogState {
  return { version: CATALOG_VERSION, walCheckpoint: 0, nextSegmentId: 1, segments: [], metricMetadata: {} };
}

/** CatalogChange describes one atomic catalog update: segments added and removed, and optionally a new checkpoint and metadata. */
export interface CatalogChange {
  add?: readonly SegmentMeta[];
  remove?: ReadonlySet<number>;
  walCheckpoint?: number;
  nextSegmentId?: number;
  metricMetadata?: Record<string, MetricMetadataRecord[]>;
  logPositions?: Record<string, number>;
  logIdentity?: string;
}

/** applyChange returns the state after `change`; the input is not modified. */
export function applyChange(state: CatalogState, change: CatalogChange): CatalogState {
  const remove = change.remove ?? new Set<number>();
  return {
    version: CATALOG_VERSION,
    walCheckpoint: change.walCheckpoint ?? state.walCheckpoint,
    nextSegmentId: change.nextSegmentId ?? state.nextSegmentId,
    segments: [...state.segments.filter((s) => !remove.has(s.id)), ...(change.add ?? [])],
    metricMetadata: change.metricMetadata ?? state.metricMetadata,
    ...withLogPositions(change.logPositions ?? state.logPositions, change.logIdentity ?? state.logIdentity),
  };
}

/** SegmentEntry is a SegmentMeta with what pruning tests each query decoded once. */
export interface SegmentEntry {
  meta: SegmentMeta;
  minNs: bigint;
  maxNs: bigint;
  metricNames: ReadonlySet<string> | undefined;
  tagValues: ReadonlyMap<string, ReadonlySet<string>>;
}

/** segmentEntryOf decodes what pruning needs from a catalog entry. */
export function segmentEntryOf(meta: SegmentMeta): SegmentEntry {
  const tagValues = new Map<string, ReadonlySet<string>>();
  for (const [tag, values] of Object.entries(meta.tagValues ?? {})) if (values !== null) tagValues.set(tag, new Set(values));
  return {
    meta,
    minNs: meta.minNs !== undefined ? BigInt(meta.minNs) : BigInt(Math.floor(meta.minMs)) * 1_000_000n,
    maxNs: meta.maxNs !== undefined ? BigInt(meta.maxNs) : BigInt(Math.ceil(meta.maxMs)) * 1_000_000n + 999_999n,
    metricNames: meta.metricNames ? new Set(meta.metricNames) : undefined,
    tagValues,
  };
}

/**
 * Catalog is the in-memory view of a CatalogState, indexed by org and signal with each list
 * in age order. It is replaced whole on every update, so a reader holding one sees a
 * consistent set of segments.
 */
export class Catalog {
  private readonly byOrg = new Map<string, { metrics: SegmentEntry[]; logs: SegmentEntry[] }>();

  constructor(readonly state: CatalogState) {
    for (const meta of state.segments) {
      let lists = this.byOrg.get(meta.org);
      if (!lists) this.byOrg.set(meta.org, (lists = { metrics: [], logs: [] }));
      lists[meta.signal].push(segmentEntryOf(meta));
    }
    for (const lists of this.byOrg.values()) {
      lists.metrics.sort((a, b) => a.meta.seq - b.meta.seq || a.meta.id - b.meta.id);
      lists.logs.sort((a, b) => a.meta.seq - b.meta.seq || a.meta.id - b.meta.id);
    }
  }

  /** segments lists one org's segments of one signal, oldest first. */
  segments(org: string, signal: Signal): readonly SegmentEntry[] {
    return this.byOrg.get(org)?.[signal] ?? [];
  }

  /** orgs lists every org that has segments. */
  orgs(): string[] {
    return [...this.byOrg.keys()];
  }
}

/** withLogPositions adds the write log fields only when set, so a WAL-only catalog keeps its shape. */
function withLogPositions(positions: Record<string, number> | undefined, identity: string | undefined): Pick<CatalogState, 'logPositions' | 'logIdentity'> {
  return {
    ...(positions === undefined ? {} : { logPositions: positions }),
    ...(identity === undefined ? {} : { logIdentity: identity }),
  };
}
