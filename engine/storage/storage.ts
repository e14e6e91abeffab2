import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { LocalBlobStore, type BlobStore } from './blobStore.js';
import { Catalog, applyChange, emptyCatalog, type CatalogChange, type CatalogState, type SegmentMeta, type Signal } from './catalog.js';
import { CatalogConflictError, CatalogError, FileCatalogStore, PartitionsLostError, type CatalogStore, type SharedCatalogStore } from './catalogStore.js';
import { commonIndexedTags, mergeLogReaders, mergeMetricReaders, planCompaction } from './compaction.js';
import { LogHead, DEFAULT_INDEXED_TAGS, type LogEntry } from './logHead.js';
import { encodeLogSegment, type EncodedLogSegment, type LogSegmentReader } from './logSegment.js';
import { MetricHead, seriesKey, type LastSampleLookup, type MetricSeries } from './metricHead.js';
import { METRIC_NAME } from './labels.js';
import { encodeMetricSegment, type EncodedMetricSegment, type MetricSegmentReader } from './metricSegment.js';
import { OrgLogView, OrgMetricView, type OrgSources } from './orgViews.js';
import { SegmentReaders } from './segmentReaders.js';
import type { StorageEvent } from './storageEvent.js';
import { LogFeed } from './logFeed.js';
import type { HeadExport, HeadPositions } from './headWire.js';
import { catalogBehind, cutAfterHeads, type PeerHeadSource, type PeerHeads } from './peerHeads.js';
import { Wal, type WalCorruption } from './wal.js';
import { decodeWalEntry, encodeWalEntry, type MetricMetadataRecord, type WalEntry } from './walCodec.js';
import type { WriteLog } from './writeLog.js';

export type { StorageEvent } from './storageEvent.js';

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

/** HeadGeneration is one set of heads of an org: the one taking writes, or one frozen by a cut. */
class HeadGeneration {
  readonly metrics = new MetricHead();
  readonly logs: LogHead;

  constructor(indexedTags: ReadonlySet<string>) {
    this.logs = new LogHead(indexedTags);
  }

  get hasData(): boolean {
    return this.metrics.sampleCount > 0 || this.logs.rowCount > 0;
  }
}

/**
 * OrgData is everything one org owns in memory; orgs never share any of it. Writes go to the
 * active generation; frozen generations are being written to segments and stay readable until
 * those segments are registered.
 */
class OrgData {
  active: HeadGeneration;
  frozen: HeadGeneration[] = [];
  readonly metadata = new Map<string, MetricMetadataRecord>();

  constructor(private readonly indexedTags: ReadonlySet<string>) {
    this.active = new HeadGeneration(indexedTags);
  }

  apply(entry: WalEntry): void {
    if (entry.kind === 'logs') {
      this.active.logs.append(entry.records);
      return;
    }
    for (const s of entry.series) this.active.metrics.append(s);
    for (const m of entry.metadata) this.metadata.set(m.name, m);
  }

  /** freeze moves the active generation to the frozen list (if it holds data) and starts a fresh one. */
  freeze(): void {
    if (!this.active.hasData) return;
    this.frozen.push(this.active);
    this.active = new HeadGeneration(this.indexedTags);
  }
}

/**
 * estimateBytes approximates what a WAL entry adds to the heads, in the units of the heads'
 * own estimates; whether a series is new is not known here, so each series entry counts a
 * small overhead. Kept as a running total so the size check costs nothing per write.
 */
function estimateBytes(entry: WalEntry): number {
  if (entry.kind === 'logs') {
    let n = 0;
    for (const r of entry.records) n += r.message.length + 48;
    return n;
  }
  let n = 0;
  for (const s of entry.series) {
    n += s.timestampsMs.length * 16 + 64;
    if (s.histograms !== undefined) for (const h of s.histograms) if (h !== undefined) n += 96 + 12 * (h.posIndex.length + h.negIndex.length);
  }
  return n;
}

/** floorDiv rounds toward negative infinity (bigint division truncates toward zero). */
function floorDiv(a: bigint, b: bigint): bigint {
  const q = a / b;
  return q * b > a ? q - 1n : q;
}

/**
 * PeerRead is what a query process reads an org from: the holders' answer and the catalog it
 * was checked against. A view keeps the pair for its whole life, so a catalog reloaded by a
 * later query (which may hold segments merged from data these heads also hold) never mixes in.
 */
interface PeerRead {
  answer: PeerHeads;
  catalog: Catalog;
}

/** RELOADS_PER_FETCH bounds the catalog reloads one fetch may need to see the cuts its holders report. */
const RELOADS_PER_FETCH = 3;

/** NO_PEERS is the answer of a read-only storage that has no peers to ask: segments only, nothing missing. */
const NO_PEERS: PeerHeads = { metrics: [], logs: [], bounds: [], unavailable: [], metadata: [] };

/** SEGMENT_FILE matches the names segmentFileName makes; other files in the store are left alone. */
const SEGMENT_FILE = /^\d{12}\.(metrics|logs)\.seg$/;

/** segmentFileName is zero-padded so a directory listing sorts segments by age. */
function segmentFileName(id: number, signal: Signal): string {
  return `${String(id).padStart(12, '0')}.${signal}.seg`;
}

/**
 * Storage is the write and read path of the embedded back end. A write is encoded, appended
 * to the WAL and synced before it is acknowledged, and only then applied to the org's head,
 * so what a client was told is stored survives a crash, and what a query sees was durable.
 * With a replicated write log (`writeLog`) the log takes the WAL's place: a write is
 * acknowledged once the log stored it, and the heads are filled by reading the log (see
 * logFeed.ts), so the same holds across processes.
 * Callers validate a whole request before calling append, so a bad request stores nothing.
 *
 * Heads are cut into immutable Arrow segments by size or age (`cut`): the WAL is rotated,
 * fresh heads take the writes, the frozen heads are written one segment per org and signal,
 * and the segments are registered in the catalog together with the WAL checkpoint in one
 * atomic update; only then are the covered WAL files deleted. Queries read segments and heads
 * through views that merge them, so data moving from head to segment is invisible to them.
 * Compaction merges small neighbouring segments and retention deletes old ones; cuts,
 * compactions and retention runs take turns, never overlapping.
 */
