import type { BlobStore } from './blobStore.js';
import type { CatalogState } from './catalog.js';
import { CatalogError } from './catalogStore.js';
import { SEGMENT_FILE } from './segmentMeta.js';
import type { SegmentReaders } from './segmentReaders.js';
import type { EventSink } from './storageEvent.js';

/**
 * reconcileBlobs compares the blob store with the catalog at start-up of a storage that is the
 * catalog's only writer: a segment file the catalog does not know was written by a cut or
 * compaction that crashed before registering it (its data is still in the WAL or in the
 * inputs), so it is deleted; a file the catalog lists but the store lacks is reported and will
 * be skipped by queries. Segment files without any catalog at all stop start-up instead:
 * deleting them could destroy the only copy of the data.
 */
export async function reconcileBlobs(blobs: BlobStore, state: CatalogState, catalogExisted: boolean, readers: SegmentReaders, emit: EventSink): Promise<void> {
  const stored = new Set((await blobs.list()).filter((name) => SEGMENT_FILE.test(name)));
  if (!catalogExisted && stored.size > 0) {
    throw new CatalogError(`found ${stored.size} segment files but no catalog; restore the catalog or move the files away`);
  }
  const known = new Set<string>();
  for (const meta of state.segments) {
    known.add(meta.file);
    if (!stored.has(meta.file)) readers.markFailed(meta, 'segment file missing');
  }
  for (const name of stored) {
    if (known.has(name)) continue;
    await blobs.remove(name);
    emit({ level: 'warn', message: 'removed segment file not in the catalog (left by an interrupted cut or compaction)', fields: { file: name } });
  }
}
