import { ByteLru } from './byteLru.js';
import type { SegmentMeta } from './catalog.js';
import { LogSegmentReader } from './logSegment.js';
import { MetricSegmentReader } from './metricSegment.js';
import type { Opened } from './segmentReaders.js';

/**
 * SharedSegment is a segment handed to another thread: its catalog entry and the file's bytes.
 * The local blob store reads files into SharedArrayBuffers, so posting a SharedSegment to a
 * worker shares the bytes instead of copying them; the bytes are immutable, like the file.
 */
export interface SharedSegment {
  meta: SegmentMeta;
  bytes: Uint8Array;
}

/**
 * WORKER_SEGMENT_CACHE_BYTES bounds the decoded segments one worker keeps between tasks when the
 * service does not size it (the service gives each worker its part of SVC_WORKER_SEGMENT_CACHE_BYTES).
 */
export const WORKER_SEGMENT_CACHE_BYTES = 128 * 1024 * 1024;

type Reader = MetricSegmentReader | LogSegmentReader;

/**
 * SharedSegmentReaders opens the segments a task brought along, on the worker's side. The
 * query front already opened each one (checksum verified, failures reported), so decoding here
 * trusts the bytes and only rebuilds the reader's indexes. Readers are cached across tasks by
 * org, file and checksum, which keeps a reader from being rebuilt for every slice of a query.
 */
export class SharedSegmentReaders {
  private readonly cache: ByteLru<string, Reader>;

  constructor(maxCacheBytes = WORKER_SEGMENT_CACHE_BYTES) {
    this.cache = new ByteLru(maxCacheBytes);
  }

  /** over returns an opener for one task's segments; a segment the task did not bring is an error. */
  over(segments: readonly SharedSegment[]): {
    metric(meta: SegmentMeta): Opened<MetricSegmentReader>;
    log(meta: SegmentMeta): Opened<LogSegmentReader>;
  } {
    const bytesById = new Map<number, Uint8Array>();
    for (const s of segments) bytesById.set(s.meta.id, s.bytes);
    const open = <R extends Reader>(meta: SegmentMeta, decode: (bytes: Uint8Array) => R): Opened<R> => {
      // Org, file and checksum together: a cached reader can only ever answer for the very same bytes.
      const key = `${meta.org}\u0000${meta.file}\u0000${meta.id}\u0000${meta.crc}`;
      const cached = this.cache.get(key);
      if (cached) return { reader: cached as R };
      const bytes = bytesById.get(meta.id);
      if (!bytes) throw new Error(`segment ${meta.id} was not shipped with the task`);
      const reader = decode(bytes);
      this.cache.set(key, reader);
      return { reader };
    };
    return {
      metric: (meta) => open(meta, (bytes) => MetricSegmentReader.decode(bytes, meta.crc, 'trusted')),
      log: (meta) => open(meta, (bytes) => LogSegmentReader.decode(bytes, meta.crc, 'trusted')),
    };
  }
}
