import type { BlobStore } from './blobStore.js';
import { Catalog, type CatalogChange, type CatalogState, type SegmentMeta } from './catalog.js';
import type { CatalogWriter } from './catalogWriter.js';
import type { PendingSegment, SegmentStamp } from './segmentMeta.js';
import type { SegmentReaders } from './segmentReaders.js';

/**
 * SegmentBook is the segment bookkeeping of a storage that writes segments: the catalog this
 * process reads, the files in the blob store, and the writer that numbers and records them.
 * Cuts, compaction and retention all change segments through it, one at a time.
 */
export class SegmentBook {
  private current: Catalog;

  constructor(
    readonly blobs: BlobStore,
    readonly readers: SegmentReaders,
    private readonly writer: CatalogWriter,
    state: CatalogState,
    private readonly now: () => number,
    /** writerId names this process in the segments it writes to a shared catalog (meta.writer). */
    readonly writerId: string | undefined,
  ) {
    this.current = new Catalog(state);
  }

  get catalog(): Catalog {
    return this.current;
  }

  /** replace sets the catalog this process reads (a shared catalog reloaded, positions taken over). */
  replace(state: CatalogState): void {
    this.current = new Catalog(state);
  }

  /** reserve makes sure `count` segment ids are at hand. */
  reserve(count: number): Promise<void> {
    return this.writer.reserve(count);
  }

  /** segmentsBefore is the first segment seq not committed yet (see HeadExport.segmentsBefore). */
  segmentsBefore(): number {
    return this.writer.segmentsBefore(this.current.state);
  }

  /** stamp is a new segment's id and origin; `seq` is a merge's (the highest of its inputs'). */
  stamp(org: string, seq?: number): SegmentStamp {
    return { id: this.writer.nextId(), seq, org, createdMs: this.now(), writer: this.writerId };
  }

  /** store writes a segment's bytes (durably) and returns its catalog entry. */
  async store(pending: PendingSegment): Promise<SegmentMeta> {
    await this.blobs.write(pending.meta.file, pending.bytes);
    return pending.meta;
  }

  /** removeQuietly deletes segment files no catalog refers to; one that fails is left to the orphan sweep (or, embedded, the next start). */
  async removeQuietly(segments: readonly SegmentMeta[]): Promise<void> {
    for (const s of segments) await this.blobs.remove(s.file).catch(() => undefined);
  }

  /**
   * commit saves a catalog change and then, in the same synchronous step, publishes it and
   * runs `publish` (which drops what the new segments replace), so no read sees data twice or
   * not at all. If saving fails the files already written stay unreferenced.
   */
  async commit(change: CatalogChange, publish: () => void): Promise<void> {
    this.current = new Catalog(await this.writer.commit(change, this.current.state));
    publish();
  }
}
