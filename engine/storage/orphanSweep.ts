import type { BlobStore } from './blobStore.js';
import type { CatalogState } from './catalog.js';
import { SEGMENT_FILE } from './segmentMeta.js';
import type { EventSink } from './storageEvent.js';

/** NAMES_REPORTED bounds the file names one sweep's event lists. */
const NAMES_REPORTED = 20;

/**
 * sweepOrphanSegments deletes segment files that no catalog record names and that were last
 * written more than `graceMs` before `nowMs`. Scaled out, such a file is left by a process
 * that died between uploading a segment and committing its record (or by a delete that
 * failed after the record was removed); nothing will ever read it.
 *
 * The store is listed before the catalog is loaded, so every file old enough to be swept was
 * uploaded well before the catalog was read: its record, if it ever committed, is in it. The
 * grace period covers commits still under way. A catalog that is missing or names no segment at
 * all while old segment files exist is more likely the wrong catalog (or a store shared with another
 * installation) than one whose every file is an orphan, so nothing is deleted then.
 */
export async function sweepOrphanSegments(
  blobs: BlobStore,
  loadCatalog: () => Promise<CatalogState | undefined>,
  nowMs: number,
  graceMs: number,
  emit: EventSink,
): Promise<string[]> {
  const old = (await blobs.listStored()).filter((b) => SEGMENT_FILE.test(b.name) && b.modifiedMs <= nowMs - graceMs);
  if (old.length === 0) return [];
  const state = await loadCatalog();
  const named = new Set(state?.segments.map((s) => s.file));
  if (named.size === 0) {
    emit({ level: 'warn', message: 'segment store holds old segment files but the catalog names none; not deleting any (wrong catalog, or a bucket prefix shared with another installation?)', fields: { files: old.length } });
    return [];
  }
  const orphans = old.filter((b) => !named.has(b.name)).map((b) => b.name);
  for (const name of orphans) await blobs.remove(name);
  if (orphans.length > 0) {
    emit({ level: 'warn', message: 'removed segment files no catalog record names (left by a process that died between upload and commit)', fields: { files: orphans.length, names: orphans.slice(0, NAMES_REPORTED) } });
  }
  return orphans;
}
