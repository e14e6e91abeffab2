import { BlobNotFoundError, type BlobStore } from './blobStore.js';
import { ByteLru } from './byteLru.js';
import type { SegmentMeta, Signal } from './catalog.js';
import { LogSegmentReader } from './logSegment.js';
import { MetricSegmentReader } from './metricSegment.js';
import { SegmentFormatError } from './segmentFormat.js';
import type { EventSink } from './storageEvent.js';

/** SegmentFailure names a segment a read had to skip and why, so a query can say its answer is partial. */
export interface SegmentFailure {
  segmentId: number;
  file: string;
  org: string;
  signal: Signal;
  reason: string;
}

type Reader = MetricSegmentReader | LogSegmentReader;

/** Opened is the outcome of opening a segment: its reader, or the failure that made it unreadable. */
export type Opened<R> = { reader: R; failure?: undefined } | { reader?: undefined; failure: SegmentFailure };

/**
 * SegmentReaders opens segment files and keeps the decoded readers in an LRU cache bounded by
 * bytes (the files' bytes dominate a reader's memory). A segment found missing or damaged is
 * reported once as an error event and remembered, so later queries skip it at no cost and
 * still learn it was skipped; a transient read error is reported but not remembered.
 */
export class SegmentReaders {
  private readonly cache: ByteLru<number, Reader>;
  private readonly failures = new Map<number, SegmentFailure>();
  /** reading holds the file reads prefetch has under way, so two queries never read one file twice. */
  private readonly reading = new Map<number, Promise<Uint8Array>>();
  /** fileReads counts segment files read from the blob store (cache misses). */
  fileReads = 0;

  constructor(
    private readonly blobs: BlobStore,
    maxCacheBytes: number,
    private readonly emit: EventSink,
  ) {
    this.cache = new ByteLru(maxCacheBytes);
  }

  metric(meta: SegmentMeta): Opened<MetricSegmentReader> {
    return this.open(meta, (bytes) => MetricSegmentReader.decode(bytes, meta.crc)) as Opened<MetricSegmentReader>;
  }

  log(meta: SegmentMeta): Opened<LogSegmentReader> {
    return this.open(meta, (bytes) => LogSegmentReader.decode(bytes, meta.crc)) as Opened<LogSegmentReader>;
  }

  /** knownFailure returns the remembered failure of a segment, if it has one. */
  knownFailure(id: number): SegmentFailure | undefined {
    return this.failures.get(id);
  }

  /** markFailed records a failure found outside a read (a file missing at start-up). */
  markFailed(meta: SegmentMeta, reason: string): SegmentFailure {
    const failure: SegmentFailure = { segmentId: meta.id, file: meta.file, org: meta.org, signal: meta.signal, reason };
    if (!this.failures.has(meta.id)) {
      this.failures.set(meta.id, failure);
      this.emit({ level: 'error', message: 'segment unreadable; queries skip it and report partial results', fields: { ...failure } });
    }
    return this.failures.get(meta.id)!;
  }

  /** forget drops a segment from the cache and failure list once it is deleted. */
  forget(id: number): void {
    this.cache.delete(id);
    this.failures.delete(id);
  }

  /**
   * prefetch reads the segments not yet open without blocking this thread on I/O, then opens
   * them, so a query's synchronous reads right after find them cached. Failures are left for
   * those reads to meet and report, as they would without prefetching.
   */
  async prefetch(metas: readonly SegmentMeta[]): Promise<void> {
    await Promise.all(
      metas.map(async (meta) => {
        if (this.failures.has(meta.id) || this.cache.get(meta.id)) return;
        let pending = this.reading.get(meta.id);
        if (!pending) {
          this.fileReads++;
          pending = this.blobs.readAsync(meta.file).finally(() => this.reading.delete(meta.id));
          this.reading.set(meta.id, pending);
        }
        let bytes: Uint8Array;
        try {
          bytes = await pending;
        } catch {
          return;
        }
        if (this.failures.has(meta.id) || this.cache.get(meta.id)) return;
        this.open(meta, meta.signal === 'metrics' ? (b) => MetricSegmentReader.decode(b, meta.crc) : (b) => LogSegmentReader.decode(b, meta.crc), bytes);
      }),
    );
  }

  private open(meta: SegmentMeta, decode: (bytes: Uint8Array) => Reader, prefetched?: Uint8Array): Opened<Reader> {
    const known = this.failures.get(meta.id);
    if (known) return { failure: known };
    const cached = this.cache.get(meta.id);
    if (cached) return { reader: cached };
    let reader: Reader;
    try {
      if (prefetched === undefined) this.fileReads++;
      reader = decode(prefetched ?? this.blobs.read(meta.file));
    } catch (err) {
      if (err instanceof BlobNotFoundError) return { failure: this.markFailed(meta, 'segment file missing') };
      if (err instanceof SegmentFormatError) return { failure: this.markFailed(meta, `segment file damaged: ${err.message}`) };
      const failure: SegmentFailure = { segmentId: meta.id, file: meta.file, org: meta.org, signal: meta.signal, reason: `segment read failed: ${err instanceof Error ? err.message : String(err)}` };
      this.emit({ level: 'error', message: 'segment read failed; query answered without it', fields: { ...failure } });
      return { failure };
    }
    this.cache.set(meta.id, reader);
    return { reader };
  }
}
