import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { limitSeries, limitStreams } from './activeLimits.js';
import { limitAppliedEntry, scaledLimits } from './appliedLimits.js';
import { LocalBlobStore, type BlobStore } from './blobStore.js';
import { applyChange, emptyCatalog, type Catalog, type CatalogState, type SegmentMeta, type Signal } from './catalog.js';
import { FileCatalogStore, PartitionsLostError, type CatalogStore, type SharedCatalogStore } from './catalogStore.js';
import { LocalCatalogWriter, type CatalogWriter } from './catalogWriter.js';
import { EmbeddedWal } from './embeddedWal.js';
import type { HeadExport, HeadPositions } from './headWire.js';
import { IngesterPartitions } from './ingesterPartitions.js';
import type { SeriesExemplars } from './exemplarStore.js';
import { METRIC_NAME } from './labels.js';
import { LogFeed } from './logFeed.js';
import { DEFAULT_INDEXED_TAGS, type LogEntry, type LogHead } from './logHead.js';
import { encodeLogSegment, type EncodedLogSegment } from './logSegment.js';
import { Maintenance } from './maintenance.js';
import { seriesKey, type LastSampleLookup, type MetricHead, type MetricSeries } from './metricHead.js';
import { encodeMetricSegment, type EncodedMetricSegment } from './metricSegment.js';
import { OrgHeads } from './orgHeads.js';
import { OrgLogView, OrgMetricView, type OrgSources } from './orgViews.js';
import { sweepOrphanSegments } from './orphanSweep.js';
import { PeerReads } from './peerReads.js';
import { reconcileBlobs } from './reconcileBlobs.js';
import { SegmentBook } from './segmentBook.js';
import { compactSegments, expireSegments } from './segmentCompactor.js';
import { logSegment, metricSegment } from './segmentMeta.js';
import { SegmentReaders } from './segmentReaders.js';
import { SharedCatalogWriter } from './sharedCatalogWriter.js';
import {
  DEFAULT_RETENTION_MS,
  DEFAULT_SEGMENT_CACHE_BYTES,
  DEFAULT_SEGMENT_TARGET_BYTES,
  type ActiveLimits,
  type CompactionResult,
  type CutResult,
  type SegmentEncoders,
  type SeriesLimitOutcome,
  type StorageOptions,
  type StorageStats,
  type StreamLimitOutcome,
} from './storageOptions.js';
import type { StorageEvent } from './storageEvent.js';
import { decodeWalEntry, encodeWalEntry, forgetLastDecoded, type MetricMetadataRecord, type WalEntry } from './walCodec.js';
import type { WriteLog } from './writeLog.js';

export type { StorageEvent } from './storageEvent.js';
export * from './storageOptions.js';

/**
 * Storage is the write and read path of the back end, opened in one of three ways:
 *
 * - embedded (the default): one process, the WAL as the durable step (embeddedWal.ts), or a
 *   replicated write log read into the heads (logFeed.ts); the catalog is its own
 *   (LocalCatalogWriter) and start-up reconciles it with the segment files (reconcileBlobs.ts);
 * - over a shared catalog (`sharedCatalog`): an ingest process publishing to the write log, or
 *   an ingester reading the partitions it holds leases on (ingesterPartitions.ts), recording
 *   segments as changes to the catalog other processes write too (SharedCatalogWriter);
 * - read-only (`readOnly`): a query process, reading segments and the heads other processes
 *   serve it (peerReads.ts).
 *
 * What the writing modes share lives here: heads per org (orgHeads.ts), cuts into immutable
 * Arrow segments, compaction and retention, which take turns and never overlap, and the views
 * queries read through, which merge segments and heads so data moving from head to segment is
 * invisible to them. A write is acknowledged only once durable (WAL synced, or the log stored
 * it), and callers validate a whole request before calling append, so a bad request stores
 * nothing.
 */