export class Storage {
  private readonly orgs = new Map<string, OrgData>();
  private readonly indexedTags: ReadonlySet<string>;
  private readonly indexedTagList: readonly string[];
  private readonly readers: SegmentReaders;
  private readonly emit: (event: StorageEvent) => void;
  private readonly now: () => number;
  private catalog: Catalog;
  private nextSegmentId: number;
  /** activeBytes estimates the active heads' size across orgs, for the size trigger. */
  private activeBytes = 0;
  /** activeSinceMs is when the oldest data of the active heads arrived, for the age trigger. */
  private activeSinceMs: number | undefined;
  /** writeGate, while set, holds new WAL appends back so a cut can rotate the log between two writes. */
  private writeGate: Promise<void> | undefined;
  private inflightWrites = 0;
  private drainWaiters: Array<() => void> = [];
  private chain: Promise<unknown> = Promise.resolve();
  private cutPending = false;
  private readonly timers: NodeJS.Timeout[] = [];
  private closed = false;

  /** feed is the replicated write log's reader and publisher, when one replaces the WAL. */
  private feed: LogFeed | undefined;
  /** shared is the catalog store other processes write too, when scaled out. */
  private shared: SharedCatalogStore | undefined;
  /** ids are segment ids reserved from the shared catalog and not used yet. */
  private ids = { next: 0, end: 0 };
  /** idsCommittedBefore: every segment id below it this process took is committed (or never will be); see exportHeads. */
  private idsCommittedBefore = 0;
  /** writerId is set when the catalog is shared (see StorageOptions.writerId). */
  private readonly writerId: string | undefined;

  /** readOnly: a query process's storage (see StorageOptions.readOnly). */
  private readonly readOnly: boolean;
  /** catalogVersion is the catalog store's version of the state loaded last (read-only storages). */
  private catalogVersion: string | undefined;
  private catalogReload: Promise<void> | undefined;
  /** viewCount numbers the views made, so a view reuses only a peer fetch started after it was made. */
  private viewCount = 0;
  /** peerFetches are the peer fetches under way or done last, per signal and org, with the view count when each started. */
  private readonly peerFetches = new Map<string, { after: number; heads: Promise<PeerRead> }>();
  /** latestPeers is the newest answer per signal and org, for reads that do not prepare (listings). */
  private readonly latestPeers = new Map<string, PeerRead>();

  private constructor(
    private readonly wal: Wal | undefined,
    private readonly blobs: BlobStore,
    private readonly catalogStore: CatalogStore,
    state: CatalogState,
    private readonly options: StorageOptions,
  ) {
    this.indexedTagList = [...(options.indexedTags ?? DEFAULT_INDEXED_TAGS)];
    this.indexedTags = new Set(this.indexedTagList);
    this.emit = options.onEvent ?? (() => {});
    this.now = options.now ?? Date.now;
    this.readers = new SegmentReaders(blobs, options.segmentCacheBytes ?? DEFAULT_SEGMENT_CACHE_BYTES, this.emit);
    this.catalog = new Catalog(state);
    this.nextSegmentId = state.nextSegmentId;
    this.readOnly = options.readOnly === true;
    this.writerId = options.sharedCatalog ? (options.writerId ?? randomUUID()) : undefined;
  }

  static async open(options: StorageOptions): Promise<Storage> {
    const emit = options.onEvent ?? (() => {});
    const blobs = options.blobStore ?? new LocalBlobStore(path.join(options.dir, 'segments'));
    const catalogStore = options.catalogStore ?? new FileCatalogStore(path.join(options.dir, 'catalog.json'));
    if (options.readOnly) return Storage.openReadOnly(options, blobs, catalogStore);
    if (options.sharedCatalog) return Storage.openShared(options, options.sharedCatalog, blobs);
    const loaded = await catalogStore.load();
    if (options.writeLog) return Storage.openOnLog(options, options.writeLog, blobs, catalogStore, loaded);
    let state = loaded ?? emptyCatalog();
    const { wal, records } = await Wal.open(
      {
        dir: path.join(options.dir, 'wal'),
        segmentBytes: options.walSegmentBytes,
        onCorruption: (c: WalCorruption) =>
          emit({ level: 'error', message: 'write-ahead log damaged; intact records kept, the rest dropped', fields: { ...c } }),
      },
      state.walCheckpoint,
    );
    // Files below the checkpoint are covered by segments: a crash before they were deleted leaves them behind.
    await wal.removeBefore(state.walCheckpoint);
    if (wal.index < state.walCheckpoint) {
      // The log directory lost its newer files (restored or wiped): start the checkpoint at the
      // current file so new writes are not mistaken for covered ones on the next start.
      state = applyChange(state, { walCheckpoint: wal.index });
      await catalogStore.save(state);
    }
    const storage = new Storage(wal, blobs, catalogStore, state, options);
    try {
      await storage.reconcileBlobs(loaded !== undefined);
      // A fresh directory gets its (empty) catalog at once, so that from now on a segment file
      // the catalog lacks can only be an uncommitted one, safe to delete.
      if (loaded === undefined) await catalogStore.save(state);
    } catch (err) {
      await wal.close();
      throw err;
    }
    for (const [org, records] of Object.entries(state.metricMetadata)) {
      const data = storage.org(org);
      for (const m of records) data.metadata.set(m.name, m);
    }
    let replayed = 0;
    for (const payload of records) {
      try {
        const entry = decodeWalEntry(payload);
        storage.org(entry.org).apply(entry);
        storage.activeBytes += estimateBytes(entry);
        replayed++;
      } catch (err) {
        emit({ level: 'error', message: 'skipping undecodable WAL record', fields: { error: String(err) } });
      }
    }
    if (replayed > 0) {
      storage.activeSinceMs = storage.now();
      emit({ level: 'info', message: 'replayed write-ahead log', fields: { records: replayed, fromFile: state.walCheckpoint } });
    }
    storage.startTimers();
    return storage;
  }

  /**
   * openOnLog opens the storage over a replicated write log instead of the WAL: the catalog
   * says how far the segments cover each partition, and the heads are rebuilt by reading every
   * partition after that position before the storage is returned.
   */
  private static async openOnLog(
    options: StorageOptions,
    log: WriteLog,
    blobs: BlobStore,
    catalogStore: CatalogStore,
    loaded: CatalogState | undefined,
  ): Promise<Storage> {
    const emit = options.onEvent ?? (() => {});
    let state = loaded ?? emptyCatalog();
    if (state.logIdentity !== undefined && state.logIdentity !== log.identity && Object.keys(state.logPositions ?? {}).length > 0) {
      emit({
        level: 'warn',
        message: 'the catalog\'s write log positions belong to another log (recreated?); reading the log from its start',
        fields: { catalog: state.logIdentity, log: log.identity },
      });
      state = applyChange(state, { logPositions: {} });
    }
    state = applyChange(state, { logIdentity: log.identity });
    const storage = new Storage(undefined, blobs, catalogStore, state, options);
    await storage.reconcileBlobs(loaded !== undefined);
    await catalogStore.save(state);
    for (const [org, records] of Object.entries(state.metricMetadata)) {
      const data = storage.org(org);
      for (const m of records) data.metadata.set(m.name, m);
    }
    const feed = new LogFeed({
      log,
      indexedTags: storage.indexedTags,
      start: state.logPositions ?? {},
      apply: (record) => storage.applyRecord(record),
      onEvent: emit,
    });
    storage.feed = feed;
    try {
      await feed.start();
    } catch (err) {
      await feed.stop();
      throw err;
    }
    storage.startTimers();
    return storage;
  }

