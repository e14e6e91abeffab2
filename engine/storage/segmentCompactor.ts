import type { SegmentMeta, Signal } from './catalog.js';
import { CatalogConflictError } from './catalogStore.js';
import { commonIndexedTags, mergeLogReaders, mergeMetricReaders, planCompaction } from './compaction.js';
import { encodeLogSegment, type LogSegmentReader } from './logSegment.js';
import { encodeMetricSegment, type MetricSegmentReader } from './metricSegment.js';
import type { SegmentBook } from './segmentBook.js';
import { logSegment, mergedWriters, metricSegment, type PendingSegment } from './segmentMeta.js';
import type { Opened } from './segmentReaders.js';
import type { CompactionResult, SegmentMerger } from './storageOptions.js';
import type { EventSink } from './storageEvent.js';

/**
 * compactSegments merges runs of small adjacent segments of one org and signal (see
 * planCompaction) into one sorted segment each, registers it in place of its inputs
 * atomically, and deletes the inputs. A run with an unreadable input is left as it is.
 */
export async function compactSegments(book: SegmentBook, targetBytes: number, emit: EventSink, merger?: SegmentMerger): Promise<CompactionResult> {
  const merged: CompactionResult['merged'] = [];
  const catalog = book.catalog;
  for (const org of catalog.orgs()) {
    for (const signal of ['metrics', 'logs'] as const) {
      const metas = catalog.segments(org, signal).map((e) => e.meta);
      for (const group of planCompaction(metas, targetBytes, (id) => book.readers.knownFailure(id) !== undefined)) {
        const output = await mergeGroup(book, org, signal, group, merger, emit);
        if (output) merged.push({ inputs: group, output });
      }
    }
  }
  if (merged.length > 0) {
    emit({ level: 'info', message: 'compacted segments', fields: { merges: merged.length, inputs: merged.reduce((n, m) => n + m.inputs.length, 0) } });
  }
  return { merged };
}

/** openAll opens every segment of a group, or answers undefined when one is unreadable. */
function openAll<R>(group: readonly SegmentMeta[], open: (meta: SegmentMeta) => Opened<R>): R[] | undefined {
  const readers: R[] = [];
  for (const meta of group) {
    const opened = open(meta);
    if (opened.failure) return undefined;
    readers.push(opened.reader);
  }
  return readers;
}

/**
 * encodeMerge encodes a group's merge, or answers undefined when an input is unreadable or the
 * merge is empty. With a merger the decoding, merging and encoding happen where it runs (a
 * worker, reading the segments' bytes from shared memory); here when it fails.
 */
async function encodeMerge(book: SegmentBook, org: string, signal: Signal, group: SegmentMeta[], merger: SegmentMerger | undefined, emit: EventSink): Promise<PendingSegment | undefined> {
  const seq = Math.max(...group.map((s) => s.seq));
  if (merger !== undefined) {
    const open = (meta: SegmentMeta) => (signal === 'metrics' ? book.readers.metric(meta) : book.readers.log(meta));
    const readers = openAll<{ bytes: Uint8Array }>(group, open);
    if (!readers) return undefined;
    try {
      const merged = await merger(signal, group.map((meta, i) => ({ meta, bytes: readers[i].bytes })));
      if (merged === undefined) return undefined;
      if ('indexedTags' in merged) return logSegment(book.stamp(org, seq), merged.segment, merged.indexedTags);
      return metricSegment(book.stamp(org, seq), merged.segment);
    } catch (err) {
      emit({ level: 'warn', message: 'merging segments off the main thread failed; merging them here', fields: { err: String((err as Error)?.message ?? err) } });
    }
  }
  if (signal === 'metrics') {
    const readers = openAll<MetricSegmentReader>(group, (meta) => book.readers.metric(meta));
    const enc = readers && encodeMetricSegment(mergeMetricReaders(readers));
    return enc && metricSegment(book.stamp(org, seq), enc);
  }
  const readers = openAll<LogSegmentReader>(group, (meta) => book.readers.log(meta));
  if (!readers) return undefined;
  const indexed = commonIndexedTags(readers);
  const enc = encodeLogSegment(mergeLogReaders(readers), indexed);
  return enc && logSegment(book.stamp(org, seq), enc, indexed);
}

async function mergeGroup(book: SegmentBook, org: string, signal: Signal, group: SegmentMeta[], merger: SegmentMerger | undefined, emit: EventSink): Promise<SegmentMeta | undefined> {
  await book.reserve(1);
  // Read the inputs without blocking the thread on I/O first: from an object store that is a download.
  await book.readers.prefetch(group);
  const pending = await encodeMerge(book, org, signal, group, merger, emit);
  if (!pending) return undefined;
  if (book.writerId !== undefined) pending.meta.writers = mergedWriters(group);
  const output = await book.store(pending);
  try {
    await book.commit({ add: [output], remove: new Set(group.map((s) => s.id)) }, () => {
      for (const s of group) book.readers.forget(s.id);
    });
  } catch (err) {
    // Another compactor got there first (shared catalog): this merge is not needed.
    await book.removeQuietly([output]);
    if (err instanceof CatalogConflictError) return undefined;
    throw err;
  }
  for (const s of group) await book.blobs.remove(s.file);
  return output;
}

/**
 * expireSegments deletes the segments whose newest timestamp is older than `retentionOf`
 * (per org and signal; 0 or infinite keeps them) before `nowMs`, and answers them.
 */
export async function expireSegments(book: SegmentBook, nowMs: number, retentionOf: (segment: SegmentMeta) => number, emit: EventSink): Promise<SegmentMeta[]> {
  const expired = book.catalog.state.segments.filter((s) => {
    const retention = retentionOf(s);
    return retention > 0 && Number.isFinite(retention) && s.maxMs < nowMs - retention;
  });
  if (expired.length === 0) return [];
  await book.commit({ remove: new Set(expired.map((s) => s.id)) }, () => {
    for (const s of expired) book.readers.forget(s.id);
  });
  for (const s of expired) await book.blobs.remove(s.file);
  emit({ level: 'info', message: 'retention deleted old segments', fields: { segments: expired.length, bytes: expired.reduce((n, s) => n + s.bytes, 0) } });
  return expired;
}