export class Storage {
  private readonly heads: OrgHeads;
  private readonly indexedTags: ReadonlySet<string>;
  private readonly indexedTagList: readonly string[];
  private readonly readers: SegmentReaders;
  private readonly emit: (event: StorageEvent) => void;
  private readonly now: () => number;
  private readonly maintenance: Maintenance;
  /** book keeps the segments of a storage that writes them; a query process has none. */
  private readonly book: SegmentBook | undefined;
  private chain: Promise<unknown> = Promise.resolve();
  private closed = false;
  /** where cuts encode heads; undefined: on this thread */
  private encoders: SegmentEncoders | undefined;
  /** feed is the replicated write log's reader and publisher, when one replaces the WAL. */
  private feed: LogFeed | undefined;
  /** shared is the catalog store other processes write too, when scaled out. */
  private shared: SharedCatalogStore | undefined;
  /** partitions moves write log partitions in and out of an ingester's heads. */
  private partitions: IngesterPartitions | undefined;
  /** peerReads is a query process's read path (see StorageOptions.readOnly). */
  private peerReads: PeerReads | undefined;

  private constructor(
    private readonly wal: EmbeddedWal | undefined,
    blobs: BlobStore,
    writer: CatalogWriter | undefined,
    state: CatalogState,
    private readonly options: StorageOptions,
  ) {
    this.indexedTagList = [...(options.indexedTags ?? DEFAULT_INDEXED_TAGS)];
    this.indexedTags = new Set(this.indexedTagList);
    this.emit = options.onEvent ?? (() => {});
    this.now = options.now ?? Date.now;
    this.heads = new OrgHeads(this.indexedTags, this.now);
    this.readers = new SegmentReaders(blobs, options.segmentCacheBytes ?? DEFAULT_SEGMENT_CACHE_BYTES, this.emit);
    // A shared catalog's segments name their writer (see StorageOptions.writerId).
    const writerId = options.sharedCatalog ? (options.writerId ?? randomUUID()) : undefined;
    this.book = writer && new SegmentBook(blobs, this.readers, writer, state, this.now, writerId);
    this.maintenance = new Maintenance(this, this.heads, options, this.now, this.emit);
  }

  static async open(options: StorageOptions): Promise<Storage> {
    const blobs = options.blobStore ?? new LocalBlobStore(path.join(options.dir, 'segments'));
    const catalogStore = options.catalogStore ?? new FileCatalogStore(path.join(options.dir, 'catalog.json'));
    if (options.readOnly) return Storage.openReadOnly(options, blobs, catalogStore);
    if (options.sharedCatalog) return Storage.openShared(options, options.sharedCatalog, blobs);
    const loaded = await catalogStore.load();
    if (options.writeLog) return Storage.openOnLog(options, options.writeLog, blobs, catalogStore, loaded);
    return Storage.openEmbedded(options, blobs, catalogStore, loaded);
  }

  /** openEmbedded opens the single-process storage over the WAL and replays it into the heads. */
  private static async openEmbedded(options: StorageOptions, blobs: BlobStore, catalogStore: CatalogStore, loaded: CatalogState | undefined): Promise<Storage> {
    const emit = options.onEvent ?? (() => {});
    const { wal, state, records } = await EmbeddedWal.open(options, loaded ?? emptyCatalog(), catalogStore, emit);
    const storage = new Storage(wal, blobs, new LocalCatalogWriter(catalogStore, state.nextSegmentId), state, options);
    try {
      await reconcileBlobs(blobs, state, loaded !== undefined, storage.readers, emit);
      // A fresh directory gets its (empty) catalog at once, so that from now on a segment file
      // the catalog lacks can only be an uncommitted one, safe to delete.
      if (loaded === undefined) await catalogStore.save(state);
    } catch (err) {
      await wal.close();
      throw err;
    }
    storage.heads.loadMetadata(state);
    let replayed = 0;
    try {
      for await (const payload of records) {
        try {
          storage.applyEntry(decodeWalEntry(payload));
          replayed++;
        } catch (err) {
          emit({ level: 'error', message: 'skipping undecodable WAL record', fields: { error: String(err) } });
        }
      }
    } catch (err) {
      await wal.close();
      throw err;
    } finally {
      forgetLastDecoded();
    }
    if (replayed > 0) emit({ level: 'info', message: 'replayed write-ahead log', fields: { records: replayed, fromFile: state.walCheckpoint } });
    storage.maintenance.start();
    return storage;
  }