  /**
   * openShared opens the storage over a catalog other processes write too. With a write log,
   * the log's identity is recorded (positions of a recreated log are dropped), and the feed
   * reads every partition (`all`), none (`none`: publishing only) or those taken later
   * (`assigned`).
   */
  private static async openShared(options: StorageOptions, shared: SharedCatalogStore, blobs: BlobStore): Promise<Storage> {
    const emit = options.onEvent ?? (() => {});
    const log = options.writeLog;
    const mode = options.logPartitions ?? 'all';
    if (log && mode !== 'none' && (await shared.adoptLogIdentity(log.identity))) {
      emit({ level: 'warn', message: 'the catalog\'s write log positions belonged to another log (recreated?); reading the log from its start', fields: { log: log.identity } });
    }
    // An ingest-only process needs nothing from the catalog, and an ingester only its metric
    // metadata: neither serves segments, so neither keeps their list.
    const loaded = log && mode === 'none' ? undefined : await shared.load();
    const state = loaded === undefined ? emptyCatalog() : log && mode === 'assigned' ? { ...loaded, segments: [] } : loaded;
    const storage = new Storage(undefined, blobs, shared, state, options);
    storage.shared = shared;
    for (const [org, records] of Object.entries(state.metricMetadata)) {
      const data = storage.org(org);
      for (const m of records) data.metadata.set(m.name, m);
    }
    if (log) {
      const feed = new LogFeed({
        log,
        indexedTags: storage.indexedTags,
        start: state.logPositions ?? {},
        publishOnly: mode === 'none',
        apply: (record) => storage.applyRecord(record),
        onEvent: emit,
      });
      storage.feed = feed;
      if (mode === 'all') await feed.start();
    }
    storage.startTimers();
    return storage;
  }

  /** refreshCatalog reloads a shared catalog, so this process sees what the others registered and removed since. */
  async refreshCatalog(): Promise<void> {
    if (!this.shared) return;
    const state = await this.shared.load();
    if (state === undefined) return;
    const kept = new Set(state.segments.map((s) => s.id));
    for (const s of this.catalog.state.segments) if (!kept.has(s.id)) this.readers.forget(s.id);
    this.catalog = new Catalog(state);
  }

  /**
   * takePartitions starts reading write log partitions this process now owns, each after the
   * position the shared catalog records for it, so what segments hold is not applied again.
   */
  takePartitions(partitions: readonly number[]): Promise<void> {
    return this.exclusive(async () => {
      if (this.closed || !this.feed || !this.shared) return;
      const reading = new Set(this.feed.readingPartitions());
      const wanted = partitions.filter((p) => !reading.has(p));
      if (wanted.length === 0) return;
      const positions = await this.shared.logPositions(wanted);
      // The head export reports these as covered: a query process whose catalog records less
      // (read before the previous owner's last cut) then reads it again (see catalogBehind).
      this.catalog = new Catalog({ ...this.catalog.state, logPositions: { ...this.catalog.state.logPositions, ...positions } });
      this.feed.startPartitions(positions);
      this.emit({ level: 'info', message: 'reading write log partitions', fields: { partitions: wanted, after: positions } });
    });
  }

  /**
   * releasePartitions hands partitions over gracefully: it stops reading them and cuts the
   * heads, so the catalog records how far they are covered before their leases are given up.
   * If the cut fails, reading resumes and the error is thrown (the caller keeps the leases).
   */
  releasePartitions(partitions: readonly number[]): Promise<void> {
    return this.exclusive(async () => {
      if (!this.feed) return;
      await this.feed.stopPartitions(partitions);
      try {
        await this.cutNow();
      } catch (err) {
        this.feed.resumePartitions(partitions);
        throw err;
      }
      this.feed.forget(partitions);
    });
  }

  /** losePartitions reacts to partitions taken over by another process: see dropPartitions. */
  losePartitions(partitions: readonly number[]): Promise<void> {
    return this.exclusive(() => this.dropPartitions(partitions));
  }

  /** readingPartitions lists the partitions being read into the heads now. */
  readingPartitions(): number[] {
    return this.feed?.readingPartitions() ?? [];
  }

  /**
   * dropPartitions forgets partitions another process took over. Heads hold an org's records of
   * every partition together, so the lost partitions' records cannot be picked out: every head
   * is dropped, and the partitions still held are read again from the positions the catalog
   * records for them. Losing a lease without releasing it is rare (a stalled process), so the
   * re-read is an acceptable price for heads that are not split by partition.
   */
  private async dropPartitions(lost: readonly number[]): Promise<void> {
    if (!this.feed || !this.shared) return;
    const held = this.feed.heldPartitions();
    if (!lost.some((p) => held.includes(p))) return;
    const keep = held.filter((p) => !lost.includes(p));
    await this.feed.stopPartitions(held);
    this.feed.forget(held);
    for (const data of this.orgs.values()) {
      data.active = new HeadGeneration(this.indexedTags);
      data.frozen = [];
    }
    this.activeBytes = 0;
    this.activeSinceMs = undefined;
    this.emit({ level: 'warn', message: 'write log partitions taken over by another process; heads dropped and the rest read again', fields: { lost, keep } });
    if (keep.length > 0) this.feed.startPartitions(await this.shared.logPositions(keep));
  }

  /** reserveIds makes sure `count` segment ids are at hand; with a shared catalog they come from it. */
  private async reserveIds(count: number): Promise<void> {
    if (!this.shared || this.ids.end - this.ids.next >= count) return;
    const block = Math.max(count, 64);
    const first = await this.shared.reserveSegmentIds(block);
    this.ids = { next: first, end: first + block };
  }

