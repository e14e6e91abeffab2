import type { BlobStore } from './blobStore.js';
import type { SegmentMeta, Signal } from './catalog.js';
import type { CatalogStore, SharedCatalogStore } from './catalogStore.js';
import type { ExemplarStore } from './exemplarStore.js';
import type { MetricHeadSnapshot } from './metricHeadSnapshots.js';
import type { EncodedMetricSegment } from './metricSegment.js';
import type { LogCutInput } from './logHead.js';
import type { EncodedLogSegment } from './logSegment.js';
import type { SharedSegment } from './sharedSegments.js';
import type { PeerHeadSource } from './peerHeads.js';
import type { StorageEvent } from './storageEvent.js';
import type { WriteLog } from './writeLog.js';

export const DEFAULT_HEAD_MAX_BYTES = 64 * 1024 * 1024;
export const DEFAULT_HEAD_MAX_AGE_MS = 2 * 3_600_000;
export const DEFAULT_SEGMENT_TARGET_BYTES = 256 * 1024 * 1024;
export const DEFAULT_SEGMENT_CACHE_BYTES = 256 * 1024 * 1024;
export const DEFAULT_RETENTION_MS = 30 * 86_400_000;
export const DEFAULT_MAINTENANCE_INTERVAL_MS = 30_000;
export const DEFAULT_COMPACTION_INTERVAL_MS = 10 * 60_000;

export interface StorageOptions {
  dir: string;
  /** indexedTags are the log tags that form streams and are summarised in the catalog for pruning. */
  indexedTags?: readonly string[];
  walSegmentBytes?: number;
  onEvent?: (event: StorageEvent) => void;
  /** headMaxBytes is the estimated size of all heads together at which they are cut into segments. */
  headMaxBytes?: number;
  /** headMaxAgeMs is how long data may sit in the heads before they are cut, however small. */
  headMaxAgeMs?: number;
  /** segmentTargetBytes is the size compaction merges small segments up to. */
  segmentTargetBytes?: number;
  /** segmentCacheBytes bounds the decoded segments kept in memory between queries. */
  segmentCacheBytes?: number;
  /** retentionMs is how long segments are kept (by their newest timestamp); 0 keeps them forever. */
  retentionMs?: number;
  /**
   * retentionFor overrides retentionMs for some orgs, per signal (an org may keep its metrics
   * longer than its logs); undefined means the default applies.
   */
  retentionFor?: (org: string, signal: Signal) => number | undefined;
  /** maintenanceIntervalMs is how often the size and age of the heads are checked; 0 turns background cuts off. */
  maintenanceIntervalMs?: number;
  /** compactionIntervalMs is how often compaction and retention run; 0 turns them off in the background. */
  compactionIntervalMs?: number;
  /** blobStore holds segment files; defaults to `<dir>/segments`. */
  blobStore?: BlobStore;
  /** catalogStore holds the catalog; defaults to `<dir>/catalog.json`. */
  catalogStore?: CatalogStore;
  /** now is the clock for head age and retention (tests move it). */
  now?: () => number;
  /**
   * writeLog, when given, replaces the WAL as the durable step: writes are acknowledged once
   * the log stored them, the heads are filled by reading the log, and the catalog records per
   * partition how far the segments cover it. The caller opens and closes the log.
   */
  writeLog?: WriteLog;
  /**
   * logPartitions says which write log partitions this process reads into its heads: `all`
   * (the default: one process does everything), `none` (an ingest-only process: a write is
   * answered once the log acknowledged it) or `assigned` (an ingester: none until
   * `takePartitions`, as its leases come and go).
   */
  logPartitions?: 'all' | 'none' | 'assigned';
  /**
   * appliedLimits, for an ingester (`logPartitions: 'assigned'`), are the org's active series
   * and stream limits, checked as records are read from the log: the ingest processes that
   * published them keep no heads and cannot. They are scaled to the share of partitions this
   * process reads (see scaledLimits). What they refuse goes to `onLimitRefusal`.
   */
  appliedLimits?: (org: string) => ActiveLimits;
  /** onLimitRefusal is told what appliedLimits refused of one record (an ingester counts it). */
  onLimitRefusal?: (org: string, refusal: AppliedRefusal) => void;
  /**
   * sharedCatalog, when given, is the catalog store and is written by other processes too
   * (scaled out). The storage then changes it only by shared changes (never whole states),
   * takes segment ids from it, never deletes segment files it does not know (another process
   * may be about to register them), opens no WAL, and sees other processes' segments only
   * when `refreshCatalog` reloads them.
   */
  sharedCatalog?: SharedCatalogStore;
  /**
   * readOnly opens the storage as a query process of a scaled-out installation does: the
   * catalog is read (and reloaded when the store says it changed) but never written, no blob is
   * written or deleted, there is no WAL and no head of its own, and the un-cut data comes from
   * `peers` for each query.
   */
  readOnly?: boolean;
  /** peers fetches the heads other processes hold, for a read-only storage. */
  peers?: PeerHeadSource;
  /**
   * exemplars keeps the exemplars written through `appendExemplars`: at once with the embedded
   * WAL (they are not logged there), or as they are read back from the write log, where they
   * travel to the ingester holding their series' partition. Absent, exemplars are dropped.
   */
  exemplars?: ExemplarStore;
  /**
   * writerId names this process in the segments it writes to a shared catalog (meta.writer)
   * and in its head answers, so query processes can tell its segments from other writers'.
   * It must be unique per process lifetime (a restarted process starts with empty heads);
   * a random one is made when a shared catalog is given without it.
   */
  writerId?: string;
}