  /**
   * openOnLog opens the single-process storage over a replicated write log instead of the
   * WAL: the catalog says how far the segments cover each partition, and the heads are
   * rebuilt by reading every partition after that position before the storage is returned.
   */
  private static async openOnLog(options: StorageOptions, log: WriteLog, blobs: BlobStore, catalogStore: CatalogStore, loaded: CatalogState | undefined): Promise<Storage> {
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
    const storage = new Storage(undefined, blobs, new LocalCatalogWriter(catalogStore, state.nextSegmentId), state, options);
    await reconcileBlobs(blobs, state, loaded !== undefined, storage.readers, emit);
    await catalogStore.save(state);
    storage.heads.loadMetadata(state);
    const feed = storage.attachFeed(log, state, false);
    try {
      await feed.start();
    } catch (err) {
      await feed.stop();
      throw err;
    }
    storage.maintenance.start();
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
    const ingester = log !== undefined && mode === 'assigned';
    const loaded = log && mode === 'none' ? undefined : await shared.load();
    const state = loaded === undefined ? emptyCatalog() : ingester ? { ...loaded, segments: [] } : loaded;
    const storage = new Storage(undefined, blobs, new SharedCatalogWriter(shared, mode !== 'assigned'), state, options);
    storage.shared = shared;
    storage.heads.loadMetadata(state);
    if (log) {
      const feed = storage.attachFeed(log, state, mode === 'none');
      storage.partitions = new IngesterPartitions(
        feed,
        shared,
        storage.heads,
        {
          cover: (positions) => storage.book!.replace({ ...storage.catalog.state, logPositions: { ...storage.catalog.state.logPositions, ...positions } }),
          cut: () => storage.cutNow(),
        },
        emit,
      );
      if (mode === 'all') await feed.start();
    }
    storage.maintenance.start();
    return storage;
  }

  /** openReadOnly opens a query process's storage: see PeerReads. */
  private static async openReadOnly(options: StorageOptions, blobs: BlobStore, catalogStore: CatalogStore): Promise<Storage> {
    const storage = new Storage(undefined, blobs, undefined, emptyCatalog(), options);
    storage.peerReads = await PeerReads.open(catalogStore, options.peers, storage.readers);
    return storage;
  }

  /** applyEntry puts one decoded record where it belongs: exemplars in the exemplar store, the rest in the heads. */
  private applyEntry(entry: WalEntry): void {
    if (entry.kind === 'exemplars') this.options.exemplars?.add(entry.org, entry.series);
    else this.heads.apply(entry);
  }

  /** attachFeed connects the write log: its records go into the heads, from the positions the catalog records. */
  private attachFeed(log: WriteLog, state: CatalogState, publishOnly: boolean): LogFeed {
    this.feed = new LogFeed({
      log,
      indexedTags: this.indexedTags,
      start: state.logPositions ?? {},
      publishOnly,
      apply: (record) => {
        this.applyEntry(this.limitApplied(decodeWalEntry(record), log.partitions));
        this.maintenance.afterWrite();
      },
      onEvent: this.emit,
    });
    return this.feed;
  }

  /**
   * limitApplied checks an ingester's org limits on a record read from the log (see
   * appliedLimits.ts); elsewhere the writer checked them before publishing.
   */
  private limitApplied(entry: WalEntry, partitions: number): WalEntry {
    const limitsOf = this.options.appliedLimits;
    if (limitsOf === undefined || this.options.logPartitions !== 'assigned') return entry;
    const reading = this.feed?.readingPartitions().length ?? partitions;
    const limits = scaledLimits(limitsOf(entry.org), reading, partitions);
    return limitAppliedEntry(entry, this.heads, limits, (refusal) => this.options.onLimitRefusal?.(entry.org, refusal));
  }

  /** catalog is the catalog this process reads: its own, or as a query process loaded it last. */
  private get catalog(): Catalog {
    if (this.book) return this.book.catalog;
    if (this.peerReads) return this.peerReads.catalog;
    throw new Error('storage is not open');
  }

  /** refreshCatalog reloads a shared catalog, so this process sees what the others registered and removed since. */
  async refreshCatalog(): Promise<void> {
    if (!this.shared || !this.book) return;
    const state = await this.shared.load();
    if (state === undefined) return;
    const kept = new Set(state.segments.map((s) => s.id));
    for (const s of this.catalog.state.segments) if (!kept.has(s.id)) this.readers.forget(s.id);
    this.book.replace(state);
  }