  /**
   * openReadOnly opens a query process's storage: the catalog as stored (empty if none yet),
   * no WAL, no reconciliation (the files belong to the processes that write them), no timers.
   */
  private static async openReadOnly(options: StorageOptions, blobs: BlobStore, catalogStore: CatalogStore): Promise<Storage> {
    const version = await catalogStore.version?.();
    const state = (await catalogStore.load()) ?? emptyCatalog();
    const storage = new Storage(undefined, blobs, catalogStore, state, options);
    storage.catalogVersion = version;
    return storage;
  }

  /**
   * reloadCatalog loads the catalog again when its store says it changed (or cannot say), one
   * load at a time. The version is read before the state, so a save in between is seen by
   * the next call.
   */
  private reloadCatalog(): Promise<void> {
    return (this.catalogReload ??= (async () => {
      try {
        const version = await this.catalogStore.version?.();
        if (version !== undefined && version === this.catalogVersion) return;
        const state = (await this.catalogStore.load()) ?? emptyCatalog();
        this.catalog = new Catalog(state);
        this.catalogVersion = version;
      } finally {
        this.catalogReload = undefined;
      }
    })());
  }

  /**
   * refreshPeers is what a read-only storage does before a query reads an org: reload the
   * catalog if it changed, then fetch the heads. A holder that cut segments after the catalog
   * was read tells so (its segmentsBefore is above the catalog's next id), and the catalog is
   * read again, so no cut is missed: segments cut after the heads were read are left out by
   * seq instead (see remoteSources). One fetch serves every view made before it started.
   */
  private refreshPeers(org: string, signal: Signal, viewNumber: number): Promise<PeerRead> {
    const key = `${signal}\u0000${org}`;
    const running = this.peerFetches.get(key);
    if (running !== undefined && running.after >= viewNumber) return running.heads;
    const heads = (async (): Promise<PeerRead> => {
      await this.reloadCatalog();
      const answer = this.options.peers ? await this.options.peers.fetch(org, signal) : NO_PEERS;
      // A reload already under way may have read the catalog before the holder's cut: then read it once more.
      for (let i = 0; i < RELOADS_PER_FETCH && catalogBehind(this.catalog.state, answer.bounds); i++) {
        await this.reloadCatalog();
      }
      const read = { answer, catalog: this.catalog };
      this.latestPeers.set(key, read);
      return read;
    })();
    const entry = { after: this.viewCount, heads };
    this.peerFetches.set(key, entry);
    heads.catch(() => {
      if (this.peerFetches.get(key) === entry) this.peerFetches.delete(key);
    });
    return heads;
  }

  /**
   * remoteSources is an org's data in a read-only storage: the segments of the catalog a view
   * pinned with its heads (else the newest read, for listings), less those cut after the heads
   * were read (their data is in those heads), and the heads.
   */
  private remoteSources<H>(org: string, signal: Signal, pinned: PeerRead | undefined, heads: (p: PeerHeads) => H[]): OrgSources<H> {
    const read = pinned ?? this.latestPeers.get(`${signal}\u0000${org}`);
    const bounds = read?.answer.bounds ?? [];
    const all = (read?.catalog ?? this.catalog).segments(org, signal);
    return { segments: bounds.length === 0 ? all : all.filter((e) => !cutAfterHeads(e.meta, bounds)), heads: read ? heads(read.answer) : [] };
  }

  /** peerView wires a read-only storage's view: sources from its own peer fetch once prepared, refreshed once per view. */
  private peerView<V>(org: string, signal: Signal, make: (sources: () => PeerRead | undefined, refresh: () => Promise<readonly string[]>) => V): V {
    const viewNumber = ++this.viewCount;
    let fetched: PeerRead | undefined;
    let fetching: Promise<PeerRead> | undefined;
    return make(
      () => fetched,
      async () => {
        fetched = await (fetching ??= this.refreshPeers(org, signal, viewNumber));
        return fetched.answer.unavailable;
      },
    );
  }

  /**
   * refreshListings brings a read-only storage up to date for listings (labels, series,
   * metadata), which read synchronously without a prepare step: they then see the catalog and
   * heads fetched here. Elsewhere it does nothing.
   */
  async refreshListings(org: string): Promise<void> {
    if (!this.readOnly) return;
    const viewNumber = ++this.viewCount;
    await Promise.all((['metrics', 'logs'] as const).map((signal) => this.refreshPeers(org, signal, viewNumber)));
  }

  /**
   * exportHeads is the org's heads as a query process reads them (the internal head endpoint):
   * the snapshots workers read here, the bound on segments the heads already left, and per
   * write-log partition what the segments cover and what the heads hold. It is read in one
   * synchronous step, as a cut's commit swaps catalog and heads in one.
   */
  exportHeads(org: string, signals: { metrics: boolean; logs: boolean }): HeadExport {
    const data = this.orgs.get(org);
    const generations = data ? [...data.frozen, data.active] : [];
    let partitions: Record<string, HeadPositions> | undefined;
    const log = this.options.writeLog;
    if (this.feed && log) {
      // This storage reads every partition of the log; positions start at 0 (nothing applied).
      partitions = {};
      const covered = this.catalog.state.logPositions ?? {};
      const applied = this.feed.positions();
      for (let p = 0; p < log.partitions; p++) partitions[String(p)] = { coveredThrough: covered[String(p)] ?? 0, appliedThrough: applied[String(p)] ?? 0 };
    }
    return {
      metrics: signals.metrics ? generations.filter((g) => g.metrics.seriesCount > 0).map((g) => g.metrics.snapshot()) : [],
      logs: signals.logs ? generations.filter((g) => g.logs.rowCount > 0).map((g) => g.logs.snapshot()) : [],
      // A sole writer's catalog next id bounds its cuts; among several, only this process's own ids are ordered.
      segmentsBefore: this.shared ? this.idsCommittedBefore : this.catalog.state.nextSegmentId,
      ...(this.writerId !== undefined ? { writer: this.writerId } : {}),
      partitions,
      metadata: data ? [...data.metadata.values()] : [],
    };
  }

  /** applyRecord puts one record read from the write log into the heads. */
  private applyRecord(record: Uint8Array): void {
    const entry = decodeWalEntry(record);
    this.org(entry.org).apply(entry);
    this.activeBytes += estimateBytes(entry);
    this.activeSinceMs ??= this.now();
    if (this.activeBytes >= (this.options.headMaxBytes ?? DEFAULT_HEAD_MAX_BYTES)) this.scheduleCut();
  }