/** CutResult says what a cut wrote and the WAL file replay now starts from. */
export interface CutResult {
  segments: SegmentMeta[];
  walCheckpoint: number;
}

/** CompactionResult lists each merge: the segments replaced and the one that replaced them. */
export interface CompactionResult {
  merged: Array<{ inputs: SegmentMeta[]; output: SegmentMeta }>;
}

/** StorageStats is a cheap summary for operators and benchmarks. */
export interface StorageStats {
  segments: number;
  segmentBytes: number;
  segmentRows: number;
  headBytes: number;
  walCheckpoint: number;
  /** segmentFileReads counts segment files read from the blob store (cache misses included, hits not). */
  segmentFileReads: number;
  /** logSnapshotBytes is the shared memory the log heads keep packed for query tasks (see logHeadSnapshots.ts). */
  logSnapshotBytes: number;
  /** logChunksPacked counts the snapshot chunks the current log heads ever packed: it stays put while queries reuse them. */
  logChunksPacked: number;
  /** metricSnapshotBytes is the shared memory the metric heads keep packed for query tasks (see metricHeadSnapshots.ts). */
  metricSnapshotBytes: number;
  /** metricChunksPacked counts the snapshot chunks the current metric heads ever packed, as logChunksPacked. */
  metricChunksPacked: number;
}

/**
 * ActiveLimits bound what an org may hold in its active head: series and streams. A write that
 * would take the org past a limit has its new series or streams refused (0 or absent: no limit).
 */
export interface ActiveLimits {
  maxActiveSeries?: number;
  maxActiveStreams?: number;
}

/** AppliedRefusal is what an ingester's limits refused of one write log record. */
export type AppliedRefusal =
  | { signal: 'metrics'; limit: number; outcome: SeriesLimitOutcome }
  | { signal: 'logs'; limit: number; outcome: StreamLimitOutcome };

/** SeriesLimitOutcome is what appendMetrics refused because of the org's active series limit. */
export interface SeriesLimitOutcome {
  refusedSeries: number;
  refusedSamples: number;
  /** the native histogram samples among refusedSamples */
  refusedHistograms: number;
  /** labels of the first refused series, for the answer to name it */
  firstRefused?: Record<string, string>;
}

/** StreamLimitOutcome is what appendLogs refused because of the org's active stream limit. */
export interface StreamLimitOutcome {
  refusedStreams: number;
  refusedLines: number;
  /** stream tags of the first refused stream, for the answer to name it */
  firstRefused?: Record<string, string>;
}

/**
 * SegmentEncoders encode frozen heads into segments off the calling thread (the service hands
 * them to its worker pool): a cut then does not stall requests for the time encoding takes. A
 * metric head goes as its shared snapshot, a log head as its cut input (logHead.ts). Without
 * them, or when one fails, the storage encodes on its own thread.
 */
export interface SegmentEncoders {
  metrics: (snapshot: MetricHeadSnapshot) => Promise<EncodedMetricSegment | undefined>;
  logs: (input: LogCutInput, indexedTags: readonly string[]) => Promise<EncodedLogSegment | undefined>;
  /** merge is compaction's part: a group of segments, their bytes shared, merged into one */
  merge: SegmentMerger;
}

/**
 * SegmentMerger decodes a group of segments of one signal (already opened and checked by the
 * caller), merges and encodes them into one, off the calling thread. A merge of log segments
 * also answers the indexed tags the merged segment keeps (those all inputs have).
 */
export type SegmentMerger = (signal: Signal, segments: SharedSegment[]) => Promise<MergedSegment | undefined>;

/** MergedSegment is a merge's segment; log merges add the indexed tags it keeps. */
export type MergedSegment = { segment: EncodedMetricSegment } | { segment: EncodedLogSegment; indexedTags: string[] };