  /**
   * takePartitions starts reading write log partitions this process now owns, each after the
   * position the shared catalog records for it, so what segments hold is not applied again.
   */
  takePartitions(partitions: readonly number[]): Promise<void> {
    return this.exclusive(async () => {
      if (!this.closed) await this.partitions?.take(partitions);
    });
  }

  /**
   * releasePartitions hands partitions over gracefully: it stops reading them and cuts the
   * heads, so the catalog records how far they are covered before their leases are given up.
   * If the cut fails, reading resumes and the error is thrown (the caller keeps the leases).
   */
  releasePartitions(partitions: readonly number[]): Promise<void> {
    return this.exclusive(async () => this.partitions?.release(partitions));
  }

  /** losePartitions reacts to partitions taken over by another process: see IngesterPartitions.drop. */
  losePartitions(partitions: readonly number[]): Promise<void> {
    return this.exclusive(async () => this.partitions?.drop(partitions));
  }

  /** readingPartitions lists the partitions being read into the heads now. */
  readingPartitions(): number[] {
    return this.feed?.readingPartitions() ?? [];
  }

  /**
   * refreshListings brings a read-only storage up to date for listings (labels, series,
   * metadata), which read synchronously without a prepare step: they then see the catalog and
   * heads fetched here. It answers the head holders that could not be read (the listing lacks
   * their recent data); elsewhere it does nothing and answers none.
   */
  async refreshListings(org: string): Promise<readonly string[]> {
    return (await this.peerReads?.refreshListings(org)) ?? [];
  }