  /**
   * reconcileBlobs compares the blob store with the catalog at start-up: a segment file the
   * catalog does not know was written by a cut or compaction that crashed before registering it
   * (its data is still in the WAL or in the inputs), so it is deleted; a file the catalog lists
   * but the store lacks is reported and will be skipped by queries. Segment files without any
   * catalog at all stop start-up instead: deleting them could destroy the only copy of the data.
   */
  private async reconcileBlobs(catalogExisted: boolean): Promise<void> {
    if (this.shared) return;
    const stored = new Set((await this.blobs.list()).filter((name) => SEGMENT_FILE.test(name)));
    if (!catalogExisted && stored.size > 0) {
      throw new CatalogError(`found ${stored.size} segment files but no catalog; restore the catalog or move the files away`);
    }
    const known = new Set<string>();
    for (const meta of this.catalog.state.segments) {
      known.add(meta.file);
      if (!stored.has(meta.file)) this.readers.markFailed(meta, 'segment file missing');
    }
    for (const name of stored) {
      if (known.has(name)) continue;
      await this.blobs.remove(name);
      this.emit({ level: 'warn', message: 'removed segment file not in the catalog (left by an interrupted cut or compaction)', fields: { file: name } });
    }
  }

  private startTimers(): void {
    if (this.readOnly) return;
    const cutEvery = this.options.maintenanceIntervalMs ?? DEFAULT_MAINTENANCE_INTERVAL_MS;
    const compactEvery = this.options.compactionIntervalMs ?? DEFAULT_COMPACTION_INTERVAL_MS;
    if (cutEvery > 0) this.timers.push(setInterval(() => this.checkHeads(), cutEvery).unref());
    if (compactEvery > 0) {
      this.timers.push(
        setInterval(() => {
          if (this.closed) return;
          this.compact()
            .then(() => this.applyRetention())
            .catch((err: unknown) => this.reportBackground('compaction or retention failed', err));
        }, compactEvery).unref(),
      );
    }
  }

  private reportBackground(message: string, err: unknown): void {
    if (!this.closed) this.emit({ level: 'error', message, fields: { error: err instanceof Error ? err.message : String(err) } });
  }

  /** checkHeads starts a cut when the heads are too big or too old, or a failed cut left frozen heads behind. */
  private checkHeads(): void {
    if (this.closed || this.cutPending) return;
    const maxBytes = this.options.headMaxBytes ?? DEFAULT_HEAD_MAX_BYTES;
    const maxAge = this.options.headMaxAgeMs ?? DEFAULT_HEAD_MAX_AGE_MS;
    const tooOld = this.activeSinceMs !== undefined && this.now() - this.activeSinceMs >= maxAge;
    const leftover = [...this.orgs.values()].some((o) => o.frozen.length > 0);
    if (this.activeBytes >= maxBytes || tooOld || leftover) this.scheduleCut();
  }

  private scheduleCut(): void {
    if (this.cutPending || this.closed) return;
    this.cutPending = true;
    let cut = false;
    this.cut()
      .then(() => {
        cut = true;
      })
      .catch((err: unknown) => this.reportBackground('cutting heads into segments failed; the data stays in the WAL and the heads', err))
      .finally(() => {
        this.cutPending = false;
        // Writes that arrived during the cut found it pending and did not ask for another;
        // if they already filled the new head, cut again now rather than at the next check.
        if (cut && this.activeBytes >= (this.options.headMaxBytes ?? DEFAULT_HEAD_MAX_BYTES)) this.scheduleCut();
      });
  }

  private org(id: string): OrgData {
    let data = this.orgs.get(id);
    if (!data) this.orgs.set(id, (data = new OrgData(this.indexedTags)));
    return data;
  }

  /**
   * appendLogs stores log lines durably. Lines of streams that would take the org past
   * `limits.maxActiveStreams` active streams are refused (lines of streams it already has are
   * always kept); the answer says how many were refused so the caller can report them. As for
   * series, concurrent requests may overshoot the limit by what they add between them.
   */
  async appendLogs(org: string, records: LogEntry[], limits: ActiveLimits = {}): Promise<StreamLimitOutcome> {
    const outcome: StreamLimitOutcome = { refusedStreams: 0, refusedLines: 0 };
    const limit = limits.maxActiveStreams ?? 0;
    let accepted = records;
    if (limit > 0 && records.length > 0) {
      const head = this.org(org).active.logs;
      const fresh = new Set<string>();
      const refused = new Set<string>();
      accepted = records.filter((r) => {
        const stream = head.streamOf(r.tags);
        if (head.hasStream(stream.key) || fresh.has(stream.key)) return true;
        if (head.streamCount + fresh.size < limit) {
          fresh.add(stream.key);
          return true;
        }
        if (!refused.has(stream.key)) {
          refused.add(stream.key);
          outcome.refusedStreams++;
          outcome.firstRefused ??= { ...stream.tags };
        }
        outcome.refusedLines++;
        return false;
      });
    }
    if (accepted.length === 0) return outcome;
    await this.write({ kind: 'logs', org, records: accepted });
    return outcome;
  }

  /**
   * appendMetrics stores samples durably. Series that would take the org past
   * `limits.maxActiveSeries` active series are refused whole (samples of series it already has
   * are always kept); the answer says how many were refused so the caller can report them. The
   * check runs before the WAL write, so concurrent requests may overshoot the limit by what
   * they add between them.
   */
  async appendMetrics(
    org: string,
    series: MetricSeries[],
    metadata: MetricMetadataRecord[] = [],
    limits: ActiveLimits = {},
  ): Promise<SeriesLimitOutcome> {
    const outcome: SeriesLimitOutcome = { refusedSeries: 0, refusedSamples: 0, refusedHistograms: 0 };
    const limit = limits.maxActiveSeries ?? 0;
    let accepted = series;
    if (limit > 0) {
      const head = this.org(org).active.metrics;
      const fresh = new Set<string>();
      accepted = series.filter((s) => {
        // Kept with the series, so the head's append does not compute it again.
        const key = (s.key ??= seriesKey(s.labels));
        if (head.hasKey(key)) return true;
        if (fresh.has(key) || head.seriesCount + fresh.size < limit) {
          fresh.add(key);
          return true;
        }
        outcome.refusedSeries++;
        outcome.refusedSamples += s.values.length;
        if (s.histograms !== undefined) for (const h of s.histograms) if (h !== undefined) outcome.refusedHistograms++;
        outcome.firstRefused ??= s.labels;
        return false;
      });
    }
    if (accepted.length === 0 && metadata.length === 0) return outcome;
    await this.write({ kind: 'metrics', org, series: accepted, metadata });
    return outcome;
  }

