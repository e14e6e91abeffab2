import type { CatalogState, SegmentMeta, Signal } from './catalog.js';
import type { LabelMatcher } from './matchers.js';
import type { LogSource, MetricSource } from './orgViews.js';
import type { MetricMetadataRecord } from './walCodec.js';

/**
 * PeerHeads is an org's un-cut data as the processes holding it answered for one query: their
 * heads (read-only sources over the fetched snapshots), the bound that tells which catalog
 * segments those heads already include, and what could not be fetched.
 */
export interface PeerHeads {
  metrics: MetricSource[];
  logs: LogSource[];
  /**
   * bounds has one entry per holder that answered: which catalog segments were cut from its
   * heads after they were read (their data is in `metrics`/`logs` too, so a read leaves them
   * out). Empty when no holder answered (every segment is read).
   */
  bounds: HeadBound[];
  /** unavailable describes each holder that did not answer: the answer lacks its recent data. */
  unavailable: string[];
  metadata: MetricMetadataRecord[];
}

/**
 * PeerHeadSource fetches an org's heads from the processes that hold them (ingesters, or a
 * process of role all). The service implements it over HTTP; the storage only asks.
 */
export interface PeerHeadSource {
  /**
   * fetch asks for an org's heads of one signal; `selectors`, when given, narrow the answer to
   * the series or streams matching every matcher of at least one of them, and `range` to the
   * samples and lines a query can read (see headFilter.ts).
   */
  fetch(org: string, signal: Signal, selectors?: ReadonlyArray<readonly LabelMatcher[]>, range?: TimeRange): Promise<PeerHeads>;
}

/** TimeRange is a span of milliseconds, both ends inclusive. */
export interface TimeRange {
  minMs: number;
  maxMs: number;
}

/**
 * HeadBound is one holder's answer about the segments it cut. `segmentsBefore` is the first
 * segment seq the holder had not committed when it read its heads. With `writer` set, the bound
 * concerns only segments that process wrote (meta.writer, or a merge's meta.writers): ids come
 * from a shared counter in blocks, so seqs are not ordered across writers. Without it the holder
 * is the catalog's only writer and the bound concerns every segment.
 */
export interface HeadBound {
  writer?: string;
  segmentsBefore: number;
  /** covered is, per write-log partition, the position the holder's committed segments cover. */
  covered?: Record<string, number>;
}

/** cutAfterHeads says whether a segment holds data some holder's heads still had when read. */
export function cutAfterHeads(meta: SegmentMeta, bounds: readonly HeadBound[]): boolean {
  for (const b of bounds) {
    if (b.writer === undefined) {
      if (meta.seq >= b.segmentsBefore) return true;
    } else if (meta.writer === b.writer) {
      if (meta.seq >= b.segmentsBefore) return true;
    } else if ((meta.writers?.[b.writer] ?? -1) >= b.segmentsBefore) {
      // A merge of one of this holder's segments cut after the heads were read: left out whole.
      return true;
    }
  }
  return false;
}

/**
 * catalogBehind says whether a catalog was read before some holder's last commit, so segments
 * whose data left that holder's heads may be missing from it. A sole writer's bound is its
 * catalog's next id; a holder among several commits its segments with its partitions' positions
 * in one transaction, so a catalog recording a lower position for one of them is older.
 */
export function catalogBehind(state: CatalogState, bounds: readonly HeadBound[]): boolean {
  for (const b of bounds) {
    if (b.writer === undefined) {
      if (state.nextSegmentId < b.segmentsBefore) return true;
      continue;
    }
    for (const [p, position] of Object.entries(b.covered ?? {})) if ((state.logPositions?.[p] ?? 0) < position) return true;
  }
  return false;
}