  /**
   * exportHeads is the org's heads as a query process reads them (the internal head endpoint):
   * the snapshots workers read here, the bound on segments the heads already left, and per
   * write-log partition what the segments cover and what the heads hold. It is read in one
   * synchronous step, as a cut's commit swaps catalog and heads in one.
   */
  exportHeads(org: string, signals: { metrics: boolean; logs: boolean }): HeadExport {
    const data = this.heads.get(org);
    const generations = data ? data.generations : [];
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
      segmentsBefore: this.book?.segmentsBefore() ?? this.catalog.state.nextSegmentId,
      ...(this.book?.writerId !== undefined ? { writer: this.book.writerId } : {}),
      partitions,
      metadata: data ? [...data.metadata.values()] : [],
    };
  }

  /**
   * appendLogs stores log lines durably. Lines of new streams past the org's active stream
   * limit are refused (see limitStreams); the answer says how many.
   */
  async appendLogs(org: string, records: LogEntry[], limits: ActiveLimits = {}): Promise<StreamLimitOutcome> {
    const { accepted, outcome } = limitStreams(() => this.heads.org(org).active.logs, records, limits);
    if (accepted.length > 0) await this.write({ kind: 'logs', org, records: accepted });
    return outcome;
  }

  /**
   * appendMetrics stores samples durably. New series past the org's active series limit are
   * refused whole (see limitSeries); the check runs before the write, so concurrent requests
   * may overshoot the limit by what they add between them.
   */
  async appendMetrics(org: string, series: MetricSeries[], metadata: MetricMetadataRecord[] = [], limits: ActiveLimits = {}): Promise<SeriesLimitOutcome> {
    const { accepted, outcome } = limitSeries(() => this.heads.org(org).active.metrics, series, limits);
    if (accepted.length > 0 || metadata.length > 0) await this.write({ kind: 'metrics', org, series: accepted, metadata });
    return outcome;
  }

  /**
   * appendExemplars keeps exemplars of remote-written series and answers how many. With the
   * embedded WAL they go straight into the exemplar store (not logged: see exemplarStore.ts),
   * and the count leaves out those it refused or ignored. Through a write log they travel with
   * their series' partition to the ingester holding it (whose query answers then include
   * them); the count is what the log acknowledged, since the store that keeps them is elsewhere.
   */
  async appendExemplars(org: string, series: SeriesExemplars[]): Promise<number> {
    const store = this.options.exemplars;
    if (series.length === 0 || (store !== undefined && store.maxPerOrg <= 0)) return 0;
    if (this.feed === undefined) return store?.add(org, series) ?? 0;
    await this.write({ kind: 'exemplars', org, series });
    let n = 0;
    for (const s of series) n += s.exemplars.length;
    return n;
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
    if (this.peerReads || (this.feed !== undefined && mode !== 'all')) return () => undefined;
    const data = this.heads.get(org);
    const heads = data ? data.generations.map((g) => g.metrics) : [];
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
    if (this.peerReads) throw new Error('this storage is read-only: writes go to the processes that hold heads');
    if (this.feed) {
      if (this.closed) throw new Error('storage is closed');
      await this.feed.publish(entry);
      return;
    }
    if (!this.wal) throw new Error('this process takes no writes (no write log)');
    if (entry.kind === 'exemplars') throw new Error('exemplars are not written to the embedded WAL');
    await this.wal.append(encodeWalEntry(entry), () => this.heads.apply(entry));
    this.maintenance.afterWrite();
  }

  private sources<H>(org: string, signal: Signal, head: (g: { metrics: MetricHead; logs: LogHead }) => H): OrgSources<H> {
    const data = this.heads.get(org);
    return { segments: this.catalog.segments(org, signal), heads: data ? data.generations.map(head) : [] };
  }

  /**
   * metrics returns a view of the org's samples across segments and heads. The view lists in
   * `failedSegments` any segment it had to skip (missing or damaged file): a query that finds
   * it non-empty after reading should report a partial result.
   */
  metrics(org: string): OrgMetricView {
    return this.peerReads?.metrics(org) ?? new OrgMetricView(() => this.sources(org, 'metrics', (g) => g.metrics), this.readers);
  }

  /** logs returns a view of the org's log lines across segments and heads; see `metrics` for `failedSegments`. */
  logs(org: string): OrgLogView {
    return this.peerReads?.logs(org) ?? new OrgLogView(() => this.sources(org, 'logs', (g) => g.logs), this.readers);
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
    return this.peerReads?.metricMetadata(org) ?? this.heads.org(org).metadata;
  }

  /** segments lists every registered segment (all orgs), for operators, tests and benchmarks. */
  segments(): readonly SegmentMeta[] {
    return this.catalog.state.segments;
  }

  stats(): StorageStats {
    const state = this.catalog.state;
    let segmentBytes = 0;
    let segmentRows = 0;
    for (const s of state.segments) {
      segmentBytes += s.bytes;
      segmentRows += s.rows;
    }
    return { segments: state.segments.length, segmentBytes, segmentRows, walCheckpoint: state.walCheckpoint, segmentFileReads: this.readers.fileReads, ...this.heads.totals() };
  }

  /** exclusive runs maintenance tasks one at a time, in call order. */
  private exclusive<T>(task: () => Promise<T>): Promise<T> {
    const run = this.chain.then(task, task);
    this.chain = run.catch(() => undefined);
    return run;
  }

  /**
   * encodeSegmentsWith has cuts encode heads, and compaction merge segments, with `encoders`
   * (a worker pool made after the storage opened) instead of on this thread.
   */
  encodeSegmentsWith(encoders: SegmentEncoders): void {
    this.encoders = encoders;
  }

  /**
   * encodeMetrics encodes a frozen metric head: through the encoders when there are some, from
   * the head's shared snapshot; here when there are none or they fail (the pool is closing, or
   * broke), since a cut must not be lost to that.
   */
  private encodeMetrics(head: MetricHead): Promise<EncodedMetricSegment | undefined> {
    const encoders = this.encoders;
    return this.encodeElsewhere(encoders && (() => encoders.metrics(head.snapshot())), () => encodeMetricSegment(head.seriesViews()));
  }

  /** encodeLogs is encodeMetrics for a frozen log head, sent as its cut input. */
  private encodeLogs(head: LogHead): Promise<EncodedLogSegment | undefined> {
    const encoders = this.encoders;
    return this.encodeElsewhere(encoders && (() => encoders.logs(head.cutInput(), this.indexedTagList)), () => encodeLogSegment(head.columns(), this.indexedTagList));
  }

  private async encodeElsewhere<T>(elsewhere: (() => Promise<T>) | undefined, here: () => T): Promise<T> {
    if (elsewhere !== undefined) {
      try {
        return await elsewhere();
      } catch (err) {
        this.emit({ level: 'warn', message: 'encoding a segment off the main thread failed; encoding it here', fields: { err: String((err as Error)?.message ?? err) } });
      }
    }
    return here();
  }

  /**
   * cut writes everything in the heads to segments now (one per org and signal) and trims the
   * WAL; it runs in the background by size and age, and is public for tests and operators.
   */
  cut(): Promise<CutResult> {
    return this.exclusive(() => this.cutNow());
  }

  /**
   * freezeHeads swaps in fresh heads and answers the WAL file replay would start from: with
   * the WAL, between two appends (see EmbeddedWal.freeze); records read from a write log are
   * applied synchronously, so nothing is half-applied and the heads can be frozen at once.
   */
  private async freezeHeads(): Promise<number> {
    if (!this.wal) {
      this.heads.freezeAll();
      return this.catalog.state.walCheckpoint;
    }
    return this.wal.freeze(() => this.heads.freezeAll());
  }

  private async cutNow(): Promise<CutResult> {
    if (this.closed) throw new Error('storage is closed');
    const book = this.book;
    if (!book || !this.heads.hasData) return { segments: [], walCheckpoint: this.catalog.state.walCheckpoint };
    await book.reserve(2 * this.heads.generationCount);
    const positions = this.feed?.positions();
    const cutIndex = await this.freezeHeads();
    // Listed after the freeze: a write drained by it may have brought a new org.
    const frozen = [...this.heads.entries()].map(([id, o]) => ({ id, data: o, generations: [...o.frozen] })).filter((f) => f.generations.length > 0);
    const written: SegmentMeta[] = [];
    try {
      for (const { id: org, generations } of frozen) {
        for (const generation of generations) {
          const metrics = await this.encodeMetrics(generation.metrics);
          if (metrics) written.push(await book.store(metricSegment(book.stamp(org), metrics)));
          const logs = await this.encodeLogs(generation.logs);
          if (logs) written.push(await book.store(logSegment(book.stamp(org), logs, this.indexedTagList)));
        }
      }
    } catch (err) {
      // Nothing refers to these files yet; the frozen heads stay readable and the next cut retries.
      await book.removeQuietly(written);
      throw err;
    }
    const covered = positions === undefined ? { walCheckpoint: cutIndex } : { logPositions: positions };
    try {
      await book.commit({ add: written, ...covered, metricMetadata: this.heads.metadataSnapshot() }, () => {
        for (const { data, generations } of frozen) data.frozen = data.frozen.filter((g) => !generations.includes(g));
      });
    } catch (err) {
      if (this.shared) {
        // A shared catalog refused or lost the change: no process refers to these files.
        await book.removeQuietly(written);
        if (err instanceof PartitionsLostError) await this.partitions?.drop(err.partitions);
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
    if (!this.book) return { merged: [] };
    return compactSegments(this.book, this.options.segmentTargetBytes ?? DEFAULT_SEGMENT_TARGET_BYTES, this.emit, this.encoders?.merge);
  }

  /**
   * applyRetention deletes segments whose newest timestamp is older than their org's
   * retention for their signal before `nowMs`. Returns the deleted segments.
   */
  applyRetention(nowMs: number = this.now()): Promise<SegmentMeta[]> {
    return this.exclusive(async () => {
      if (this.closed) throw new Error('storage is closed');
      if (!this.book) return [];
      const fallback = this.options.retentionMs ?? DEFAULT_RETENTION_MS;
      return expireSegments(this.book, nowMs, (s) => this.options.retentionFor?.(s.org, s.signal) ?? fallback, this.emit);
    });
  }

  /**
   * sweepOrphanSegments deletes segment files of a shared catalog's store that no record names
   * and that are older than `graceMs` (see orphanSweep.ts); the compactor leader runs it. It
   * answers the deleted names; elsewhere, or with `graceMs` 0, it does nothing.
   */
  sweepOrphanSegments(graceMs: number, nowMs: number = this.now()): Promise<string[]> {
    return this.exclusive(async () => {
      if (this.closed) throw new Error('storage is closed');
      const shared = this.shared;
      if (!this.book || !shared || graceMs <= 0) return [];
      // Loaded afresh, not this process's copy: an ingester's copy lists no segments.
      return sweepOrphanSegments(this.book.blobs, () => shared.load(), nowMs, graceMs, this.emit);
    });
  }

  /** close stops background work, waits for a running cut or compaction, and closes the WAL (which replay covers: no cut is needed). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.maintenance.stop();
    await this.chain;
    await this.feed?.stop();
    await this.wal?.close();
  }
}
