import { applyChange, type CatalogChange, type CatalogState } from './catalog.js';
import type { SharedCatalogStore } from './catalogStore.js';
import type { CatalogWriter } from './catalogWriter.js';

/** ID_BLOCK is the fewest segment ids taken from the shared counter at once, so most cuts need no round trip for ids. */
const ID_BLOCK = 64;

/**
 * SharedCatalogWriter records segments in a catalog other processes write too (scaled out):
 * only as changes, never whole states, with ids taken from the shared counter in blocks.
 * `keepsSegments` false is an ingester, which serves its heads only and so keeps no list of
 * the segments it cut; other processes track what they changed until their next refresh.
 */
export class SharedCatalogWriter implements CatalogWriter {
  private ids = { next: 0, end: 0 };
  /** committedBefore: every segment id below it this process took is committed (or never will be). */
  private committedBefore = 0;

  constructor(
    private readonly shared: SharedCatalogStore,
    private readonly keepsSegments: boolean,
  ) {}

  async reserve(count: number): Promise<void> {
    if (this.ids.end - this.ids.next >= count) return;
    const block = Math.max(count, ID_BLOCK);
    const first = await this.shared.reserveSegmentIds(block);
    this.ids = { next: first, end: first + block };
  }

  nextId(): number {
    if (this.ids.next >= this.ids.end) throw new Error('no segment id reserved');
    return this.ids.next++;
  }

  async commit(change: CatalogChange, current: CatalogState): Promise<CatalogState> {
    await this.shared.apply({ add: change.add, remove: change.remove && [...change.remove], logPositions: change.logPositions, metricMetadata: change.metricMetadata });
    // Cuts and merges run one at a time, so every id taken so far is now committed or abandoned.
    this.committedBefore = this.ids.next;
    return applyChange(current, this.keepsSegments ? change : { ...change, add: [] });
  }

  /** Among several writers only this process's own ids are ordered, so the bound is on them. */
  segmentsBefore(): number {
    return this.committedBefore;
  }
}