  /**
   * lastMetricSamples answers, for one org, the newest timestamp already stored of a series,
   * as created-timestamp zero ingestion needs it (a zero goes only after it). The heads know
   * each series' newest sample; data already cut to segments is known only by the newest
   * sample of the segments holding its metric name, a floor that errs towards adding no zero,
   * as Prometheus refuses one older than its head can take. A process that does not read every
   * write into its heads (ingest-only, or an ingester holding some partitions) cannot know:
   * its lookup answers undefined for every series.
   */
  lastMetricSamples(org: string): LastSampleLookup {
    const mode = this.options.logPartitions ?? 'all';
    if (this.readOnly || (this.feed !== undefined && mode !== 'all')) return () => undefined;
    const data = this.orgs.get(org);
    const heads = data ? [data.active.metrics, ...data.frozen.map((g) => g.metrics)] : [];
    const segments = this.catalog.segments(org, 'metrics');
    const floorByName = new Map<string, number>();
    const floorOf = (name: string): number => {
      let floor = floorByName.get(name);
      if (floor !== undefined) return floor;
      floor = -Infinity;
      for (const seg of segments) if ((seg.metricNames === undefined || seg.metricNames.has(name)) && seg.meta.maxMs > floor) floor = seg.meta.maxMs;
      floorByName.set(name, floor);
      return floor;
    };
    return (labels) => {
      const key = seriesKey(labels);
      let last = floorOf(labels[METRIC_NAME] ?? '');
      for (const head of heads) {
        const t = head.lastSampleMs(key);
        if (t !== undefined && t > last) last = t;
      }
      return last;
    };
  }

  private async write(entry: WalEntry): Promise<void> {
    if (this.readOnly) throw new Error('this storage is read-only: writes go to the processes that hold heads');
    if (this.feed) {
      if (this.closed) throw new Error('storage is closed');
      await this.feed.publish(entry);
      return;
    }
    const wal = this.wal;
    if (!wal) throw new Error('this process takes no writes (no write log)');
    const payload = encodeWalEntry(entry);
    while (this.writeGate) await this.writeGate;
    this.inflightWrites++;
    try {
      await wal.append(payload);
      this.org(entry.org).apply(entry);
      this.activeBytes += estimateBytes(entry);
      this.activeSinceMs ??= this.now();
    } finally {
      if (--this.inflightWrites === 0) {
        const waiters = this.drainWaiters;
        this.drainWaiters = [];
        for (const w of waiters) w();
      }
    }
    if (this.activeBytes >= (this.options.headMaxBytes ?? DEFAULT_HEAD_MAX_BYTES)) this.scheduleCut();
  }

  private metricSources(org: string): OrgSources<MetricHead> {
    const data = this.orgs.get(org);
    const heads = data ? [...data.frozen.map((g) => g.metrics), data.active.metrics] : [];
    return { segments: this.catalog.segments(org, 'metrics'), heads };
  }

  private logSources(org: string): OrgSources<LogHead> {
    const data = this.orgs.get(org);
    const heads = data ? [...data.frozen.map((g) => g.logs), data.active.logs] : [];
    return { segments: this.catalog.segments(org, 'logs'), heads };
  }

  /**
   * metrics returns a view of the org's samples across segments and heads. The view lists in
   * `failedSegments` any segment it had to skip (missing or damaged file): a query that finds
   * it non-empty after reading should report a partial result.
   */
  metrics(org: string): OrgMetricView {
    if (this.readOnly) {
      return this.peerView(org, 'metrics', (peers, refresh) => new OrgMetricView(() => this.remoteSources(org, 'metrics', peers(), (p) => p.metrics), this.readers, undefined, refresh));
    }
    return new OrgMetricView(() => this.metricSources(org), this.readers);
  }

  /** logs returns a view of the org's log lines across segments and heads; see `metrics` for `failedSegments`. */
  logs(org: string): OrgLogView {
    if (this.readOnly) {
      return this.peerView(org, 'logs', (peers, refresh) => new OrgLogView(() => this.remoteSources(org, 'logs', peers(), (p) => p.logs), this.readers, undefined, refresh));
    }
    return new OrgLogView(() => this.logSources(org), this.readers);
  }

  /** metricLabelSets is the org's series listing without samples, for label and series browsers. */
  metricLabelSets(org: string): OrgMetricView {
    return this.metrics(org);
  }

  /** logTagSets is the org's log tag-set listing without messages, for label and series browsers. */
  logTagSets(org: string): OrgLogView {
    return this.logs(org);
  }

  metricMetadata(org: string): ReadonlyMap<string, MetricMetadataRecord> {
    if (!this.readOnly) return this.org(org).metadata;
    // A query process knows what the catalog recorded at the last cut and what the heads' holders said since.
    const merged = new Map<string, MetricMetadataRecord>();
    for (const m of this.catalog.state.metricMetadata[org] ?? []) merged.set(m.name, m);
    for (const m of this.latestPeers.get(`metrics\u0000${org}`)?.answer.metadata ?? []) merged.set(m.name, m);
    return merged;
  }

  /** segments lists every registered segment (all orgs), for operators, tests and benchmarks. */
  segments(): readonly SegmentMeta[] {
    return this.catalog.state.segments;
  }

  stats(): StorageStats {
    let segmentBytes = 0;
    let segmentRows = 0;
    for (const s of this.catalog.state.segments) {
      segmentBytes += s.bytes;
      segmentRows += s.rows;
    }
    let headBytes = 0;
    let logSnapshotBytes = 0;
    let logChunksPacked = 0;
    let metricSnapshotBytes = 0;
    let metricChunksPacked = 0;
    for (const o of this.orgs.values()) {
      for (const g of [...o.frozen, o.active]) {
        headBytes += g.metrics.estimatedBytes + g.logs.estimatedBytes;
        const snapshots = g.logs.snapshotStats;
        logSnapshotBytes += snapshots.packedBytes;
        logChunksPacked += snapshots.chunksPacked;
        metricSnapshotBytes += g.metrics.snapshotStats.packedBytes;
        metricChunksPacked += g.metrics.snapshotStats.chunksPacked;
      }
    }
    return {
      segments: this.catalog.state.segments.length,
      segmentBytes,
      segmentRows,
      headBytes,
      walCheckpoint: this.catalog.state.walCheckpoint,
      segmentFileReads: this.readers.fileReads,
      logSnapshotBytes,
      logChunksPacked,
      metricSnapshotBytes,
      metricChunksPacked,
    };
  }

