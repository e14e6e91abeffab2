import { applyChange, type CatalogChange, type CatalogState } from './catalog.js';
import type { CatalogStore } from './catalogStore.js';

/**
 * CatalogWriter is how a storage that writes segments numbers them and records them: in a
 * catalog of its own (LocalCatalogWriter) or in one other processes write too
 * (SharedCatalogWriter). Cuts and merges call it one at a time.
 */
export interface CatalogWriter {
  /** reserve makes sure `count` segment ids are at hand before a cut or merge takes them. */
  reserve(count: number): Promise<void>;
  /** nextId takes the next segment id. */
  nextId(): number;
  /** commit saves `change` and answers the state this process reads from now on. */
  commit(change: CatalogChange, current: CatalogState): Promise<CatalogState>;
  /** segmentsBefore is the first segment seq not committed yet (see HeadExport.segmentsBefore). */
  segmentsBefore(current: CatalogState): number;
}

/** LocalCatalogWriter keeps the catalog of a storage that is its only writer: ids count up from the catalog's next id, and every change saves the whole state. */
export class LocalCatalogWriter implements CatalogWriter {
  constructor(
    private readonly store: CatalogStore,
    private nextSegmentId: number,
  ) {}

  async reserve(): Promise<void> {}

  nextId(): number {
    return this.nextSegmentId++;
  }

  async commit(change: CatalogChange, current: CatalogState): Promise<CatalogState> {
    const state = applyChange(current, { ...change, nextSegmentId: this.nextSegmentId });
    await this.store.save(state);
    return state;
  }

  segmentsBefore(current: CatalogState): number {
    return current.nextSegmentId;
  }
}