  /** exclusive runs maintenance tasks one at a time, in call order. */
  private exclusive<T>(task: () => Promise<T>): Promise<T> {
    const run = this.chain.then(task, task);
    this.chain = run.catch(() => undefined);
    return run;
  }

  /**
   * cut writes everything in the heads to segments now (one per org and signal) and trims the
   * WAL; it runs in the background by size and age, and is public for tests and operators.
   */
  cut(): Promise<CutResult> {
    return this.exclusive(() => this.cutNow());
  }

  /**
   * freezeHeads rotates the WAL and swaps in fresh heads while no append is in flight, so every
   * record in a file below the returned index is in a frozen head and every later one in the
   * fresh heads.
   */
  private async freezeHeads(): Promise<number> {
    if (!this.wal) {
      // Records are applied synchronously, so nothing is half-applied here: the positions read
      // now are exactly what the frozen heads hold.
      for (const data of this.orgs.values()) data.freeze();
      this.activeBytes = 0;
      this.activeSinceMs = undefined;
      return this.catalog.state.walCheckpoint;
    }
    let release!: () => void;
    this.writeGate = new Promise<void>((resolve) => (release = resolve));
    try {
      if (this.inflightWrites > 0) await new Promise<void>((resolve) => this.drainWaiters.push(resolve));
      const cutIndex = await this.wal.rotate();
      for (const data of this.orgs.values()) data.freeze();
      this.activeBytes = 0;
      this.activeSinceMs = undefined;
      return cutIndex;
    } finally {
      this.writeGate = undefined;
      release();
    }
  }

  private async cutNow(): Promise<CutResult> {
    if (this.closed) throw new Error('storage is closed');
    if (this.readOnly) return { segments: [], walCheckpoint: this.catalog.state.walCheckpoint };
    if (![...this.orgs.values()].some((o) => o.active.hasData || o.frozen.length > 0)) return { segments: [], walCheckpoint: this.catalog.state.walCheckpoint };
    await this.reserveIds(2 * [...this.orgs.values()].reduce((n, o) => n + o.frozen.length + 1, 0));
    const positions = this.feed?.positions();
    const cutIndex = await this.freezeHeads();
    // Listed after the freeze: a write drained by it may have brought a new org.
    const frozen = [...this.orgs.entries()].map(([id, o]) => ({ id, data: o, generations: [...o.frozen] })).filter((f) => f.generations.length > 0);
    const written: SegmentMeta[] = [];
    try {
      for (const { id: org, generations } of frozen) {
        for (const generation of generations) {
          const metrics = encodeMetricSegment(generation.metrics.seriesViews());
          if (metrics) written.push(await this.store(this.metricMeta(org, metrics)));
          const logs = encodeLogSegment(generation.logs.columns(), this.indexedTagList);
          if (logs) written.push(await this.store(this.logMeta(org, logs, this.indexedTagList)));
        }
      }
    } catch (err) {
      // Nothing refers to these files yet; the frozen heads stay readable and the next cut retries.
      for (const s of written) await this.blobs.remove(s.file).catch(() => undefined);
      throw err;
    }
    const covered = positions === undefined ? { walCheckpoint: cutIndex } : { logPositions: positions };
    try {
      await this.commit({ add: written, ...covered, metricMetadata: this.metadataSnapshot() }, () => {
        for (const { data, generations } of frozen) data.frozen = data.frozen.filter((g) => !generations.includes(g));
      });
    } catch (err) {
      if (this.shared) {
        // A shared catalog refused or lost the change: no process refers to these files.
        for (const s of written) await this.blobs.remove(s.file).catch(() => undefined);
        if (err instanceof PartitionsLostError) await this.dropPartitions(err.partitions);
      }
      throw err;
    }
    if (this.wal) await this.wal.removeBefore(cutIndex);
    if (positions) await this.feed?.commit(positions);
    this.emit({
      level: 'info',
      message: 'cut heads into segments',
      fields: { segments: written.length, rows: written.reduce((n, s) => n + s.rows, 0), bytes: written.reduce((n, s) => n + s.bytes, 0), walCheckpoint: cutIndex },
    });
    return { segments: written, walCheckpoint: cutIndex };
  }

  /** store writes a segment's bytes (durably) and returns its catalog entry. */
  private async store(pending: { meta: SegmentMeta; bytes: Uint8Array }): Promise<SegmentMeta> {
    await this.blobs.write(pending.meta.file, pending.bytes);
    return pending.meta;
  }

  /**
   * commit saves a catalog change and then, in the same synchronous step, publishes it and
   * runs `publish` (which drops what the new segments replace), so no read sees data twice or
   * not at all. If saving fails the files already written stay unreferenced and are removed at
   * the next start.
   */
  private async commit(change: CatalogChange, publish: () => void): Promise<void> {
    if (this.shared) {
      await this.shared.apply({ add: change.add, remove: change.remove && [...change.remove], logPositions: change.logPositions, metricMetadata: change.metricMetadata });
      // An ingester keeps no segment list (it serves its heads only); other processes track what they changed until the next refresh.
      const local = this.options.logPartitions === 'assigned' ? { ...change, add: [] } : change;
      this.catalog = new Catalog(applyChange(this.catalog.state, local));
      // Cuts and merges run one at a time, so every id taken so far is now committed or abandoned.
      this.idsCommittedBefore = this.ids.next;
      publish();
      return;
    }
    const state = applyChange(this.catalog.state, { ...change, nextSegmentId: this.nextSegmentId });
    await this.catalogStore.save(state);
    this.catalog = new Catalog(state);
    publish();
  }

  private newSegmentId(): number {
    if (this.shared) {
      if (this.ids.next >= this.ids.end) throw new Error('no segment id reserved');
      return this.ids.next++;
    }
    return this.nextSegmentId++;
  }

  private metricMeta(org: string, enc: EncodedMetricSegment, seq?: number): { meta: SegmentMeta; bytes: Uint8Array } {
    const id = this.newSegmentId();
    const meta: SegmentMeta = {
      id,
      seq: seq ?? id,
      org,
      signal: 'metrics',
      file: segmentFileName(id, 'metrics'),
      formatVersion: enc.formatVersion,
      crc: enc.crc,
      bytes: enc.bytes.length,
      rows: enc.rows,
      minMs: enc.minMs,
      maxMs: enc.maxMs,
      metricNames: enc.metricNames,
      seriesCount: enc.seriesCount,
      createdMs: this.now(),
      ...(this.writerId !== undefined ? { writer: this.writerId } : {}),
    };
    return { meta, bytes: enc.bytes };
  }

  private logMeta(org: string, enc: EncodedLogSegment, indexedTags: readonly string[], seq?: number): { meta: SegmentMeta; bytes: Uint8Array } {
    const id = this.newSegmentId();
    const meta: SegmentMeta = {
      id,
      seq: seq ?? id,
      org,
      signal: 'logs',
      file: segmentFileName(id, 'logs'),
      formatVersion: enc.formatVersion,
      crc: enc.crc,
      bytes: enc.bytes.length,
      rows: enc.rows,
      minMs: Number(floorDiv(enc.minNs, 1_000_000n)),
      maxMs: Number(-floorDiv(-enc.maxNs, 1_000_000n)),
      minNs: enc.minNs.toString(),
      maxNs: enc.maxNs.toString(),
      streamCount: enc.streamCount,
      tagValues: Object.fromEntries(indexedTags.map((t) => [t, enc.tagValues[t] ?? null])),
      createdMs: this.now(),
      ...(this.writerId !== undefined ? { writer: this.writerId } : {}),
    };
    return { meta, bytes: enc.bytes };
  }

  private metadataSnapshot(): Record<string, MetricMetadataRecord[]> {
    const out: Record<string, MetricMetadataRecord[]> = {};
    for (const [org, data] of this.orgs) if (data.metadata.size > 0) out[org] = [...data.metadata.values()];
    return out;
  }

  /**
   * compact merges runs of small adjacent segments of one org and signal (see planCompaction)
   * into one sorted segment each, registers it in place of its inputs atomically, and deletes
   * the inputs. A run with an unreadable input is left as it is.
   */
  compact(): Promise<CompactionResult> {
    return this.exclusive(() => this.compactNow());
  }

  private async compactNow(): Promise<CompactionResult> {
    if (this.closed) throw new Error('storage is closed');
    if (this.readOnly) return { merged: [] };
    const target = this.options.segmentTargetBytes ?? DEFAULT_SEGMENT_TARGET_BYTES;
    const merged: CompactionResult['merged'] = [];
    for (const org of this.catalog.orgs()) {
      for (const signal of ['metrics', 'logs'] as const) {
        const metas = this.catalog.segments(org, signal).map((e) => e.meta);
        for (const group of planCompaction(metas, target, (id) => this.readers.knownFailure(id) !== undefined)) {
          const output = await this.mergeGroup(org, signal, group);
          if (output) merged.push({ inputs: group, output });
        }
      }
    }
    if (merged.length > 0) {
      this.emit({ level: 'info', message: 'compacted segments', fields: { merges: merged.length, inputs: merged.reduce((n, m) => n + m.inputs.length, 0) } });
    }
    return { merged };
  }

  private async mergeGroup(org: string, signal: Signal, group: SegmentMeta[]): Promise<SegmentMeta | undefined> {
    const seq = Math.max(...group.map((s) => s.seq));
    const writers = this.writerId !== undefined ? mergedWriters(group) : undefined;
    await this.reserveIds(1);
    // Read the inputs without blocking the thread on I/O first: from an object store that is a download.
    await this.readers.prefetch(group);
    let pending: { meta: SegmentMeta; bytes: Uint8Array } | undefined;
    if (signal === 'metrics') {
      const readers: MetricSegmentReader[] = [];
      for (const meta of group) {
        const opened = this.readers.metric(meta);
        if (opened.failure) return undefined;
        readers.push(opened.reader);
      }
      const enc = encodeMetricSegment(mergeMetricReaders(readers));
      if (enc) pending = this.metricMeta(org, enc, seq);
    } else {
      const readers: LogSegmentReader[] = [];
      for (const meta of group) {
        const opened = this.readers.log(meta);
        if (opened.failure) return undefined;
        readers.push(opened.reader);
      }
      const indexed = commonIndexedTags(readers);
      const enc = encodeLogSegment(mergeLogReaders(readers), indexed);
      if (enc) pending = this.logMeta(org, enc, indexed, seq);
    }
    if (!pending) return undefined;
    if (writers !== undefined) pending.meta.writers = writers;
    const output = await this.store(pending);
    try {
      await this.commit({ add: [output], remove: new Set(group.map((s) => s.id)) }, () => {
        for (const s of group) this.readers.forget(s.id);
      });
    } catch (err) {
      // Another compactor got there first (shared catalog): this merge is not needed.
      await this.blobs.remove(output.file).catch(() => undefined);
      if (err instanceof CatalogConflictError) return undefined;
      throw err;
    }
    for (const s of group) await this.blobs.remove(s.file);
    return output;
  }

  /**
   * applyRetention deletes segments whose newest timestamp is older than their org's
   * retention for their signal before `nowMs`. Returns the deleted segments.
   */
  applyRetention(nowMs: number = this.now()): Promise<SegmentMeta[]> {
    return this.exclusive(async () => {
      if (this.closed) throw new Error('storage is closed');
      if (this.readOnly) return [];
      const fallback = this.options.retentionMs ?? DEFAULT_RETENTION_MS;
      const expired = this.catalog.state.segments.filter((s) => {
        const retention = this.options.retentionFor?.(s.org, s.signal) ?? fallback;
        return retention > 0 && Number.isFinite(retention) && s.maxMs < nowMs - retention;
      });
      if (expired.length === 0) return [];
      await this.commit({ remove: new Set(expired.map((s) => s.id)) }, () => {
        for (const s of expired) this.readers.forget(s.id);
      });
      for (const s of expired) await this.blobs.remove(s.file);
      this.emit({ level: 'info', message: 'retention deleted old segments', fields: { segments: expired.length, bytes: expired.reduce((n, s) => n + s.bytes, 0) } });
      return expired;
    });
  }

  /** close stops background work, waits for a running cut or compaction, and closes the WAL (which replay covers: no cut is needed). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const t of this.timers) clearInterval(t);
    await this.chain;
    await this.feed?.stop();
    await this.wal?.close();
  }
}

/** mergedWriters is, for a merge of `group`, the highest input seq per writer of those inputs. */
function mergedWriters(group: readonly SegmentMeta[]): Record<string, number> {
  const out: Record<string, number> = {};
  const note = (writer: string, seq: number) => {
    if ((out[writer] ?? -1) < seq) out[writer] = seq;
  };
  for (const s of group) {
    if (s.writer !== undefined) note(s.writer, s.seq);
    for (const [writer, seq] of Object.entries(s.writers ?? {})) note(writer, seq);
  }
  return out;
}
